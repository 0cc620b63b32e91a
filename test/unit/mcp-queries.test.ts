import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type * as RDF from '@rdfjs/types';
import { df, literal, ot, rdf, rdfs, xsd } from '../../src/rdf/namespaces.ts';
import { mcpQueries } from '../../src/mcp/mcp-queries.ts';
import { validationStatistics, validationSummaries, type ValidationRow } from '../../src/mcp/model-validations.ts';
import type { ServiceClient } from '../../src/mcp/service-client.ts';
import { sparql, type SparqlText } from '../../src/store/sparql-template.ts';
import { parsedQuery } from '../../src/store/parsed-query.ts';
import { storePlan } from '../../src/store/query-plan.ts';
import { allSolutions } from '../../src/store/solution-batches.ts';
import type { QueryOptions } from '../../src/store/triple-store.ts';
import { openStore, n, refusesBadIris, uris } from './query-template-support.ts';

const db = await openStore('mcp-queries');
after(() => db.close());

const [m1, m2, m3, m4] = [1, 2, 3, 4].map((i) => uris.item('model', i));
const [algorithm, dataset, feature] = [n(uris.item('algorithm', 'mlr')), n(uris.item('dataset', 1)), n(uris.item('feature', 1))];
const TYPE = rdf('type');

/** A validation of `model`: its statistics node with these values (and an IRI that is no statistic), and its counts. */
function validation(id: number, model: string, kind: 'regressionStatistics' | 'classificationStatistics', values: Record<string, number>, classes: Record<string, [number, number]> = {}) {
  const v = uris.item('validation', id);
  const s = n(`${v}#statistics`);
  return {
    [v]: [
      df.quad(n(v), ot('model'), n(model), n(v)),
      df.quad(n(v), ot(kind), s, n(v)),
      df.quad(n(v), ot('numInstances'), literal(10), n(v)),
      df.quad(n(v), ot('numUnpredicted'), literal(1), n(v)),
      df.quad(s, ot('note'), n('http://example.org/not-a-literal'), n(v)),
      ...Object.entries(values).map(([k, x]) => df.quad(s, ot(k), literal(x, xsd('double')), n(v))),
      ...Object.entries(classes).flatMap(([value, [tp, fn]]) => {
        const c = n(`${v}#class-${value}`);
        return [
          df.quad(s, ot('classValueStatistics'), c, n(v)),
          df.quad(c, ot('classValue'), literal(value), n(v)),
          df.quad(c, ot('numTruePositives'), literal(tp), n(v)),
          df.quad(c, ot('numFalseNegatives'), literal(fn), n(v)),
        ];
      }),
    ],
  };
}

/**
 * A cross-validation (of the recipe mlr on dataset 1 for feature 1, or of another, or of none): its
 * pooled statistics (q2 = `pooledQ2`) and one fold's (q2 0.1), which no answer may show.
 */
function crossvalidation(id: number, pooledQ2: number, recipe: [RDF.NamedNode, RDF.NamedNode, RDF.NamedNode] | null = [algorithm, dataset, feature], typed = true) {
  const cv = uris.item('crossvalidation', id);
  const [pooled, info, fold, foldResult] = ['pooled', 'info', 'fold-info', 'fold'].map((f) => n(`${cv}#${f}`));
  return {
    [cv]: [
      ...(typed ? [df.quad(n(cv), TYPE, ot('Crossvalidation'), n(cv))] : []),
      ...(recipe ? [df.quad(n(cv), ot('algorithm'), recipe[0], n(cv)), df.quad(n(cv), ot('dataset'), recipe[1], n(cv)), df.quad(n(cv), ot('predictionFeature'), recipe[2], n(cv))] : []),
      df.quad(n(cv), ot('numFolds'), literal(5), n(cv)),
      df.quad(n(cv), ot('algorithmParams'), literal('numTrees=10'), n(cv)),
      df.quad(n(cv), ot('yScramble'), literal(false), n(cv)),
      df.quad(pooled, ot('crossvalidationInfo'), info, n(cv)),
      df.quad(info, ot('crossvalidation'), n(cv), n(cv)),
      df.quad(pooled, ot('numInstances'), literal(12), n(cv)),
      df.quad(pooled, ot('regressionStatistics'), n(`${cv}#statistics`), n(cv)),
      df.quad(n(`${cv}#statistics`), ot('q2'), literal(pooledQ2, xsd('double')), n(cv)),
      df.quad(n(`${cv}#statistics`), ot('targetVarianceActual'), literal(2, xsd('double')), n(cv)),
      df.quad(foldResult, ot('crossvalidationInfo'), fold, n(cv)),
      df.quad(fold, ot('crossvalidation'), n(cv), n(cv)),
      df.quad(fold, ot('crossvalidationFold'), literal(1), n(cv)),
      df.quad(foldResult, ot('numInstances'), literal(4), n(cv)),
      df.quad(foldResult, ot('regressionStatistics'), n(`${cv}#fold-statistics`), n(cv)),
      df.quad(n(`${cv}#fold-statistics`), ot('q2'), literal(0.1, xsd('double')), n(cv)),
    ],
  };
}

// m1 and m3: a regression validation each; m2: a classification validation (two classes, tied)
// and the recipe of cross-validation 1 (not of 3, 4 and 5, which differ in one part of it, nor of
// 6, which is no ot:Crossvalidation); m4: cross-validation 2 named by rdfs:seeAlso (not its recipe),
// and cross-validation 1 named so too (found both ways), and 6 (not a cross-validation)
const other = (kind: 'algorithm' | 'dataset' | 'feature') => n(uris.item(kind, 9));
await db.store.replaceGraphs({
  ...validation(1, m1, 'regressionStatistics', { r2: 0.8, rmse: 0.5 }),
  ...validation(2, m2, 'classificationStatistics', { accuracy: 0.9 }, { b: [3, 2], a: [4, 1] }),
  ...validation(3, m3, 'regressionStatistics', { r2: 0.1 }),
  [m2]: [df.quad(n(m2), ot('algorithm'), algorithm, n(m2)), df.quad(n(m2), ot('trainingDataset'), dataset, n(m2)), df.quad(n(m2), ot('dependentVariables'), feature, n(m2))],
  [m4]: [1, 2, 6].map((i) => df.quad(n(m4), rdfs('seeAlso'), n(uris.item('crossvalidation', i)), n(m4))),
  ...crossvalidation(1, 0.7),
  ...crossvalidation(2, 0.6, null),
  ...crossvalidation(3, 0.5, [other('algorithm'), dataset, feature]),
  ...crossvalidation(4, 0.5, [algorithm, other('dataset'), feature]),
  ...crossvalidation(5, 0.5, [algorithm, dataset, other('feature')]),
  ...crossvalidation(6, 0.5, [algorithm, dataset, feature], false),
});

/** Each query must be one the store's own evaluator answers (not the query engine, 100 times slower here). */
function byTheStore(query: SparqlText | string): void {
  assert.ok(storePlan(parsedQuery(String(query))), `answered by the query engine, not the store's plan: ${query}`);
}

test('mcp queries: the places of the listed models’ validation statistics, each taken by the store’s own evaluator and answered as Comunica answers it', async () => {
  for (const make of Object.values(mcpQueries)) byTheStore(make([m1, m2]));
  assert.deepEqual(await db.rows(mcpQueries.validationsOf([m1, m2]), ['model', 'validation', 's']), [
    'model=/model/1 validation=/validation/1 s=/validation/1#statistics',
    'model=/model/2 validation=/validation/2 s=/validation/2#statistics',
  ]);
  // the pooled statistics only, never a fold's
  const cvVars = ['model', 'validation', 'folds', 'params', 'scrambled', 'scored', 's'];
  assert.deepEqual(await db.rows(mcpQueries.crossvalidationsOfRecipe([m1, m2, m4]), cvVars), [
    'model=/model/2 validation=/crossvalidation/1 folds="5"^^integer params="numTrees=10" scrambled="false"^^boolean scored=/crossvalidation/1#pooled s=/crossvalidation/1#statistics',
  ]);
  assert.deepEqual(
    (await db.rows(mcpQueries.crossvalidationsSeenAlso([m2, m4]), cvVars)).sort(),
    ['/crossvalidation/1', '/crossvalidation/2'].map(
      (cv) => `model=/model/4 validation=${cv} folds="5"^^integer params="numTrees=10" scrambled="false"^^boolean scored=${cv}#pooled s=${cv}#statistics`,
    ),
  );
  const s1 = `${uris.item('validation', 1)}#statistics`;
  assert.deepEqual((await db.rows(mcpQueries.statisticsOf([s1]), ['statistic', 'value'])).sort(), [
    `statistic=${ot('r2').value} value="0.8"^^double`,
    `statistic=${ot('rmse').value} value="0.5"^^double`,
  ]);
  assert.deepEqual((await db.rows(mcpQueries.countsOf([uris.item('validation', 1), `${uris.item('crossvalidation', 1)}#pooled`]), ['scored', 'statistic', 'value'])).sort(), [
    `scored=/crossvalidation/1#pooled statistic=${ot('numInstances').value} value="12"^^integer`,
    `scored=/validation/1 statistic=${ot('numInstances').value} value="10"^^integer`,
    `scored=/validation/1 statistic=${ot('numUnpredicted').value} value="1"^^integer`,
  ]);
  assert.deepEqual((await db.rows(mcpQueries.classCountsOf([s1, `${uris.item('validation', 2)}#statistics`]), ['class', 'tp', 'fn'])).sort(), [
    'class="a" tp="4"^^integer fn="1"^^integer',
    'class="b" tp="3"^^integer fn="2"^^integer',
  ]);
  for (const make of Object.values(mcpQueries)) refusesBadIris((iri) => make([iri]));
});

/** The one query list_models sent before (UNION, BIND, NOT EXISTS: the query engine's), the reference of the queries that replaced it. */
function unionQuery(models: string[]): SparqlText {
  return sparql`SELECT ?model ?validation ?folds ?params ?scrambled ?statistic ?value ?class ?tp ?fn WHERE {
  VALUES ?model { ${models.map((m) => n(m))} }
  {
    ?validation ${ot('model')} ?model .
    BIND(?validation AS ?scored)
  } UNION {
    { ?model ${ot('algorithm')} ?algorithm ; ${ot('trainingDataset')} ?dataset ; ${ot('dependentVariables')} ?feature .
      ?validation ${TYPE} ${ot('Crossvalidation')} ; ${ot('algorithm')} ?algorithm ; ${ot('dataset')} ?dataset ; ${ot('predictionFeature')} ?feature . }
    UNION
    { ?model ${rdfs('seeAlso')} ?validation . ?validation ${TYPE} ${ot('Crossvalidation')} . }
    ?validation ${ot('numFolds')} ?folds ; ${ot('algorithmParams')} ?params ; ${ot('yScramble')} ?scrambled .
    ?scored ${ot('crossvalidationInfo')} ?info . ?info ${ot('crossvalidation')} ?validation .
    FILTER NOT EXISTS { ?info ${ot('crossvalidationFold')} ?fold }
  }
  { ?scored ${ot('regressionStatistics')} ?s } UNION { ?scored ${ot('classificationStatistics')} ?s }
  {
    ?s ?statistic ?value . FILTER(isLiteral(?value))
  } UNION {
    VALUES ?statistic { ${ot('numInstances')} ${ot('numWithoutClass')} ${ot('numUnpredicted')} } ?scored ?statistic ?value .
  } UNION {
    ?s ${ot('classValueStatistics')} ?c . ?c ${ot('classValue')} ?class ; ${ot('numTruePositives')} ?tp ; ${ot('numFalseNegatives')} ?fn .
  }
}`;
}

const COMUNICA: QueryOptions = { engine: 'comunica', scope: { includesDefaultGraph: false, allows: () => true } };

/** The service's endpoint as list_models reaches it, on the test store: each query answered by the store's own plan, as SPARQL JSON results. */
function endpoint(answer: (query: string) => number = () => 200): ServiceClient & { sent: string[] } {
  const sent: string[] = [];
  const request = async (_method: string, target: string, options: { form?: Record<string, string> } = {}) => {
    assert.equal(target, '/sparql');
    const query = options.form!.query;
    sent.push(query);
    byTheStore(query);
    const status = answer(query);
    if (status !== 200) return { status, text: '{"message":"no"}' };
    const result = await db.store.query(query);
    assert.equal(result.type, 'bindings');
    const bindings = (await allSolutions((result as { solutions: AsyncIterable<Record<string, RDF.Term>> }).solutions)).map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, t]) => [k, { value: t.value }])),
    );
    return { status: 200, text: JSON.stringify({ results: { bindings } }) };
  };
  return { request, sent } as unknown as ServiceClient & { sent: string[] };
}

test('list_models’s validations: the same summaries from the store’s own queries as from the single query Comunica answered, folds left out, ties to the first class', async () => {
  const models = [m1, m2, m4];
  const reference = (await db.store.query(unionQuery(models), COMUNICA)) as { solutions: AsyncIterable<Record<string, RDF.Term | undefined>> };
  const rows = (await allSolutions(reference.solutions as AsyncIterable<Record<string, RDF.Term>>)).map(
    (b) => Object.fromEntries(Object.entries(b).map(([k, t]) => [k, t?.value])) as unknown as ValidationRow,
  );
  const client = endpoint();
  const found = await validationStatistics(client, models);
  assert.equal(client.sent.length, 6, 'three queries for the places, three for their statistics');
  const sortedOf = (m: Map<string, unknown[]>) => Object.fromEntries([...m].sort().map(([k, v]) => [k, [...v].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))]));
  // the reference's rows in both orders: a summary never depends on the order of the rows
  assert.deepEqual(sortedOf(found), sortedOf(validationSummaries(rows)));
  assert.deepEqual(sortedOf(found), sortedOf(validationSummaries([...rows].reverse())));
  assert.deepEqual([...found.keys()].sort(), [m1, m2, m4], 'no model that was not asked for, none without validations');
  // m2: its validation and the cross-validation of its recipe; the pooled statistics and counts, never a fold's
  const [v2, cv1] = [uris.item('validation', 2), uris.item('crossvalidation', 1)].map((v) => found.get(m2)!.find((s) => s.validation === v)!);
  assert.equal(found.get(m2)!.length, 2);
  assert.deepEqual(v2, {
    validation: v2.validation,
    kind: 'validation',
    statistics: { accuracy: 0.9, numInstances: 10, numUnpredicted: 1 },
    baseline: { kind: 'majority class', classValue: 'a', accuracy: 0.5, rows: 10 },
  });
  assert.deepEqual(cv1, {
    validation: cv1.validation,
    kind: 'crossvalidation',
    folds: 5,
    algorithm_params: 'numTrees=10',
    y_scrambled: false,
    statistics: { q2: 0.7, targetVarianceActual: 2, numInstances: 12 },
    baseline: { kind: 'mean predictor', rootMeanSquaredError: Math.sqrt((2 * 11) / 12), rSquare: 0, rows: 12 },
  });
  assert.deepEqual(
    found
      .get(m4)!
      .map((s) => s.validation)
      .sort(),
    [uris.item('crossvalidation', 1), uris.item('crossvalidation', 2)],
  );
  assert.deepEqual(found.get(m1)![0].statistics, { r2: 0.8, rmse: 0.5, numInstances: 10, numUnpredicted: 1 });
  // none asked for; an endpoint that refuses one query: no validations (as when it refused the one query)
  assert.equal((await validationStatistics(endpoint(), [])).size, 0);
  assert.equal(
    (
      await validationStatistics(
        endpoint((q) => (q.includes('isLiteral') ? 500 : 200)),
        models,
      )
    ).size,
    0,
  );
  assert.equal(
    (
      await validationStatistics(
        endpoint((q) => (q.includes(rdfs('seeAlso').value) ? 403 : 200)),
        models,
      )
    ).size,
    0,
  );
});
