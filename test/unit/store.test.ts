import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QuadstoreTripleStore } from '../../src/store/quadstore-triple-store.ts';
import { sparql } from '../../src/store/sparql-template.ts';
import { select, ask } from '../../src/store/query-helpers.ts';
import { df } from '../../src/rdf/namespaces.ts';
import { IdMinter } from '../../src/store/id-minter.ts';

let dir: string;
let store: QuadstoreTripleStore;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toxgraph-store-'));
  store = await QuadstoreTripleStore.open(dir);
});
after(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const n = (iri: string) => df.namedNode(iri);
const q = (s: string, p: string, o: string | ReturnType<typeof df.literal>) => df.quad(n(s), n(p), typeof o === 'string' ? n(o) : o);

test('hostile strings bound into templates stay literals and match exactly', async () => {
  const evil = ['x" } ; DROP ALL ; INSERT DATA { <a:b> <c:d> "e" } #', 'line\nbreak\r\ttab', 'back\\slash "\\"', "'single'", '{ } . ; ,'];
  await store.replaceGraphs({ 'http://t/g1': evil.map((v, i) => q(`http://t/s${i}`, 'http://t/title', df.literal(v))) });
  for (const v of evil) {
    const rows = await select(store, sparql`SELECT ?s WHERE { GRAPH ?g { ?s ${n('http://t/title')} ${df.literal(v)} } }`);
    assert.equal(rows.length, 1, JSON.stringify(v));
  }
  assert.equal(await ask(store, sparql`ASK { <a:b> <c:d> "e" }`), false);
  assert.equal((await store.readGraph('http://t/g1')).length, evil.length);
});

test('the template builder refuses plain strings, blank nodes and IRIs that could break out', () => {
  assert.throws(() => sparql`SELECT * WHERE { ?s ?p ${'plain string' as any} }`, /only RDF terms/);
  assert.throws(() => sparql`SELECT * WHERE { ?s ?p ${df.blankNode('b')} }`, /blank nodes/);
  for (const bad of ['http://x> } DROP ALL { <y', 'http://x/ space', 'http://x/"', 'relative/iri', 'http://x/{}', 'http://x/\n']) {
    assert.throws(() => sparql`ASK { ${n(bad)} ?p ?o }`, /not a valid absolute IRI/, bad);
  }
  assert.throws(() => sparql`ASK { ?s ?p ${df.literal('x', 'en"} DROP ALL {')} }`, /language tag/);
  assert.equal(sparql`ASK { ?s ?p ${df.literal('a"b\nc')} }`.text, 'ASK { ?s ?p "a\\"b\\nc" }');
});

test('replaceGraphs is atomic over several graphs and replaces exactly', async () => {
  await store.replaceGraphs({ 'http://t/a': [q('http://t/x', 'http://t/p', 'http://t/1')], 'http://t/b': [q('http://t/y', 'http://t/p', 'http://t/2')] });
  await store.replaceGraphs({ 'http://t/a': [q('http://t/x', 'http://t/p', 'http://t/3')] });
  assert.deepEqual(
    (await store.readGraph('http://t/a')).map((x) => x.object.value),
    ['http://t/3'],
  );
  assert.equal((await store.readGraph('http://t/b')).length, 1);
  // a batch with an invalid quad fails as a whole
  await assert.rejects(store.replaceGraphs({ 'http://t/a': [], 'http://t/b': [{ bogus: true } as any] }));
  assert.equal((await store.readGraph('http://t/a')).length, 1);
  assert.equal((await store.readGraph('http://t/b')).length, 1);
  await store.deleteGraphs(['http://t/a', 'http://t/b']);
  assert.equal(await store.hasGraph('http://t/a'), false);
});

test('a SPARQL update request is applied all or nothing, and later operations see earlier ones', async () => {
  await store.update(
    'INSERT DATA { GRAPH <http://t/u> { <http://t/s> <http://t/p> "1" } } ; INSERT { GRAPH <http://t/u> { ?s <http://t/q> "2" } } WHERE { GRAPH <http://t/u> { ?s <http://t/p> "1" } }',
  );
  assert.equal((await store.readGraph('http://t/u')).length, 2);
  await assert.rejects(store.update('DROP GRAPH <http://t/u> ; INSERT DATA { GRAPH <http://t/v> { <http://t/s> <http://t/p> "x" } } ; LOAD <http://127.0.0.1:1/nothing.ttl>'));
  assert.equal((await store.readGraph('http://t/u')).length, 2, 'the failed request dropped nothing');
  assert.equal(await store.hasGraph('http://t/v'), false, 'and inserted nothing');
});

test('every pattern with a bound literal object is answered (the 8-index set)', async () => {
  await store.replaceGraphs({ 'http://t/lit': [q('http://t/s', 'http://t/p', df.literal('x')), q('http://t/s', 'http://t/p', df.literal('1.5', n('http://www.w3.org/2001/XMLSchema#double')))] });
  for (const obj of [df.literal('x'), df.literal('1.5', n('http://www.w3.org/2001/XMLSchema#double'))]) {
    for (const s of [n('http://t/s'), null])
      for (const p of [n('http://t/p'), null])
        for (const g of [n('http://t/lit'), null, df.defaultGraph()]) {
          const found = await store.quadstore.get({ subject: s ?? undefined, predicate: p ?? undefined, object: obj, graph: g ?? undefined } as any);
          assert.equal(found.items.length, g?.termType === 'DefaultGraph' ? 0 : 1);
        }
  }
});

test('bulk graphs ({uri}/entries) answer every pattern and share atomic batches with the main store', async () => {
  const entries = 'http://t/ds/1/entries';
  const lit = df.literal('2.5', n('http://www.w3.org/2001/XMLSchema#double'));
  await store.replaceGraphs({
    'http://t/ds/1': [q('http://t/ds/1', 'http://t/title', df.literal('ds'))],
    [entries]: [q('http://t/ds/1#e1', 'http://t/f1', lit), q('http://t/ds/1#e1', 'http://t/compound', 'http://t/c1'), q('http://t/ds/1#e2', 'http://t/f1', df.literal('x'))],
  });
  assert.equal((await store.readGraph(entries)).length, 3);
  // bulk quads are not in the main indexes, but every query pattern sees them
  assert.equal((await store.quadstore.get({ graph: n(entries) } as any)).items.length, 0);
  for (const query of [
    'SELECT * WHERE { ?e <http://t/f1> "2.5"^^<http://www.w3.org/2001/XMLSchema#double> }',
    'SELECT * WHERE { GRAPH <http://t/ds/1/entries> { ?e <http://t/f1> "2.5"^^<http://www.w3.org/2001/XMLSchema#double> } }',
    'SELECT * WHERE { <http://t/ds/1#e1> <http://t/f1> ?v }',
    'SELECT * WHERE { ?e ?p "2.5"^^<http://www.w3.org/2001/XMLSchema#double> }',
    'SELECT * WHERE { GRAPH ?g { ?e <http://t/compound> <http://t/c1> } }',
  ]) {
    const result = await store.query(query);
    let count = 0;
    if (result.type === 'bindings') for await (const _ of result.solutions) count++;
    assert.equal(count, 1, query);
  }
  // one failing batch over both partitions changes neither
  await assert.rejects(store.replaceGraphs({ 'http://t/ds/1': [], [entries]: [{ bogus: true } as any] }));
  assert.equal((await store.readGraph('http://t/ds/1')).length, 1);
  assert.equal((await store.readGraph(entries)).length, 3);
  await store.deleteGraphs(['http://t/ds/1', entries]);
  assert.equal(await store.hasGraph(entries), false);
  assert.equal(await store.hasGraph('http://t/ds/1'), false);
});

test('a subject over every graph finds its statements in bulk graphs too, looked up graph by graph, also after a restart', async () => {
  const dir2 = await mkdtemp(join(tmpdir(), 'toxgraph-store-subject-'));
  const count = async (s: QuadstoreTripleStore, query: string) => {
    const result = await s.query(query);
    let n = 0;
    if (result.type === 'bindings') for await (const _ of result.solutions) n++;
    return n;
  };
  const SUBJECT = 'SELECT * WHERE { <http://t/ds/2#e1> ?p ?o }';
  let reopened = await QuadstoreTripleStore.open(dir2);
  try {
    await reopened.replaceGraphs({
      'http://t/ds/2/entries': [
        q('http://t/ds/2#e1', 'http://t/f1', df.literal('a')),
        q('http://t/ds/2#e1', 'http://t/compound', 'http://t/c1'),
        q('http://t/ds/2#e2', 'http://t/f1', df.literal('b')),
      ],
      'http://t/ds/3/entries': [q('http://t/ds/2#e1', 'http://t/f2', df.literal('c'))],
      'http://t/ds/2': [q('http://t/ds/2#e1', 'http://t/note', df.literal('d'))],
    });
    assert.equal(await count(reopened, SUBJECT), 4);
    // the graphs of the bulk partition are read off its index at start
    await reopened.close();
    reopened = await QuadstoreTripleStore.open(dir2);
    assert.equal(await count(reopened, SUBJECT), 4);
    assert.equal(await count(reopened, 'SELECT * WHERE { <http://t/ds/2#e1> ?p "c" }'), 1);
    assert.equal(await count(reopened, 'SELECT * WHERE { <http://t/ds/9#e1> ?p ?o }'), 0);
  } finally {
    await reopened.close();
    await rm(dir2, { recursive: true, force: true });
  }
});

test('graphBatches reads a graph of several batches whole and in subject order, and stops cleanly when its reader stops', async () => {
  const entries = 'http://t/ds/batches/entries';
  const subject = (i: number) => `http://t/ds/batches#entry-${String(i).padStart(8, '0')}`;
  const written = Array.from({ length: 2500 }, (_, i) => q(subject(i), 'http://t/f1', df.literal(String(i))));
  await store.replaceGraphs({ [entries]: written });
  const read: string[] = [];
  let batches = 0;
  for await (const batch of store.graphBatches(entries)) {
    batches++;
    for (const quad of batch) read.push(quad.subject.value);
  }
  assert.ok(batches >= 3, `${batches} batches`);
  assert.deepEqual(
    read,
    written.map((w) => w.subject.value),
  );
  // a reader that stops after the first batch (a batch read ahead is pending then) leaves the store usable
  for await (const batch of store.graphBatches(entries)) {
    assert.equal(batch[0].subject.value, subject(0));
    break;
  }
  await store.deleteGraphs([entries]);
  assert.equal(await store.hasGraph(entries), false);
});

test('every LevelDB iterator that quadstore drains is closed (an open one pins memory until the process ends)', async () => {
  const { ClassicLevel } = await import('classic-level');
  const { Quadstore } = await import('quadstore');
  const { INDEXES } = await import('../../src/store/indexes.ts');
  const { closingIterators } = await import('../../src/store/closing-iterators.ts');
  const path = await mkdtemp(join(tmpdir(), 'toxgraph-iterators-'));
  const db = new ClassicLevel<string, Uint8Array>(path, { keyEncoding: 'utf8', valueEncoding: 'view' } as any) as any;
  let opened = 0;
  let closed = 0;
  const iterator = db.iterator.bind(db);
  db.iterator = (options: unknown) => {
    const it = iterator(options);
    opened++;
    const close = it.close.bind(it);
    it.close = async () => {
      closed++;
      return close();
    };
    return it;
  };
  const quadstore = new Quadstore({ backend: closingIterators(db), dataFactory: df as any, indexes: INDEXES as any });
  await quadstore.open();
  try {
    const graph = n('http://t/iterators');
    await quadstore.multiPut(Array.from({ length: 300 }, (_, i) => df.quad(n(`http://t/s${i}`), n('http://t/p'), df.literal(String(i)), graph)) as any);
    for (let i = 0; i < 20; i++) {
      assert.equal((await quadstore.get({ graph } as any)).items.length, 300);
      assert.equal((await quadstore.get({ graph } as any, { limit: 1 })).items.length, 1);
      assert.equal((await quadstore.get({ graph: n('http://t/nothing') } as any)).items.length, 0);
    }
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(opened, 60);
    assert.equal(closed, opened, `${opened - closed} iterators left open`);
  } finally {
    await quadstore.close();
    await rm(path, { recursive: true, force: true });
  }
});

test('every index key is written with a value that is not empty (classic-level leaks its copy of an empty value)', async () => {
  const { ClassicLevel } = await import('classic-level');
  await store.replaceGraphs({
    'http://t/values': [q('http://t/v1', 'http://t/p', df.literal('one')), q('http://t/v2', 'http://t/p', 'http://t/o')],
    'http://t/values/entries': [q('http://t/v3', 'http://t/p', df.literal('3'))],
  });
  // a second handle on the open store, as the writer thread has one (multithreading)
  const db = new ClassicLevel<string, Uint8Array>(dir, { keyEncoding: 'utf8', valueEncoding: 'view', multithreading: true } as any);
  await db.open();
  try {
    let keys = 0;
    for await (const [key, value] of db.iterator()) {
      // every key of a quad holds its graph's IRI
      if (!key.includes('http://t/values')) continue;
      keys++;
      assert.ok(value.length > 0, `empty value for ${key}`);
    }
    // eight index keys per quad in the main store, two in the bulk one
    assert.equal(keys, 2 * 8 + 2);
  } finally {
    await db.close();
  }
});

test('the graph cache never answers a graph older than the last write, and holds a bounded number of characters', async () => {
  const { GraphCache } = await import('../../src/store/graph-cache.ts');
  const g = 'http://t/cached';
  await store.replaceGraphs({ [g]: [q(g, 'http://t/p', df.literal('one'))] });
  assert.equal((await store.readGraph(g))[0].object.value, 'one');
  assert.equal((await store.readGraph(g))[0].object.value, 'one'); // from the cache
  await store.replaceGraphs({ [g]: [q(g, 'http://t/p', df.literal('two'))] });
  assert.equal((await store.readGraph(g))[0].object.value, 'two');
  await store.update(`DELETE WHERE { GRAPH <${g}> { ?s ?p ?o } } ; INSERT DATA { GRAPH <${g}> { <${g}> <http://t/p> "three" } }`);
  assert.deepEqual(
    (await store.readGraph(g)).map((x) => x.object.value),
    ['three'],
  );
  await store.deleteGraphs([g]);
  assert.equal(await store.hasGraph(g), false);
  // callers may change what they get without changing the cache
  await store.replaceGraphs({ [g]: [q(g, 'http://t/p', df.literal('four'))] });
  (await store.readGraph(g)).pop();
  assert.equal((await store.readGraph(g)).length, 1);
  // a read that began before a write is not cached
  // each test quad weighs 64 + 4 term values of 10 characters; a budget of ten of them
  const one = (i: number) => q(`http://t/${i % 10}`, 'http://t/p', 'http://t/o');
  const graphWeight = 64 + 64 + 10 + 10 + 10 + 0;
  const cache = new GraphCache(10 * graphWeight, 0.3);
  const epoch = cache.epoch;
  cache.invalidate(['x']);
  cache.put('x', [one(0)], epoch);
  assert.equal(cache.get('x'), undefined);
  // bounded: eleven one-quad graphs in a cache of ten keep the last ten
  for (let i = 0; i < 11; i++) cache.put(`g${i}`, [one(i)], cache.epoch);
  assert.equal(cache.get('g0'), undefined);
  assert.ok(cache.get('g10'));
  assert.ok(cache.size <= 10 * graphWeight);
  cache.put(
    'big',
    Array.from({ length: 6 }, (_, i) => one(i)),
    cache.epoch,
  );
  assert.equal(cache.get('big'), undefined, 'graphs larger than the per-graph bound are not cached');
  cache.put('long', [q('http://t/a', 'http://t/p', df.literal('x'.repeat(5 * graphWeight)))], cache.epoch);
  assert.equal(cache.get('long'), undefined, 'a graph of one long literal is weighed by its characters');
});

test("LevelDB's data files get a second link, so that LevelDB's unlink under its lock frees no blocks; the link goes once LevelDB lets the file go", async () => {
  const { DeferredFileRemoval } = await import('../../src/store/deferred-file-removal.ts');
  const { writeFile, stat, unlink, readdir, mkdir } = await import('node:fs/promises');
  const root = await mkdtemp(join(tmpdir(), 'toxgraph-removal-'));
  const storeDir = join(root, 'store');
  const trash = join(root, 'store.trash');
  // a failed assertion must not leave the watcher running (the file's other tests would wait on it)
  let stopRemoval = async (): Promise<void> => {};
  try {
    await mkdir(storeDir);
    await writeFile(join(storeDir, '000005.ldb'), Buffer.alloc(64 * 1024, 1));
    await writeFile(join(storeDir, 'MANIFEST-000002'), 'm');
    await mkdir(trash);
    await writeFile(join(trash, '000001.ldb'), 'left by a crashed run');
    const removal = await DeferredFileRemoval.start(storeDir, trash);
    stopRemoval = () => removal.stop();
    assert.deepEqual(await readdir(trash), ['000005.ldb'], 'the trash of an earlier run is emptied; only data files are linked');
    assert.equal((await stat(join(storeDir, '000005.ldb'))).nlink, 2);
    // a table written later is linked when it appears (inotify) or at the next sweep
    await writeFile(join(storeDir, '000007.ldb'), 'new table');
    await removal.sweep();
    assert.equal((await stat(join(storeDir, '000007.ldb'))).nlink, 2);
    // LevelDB deletes a table: the trash link is removed by the next sweep
    await unlink(join(storeDir, '000005.ldb'));
    await removal.sweep();
    assert.deepEqual(await readdir(trash), ['000007.ldb']);
    await removal.stop();
    await assert.rejects(stat(trash), 'the trash goes with the store');
    assert.equal((await stat(join(storeDir, '000007.ldb'))).nlink, 1, 'the data file itself stays');
  } finally {
    await stopRemoval();
    await rm(root, { recursive: true, force: true });
  }
});

test('a store reopened after its write-ahead log was turned into tables still holds every quad', async () => {
  const root = await mkdtemp(join(tmpdir(), 'toxgraph-reopen-'));
  try {
    let s = await QuadstoreTripleStore.open(join(root, 'store'));
    const quads = Array.from({ length: 3000 }, (_, i) => q(`http://t/r${i}`, 'http://t/p', df.literal(`value ${i} ${'x'.repeat(200)}`)));
    await s.replaceGraphs({ 'http://t/big': quads });
    await s.close();
    s = await QuadstoreTripleStore.open(join(root, 'store'));
    assert.equal((await s.readGraph('http://t/big')).length, 3000);
    await s.close();
    const { readdir } = await import('node:fs/promises');
    assert.deepEqual((await readdir(root)).sort(), ['store'], 'no trash left beside a closed store');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('single-pattern SELECTs answered by one index match give exactly what Comunica gives', async () => {
  const P = 'http://ex.org/p/';
  await store.replaceGraphs({
    'http://ex.org/sp/1': [q('http://ex.org/sp/1', `${P}parent`, 'http://ex.org/c/1'), q('http://ex.org/sp/1', `${P}name`, df.literal('one', 'en'))],
    'http://ex.org/sp/2': [q('http://ex.org/sp/2', `${P}parent`, 'http://ex.org/c/1'), q('http://ex.org/other', `${P}parent`, 'http://ex.org/c/1')],
    'http://ex.org/sp/3': [q('http://ex.org/sp/3', `${P}parent`, 'http://ex.org/c/2'), q('http://ex.org/sp/3', `${P}name`, df.literal('two'))],
    'http://ex.org/sp/4/entries': [q('http://ex.org/sp/4#e1', `${P}parent`, 'http://ex.org/c/1')],
  });
  const queries = [
    `SELECT ?k WHERE { GRAPH ?k { ?k <${P}parent> <http://ex.org/c/1> } }`, // repeated variable: graph and subject agree
    `SELECT ?k ?s WHERE { GRAPH ?k { ?s <${P}parent> <http://ex.org/c/1> } }`,
    `SELECT DISTINCT ?k WHERE { GRAPH ?k { ?s <${P}parent> ?c } }`,
    `SELECT * WHERE { ?s <${P}name> ?n }`,
    `SELECT ?s WHERE { ?s <${P}name> "one"@en }`,
    `SELECT ?s WHERE { GRAPH <http://ex.org/sp/4/entries> { ?s <${P}parent> ?c } }`,
    `SELECT ?p ?o WHERE { GRAPH <http://ex.org/sp/3> { <http://ex.org/sp/3> ?p ?o } }`,
  ];
  const canonical = (rows: Record<string, { termType: string; value: string }>[]) =>
    rows
      .map((r) =>
        JSON.stringify(
          Object.entries(r)
            .sort()
            .map(([k, t]) => [k, t.termType, t.value]),
        ),
      )
      .sort();
  const { singlePattern } = await import('../../src/store/single-pattern.ts');
  const { parsedQuery } = await import('../../src/store/parsed-query.ts');
  for (const text of queries) {
    assert.ok(singlePattern(parsedQuery(text)), `${text} is not taken as a single pattern`);
    assert.equal(singlePattern(parsedQuery(`${text} LIMIT 100000`)), undefined);
    const fast = await select(store, text as never);
    // with a scope (here one that allows every graph) the store leaves every query to Comunica
    const planned = await select(store, text as never, { scope: { allows: () => true, includesDefaultGraph: true } });
    assert.ok(fast.length > 0, `${text}: no rows`);
    assert.deepEqual(canonical(fast as never), canonical(planned as never), text);
  }
});

test('a DELETE WHERE followed by an INSERT DATA in one update always finishes, and leaves exactly what it inserted', { timeout: 120_000 }, async () => {
  // Comunica hands the insert stream over while it may already be flowing: an update hung about
  // once in 200 when its end was missed (access control changes every policy this way)
  const g = 'urn:toxgraph:test:policies';
  for (let i = 1; i <= 1000; i++) {
    const s = df.namedNode(`http://t/resource/${i % 900}`);
    await store.update(
      sparql`DELETE WHERE { GRAPH ${df.namedNode(g)} { ${s} ?p ?o } } ; INSERT DATA { GRAPH ${df.namedNode(g)} { ${s} <http://t/owner> ${df.literal(`user${i}`)} . ${s} <http://t/public> ${df.literal('false', df.namedNode('http://www.w3.org/2001/XMLSchema#boolean'))} } }`,
    );
  }
  const owners = (await store.readGraph(g))
    .filter((x) => x.predicate.value === 'http://t/owner')
    .map((x) => `${x.subject.value} ${x.object.value}`)
    .sort();
  const expected = Array.from({ length: 900 }, (_, k) => (k <= 100 ? 900 + k : k)).map((i) => `http://t/resource/${i % 900} user${i}`);
  assert.deepEqual(owners, expected.sort());
});

test('every kind of term goes through the writer thread and back unchanged, and a replaced graph keeps only its new quads', async () => {
  const { termKey } = await import('../../src/rdf/terms.ts');
  const xsd = (t: string) => n(`http://www.w3.org/2001/XMLSchema#${t}`);
  const objects = [
    n('http://t/o/ünïcode'),
    df.blankNode('b1'),
    df.literal(''),
    df.literal('chat', 'fr'),
    df.literal('2.5', xsd('double')),
    df.literal('emoji 🧪 and 中文 and \u00e9'),
    df.literal('x'.repeat(70_000)),
  ];
  const graph = 'http://t/kinds';
  const quads = objects.map((o, i) => df.quad(i % 2 ? df.blankNode(`s${i}`) : n(`http://t/s/${i}`), n('http://t/p'), o, n(graph)));
  // more quads than one message to the thread holds
  const many = Array.from({ length: 9_000 }, (_, i) => q(`http://t/many/${i}`, 'http://t/p', df.literal(String(i), xsd('int'))));
  await store.replaceGraphs({ [graph]: [...quads, ...many] });
  const keys = (qs: readonly import('@rdfjs/types').Quad[]) => qs.map((x) => `${termKey(x.subject)} ${termKey(x.predicate)} ${termKey(x.object)}`).sort();
  const back = await store.readGraph(graph);
  assert.deepEqual(keys(back), keys([...quads, ...many]));
  assert.equal((await select(store, sparql`SELECT ?s WHERE { GRAPH ${n(graph)} { ?s ?p ${df.literal('chat', 'fr')} } }`)).length, 1, 'the language tag is part of the stored term');
  await store.replaceGraphs({ [graph]: quads.slice(0, 2) });
  assert.deepEqual(keys(await store.readGraph(graph)), keys(quads.slice(0, 2)));
  await store.deleteGraphs([graph]);
  assert.equal((await store.readGraph(graph)).length, 0);
});

test('a writer thread that ends fails the write in flight, leaves nothing of it, and is replaced for the next write', async () => {
  const root = await mkdtemp(join(tmpdir(), 'toxgraph-writer-'));
  const s = await QuadstoreTripleStore.open(join(root, 'store'));
  try {
    await s.replaceGraphs({ 'http://t/before': [q('http://t/a', 'http://t/p', 'http://t/b')] });
    const thread = (s as unknown as { writer: { worker: import('node:worker_threads').Worker } }).writer.worker;
    const many = Array.from({ length: 30_000 }, (_, i) => q(`http://t/r${i}`, 'http://t/p', df.literal(`value ${i}`)));
    // the thread is ended once the first chunk of the write has been sent to it
    const sent = new Promise<void>((resolve) => {
      const post = thread.postMessage.bind(thread);
      thread.postMessage = (m: { fn?: string }, transfer?: readonly ArrayBuffer[]) => {
        post(m, transfer);
        if (m.fn === 'addToBatch') resolve();
      };
    });
    const cut = s.replaceGraphs({ 'http://t/cut': many });
    await sent;
    await thread.terminate();
    await assert.rejects(cut, /writer thread ended/);
    assert.equal((await s.readGraph('http://t/cut')).length, 0, 'nothing of the failed write');
    await s.replaceGraphs({ 'http://t/after': [q('http://t/c', 'http://t/p', 'http://t/d')] });
    assert.equal((await s.readGraph('http://t/after')).length, 1);
    assert.equal((await s.readGraph('http://t/before')).length, 1);
  } finally {
    await s.close();
    await rm(root, { recursive: true, force: true });
  }
});

test('a store closed twice closes once; its writer thread then refuses work instead of leaving it unanswered', { timeout: 60_000 }, async () => {
  const root = await mkdtemp(join(tmpdir(), 'toxgraph-writer-'));
  const s = await QuadstoreTripleStore.open(join(root, 'store'));
  try {
    await s.replaceGraphs({ 'http://t/x': [q('http://t/a', 'http://t/p', 'http://t/b')] });
    assert.ok(((await s.writerHeapUsage()) ?? 0) > 100_000);
    await s.close();
    await s.close();
    const writer = (s as unknown as { writer: import('../../src/store/index-writer.ts').IndexWriter }).writer;
    // a call the closed thread can never answer would leave this test's promise pending forever
    await assert.rejects(writer.heapUsed(), /writer thread is closed/);
    assert.equal(await s.writerHeapUsage(), undefined);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('ids: minted without waiting for the next block (written ahead), never given twice, past a restart', async () => {
  const idDir = await mkdtemp(join(tmpdir(), 'toxgraph-ids-'));
  const collection = 'http://ids.test/feature';
  const counter = async (s: QuadstoreTripleStore) => Number((await s.readGraph('urn:toxgraph:counters'))[0].object.value);
  let idStore = await QuadstoreTripleStore.open(idDir);
  try {
    const minter = new IdMinter(idStore);
    const first = await Promise.all(Array.from({ length: 170 }, () => minter.next(collection)));
    const ids = first.map((u) => Number(u.slice(collection.length + 1)));
    assert.deepEqual(
      ids,
      Array.from({ length: 170 }, (_, i) => i + 1),
      'one after another, none twice',
    );
    // blocks of 64: id 170 is past half of the third (129-192), so the fourth block's end is
    // written ahead, while ids of the third are still given
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await counter(idStore), 256);
    await idStore.close();
    idStore = await QuadstoreTripleStore.open(idDir);
    const after = Number((await new IdMinter(idStore).next(collection)).slice(collection.length + 1));
    assert.equal(after, 257, 'after a restart, ids go on after what was written');
  } finally {
    await idStore.close();
    await rm(idDir, { recursive: true, force: true });
  }
});

test('new graphs that wait for the write queue together are written in one batch, each whole', async () => {
  const before = store.writeCount();
  const g = (i: number) => `http://group.test/r/${i}`;
  // a write ahead of them holds the queue while they arrive
  const ahead = store.replaceGraphs({ 'http://group.test/ahead': [df.quad(df.namedNode('http://group.test/a'), df.namedNode('http://group.test/p'), df.literal('x'))] });
  const creations = Array.from({ length: 40 }, (_, i) =>
    store.createGraphs({
      [g(i)]: [df.quad(df.namedNode(g(i)), df.namedNode('http://group.test/p'), df.literal(String(i))), df.quad(df.namedNode(g(i)), df.namedNode('http://group.test/q'), df.literal('y'))],
    }),
  );
  await Promise.all([ahead, ...creations]);
  for (let i = 0; i < 40; i++) assert.equal((await store.readGraph(g(i))).length, 2, g(i));
  const writes = store.writeCount() - before;
  assert.ok(writes <= 3, `${writes} writes for one replacement and 40 creations`);
});

test('the bulk partition knows its predicates, after a restart too: patterns over every graph find its quads', async () => {
  const bulkDir = await mkdtemp(join(tmpdir(), 'toxgraph-bulk-predicates-'));
  const entries = 'http://bulk.test/dataset/1/entries';
  const predicates = ['http://bulk.test/feature/1', 'http://bulk.test/feature/1x', 'http://bulk.test/f/é—µ', 'http://bulk.test/feature/2'];
  const find = async (s: QuadstoreTripleStore, p: string) => (await select(s, sparql`SELECT ?e ?v WHERE { GRAPH ?g { ?e ${df.namedNode(p)} ?v } }`)).length;
  let bulkStore = await QuadstoreTripleStore.open(bulkDir);
  try {
    await bulkStore.createGraphs({ [entries]: predicates.slice(0, 3).map((p, i) => df.quad(df.namedNode(`http://bulk.test/e/${i}`), df.namedNode(p), df.literal(String(i)))) });
    for (const p of predicates.slice(0, 3)) assert.equal(await find(bulkStore, p), 1, p);
    assert.equal(await find(bulkStore, predicates[3]), 0);
    await bulkStore.close();
    bulkStore = await QuadstoreTripleStore.open(bulkDir);
    for (const p of predicates.slice(0, 3)) assert.equal(await find(bulkStore, p), 1, `after a restart: ${p}`);
    // a predicate new to the partition, written by a bulk load
    await bulkStore.bulkLoad([df.quad(df.namedNode('http://bulk.test/e/9'), df.namedNode(predicates[3]), df.literal('9'), df.namedNode(entries))]);
    assert.equal(await find(bulkStore, predicates[3]), 1);
  } finally {
    await bulkStore.close();
    await rm(bulkDir, { recursive: true, force: true });
  }
});

test("a query over many rows of one dataset reads the rows' graph once, with the answers the row-by-row lookups give, also past the most it keeps", async () => {
  const ot = (local: string) => `http://www.opentox.org/api/1.1#${local}`;
  const rowsQuery = (d: string, f: string) =>
    `SELECT ?index ?compound ?value WHERE { GRAPH <${d}/entries> { <${d}> <${ot('dataEntry')}> ?row . ?row <${ot('compound')}> ?compound ; <${ot('index')}> ?index ; <${f}> ?value } } ORDER BY ?index`;
  const dataset = (d: string, rows: number) => {
    const quads: ReturnType<typeof q>[] = [];
    for (let i = 0; i < rows; i++) {
      const row = `${d}#row-${i}`;
      quads.push(q(d, ot('dataEntry'), row), q(row, ot('compound'), `http://t/compound/${i % 97}`), q(row, ot('index'), df.literal(String(i), n('http://www.w3.org/2001/XMLSchema#integer'))));
      if (i % 5) quads.push(q(row, 'http://t/feature/1', df.literal(String(i / 10), n('http://www.w3.org/2001/XMLSchema#double'))));
    }
    return quads;
  };
  // 300 rows (read whole), and 5,500 rows: over 20,000 quads, looked up row by row throughout
  await store.replaceGraphs({ 'http://t/ds/small/entries': dataset('http://t/ds/small', 300), 'http://t/ds/large/entries': dataset('http://t/ds/large', 5500) });
  try {
    for (const [d, rows] of [
      ['http://t/ds/small', 300],
      ['http://t/ds/large', 5500],
    ] as const) {
      const result = await store.query(rowsQuery(d, 'http://t/feature/1'));
      const own: string[] = [];
      if (result.type === 'bindings') for await (const r of result.solutions) own.push(`${r.index?.value} ${r.compound?.value} ${r.value?.value}`);
      // the rows that have a value, in index order
      const expected = Array.from({ length: rows }, (_, i) => i)
        .filter((i) => i % 5)
        .map((i) => `${i} http://t/compound/${i % 97} ${i / 10}`);
      assert.deepEqual(own, expected, d);
    }
  } finally {
    await store.deleteGraphs(['http://t/ds/small/entries', 'http://t/ds/large/entries']);
  }
});

test('readEachGraph answers each graph whole, in the order asked: repeats, graphs never written, names that prefix others, graphs longer than a read, rows graphs, more graphs than one iterator reads; a write is seen at once', async () => {
  const g = (i: number) => `http://example.org/each/${i}`;
  const graphs: Record<string, ReturnType<typeof q>[]> = {};
  // 1, 10, 100, 1000 lie next to each other in key order, each name a prefix of the next
  for (let i = 0; i < 1100; i++) graphs[g(i)] = Array.from({ length: (i % 4) + 1 }, (_, k) => q(`${g(i)}#r${k}`, 'http://example.org/k', df.literal(String(k))));
  graphs[g(7)] = Array.from({ length: 700 }, (_, k) => q(`${g(7)}#r${k}`, 'http://example.org/k', df.literal(String(k))));
  // in JavaScript's order the first of these two, in LevelDB's (UTF-8 bytes) the second
  graphs['http://example.org/each/\u{1F600}'] = [q('http://example.org/each/smile', 'http://example.org/k', df.literal('😀'))];
  graphs['http://example.org/each/\uFFFD'] = [q('http://example.org/each/replacement', 'http://example.org/k', df.literal('\uFFFD'))];
  graphs['http://example.org/each/d/entries'] = Array.from({ length: 300 }, (_, k) => q(`http://example.org/each/d#e${k}`, 'http://example.org/v', df.literal(String(k))));
  await store.replaceGraphs(graphs);
  // these two alone (the first read of them: not from the cache), the first in JavaScript's order first
  assert.deepEqual(
    (await store.readEachGraph(['http://example.org/each/\u{1F600}', 'http://example.org/each/\uFFFD'])).map((read) => read.map((x) => x.object.value)),
    [['😀'], ['\uFFFD']],
  );
  const asked = [
    'http://example.org/each/\u{1F600}',
    'http://example.org/each/\uFFFD',
    g(999),
    g(3),
    'http://example.org/each/none',
    'http://example.org/each/d/entries',
    g(3),
    g(1000),
    g(7),
    ...Object.keys(graphs).reverse(),
  ];
  const check = async (expected: Record<string, ReturnType<typeof q>[]>) => {
    const read = await store.readEachGraph(asked);
    assert.equal(read.length, asked.length);
    asked.forEach((uri, i) => {
      const key = (x: ReturnType<typeof q>) => `${x.subject.value} ${x.predicate.value} ${x.object.value}`;
      assert.deepEqual(read[i].map(key).sort(), (expected[uri] ?? []).map(key).sort(), uri);
      assert.ok(
        read[i].every((x) => x.graph.value === uri),
        uri,
      );
    });
  };
  await check(graphs);
  // again (from the cache now), and after a write of some of them
  await check(graphs);
  const changed = { ...graphs, [g(3)]: [q(`${g(3)}#new`, 'http://example.org/k', df.literal('new'))], [g(1000)]: [] };
  await store.replaceGraphs({ [g(3)]: changed[g(3)], [g(1000)]: [] });
  await check(changed);
  assert.deepEqual(await store.readEachGraph([]), []);
});

test('stores opened at once in one process each get a working writer thread (the writer threads set V8 flags the whole process shares)', { timeout: 60_000 }, async () => {
  for (let round = 0; round < 10; round++) {
    const dirs = await Promise.all(Array.from({ length: 8 }, () => mkdtemp(join(tmpdir(), 'toxgraph-store-at-once-'))));
    const stores = await Promise.all(dirs.map((d) => QuadstoreTripleStore.open(d)));
    try {
      await Promise.all(stores.map((s, i) => s.replaceGraphs({ [`http://example.org/at-once/${i}`]: [q(`http://example.org/at-once/${i}#s`, 'http://example.org/p', df.literal(String(i)))] })));
      const read = await Promise.all(stores.map((s, i) => s.readGraph(`http://example.org/at-once/${i}`)));
      assert.deepEqual(
        read.map((quads) => quads.map((x) => x.object.value)),
        stores.map((_, i) => [String(i)]),
      );
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
    }
  }
});
