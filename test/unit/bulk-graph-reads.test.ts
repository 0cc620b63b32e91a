import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as RDF from '@rdfjs/types';
import { df } from '../../src/rdf/namespaces.ts';
import { bulkGraphReads } from '../../src/store/bulk-graph-reads.ts';
import type { QuadFinder } from '../../src/store/graph-pattern-query.ts';

const n = (iri: string) => df.namedNode(iri);
const ENTRIES = n('http://t/d/1/entries');
const OTHER = n('http://t/d/2/entries');
const [COMPOUND, VALUE] = [n('http://t/compound'), n('http://t/value')];

/** Rows of two datasets: 100 in the first, 300 in the second, each row a compound and (most) a value; the same row nodes in both. */
const quads: RDF.Quad[] = [];
for (const [graph, rows] of [
  [ENTRIES, 100],
  [OTHER, 300],
] as const) {
  for (let i = 0; i < rows; i++) {
    const row = n(`http://t/row-${i}`);
    quads.push(df.quad(row, COMPOUND, n(`${graph.value}/c/${i % 7}`), graph));
    if (i % 3) quads.push(df.quad(row, VALUE, df.literal(String(i)), graph));
  }
}

/** A finder over the quads above that records what each call had bound. */
function recordingFinder(calls: string[]): QuadFinder {
  return async (s, p, o, g) => {
    calls.push([s, p, o, g].map((t) => (t ? 'x' : '_')).join(''));
    return quads.filter((q) => (!s || s.equals(q.subject)) && (!p || p.equals(q.predicate)) && (!o || o.equals(q.object)) && (!g || g.equals(q.graph)));
  };
}

async function lookUpRows(find: QuadFinder, predicate: RDF.NamedNode): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < 100; i++) {
    const found = find(n(`http://t/row-${i}`), predicate, undefined, ENTRIES);
    const list = found instanceof Promise ? await found : [];
    for (const q of list) out.push(`${q.subject.value} ${q.object.value}`);
  }
  return out;
}

test('after 32 lookups in a bulk graph, a query reads the predicate once and answers the rest as the lookups would', async () => {
  const direct = await lookUpRows(recordingFinder([]), VALUE);
  const calls: string[] = [];
  assert.deepEqual(await lookUpRows(bulkGraphReads(recordingFinder(calls)), VALUE), direct);
  // 32 lookups with subject, predicate and graph, then one read of the predicate, nothing more
  assert.deepEqual(calls, [...Array(32).fill('xx_x'), '_x__']);
});

test('a predicate read over the limit falls back to the graph, and a graph over it to the lookups', async () => {
  const direct = await lookUpRows(recordingFinder([]), COMPOUND);
  // the compound predicate has 400 quads over both graphs, the first graph 166: a limit of 200 reads the graph
  const graphCalls: string[] = [];
  assert.deepEqual(await lookUpRows(bulkGraphReads(recordingFinder(graphCalls), 200), COMPOUND), direct);
  assert.deepEqual(graphCalls.slice(32), ['_x__', '___x']);
  // a limit of 100: neither read is kept, every row is looked up
  const lookupCalls: string[] = [];
  assert.deepEqual(await lookUpRows(bulkGraphReads(recordingFinder(lookupCalls), 100), COMPOUND), direct);
  assert.deepEqual(lookupCalls.slice(32, 34), ['_x__', '___x']);
  assert.equal(lookupCalls.filter((c) => c === 'xx_x').length, 100);
});

test('lookups outside bulk graphs, or without a subject, are passed on as they are', async () => {
  const calls: string[] = [];
  const find = bulkGraphReads(recordingFinder(calls));
  for (let i = 0; i < 40; i++) await find(n(`http://t/r/${i}`), COMPOUND, undefined, n('http://t/d/1'));
  for (let i = 0; i < 40; i++) await find(undefined, COMPOUND, undefined, ENTRIES);
  assert.equal(calls.length, 80);
});
