import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { df } from '../src/rdf/namespaces.js';
import { select } from '../src/store/query-helpers.js';
import { sparql } from '../src/store/sparql-template.js';
import { startTestServer, type TestServer } from './helpers.js';

/**
 * What the remote store must do beyond the component suites (`npm run test:remote`, with
 * TOXGRAPH_TEST_STORE=virtuoso; skipped on the embedded store).
 */
const remote = process.env.TOXGRAPH_TEST_STORE === 'virtuoso';
const skip = !remote && 'the remote store only (npm run test:remote)';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

let s: TestServer;
before(async () => {
  if (remote) s = await startTestServer();
});
after(() => s?.stop());

test('values travel unchanged: doubles to the last digit, booleans, and expressions still see numbers', { skip }, async () => {
  const g = 'http://example.org/remote/values';
  const p = df.namedNode('http://example.org/p');
  const values = ['-2.7182818284590451', '0.30000000000000004', '10', '9', '-1', '1.5e-7'];
  await s.services.store.replaceGraphs({
    [g]: [
      ...values.map((v, i) => df.quad(df.namedNode(`${g}#v${i}`), p, df.literal(v, df.namedNode(`${XSD}double`)))),
      df.quad(df.namedNode(`${g}#flag`), df.namedNode('http://example.org/flag'), df.literal('true', df.namedNode(`${XSD}boolean`))),
    ],
  });
  const read = await s.services.store.readGraph(g);
  assert.deepEqual(
    read
      .filter((q) => q.predicate.equals(p))
      .map((q) => q.object.value)
      .sort(),
    [...values].sort(),
  );
  assert.ok(
    read.every((q) => q.object.termType !== 'Literal' || q.object.datatype.value.startsWith(XSD)),
    'original datatypes',
  );
  assert.equal(read.find((q) => q.predicate.value === 'http://example.org/flag')?.object.value, 'true');
  // FILTER and ORDER BY compare numbers, not the stored text
  const rows = await select(s.services.store, sparql`SELECT ?v WHERE { GRAPH ${df.namedNode(g)} { ?x ${p} ?v } FILTER(?v > 0.5) } ORDER BY ?v`);
  assert.deepEqual(
    rows.map((r) => r.v.value),
    ['9', '10'],
  );
  // a pattern constant finds the value it names
  const exact = await select(s.services.store, sparql`SELECT ?x WHERE { GRAPH ?g { ?x ${p} ${df.literal('-2.7182818284590451', df.namedNode(`${XSD}double`))} } }`);
  assert.deepEqual(
    exact.map((r) => r.x.value),
    [`${g}#v0`],
  );
});

test('a reader that stops early gives its connection back: many partial reads, then a whole one', { skip, timeout: 120_000 }, async () => {
  const g = 'http://example.org/remote/big';
  await s.services.store.replaceGraphs({ [g]: Array.from({ length: 5000 }, (_, i) => df.quad(df.namedNode(`${g}#r${i}`), df.namedNode('http://example.org/n'), df.literal(String(i)))) });
  for (let i = 0; i < 40; i++) {
    for await (const _ of s.services.store.streamGraph(g)) break;
  }
  assert.equal((await s.services.store.readGraph(g)).length, 5000);
});
