import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { startTestServer, http, form, parseTurtle, parseRdfXml, errorReport, featureTurtle, OT, type TestServer } from '../helpers.ts';

let s: TestServer;
let remote: TestServer;
before(async () => {
  // the remote servers of these tests are on loopback, which only an explicit opt-in reaches
  s = await startTestServer(['--harvest-interval', '0', '--allow-private-targets']);
  remote = await startTestServer();
});
after(async () => {
  await s.stop();
  await remote.stop();
});

const select = async (endpoint: string, query: string) => {
  const r = await http(`${s.url}${endpoint}`, { method: 'POST', body: form({ query }), accept: 'application/sparql-results+json' });
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text).results.bindings as Record<string, { value: string }>[];
};

test('the bundled vocabularies are loaded into graphs named by their IRIs, once', async () => {
  const graphs = (await select('/ontology', 'SELECT DISTINCT ?g WHERE { GRAPH ?g { ?o a <http://www.w3.org/2002/07/owl#Ontology> } }')).map((b) => b.g.value).sort();
  assert.deepEqual(graphs, [
    'http://www.opentox.org/algorithmTypes.owl',
    'http://www.opentox.org/api/1.1',
    'http://www.opentox.org/echaEndpoints.owl',
    'http://www.opentox.org/profilers.owl',
    'http://www.opentox.org/profilers/benigni-bossa',
    'http://www.opentox.org/profilers/functional-groups',
    'http://www.opentox.org/profilers/verhaar',
  ]);
  const count = await select('/sparql', `SELECT (COUNT(*) AS ?n) WHERE { GRAPH <http://www.opentox.org/api/1.1> { ?s ?p ?o } }`);
  const n = Number(count[0].n.value);
  assert.ok(n > 100);
  // every ot: term the service emits so far is declared
  for (const term of ['Feature', 'NumericFeature', 'ErrorReport', 'Task', 'hasStatus', 'percentageCompleted', 'resultURI', 'errorCode', 'units', 'hasSource', 'harvestedAt', 'registered', 'lastId']) {
    const declared = await select('/ontology', `SELECT ?l WHERE { <${OT}${term}> <http://www.w3.org/2000/01/rdf-schema#label> ?l }`);
    assert.equal(declared.length, 1, term);
  }
});

test('/ontology sees only the published scope until a local resource is registered', async () => {
  const uri = (await http(`${s.url}/feature`, { method: 'POST', body: featureTurtle('published feature'), contentType: 'text/turtle' })).text.trim();
  const q = `SELECT ?t WHERE { <${uri}> <http://purl.org/dc/elements/1.1/title> ?t }`;
  assert.equal((await select('/ontology', q)).length, 0);
  assert.equal((await select('/sparql', q)).length, 1);
  const reg = await http(`${s.url}/ontology`, { method: 'POST', body: form({ 'uri[]': uri }), accept: 'text/uri-list' });
  assert.equal(reg.status, 200, reg.text);
  assert.equal((await select('/ontology', q)).length, 1);
  // the GRAPH form, FROM, and the predefined queries see the same scope
  const fromQ = `SELECT ?t FROM <${uri}> WHERE { ?f <http://purl.org/dc/elements/1.1/title> ?t }`;
  assert.equal((await select('/ontology', fromQ)).length, 1);
  assert.equal((await http(`${s.url}/ontology`, { method: 'DELETE', body: form({ uri }), contentType: 'application/x-www-form-urlencoded' })).status, 200);
  assert.equal((await select('/ontology', q)).length, 0);
  assert.equal((await select('/ontology', fromQ)).length, 0);
  const graphs = await select('/ontology', `SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } FILTER(?g = <${uri}>) }`);
  assert.equal(graphs.length, 0);
  const again = await http(`${s.url}/ontology?uri=${encodeURIComponent(uri)}`, { method: 'DELETE', accept: 'text/turtle' });
  assert.equal(again.status, 404);
});

test('a remote resource is harvested from another server, queryable, and removed on DELETE', async () => {
  const remoteUri = (await http(`${remote.url}/feature`, { method: 'POST', body: featureTurtle('remote feature'), contentType: 'text/turtle' })).text.trim();
  // the remote server's base is its loopback URL, so the URI is fetchable as is
  const r = await http(`${s.url}/ontology`, { method: 'POST', body: form({ 'uri[]': remoteUri }), accept: 'text/uri-list' });
  assert.equal(r.status, 200, r.text);
  const rows = await select('/ontology', `SELECT ?t ?when WHERE { GRAPH <${remoteUri}> { <${remoteUri}> <http://purl.org/dc/elements/1.1/title> ?t ; <${OT}harvestedAt> ?when } }`);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].t.value, 'remote feature');
  // a harvested copy is published, not one of this server's features
  const local = await http(`${s.url}/feature`, { accept: 'text/uri-list' });
  assert.equal(local.status === 200 ? local.text.includes(remoteUri) : false, false, local.text);
  // register + query in one POST
  const both = await http(`${s.url}/ontology`, {
    method: 'POST',
    body: form({ 'uri[]': remoteUri, query: `ASK { <${remoteUri}> a <${OT}Feature> }` }),
    accept: 'application/sparql-results+json',
  });
  assert.equal(JSON.parse(both.text).boolean, true);
  assert.equal((await http(`${s.url}/ontology?uri=${encodeURIComponent(remoteUri)}`, { method: 'DELETE' })).status, 200);
  assert.equal((await select('/sparql', `SELECT * WHERE { GRAPH <${remoteUri}> { ?s ?p ?o } }`)).length, 0);
});

test('registration forwards the subjectid header and refuses what it cannot fetch (502) or may not (400)', async () => {
  let seenToken: string | undefined;
  const fake: Server = createServer((req, res) => {
    seenToken = req.headers.subjectid as string | undefined;
    if (req.url === '/big') {
      res.writeHead(200, { 'Content-Type': 'text/turtle' });
      res.end(`<http://x/a> <http://x/b> "${'y'.repeat(2_000_000)}" .`);
    } else if (req.url === '/html') {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<html></html>');
    } else if (req.url === '/broken') {
      res.writeHead(200, { 'Content-Type': 'text/turtle' });
      res.end('this is { not turtle');
    } else if (req.url === '/ok') {
      res.writeHead(200, { 'Content-Type': 'text/turtle' });
      res.end('<http://x/a> <http://x/b> "c" .');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => fake.listen(0, '127.0.0.1', () => r()));
  const port = (fake.address() as { port: number }).port;
  const local = await startTestServer(['--harvest-max-bytes', '100000', '--harvest-interval', '0', '--allow-private-targets', '127.0.0.1']);
  try {
    const post = (uri: string, headers: Record<string, string> = {}) => http(`${local.url}/ontology`, { method: 'POST', body: form({ 'uri[]': uri }), accept: 'text/turtle', headers });
    const ok = await post(`http://127.0.0.1:${port}/ok`, { subjectid: 'secret-token-123' });
    assert.equal(ok.status, 200);
    assert.equal(seenToken, 'secret-token-123');
    for (const path of ['/missing', '/html', '/broken', '/big']) {
      const r = await post(`http://127.0.0.1:${port}${path}`);
      assert.equal(r.status, 502, path);
      assert.equal((await errorReport(r)).code, 'BadGateway');
    }
    const closed = await post('http://127.0.0.1:1/nothing');
    assert.equal(closed.status, 502);
    for (const bad of ['file:///etc/passwd', 'ftp://example.org/x', 'not a uri']) {
      assert.equal((await post(bad)).status, 400, bad);
    }
    const missingLocal = await post(`${local.base}/feature/999`);
    assert.equal(missingLocal.status, 404);
  } finally {
    await local.stop();
    fake.close();
  }
  const restricted = await startTestServer(['--harvest-allow', 'http://allowed.example/']);
  try {
    const r = await http(`${restricted.url}/ontology`, { method: 'POST', body: form({ 'uri[]': `http://127.0.0.1:${port}/ok` }), accept: 'text/turtle' });
    assert.equal(r.status, 400);
    assert.match((await errorReport(r)).message ?? '', /allow-list/);
  } finally {
    await restricted.stop();
  }
});

test('predefined queries: /ontology/endpoints (and the misspelled /onotlogy/endpoints), /ontology/algorithms, /ontology/models', async () => {
  const endpoints = await http(`${s.url}/ontology/endpoints`, { accept: 'text/turtle' });
  assert.equal(endpoints.status, 200);
  const classes = new Set(parseTurtle(endpoints.text).map((q) => q.subject.value));
  assert.ok(classes.size > 300, String(classes.size));
  const misspelled = await http(`${s.url}/onotlogy/endpoints`, { accept: 'application/rdf+xml' });
  assert.equal(new Set((await parseRdfXml(misspelled.text)).map((q) => q.subject.value)).size, classes.size);
  for (const path of ['/ontology/algorithms', '/ontology/models']) {
    const r = await http(`${s.url}${path}`, { accept: 'text/turtle' });
    assert.equal(r.status, 200);
  }
});

test('GET / describes the service and links every component', async () => {
  const html = await http(`${s.url}/`, { accept: 'text/html' });
  assert.equal(html.type, 'text/html');
  const rdf = parseTurtle((await http(`${s.url}/`, { accept: 'text/turtle' })).text);
  assert.ok(rdf.length > 10);
  for (const p of ['/compound', '/feature', '/dataset', '/algorithm', '/model', '/validation', '/task', '/ontology', '/sparql']) {
    assert.ok(html.text.includes(`href="${p}"`), `the page links ${p}`);
    assert.ok(
      rdf.some((q) => q.predicate.value === 'http://www.w3.org/2000/01/rdf-schema#seeAlso' && q.object.value === `${s.base}${p}`),
      `the description links ${p}`,
    );
  }
  const sparqlForm = await http(`${s.url}/sparql`, { accept: 'text/html' });
  assert.equal(sparqlForm.status, 200);
  assert.match(sparqlForm.text, /<form/);
});

test('registered remote resources are refreshed on the configured interval', async () => {
  let version = 1;
  const origin: Server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/turtle' });
    res.end(`<http://x/thing> <http://purl.org/dc/elements/1.1/title> "version ${version}" .`);
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(origin.address() as { port: number }).port}/thing`;
  const local = await startTestServer(['--harvest-interval', '1', '--allow-private-targets']);
  try {
    assert.equal((await http(`${local.url}/ontology`, { method: 'POST', body: form({ 'uri[]': url }) })).status, 200);
    const title = async () => {
      const r = await http(`${local.url}/ontology`, {
        method: 'POST',
        body: form({ query: 'SELECT ?t WHERE { ?s <http://purl.org/dc/elements/1.1/title> ?t FILTER(STRSTARTS(?t, "version")) }' }),
        accept: 'application/sparql-results+json',
      });
      return JSON.parse(r.text).results.bindings.map((b: any) => b.t.value);
    };
    assert.deepEqual(await title(), ['version 1']);
    version = 2;
    let seen: string[] = [];
    for (let i = 0; i < 40 && seen[0] !== 'version 2'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await title();
    }
    assert.deepEqual(seen, ['version 2']);
  } finally {
    await local.stop();
    origin.close();
  }
});
