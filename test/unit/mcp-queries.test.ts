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
  const rows = await db.rows(mcpQueries.validationStatistics([m1, m2]), ['model', 'statistic', 'value']);
  assert.equal(rows.length, 3, rows.join('\n'));
  assert.ok(
    rows.every((r) => !r.includes('/model/3') && !r.includes('not-a-literal')),
    rows.join('\n'),
  );
  refusesBadIris((iri) => mcpQueries.validationStatistics([iri]));
});
