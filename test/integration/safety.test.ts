import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/core/config.ts';
import { startTestServer, spawnServer, http, form, errorReport, featureTurtle, resourceLists, type TestServer } from '../helpers.ts';

/** An HTTP server that counts every connection made to it (it must see none). */
async function canary(host = '127.0.0.1'): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/turtle' });
    res.end('<http://x/secret> <http://x/is> "instance metadata" .');
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  return { server, port: (server.address() as { port: number }).port, connections: () => connections };
}

let s: TestServer;
let target: Awaited<ReturnType<typeof canary>>;
before(async () => {
  s = await startTestServer();
  target = await canary();
});
after(async () => {
  await s.stop();
  target.server.close();
});

const register = (server: TestServer, uri: string) => http(`${server.url}/ontology`, { method: 'POST', body: form({ 'uri[]': uri }), accept: 'text/turtle' });

test('registration refuses internal targets by default (400 naming the rule), before any connection', async () => {
  const p = target.port;
  const cases: [string, RegExp][] = [
    [`http://127.0.0.1:${p}/latest/meta-data`, /loopback/],
    [`http://localhost:${p}/latest/meta-data`, /loopback/], // a name: checked after DNS resolution
    [`http://[::1]:${p}/`, /loopback/],
    [`http://[::ffff:127.0.0.1]:${p}/`, /loopback/],
    [`http://0x7f000001:${p}/`, /loopback/],
    [`http://2130706433:${p}/`, /loopback/],
    [`http://127.1:${p}/`, /loopback/],
    [`http://0.0.0.0:${p}/`, /unspecified/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://[fe80::1]/', /link-local/],
    ['http://10.0.0.1/', /private/],
    ['http://172.16.5.4/', /private/],
    ['http://192.168.1.1/', /private/],
    ['http://[fd00::1]/', /unique-local/],
    ['http://224.0.0.1/', /multicast/],
    ['http://100.64.0.1/', /carrier-grade/],
    ['http://198.51.100.7/', /reserved/],
  ];
  for (const [uri, rule] of cases) {
    const r = await register(s, uri);
    assert.equal(r.status, 400, `${uri}: ${r.text}`);
    const report = await errorReport(r);
    assert.match(report.message ?? '', rule, uri);
    assert.match(report.message ?? '', /--allow-private-targets/);
  }
  assert.equal(target.connections(), 0, 'the server connected to a refused address');
  // nothing of the target reached the published scope
  const ask = await http(`${s.url}/ontology`, { method: 'POST', body: form({ query: 'ASK { ?s ?p "instance metadata" }' }), accept: 'application/sparql-results+json' });
  assert.equal(JSON.parse(ask.text).boolean, false);
});

test('dataset_service on an internal address is refused at once; so is its task URL inside the task', async () => {
  const csv = 'SMILES,value\nCCO,1.0\nCCN,2.0\n';
  const upload = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  const dataset = upload.text.trim();
  const before = await resourceLists(s);
  const r = await http(`${s.url}/algorithm/rdkit-descriptors`, {
    method: 'POST',
    body: form({ dataset_uri: dataset, descriptors: 'tpsa', dataset_service: `http://127.0.0.1:${target.port}/dataset` }),
    accept: 'text/turtle',
  });
  assert.equal(r.status, 400, r.text);
  assert.match((await errorReport(r)).message ?? '', /loopback/);
  assert.equal(await resourceLists(s), before, 'a refused request wrote something');

  // a dataset service the operator allows (127.0.0.2) that answers a task on a refused address (127.0.0.1)
  const service = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(202, { 'Content-Type': 'text/uri-list' });
      res.end(`http://127.0.0.1:${target.port}/task/1\n`);
    });
  });
  await new Promise<void>((ok) => service.listen(0, '127.0.0.2', () => ok()));
  const allowing = await startTestServer(['--allow-private-targets', '127.0.0.2']);
  try {
    const up = await http(`${allowing.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
    const started = await http(`${allowing.url}/algorithm/rdkit-descriptors`, {
      method: 'POST',
      body: form({ dataset_uri: up.text.trim(), descriptors: 'tpsa', dataset_service: `http://127.0.0.2:${(service.address() as { port: number }).port}/dataset` }),
      accept: 'text/uri-list',
    });
    assert.equal(started.status, 202, started.text);
    const task = started.text.trim().replace(allowing.base, allowing.url);
    let status = 202;
    let last = '';
    for (let i = 0; i < 200 && status === 202; i++) {
      await new Promise((ok) => setTimeout(ok, 100));
      const t = await http(task, { accept: 'text/turtle' });
      status = t.status;
      last = t.text;
    }
    assert.equal(status, 400, last);
    assert.match(last, /loopback/);
  } finally {
    await allowing.stop();
    service.close();
  }
  assert.equal(target.connections(), 0);
});

test('redirects are checked like the first URL; --allow-private-targets opts in to named ranges only', async () => {
  const p = target.port;
  const redirector = createServer((req, res) => {
    if (req.url === '/ok') {
      res.writeHead(200, { 'Content-Type': 'text/turtle' });
      res.end('<http://x/ok> <http://x/is> "fine" .');
      return;
    }
    const to = req.url === '/to-name' ? `http://localhost:${p}/` : req.url === '/to-metadata' ? 'http://169.254.169.254/latest/meta-data' : `http://127.0.0.1:${p}/`;
    res.writeHead(302, { Location: to });
    res.end();
  });
  await new Promise<void>((ok) => redirector.listen(0, '127.0.0.2', () => ok()));
  const rp = (redirector.address() as { port: number }).port;
  const allowing = await startTestServer(['--allow-private-targets', '127.0.0.2/32', '--harvest-interval', '0']);
  try {
    assert.equal((await register(allowing, `http://127.0.0.2:${rp}/ok`)).status, 200);
    for (const path of ['/to-address', '/to-name', '/to-metadata']) {
      const r = await register(allowing, `http://127.0.0.2:${rp}${path}`);
      assert.equal(r.status, 400, `${path}: ${r.text}`);
      assert.match((await errorReport(r)).message ?? '', /loopback|link-local/);
    }
    // 127.0.0.1 is not in the allowed range
    assert.equal((await register(allowing, `http://127.0.0.1:${p}/`)).status, 400);
  } finally {
    await allowing.stop();
    redirector.close();
  }
  assert.equal(target.connections(), 0);
  assert.throws(() => loadConfig(['--allow-private-targets', 'intranet'], {}), /CIDR/);
});

test('with access control on, only authenticated callers may register', async () => {
  const secured = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  try {
    const anonymous = await http(`${secured.url}/ontology`, { method: 'POST', body: form({ 'uri[]': 'http://example.org/x' }), accept: 'text/turtle' });
    assert.equal(anonymous.status, 401);
    const bad = await http(`${secured.url}/ontology`, { method: 'POST', body: form({ 'uri[]': 'http://example.org/x', subjectid: 'not-a-token' }), accept: 'text/turtle' });
    assert.equal(bad.status, 401);
  } finally {
    await secured.stop();
  }
});

/** Start the real server process, read its stderr until it listens, and stop it. */
async function startProcess(args: string[]): Promise<{ stderr: string; listening: Record<string, unknown> }> {
  const dir = await mkdtemp(join(tmpdir(), 'toxgraph-exposure-'));
  const server = await spawnServer(['--data', dir, ...args]);
  server.kill('SIGTERM');
  await server.exited;
  await rm(dir, { recursive: true, force: true });
  return { stderr: server.stderr(), listening: server.listening };
}

test('exposure: with access control off the server listens on 127.0.0.1; another host starts with a warning', async () => {
  assert.equal(loadConfig([], {}).host, '127.0.0.1');
  assert.equal(loadConfig(['--auth'], {}).host, '0.0.0.0');
  assert.equal(loadConfig(['--host', '::'], {}).host, '::');
  const quiet = await startProcess([]);
  assert.equal(quiet.listening.host, '127.0.0.1');
  assert.doesNotMatch(quiet.stderr, /WARNING/);
  const open = await startProcess(['--host', '0.0.0.0']);
  assert.equal(open.listening.host, '0.0.0.0');
  assert.match(open.stderr, /WARNING: access control is off and the server listens on 0\.0\.0\.0/);
});

test('pages: Content-Security-Policy without inline script, nosniff, Referrer-Policy, no framing', async () => {
  const compound = (await http(`${s.url}/compound`, { method: 'POST', body: 'c1ccccc1O', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  for (const path of ['/', '/sparql', '/feature', compound.replace(s.base, ''), '/no/such/page']) {
    const r = await http(`${s.url}${path}`, { accept: 'text/html' });
    assert.match(r.type, /text\/html/, path);
    const csp = r.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/, path);
    assert.match(csp, /frame-ancestors 'none'/, path);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, path);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff', path);
    assert.equal(r.headers.get('referrer-policy'), 'same-origin', path);
    // no inline script: the JSON-LD data block of the page's resource (browsers do not run it) and the server's own script file
    assert.doesNotMatch(r.text, /<script(?! type="application\/ld\+json">| src="\/static\/[\w.-]+" defer><\/script>)|\son[a-z]+=|style=/i, path);
    assert.match(csp, /script-src 'self'/, path);
    const jsonld = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(r.text)?.[1];
    if (jsonld) assert.doesNotThrow(() => JSON.parse(jsonld), path);
    // the one inline stylesheet is the one the policy names by hash
    const style = /<style>([\s\S]*?)<\/style>/.exec(r.text)?.[1] ?? '';
    const { createHash } = await import('node:crypto');
    assert.ok(csp.includes(`'sha256-${createHash('sha256').update(style).digest('base64')}'`), path);
  }
  const rdf = await http(`${s.url}/feature`, { accept: 'text/turtle' });
  assert.match(rdf.headers.get('content-security-policy') ?? '', /sandbox/);
  assert.equal(rdf.headers.get('x-content-type-options'), 'nosniff');
  // markup in a title stays text
  const evil = await http(`${s.url}/feature`, { method: 'POST', body: featureTurtle('<script>alert(1)</script>'), contentType: 'text/turtle', accept: 'text/uri-list' });
  const page = await http(evil.text.trim().replace(s.base, s.url), { accept: 'text/html' });
  assert.ok(!page.text.includes('<script>alert(1)</script>'));
  assert.ok(page.text.includes('&lt;script&gt;'));
});

test('CORS: reads and SPARQL queries are open to other origins; writes from another origin are refused and write nothing', async () => {
  const origin = 'http://elsewhere.example';
  const read = await http(`${s.url}/feature`, { accept: 'text/uri-list', headers: { Origin: origin } });
  assert.equal(read.status, 200);
  assert.equal(read.headers.get('access-control-allow-origin'), '*');
  const query = await http(`${s.url}/sparql`, { method: 'POST', body: form({ query: 'ASK {}' }), accept: 'application/sparql-results+json', headers: { Origin: origin } });
  assert.equal(query.status, 200);
  assert.equal(query.headers.get('access-control-allow-origin'), '*');
  const preflightQuery = await http(`${s.url}/sparql`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
  assert.equal(preflightQuery.status, 204);
  assert.match(preflightQuery.headers.get('access-control-allow-methods') ?? '', /POST/);
  for (const path of ['/feature', '/dataset', '/feature/1']) {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const preflight = await http(`${s.url}${path}`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': method } });
      assert.equal(preflight.headers.get('access-control-allow-origin'), null, `${method} ${path}`);
    }
  }
  const before = await resourceLists(s);
  const write = await http(`${s.url}/feature`, { method: 'POST', body: featureTurtle('cross-origin'), contentType: 'text/turtle', accept: 'text/turtle', headers: { Origin: origin } });
  assert.equal(write.status, 403);
  assert.equal(write.headers.get('access-control-allow-origin'), null);
  const registration = await http(`${s.url}/ontology`, { method: 'POST', body: form({ 'uri[]': `${s.base}/feature/1` }), accept: 'text/turtle', headers: { Origin: origin } });
  assert.equal(registration.status, 403);
  assert.equal(await resourceLists(s), before);
  // the server's own pages may write
  const own = await http(`${s.url}/feature`, { method: 'POST', body: featureTurtle('same origin'), contentType: 'text/turtle', accept: 'text/uri-list', headers: { Origin: s.url } });
  assert.equal(own.status, 200, own.text);
});

test('DNS rebinding: with access control off on loopback, a foreign Host is refused', async () => {
  // fetch() will not send another Host header than the URL's; node:http will
  const withHost = (host: string) =>
    new Promise<number>((resolve, reject) => {
      const { port } = new URL(s.url);
      const req = request({ host: '127.0.0.1', port, path: '/feature', headers: { Host: `${host}:${port}`, Accept: 'text/uri-list' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  assert.equal(await withHost('attacker.example'), 403);
  assert.equal(await withHost('localhost'), 200);
  assert.equal(await withHost('127.0.0.1'), 200);
});
