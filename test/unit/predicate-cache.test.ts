import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as RDF from '@rdfjs/types';
import { df } from '../../src/rdf/namespaces.ts';
import { PredicateCache, predicateCacheReads } from '../../src/store/predicate-cache.ts';
import { allQuads, type QuadFinder } from '../../src/store/graph-pattern-query.ts';
import { QuadstoreTripleStore } from '../../src/store/quadstore-triple-store.ts';
import type { GraphScope, Solution } from '../../src/store/triple-store.ts';

const n = (iri: string) => df.namedNode(iri);
const [SMILES, TITLE] = [n('http://t/smiles'), n('http://t/title')];
const graphOf = (i: number) => n(`http://t/c/${i}`);

/** 100 compounds, each in its own graph with a SMILES and a title. */
const quads: RDF.Quad[] = [];
for (let i = 0; i < 100; i++) {
  quads.push(df.quad(graphOf(i), SMILES, df.literal(i % 2 ? `C${i}Cl` : `C${i}`), graphOf(i)));
  quads.push(df.quad(graphOf(i), TITLE, df.literal(`compound ${i}`, 'en'), graphOf(i)));
}

/** A finder over the quads above that records what each call had bound. */
function recordingFinder(calls: string[]): QuadFinder {
  return async (s, p, o, g) => {
    calls.push([s, p, o, g].map((t) => (t ? 'x' : '_')).join(''));
    return quads.filter((q) => (!s || s.equals(q.subject)) && (!p || p.equals(q.predicate)) && (!o || o.equals(q.object)) && (!g || g.equals(q.graph)));
  };
}

const keys = (list: readonly RDF.Quad[]) => list.map((q) => `${q.subject.value} ${q.object.value}`).sort();

test('the predicate cache reads a predicate after its second whole read, then answers every pattern of it without the finder', async () => {
  const calls: string[] = [];
  const cache = new PredicateCache();
  const find = predicateCacheReads(recordingFinder(calls), cache);
  const whole = async () => keys(await allQuads(find(undefined, SMILES, undefined, undefined)));
  const expected = keys(quads.filter((q) => q.predicate.equals(SMILES)));
  assert.deepEqual(await whole(), expected);
  assert.equal(cache.get(SMILES.value), undefined, 'one whole read keeps nothing');
  assert.deepEqual(await whole(), expected);
  assert.ok(cache.get(SMILES.value), 'the second whole read keeps the predicate');
  assert.deepEqual(calls, ['_x__', '_x__']);
  // by subject, by object (the exact term: a literal's datatype counts), by graph, with a limit
  assert.deepEqual(keys(await allQuads(find(graphOf(3), SMILES, undefined, undefined))), ['http://t/c/3 C3Cl']);
  assert.deepEqual(keys(await allQuads(find(undefined, SMILES, df.literal('C4'), undefined))), ['http://t/c/4 C4']);
  assert.deepEqual(keys(await allQuads(find(undefined, SMILES, df.literal('C4', n('http://t/other')), undefined))), []);
  assert.deepEqual(keys(await allQuads(find(graphOf(5), SMILES, df.literal('C4'), undefined))), []);
  assert.deepEqual(keys(await allQuads(find(undefined, SMILES, undefined, graphOf(7)))), ['http://t/c/7 C7Cl']);
  assert.equal((await allQuads(find(undefined, SMILES, undefined, undefined, 10))).length, 10);
  assert.deepEqual(calls, ['_x__', '_x__', '_x_x'], "none of these went to the finder but the one of a resource's graph (the graph cache's)");
  // the cached literal is still the same term as a parsed one
  const [cached] = await allQuads(find(graphOf(2), SMILES, undefined, undefined));
  assert.ok(cached.object.equals(df.literal('C2')) && df.literal('C2').equals(cached.object));
  assert.equal((cached.object as RDF.Literal).datatype.value, 'http://www.w3.org/2001/XMLSchema#string');
});

test('lookups fill the predicate cache only after many of them; a limited read never does', async () => {
  const calls: string[] = [];
  const cache = new PredicateCache();
  const find = predicateCacheReads(recordingFinder(calls), cache);
  for (let i = 0; i < 10; i++) await allQuads(find(undefined, TITLE, undefined, undefined, 5));
  assert.equal(cache.get(TITLE.value), undefined);
  for (let i = 0; i < 64; i++) assert.equal((await allQuads(find(graphOf(i), TITLE, undefined, undefined))).length, 1);
  assert.equal(cache.get(TITLE.value), undefined, '64 lookups keep nothing');
  assert.equal((await allQuads(find(graphOf(64), TITLE, undefined, undefined))).length, 1);
  assert.ok(cache.get(TITLE.value));
  assert.deepEqual(calls.slice(-2), ['xx__', '_x__'], 'the 65th lookup read the predicate instead');
});

test('a write drops the predicates it touches, also from a read still filling; the budget bounds what is kept', async () => {
  const cache = new PredicateCache();
  let release: () => void = () => undefined;
  const slow: QuadFinder = async (s, p) => {
    await new Promise<void>((r) => (release = r));
    return quads.filter((q) => q.predicate.equals(p as RDF.Term));
  };
  const find = predicateCacheReads(slow, cache);
  const read = () => allQuads(find(undefined, SMILES, undefined, undefined));
  const first = read();
  release();
  await first;
  const filling = read();
  await new Promise((r) => setImmediate(r));
  cache.invalidate([df.quad(graphOf(0), SMILES, df.literal('changed'), graphOf(0))]);
  release();
  assert.equal((await filling).length, 100, 'the read still answers');
  assert.equal(cache.get(SMILES.value), undefined, 'what it read is not kept');
  // two whole reads again: held, then dropped by a write of the predicate (not by one of another)
  for (let i = 0; i < 2; i++) {
    const again = read();
    await new Promise((r) => setImmediate(r));
    release();
    await again;
  }
  assert.ok(cache.get(SMILES.value));
  cache.invalidate([quads[1]]); // a title
  assert.ok(cache.get(SMILES.value));
  cache.invalidate([quads[0]]);
  assert.equal(cache.get(SMILES.value), undefined);
  // a budget too small for the predicate: not kept, and not read again until a write changes it
  const calls: string[] = [];
  const small = new PredicateCache(2000);
  const limited = predicateCacheReads(recordingFinder(calls), small);
  for (let i = 0; i < 4; i++) assert.equal((await allQuads(limited(undefined, SMILES, undefined, undefined))).length, 100);
  assert.equal(small.get(SMILES.value), undefined);
  assert.ok(small.size <= 2000);
  assert.equal(calls.length, 5, 'two whole reads, one fill that stopped, then whole reads again (never another fill)');
});

test('past its budget the predicate cache lets the least recently used predicate go', async () => {
  const [A, B, C] = ['a', 'b', 'c'].map((x) => n(`http://t/${x}`));
  const data = [A, B, C].flatMap((p) => Array.from({ length: 10 }, (_, i) => df.quad(graphOf(i), p, df.literal(String(i)), graphOf(i))));
  const finder: QuadFinder = async (s, p) => data.filter((q) => (!s || s.equals(q.subject)) && (!p || p.equals(q.predicate)));
  // one predicate weighs about 10 x 128 + its terms' characters: room for two, not three
  const cache = new PredicateCache(4000, 1);
  const find = predicateCacheReads(finder, cache);
  const fill = async (p: RDF.NamedNode) => {
    for (let i = 0; i < 2; i++) await allQuads(find(undefined, p, undefined, undefined));
  };
  await fill(A);
  await fill(B);
  assert.ok(cache.get(A.value) && cache.get(B.value));
  cache.get(A.value); // A used after B
  await fill(C);
  assert.ok(cache.get(A.value), 'the recently used one stays');
  assert.ok(cache.get(C.value));
  assert.equal(cache.get(B.value), undefined, 'the least recently used one went');
  assert.ok(cache.size <= 4000);
});

test('a scope sees only its graphs in what the predicate cache holds, kept per scope key and never shared across keys', async () => {
  const cache = new PredicateCache();
  const fill = predicateCacheReads(recordingFinder([]), cache);
  for (let i = 0; i < 2; i++) await allQuads(fill(undefined, SMILES, undefined, undefined));
  assert.ok(cache.get(SMILES.value));
  const even: GraphScope = { allows: (g) => Number(g.split('/').pop()) % 2 === 0, includesDefaultGraph: false, key: 'even' };
  const odd: GraphScope = { allows: (g) => Number(g.split('/').pop()) % 2 === 1, includesDefaultGraph: false, key: 'odd' };
  const unkeyed: GraphScope = { allows: (g) => g.endsWith('/1'), includesDefaultGraph: false };
  const scoped = (scope: GraphScope) => predicateCacheReads(recordingFinder([]), cache, scope);
  const smiles = async (scope: GraphScope) => (await allQuads(scoped(scope)(undefined, SMILES, undefined, undefined))).map((q) => q.object.value);
  assert.ok((await smiles(even)).every((v) => !v.endsWith('Cl')));
  assert.equal((await smiles(even)).length, 50);
  assert.ok((await smiles(odd)).every((v) => v.endsWith('Cl')));
  assert.deepEqual(await smiles(unkeyed), ['C1Cl']);
  assert.deepEqual(await allQuads(scoped(odd)(graphOf(2), SMILES, undefined, undefined)), []);
  assert.deepEqual(await allQuads(scoped(odd)(undefined, SMILES, df.literal('C2'), undefined)), []);
});

// the store: queries answered from the cache see every write at once
let dir: string;
let store: QuadstoreTripleStore;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toxgraph-predicate-cache-'));
  store = await QuadstoreTripleStore.open(dir);
  const graphs: Record<string, RDF.Quad[]> = {};
  for (const q of quads) (graphs[q.graph.value] ??= []).push(q);
  await store.replaceGraphs(graphs);
});
after(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function select(text: string, scope?: GraphScope): Promise<string[]> {
  const result = await store.query(text, scope ? { scope } : {});
  assert.equal(result.type, 'bindings');
  const out: string[] = [];
  for await (const s of (result as { solutions: AsyncIterable<Solution> }).solutions)
    out.push(
      Object.values(s)
        .map((t) => t.value)
        .join(' '),
    );
  return out.sort();
}

test('a store query answered from the predicate cache sees each write, replace and delete as soon as it is done', async () => {
  const withCl = `SELECT ?c WHERE { ?c <${SMILES.value}> ?s FILTER(CONTAINS(?s, "Cl")) }`;
  for (let i = 0; i < 3; i++) assert.equal((await select(withCl)).length, 50);
  await store.replaceGraphs({ [graphOf(0).value]: [df.quad(graphOf(0), SMILES, df.literal('CCl'), graphOf(0))] });
  assert.equal((await select(withCl)).length, 51);
  await store.update(`INSERT DATA { GRAPH <http://t/new> { <http://t/new> <${SMILES.value}> "ClCl" } }`);
  assert.equal((await select(withCl)).length, 52);
  await store.deleteGraphs([graphOf(1).value, 'http://t/new']);
  assert.equal((await select(withCl)).length, 50);
  const hidden: GraphScope = { allows: (g) => g !== graphOf(3).value, includesDefaultGraph: true, key: 'all but 3' };
  assert.equal((await select(withCl, hidden)).length, 49);
  assert.deepEqual(await select(`SELECT ?s WHERE { <${graphOf(3).value}> <${SMILES.value}> ?s }`, hidden), []);
});

test("a LIMIT's first quads, kept for the same query asked again, give way to every write", async () => {
  const first = 'SELECT ?s ?o WHERE { ?s ?p ?o } LIMIT 3';
  const before = await select(first);
  assert.equal(before.length, 3);
  assert.deepEqual(await select(first), before);
  // the graph of a subject among the first deleted: it is no longer among them
  const [subject] = before[0].split(' ');
  const quadsOf = await store.readGraph(subject);
  await store.deleteGraphs([subject]);
  const after = await select(first);
  assert.equal(after.length, 3);
  assert.ok(!after.some((row) => row.startsWith(`${subject} `)), `${subject} is gone: ${after}`);
  await store.replaceGraphs({ [subject]: quadsOf });
  assert.deepEqual(await select(first), before);
});

test('a subject found in no dataset rows is not looked up there again, until rows are written', async () => {
  const described = async (iri: string) => {
    const result = await store.query(`DESCRIBE <${iri}>`);
    assert.equal(result.type, 'quads');
    const out: string[] = [];
    for await (const q of (result as { quads: AsyncIterable<RDF.Quad> }).quads) out.push(`${q.predicate.value} ${q.object.value}`);
    return out.sort();
  };
  const compound = graphOf(5).value;
  const before = await described(compound);
  assert.equal(before.length, 2);
  assert.deepEqual(await described(compound), before);
  // the compound becomes the subject of a dataset's rows: DESCRIBE finds it there at once
  const entries = 'http://t/d/1/entries';
  await store.replaceGraphs({ [entries]: [df.quad(graphOf(5), n('http://t/value'), df.literal('7'), n(entries))] });
  assert.deepEqual(await described(compound), [...before, 'http://t/value 7'].sort());
  await store.deleteGraphs([entries]);
  assert.deepEqual(await described(compound), before);
});
