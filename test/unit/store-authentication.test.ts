import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/core/config.ts';
import { RemoteSparqlStore } from '../../src/store/remote/remote-sparql-store.ts';
import { freePort } from '../helpers.ts';
import { digestHeader, parseDigest } from '../../src/store/remote/store-authentication.ts';
import { SparqlProtocolClient } from '../../src/store/remote/sparql-protocol-client.ts';

test('Digest answers: the example of RFC 7616 (3.9.1), MD5 and SHA-256', () => {
  const challenge = (algorithm: string) =>
    parseDigest(
      `Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=${algorithm}, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`,
    )!;
  const url = new URL('http://www.example.org/dir/index.html');
  const cnonce = 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ';
  assert.match(digestHeader(challenge('MD5'), 1, 'Mufasa', 'Circle of Life', 'GET', url, cnonce), /response="8ca523f5e9506fed4657c9700eebdbec"/);
  assert.match(digestHeader(challenge('SHA-256'), 1, 'Mufasa', 'Circle of Life', 'GET', url, cnonce), /response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"/);
  assert.equal(parseDigest('Basic realm="x"'), undefined);
  assert.equal(parseDigest('Digest realm="x", nonce="n", algorithm=SHA-512-256'), undefined, 'an algorithm it does not speak');
});

/** A SPARQL endpoint on loopback that asks for credentials one way: Digest (with nonces going stale), Basic or a bearer token; it answers ASK with true. */
function endpoint(kind: 'digest' | 'basic' | 'bearer', port = 0) {
  const user = 'toxgraph';
  const password = 'p@ss "word"';
  let nonce = 'nonce-1';
  let requests = 0;
  let refused = 0;
  const challenge = (stale = false) => `Digest realm="store", qop="auth", nonce="${nonce}", opaque="o-1", algorithm=MD5${stale ? ', stale=true' : ''}`;
  const md5 = (s: string) => createHash('md5').update(s).digest('hex');
  const accepted = (req: IncomingMessage): boolean | 'stale' => {
    const header = req.headers.authorization ?? '';
    if (kind === 'bearer') return header === 'Bearer secret-token';
    if (kind === 'basic') return header === `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    const field = (name: string) => new RegExp(`${name}="?([^",]*)"?`).exec(header)?.[1];
    if (!header.startsWith('Digest ') || field('username') !== user || field('uri') !== req.url) return false;
    if (field('nonce') !== nonce) return 'stale';
    const expected = md5(`${md5(`${user}:store:${password}`)}:${nonce}:${field('nc')}:${field('cnonce')}:auth:${md5(`${req.method}:${req.url}`)}`);
    return field('response') === expected;
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      requests++;
      const ok = accepted(req);
      if (ok === true) {
        res.writeHead(200, { 'Content-Type': 'application/sparql-results+json' }).end('{"head":{},"boolean":true}');
        // the next request finds its nonce stale
        if (kind === 'digest' && requests === 3) nonce = 'nonce-2';
        return;
      }
      refused++;
      const header = kind === 'digest' ? challenge(ok === 'stale') : kind === 'basic' ? 'Basic realm="store"' : 'Bearer realm="store"';
      res.writeHead(401, { 'WWW-Authenticate': header }).end('sign in');
    });
  });
  return new Promise<{ url: string; user: string; password: string; counts: () => { requests: number; refused: number }; close: () => void }>((resolve) =>
    server.listen(port, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sparql-auth`, user, password, counts: () => ({ requests, refused }), close: () => server.close() }),
    ),
  );
}

const clients: SparqlProtocolClient[] = [];
after(async () => {
  for (const c of clients) await c.close();
});
const client = (url: string, credentials: { user?: string; password?: string; token?: string }) => {
  const c = new SparqlProtocolClient({ queryUrl: url, updateUrl: url, ...credentials });
  clients.push(c);
  return c;
};

test('a store that asks for Digest: the client answers the challenge, signs in at once afterwards, and answers a stale nonce', async () => {
  const store = await endpoint('digest');
  const c = client(store.url, { user: store.user, password: store.password });
  assert.equal(await c.ask('ASK {}'), true);
  assert.deepEqual(store.counts(), { requests: 2, refused: 1 }, 'one challenge, then signed in');
  assert.equal(await c.ask('ASK {}'), true);
  assert.deepEqual(store.counts(), { requests: 3, refused: 1 }, 'the nonce is kept: no new challenge');
  assert.equal(await c.ask('ASK {}'), true, 'a stale nonce is answered with the new one');
  assert.deepEqual(store.counts(), { requests: 5, refused: 2 });
  await assert.rejects(client(store.url, { user: store.user, password: 'wrong' }).ask('ASK {}'), /answered 401/);
  await assert.rejects(client(store.url, {}).ask('ASK {}'), /answered 401/, 'no credentials');
  store.close();
});

test('a store that asks for Basic, and one behind a gateway that takes a bearer token', async () => {
  const basic = await endpoint('basic');
  assert.equal(await client(basic.url, { user: basic.user, password: basic.password }).ask('ASK {}'), true);
  await assert.rejects(client(basic.url, { user: basic.user, password: 'wrong' }).ask('ASK {}'), /answered 401/);
  basic.close();
  const gateway = await endpoint('bearer');
  assert.equal(await client(gateway.url, { token: 'secret-token' }).ask('ASK {}'), true);
  assert.deepEqual(gateway.counts(), { requests: 1, refused: 0 }, 'the token goes with the first request');
  await assert.rejects(client(gateway.url, { token: 'forged' }).ask('ASK {}'), /answered 401/);
  gateway.close();
});

test('secrets read from files as containers mount them: the text without its final line break; a missing file is named', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toxgraph-secrets-'));
  writeFileSync(join(dir, 'store'), 'store "secret" 1\n');
  writeFileSync(join(dir, 'admin'), 'line one\nline two\r\n');
  writeFileSync(join(dir, 'token'), 'tok');
  const config = loadConfig(['--store-password-file', join(dir, 'store'), '--store-token-file', join(dir, 'token')], {
    TOXGRAPH_ADMIN_PASSWORD_FILE: join(dir, 'admin'),
  });
  assert.equal(config.storePassword, 'store "secret" 1');
  assert.equal(config.storeToken, 'tok');
  assert.equal(config.adminPassword, 'line one\nline two', 'only the final line break is dropped');
  assert.throws(() => loadConfig(['--admin-password-file', join(dir, 'absent')], {}), /cannot read .*absent/);
  rmSync(dir, { recursive: true, force: true });
});

test('a start waits for a store that is not answering yet (as a container started beside it), never for one that refuses its password', async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/sparql-auth`;
  const at = (password: string) => ({ queryUrl: url, updateUrl: url, user: 'toxgraph', password });
  let tries = 0;
  const opening = RemoteSparqlStore.open(at('p@ss "word"'), 30_000, () => tries++);
  await new Promise((r) => setTimeout(r, 1500));
  assert.ok(tries >= 1, 'nothing listens yet: asked again');
  const store = await endpoint('basic', port);
  await (await opening).close();
  let triesAfterRefusal = 0;
  await assert.rejects(
    RemoteSparqlStore.open(at('wrong'), 30_000, () => triesAfterRefusal++),
    /answered 401/,
  );
  assert.equal(triesAfterRefusal, 0, 'a refused password fails the start at once');
  store.close();
  await assert.rejects(RemoteSparqlStore.open(at('p@ss "word"'), 0), 'without a wait, a store that does not answer fails the start');
});
