import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { df, literal, ot, xsd } from '../../src/rdf/namespaces.ts';
import { mcpQueries } from '../../src/mcp/mcp-queries.ts';
import { openStore, n, refusesBadIris, uris } from './query-template-support.ts';

const db = await openStore('mcp-queries');
after(() => db.close());

test("mcp validationStatistics: the literal statistics of the listed models' validations only, as Comunica answers them", async () => {
  const [m1, m2, m3] = [1, 2, 3].map((i) => uris.item('model', i));
  const validation = (id: number, model: string, kind: 'regressionStatistics' | 'classificationStatistics', values: Record<string, number>) => {
    const v = uris.item('validation', id);
    const s = n(`${v}#statistics`);
    return {
      [v]: [
        df.quad(n(v), ot('model'), n(model), n(v)),
        df.quad(n(v), ot(kind), s, n(v)),
        df.quad(s, ot('note'), n('http://example.org/not-a-literal'), n(v)),
        ...Object.entries(values).map(([k, x]) => df.quad(s, ot(k), literal(x, xsd('double')), n(v))),
      ],
    };
  };
  await db.store.replaceGraphs({
    ...validation(1, m1, 'regressionStatistics', { r2: 0.8, rmse: 0.5 }),
    ...validation(2, m2, 'classificationStatistics', { accuracy: 0.9 }),
    ...validation(3, m3, 'regressionStatistics', { r2: 0.1 }),
  });
  // a cross-validation of m2's recipe: its pooled statistics, found through the recipe (algorithm,
  // training dataset, target), with its folds, parameters and scrambling; a fold's are left out
  const [algorithm, dataset, feature] = [n(uris.item('algorithm', 'mlr')), n(uris.item('dataset', 1)), n(uris.item('feature', 1))];
  const cv = uris.item('crossvalidation', 1);
  const pooled = n(`${cv}#pooled`);
  const info = n(`${cv}#info`);
  const fold = n(`${cv}#fold-info`);
  const foldStatistics = n(`${cv}#fold`);
  await db.store.replaceGraphs({
    [m2]: [df.quad(n(m2), ot('algorithm'), algorithm, n(m2)), df.quad(n(m2), ot('trainingDataset'), dataset, n(m2)), df.quad(n(m2), ot('dependentVariables'), feature, n(m2))],
    [cv]: [
      df.quad(n(cv), df.namedNode('http://www.w3.org/1999/02/22-rdf-syntax-ns#type'), ot('Crossvalidation'), n(cv)),
      df.quad(n(cv), ot('algorithm'), algorithm, n(cv)),
      df.quad(n(cv), ot('dataset'), dataset, n(cv)),
      df.quad(n(cv), ot('predictionFeature'), feature, n(cv)),
      df.quad(n(cv), ot('numFolds'), literal(5), n(cv)),
      df.quad(n(cv), ot('algorithmParams'), literal('numTrees=10'), n(cv)),
      df.quad(n(cv), ot('yScramble'), literal(false), n(cv)),
      df.quad(pooled, ot('crossvalidationInfo'), info, n(cv)),
      df.quad(info, ot('crossvalidation'), n(cv), n(cv)),
      df.quad(pooled, ot('regressionStatistics'), n(`${cv}#statistics`), n(cv)),
      df.quad(n(`${cv}#statistics`), ot('q2'), literal(0.7, xsd('double')), n(cv)),
      df.quad(foldStatistics, ot('crossvalidationInfo'), fold, n(cv)),
      df.quad(fold, ot('crossvalidation'), n(cv), n(cv)),
      df.quad(fold, ot('crossvalidationFold'), literal(1), n(cv)),
      df.quad(foldStatistics, ot('regressionStatistics'), n(`${cv}#fold-statistics`), n(cv)),
      df.quad(n(`${cv}#fold-statistics`), ot('q2'), literal(0.1, xsd('double')), n(cv)),
    ],
  });
  const rows = await db.rows(mcpQueries.validationStatistics([m1, m2]), ['model', 'statistic', 'value']);
  assert.equal(rows.length, 4, rows.join('\n'));
  const cvRows = await db.rows(mcpQueries.validationStatistics([m2]), ['validation', 'folds', 'params', 'scrambled', 'statistic', 'value']);
  assert.deepEqual(
    cvRows.filter((r) => r.includes('crossvalidation')),
    [`validation=/crossvalidation/1 folds="5"^^integer params="numTrees=10" scrambled="false"^^boolean statistic=${ot('q2').value} value="0.7"^^double`],
  );
  assert.ok(
    rows.every((r) => !r.includes('/model/3') && !r.includes('not-a-literal')),
    rows.join('\n'),
  );
  refusesBadIris((iri) => mcpQueries.validationStatistics([iri]));
});
