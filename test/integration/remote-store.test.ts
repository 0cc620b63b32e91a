import { test, before, after } from 'node:test';
import type * as RDF from '@rdfjs/types';
import assert from 'node:assert/strict';
import { df } from '../../src/rdf/namespaces.ts';
import { select } from '../../src/store/query-helpers.ts';
import { sparql } from '../../src/store/sparql-template.ts';
import { startTestServer, testStore, type TestServer } from '../helpers.ts';

/**
 * What the remote store must do beyond the component suites (`npm run test:remote`, with
 * TOXGRAPH_TEST_STORE=virtuoso or oxigraph; skipped on the embedded store).
 */
const remote = !!testStore;
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
    for await (const _ of s.services.store.graphBatches(g)) break;
  }
  assert.equal((await s.services.store.readGraph(g)).length, 5000);
});

test('readEachGraph: a few hundred graphs (several requests), each whole and in the order asked, with repeats, graphs never written and names no graph can have answered empty', {
  skip,
  timeout: 120_000,
}, async () => {
  const g = (i: number) => `http://example.org/remote/each/${i}`;
  const graphs: Record<string, RDF.Quad[]> = {};
  for (let i = 0; i < 250; i++) {
    graphs[g(i)] = Array.from({ length: (i % 3) + 1 }, (_, k) => df.quad(df.namedNode(`${g(i)}#r${k}`), df.namedNode('http://example.org/v'), df.literal(`${i / 3}`, df.namedNode(`${XSD}double`))));
  }
  await s.services.store.replaceGraphs(graphs);
  const asked = [g(249), 'http://example.org/with space', g(7), 'http://example.org/remote/each/none', g(7), ...Object.keys(graphs)];
  const read = await s.services.store.readEachGraph(asked);
  assert.equal(read.length, asked.length);
  asked.forEach((uri, i) => {
    const expected = (graphs[uri] ?? []).map((x) => `${x.subject.value} ${x.object.value} ${(x.object as RDF.Literal).datatype.value}`).sort();
    assert.deepEqual(read[i].map((x) => `${x.subject.value} ${x.object.value} ${(x.object as RDF.Literal).datatype.value}`).sort(), expected, uri);
    assert.ok(
      read[i].every((x) => x.graph.value === uri),
      uri,
    );
  });
});

for (const writer of ['this process', 'another process'] as const) {
  test(`reads of a graph while ${writer} replaces it again and again all succeed and see one whole version`, { skip, timeout: 180_000 }, async () => {
    const { RemoteSparqlStore } = await import('../../src/store/remote/remote-sparql-store.ts');
    const url = s.services.config.storeUrl ?? '';
    // another process: a second store on the same server, which this process's reads know nothing of
    const { storeUser: user, storePassword: password } = s.services.config;
    const writes = writer === 'this process' ? s.services.store : await RemoteSparqlStore.open({ queryUrl: url, updateUrl: url, user, password });
    const g = `http://example.org/remote/replaced/${writer.replace(' ', '-')}`;
    const size = 8;
    const version = (n: number) => Array.from({ length: size }, (_, i) => df.quad(df.namedNode(`${g}#r${i}`), df.namedNode('http://example.org/version'), df.literal(String(n))));
    try {
      await writes.replaceGraphs({ [g]: version(0) });
      let writing = true;
      const seen: string[] = [];
      const reader = async () => {
        while (writing) {
          const quads = await s.services.store.readGraph(g);
          seen.push(`${quads.length} quads of ${new Set(quads.map((q) => q.object.value)).size} version(s)`);
        }
      };
      // and reads of several graphs at once (readEachGraph), this one among them
      const readerOfMany = async () => {
        while (writing) {
          const [quads] = await s.services.store.readEachGraph([g, 'http://example.org/remote/values']);
          seen.push(`${quads.length} quads of ${new Set(quads.map((q) => q.object.value)).size} version(s)`);
        }
      };
      const readers = [reader(), reader(), readerOfMany()];
      for (let n = 1; n <= 400; n++) await writes.replaceGraphs({ [g]: version(n) });
      writing = false;
      await Promise.all(readers);
      assert.ok(seen.length > 3, `${seen.length} reads`);
      assert.deepEqual([...new Set(seen)], [`${size} quads of 1 version(s)`]);
    } finally {
      if (writes !== s.services.store) await writes.close();
    }
  });
}

test('a request whose connection is closed under it is sent again', { skip, timeout: 60_000 }, async () => {
  const { createServer, connect } = await import('node:net');
  const { RemoteSparqlStore } = await import('../../src/store/remote/remote-sparql-store.ts');
  const target = new URL(s.services.config.storeUrl ?? '');
  // a loopback proxy to the test's Virtuoso that drops the first connection once the request has arrived
  let dropped = 0;
  const proxy = createServer((client) => {
    if (dropped === 0) {
      dropped++;
      client.once('data', () => client.destroy());
      return;
    }
    const upstream = connect(Number(target.port), target.hostname);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}${target.pathname}`;
  try {
    const store = await RemoteSparqlStore.open({ queryUrl: url, updateUrl: url, user: s.services.config.storeUser, password: s.services.config.storePassword });
    try {
      assert.equal(dropped, 1, 'the first connection was dropped');
      assert.equal(await store.hasGraph('http://example.org/remote/values'), true);
    } finally {
      await store.close();
    }
  } finally {
    proxy.close();
  }
});

test('a store that stops answering is a 503 with Retry-After (an ot:ErrorReport), not an internal error; the server answers again once the store does', { skip, timeout: 120_000 }, async () => {
  const { createServer, connect } = await import('node:net');
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { loadConfig } = await import('../../src/core/config.ts');
  const { startServer } = await import('../../src/server/server.ts');
  const { storeUrl, storeUser, storePassword } = s.services.config;
  const target = new URL(storeUrl ?? '');
  // a loopback proxy to the test's store, closed and opened again on the same port
  const sockets = new Set<import('node:net').Socket>();
  const proxy = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
  const port = (proxy.address() as { port: number }).port;
  const dir = await mkdtemp(join(tmpdir(), 'toxgraph-test-'));
  const url = `http://127.0.0.1:${port}${target.pathname}`;
  const flags = [
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--data',
    dir,
    '--quiet',
    '--store-url',
    url,
    ...(storeUser ? ['--store-user', storeUser] : []),
    ...(storePassword ? ['--store-password', storePassword] : []),
  ];
  const server = await startServer(loadConfig(flags, {}));
  const base = server.url;
  try {
    assert.equal((await fetch(`${base}/dataset`, { headers: { accept: 'text/uri-list' } })).status, 200);
    // the store goes away: nothing listens on its port any more
    await new Promise<void>((r) => {
      proxy.close(() => r());
      for (const socket of sockets) socket.destroy();
    });
    for (const path of ['/dataset', '/feature', '/model', '/compound/1']) {
      const r = await fetch(`${base}${path}`, { headers: { accept: 'application/json' } });
      const body = (await r.json()) as { errorCode?: string; statusCode?: number; message?: string };
      assert.equal(r.status, 503, `${path}: ${JSON.stringify(body)}`);
      assert.equal(body.errorCode, 'ServiceUnavailable', path);
      assert.match(body.message ?? '', /store does not answer/);
      assert.equal(r.headers.get('retry-after'), '1', path);
    }
    const posted = await fetch(`${base}/dataset`, { method: 'POST', body: 'SMILES,x\nCCO,1\n', headers: { 'content-type': 'text/csv', accept: 'text/uri-list' } });
    assert.equal(posted.status, 503, await posted.text());
    // and back: the same port listens again
    await new Promise<void>((r) => proxy.listen(port, '127.0.0.1', () => r()));
    assert.equal((await fetch(`${base}/dataset`, { headers: { accept: 'text/uri-list' } })).status, 200);
  } finally {
    await server.close();
    proxy.close();
    for (const socket of sockets) socket.destroy();
    await rm(dir, { recursive: true, force: true });
  }
});

test('the store is signed in to (HTTP Digest, a password from a file): ToxGraph writes through its own account; an anonymous write, or a request without credentials, is refused', {
  skip: testStore !== 'virtuoso' && 'Virtuoso only (its anonymous endpoint)',
}, async () => {
  const { storeUrl, storeUser, storePassword } = s.services.config;
  assert.match(storeUrl ?? '', /\/sparql-auth$/);
  assert.ok(storeUser && storePassword, 'signed in with a user and the password read from a file');
  const g = 'http://example.org/remote/anonymous-write';
  const form = (field: string, text: string) => ({ method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ [field]: text }) });
  const anonymous = await fetch((storeUrl ?? '').replace(/\/sparql-auth$/, '/sparql'), form('update', `INSERT DATA { GRAPH <${g}> { <urn:a> <urn:b> "c" } }`));
  await anonymous.text();
  assert.ok(!anonymous.ok, `an anonymous update answered ${anonymous.status}`);
  const unsigned = await fetch(storeUrl ?? '', form('query', 'ASK {}'));
  await unsigned.text();
  assert.equal(unsigned.status, 401, 'the signed-in endpoint asks for credentials');
  assert.equal(await s.services.store.hasGraph(g), false, 'nothing was written');
  await s.services.store.replaceGraphs({ [g]: [df.quad(df.namedNode('urn:a'), df.namedNode('urn:b'), df.literal('c'))] });
  assert.equal(await s.services.store.hasGraph(g), true, 'ToxGraph writes through its own account');
});
