import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedCsv, startTestServer, http, errorReport, parseTurtle, checkRdfXml, type TestServer } from '../helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--sparql-update']);
});
after(() => s.stop());

const G = 'http://example.org/gsp/graph-1';
const at = (graph: string) => `${s.url}/graph-store?graph=${encodeURIComponent(graph)}`;
const TTL = '<http://example.org/a> <http://example.org/p> "one" ; <http://example.org/q> [ <http://example.org/r> 1 ] .';

test('Graph Store Protocol: PUT creates (201) and replaces (204), GET in any RDF type, POST merges, HEAD, DELETE', async () => {
  assert.equal((await http(at(G), { method: 'PUT', body: TTL, contentType: 'text/turtle' })).status, 201);
  assert.equal(parseTurtle((await http(at(G), { accept: 'text/turtle' })).text).length, 3, 'blank nodes kept');
  assert.equal((await http(at(G), { method: 'PUT', body: '<http://example.org/b> <http://example.org/p> "two" .', contentType: 'application/n-triples' })).status, 204);
  const replaced = parseTurtle((await http(at(G), { accept: 'text/turtle' })).text);
  assert.deepEqual(
    replaced.map((q) => q.object.value),
    ['two'],
  );
  assert.equal((await http(at(G), { method: 'POST', body: TTL, contentType: 'text/turtle' })).status, 204);
  assert.equal(parseTurtle((await http(at(G), { accept: 'text/turtle' })).text).length, 4);
  const rdfxml = await http(at(G), { accept: 'application/rdf+xml' });
  assert.equal(rdfxml.headers.get('content-type'), 'application/rdf+xml');
  assert.equal((await checkRdfXml(rdfxml.text)).length, 4, 'RDF/XML, read by an independent parser too');
  const jsonld = await http(at(G), { accept: 'application/ld+json' });
  assert.equal(jsonld.status, 200);
  assert.equal((await http(at(G), { method: 'HEAD' })).status, 200);
  assert.equal((await http(at(G), { method: 'DELETE' })).status, 204);
  assert.equal((await http(at(G), { accept: 'text/turtle' })).status, 404);
  assert.equal((await http(at(G), { method: 'HEAD' })).status, 404);
  assert.equal((await http(at(G), { method: 'DELETE' })).status, 404);
  // the store's default graph
  assert.ok([201, 204].includes((await http(`${s.url}/graph-store?default`, { method: 'PUT', body: TTL, contentType: 'text/turtle' })).status));
  assert.equal(parseTurtle((await http(`${s.url}/graph-store?default`, { accept: 'text/turtle' })).text).length, 3);
  // POST to the store itself: a new graph named by the server
  const made = await http(`${s.url}/graph-store`, { method: 'POST', body: TTL, contentType: 'text/turtle' });
  assert.equal(made.status, 201);
  const location = made.headers.get('location') ?? '';
  assert.equal(parseTurtle((await http(location.replace(s.base, s.url), { accept: 'text/turtle' })).text).length, 3);
});

test('the graph store never writes the graphs of resources or vocabularies, and refuses bad requests', async () => {
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: sharedCsv('EPAFHM_log10.csv', 3), contentType: 'text/csv', accept: 'text/uri-list' });
  const dataset = up.text.trim();
  for (const method of ['PUT', 'POST', 'DELETE']) {
    const r = await http(at(dataset), { method, body: method === 'DELETE' ? undefined : TTL, contentType: 'text/turtle', accept: 'text/turtle' });
    assert.equal(r.status, 400, method);
    assert.match((await errorReport(r)).message ?? '', /Nothing was written/);
  }
  assert.equal((await http(at(dataset), { accept: 'text/turtle' })).status, 200, 'reading a resource graph is allowed');
  assert.equal((await http(at('http://www.opentox.org/api/1.1'), { method: 'DELETE', accept: 'text/turtle' })).status, 400);
  assert.equal((await http(`${s.url}/graph-store?graph=x&default`, { accept: 'text/turtle' })).status, 400);
  assert.equal((await http(at('not an iri'), { accept: 'text/turtle' })).status, 400);
  assert.equal((await http(at(G), { method: 'PUT', body: 'not turtle <', contentType: 'text/turtle', accept: 'text/turtle' })).status, 400);
  const plain = await startTestServer();
  try {
    const r = await http(`${plain.url}/graph-store?graph=${encodeURIComponent(G)}`, { method: 'PUT', body: TTL, contentType: 'text/turtle', accept: 'text/turtle' });
    assert.equal(r.status, 403, 'writes need --sparql-update (or an administrator)');
  } finally {
    await plain.stop();
  }
});
