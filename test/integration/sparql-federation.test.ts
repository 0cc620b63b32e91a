import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, http, featureTurtle, errorReport, type TestServer } from '../helpers.ts';

let local: TestServer;
let remote: TestServer;
before(async () => {
  // both at once: SERVICE calls go through the outbound policy, and loopback is an internal address, allowed here for the test
  [remote, local] = await Promise.all([startTestServer(), startTestServer(['--sparql-service', '--allow-private-targets', '127.0.0.0/8'])]);
});
after(async () => {
  await local?.stop();
  await remote?.stop();
});

const select = async (server: TestServer, query: string) => http(`${server.url}/sparql`, { method: 'POST', body: new URLSearchParams({ query }), accept: 'application/sparql-results+json' });

test('SERVICE queries another endpoint (a second server) and joins its answers with local data', async () => {
  assert.equal((await http(`${remote.url}/feature`, { method: 'POST', body: featureTurtle('remote boiling point'), contentType: 'text/turtle', accept: 'text/uri-list' })).status, 200);
  assert.equal((await http(`${local.url}/feature`, { method: 'POST', body: featureTurtle('remote boiling point'), contentType: 'text/turtle', accept: 'text/uri-list' })).status, 200);
  const query = `PREFIX dc: <http://purl.org/dc/elements/1.1/> PREFIX ot: <http://www.opentox.org/api/1.1#>
SELECT ?mine ?theirs WHERE {
  ?mine a ot:Feature ; dc:title ?title .
  SERVICE <${remote.url}/sparql> { ?theirs a ot:Feature ; dc:title ?title }
}`;
  const r = await select(local, query);
  assert.equal(r.status, 200, r.text);
  const rows = JSON.parse(r.text).results.bindings as { mine: { value: string }; theirs: { value: string } }[];
  assert.equal(rows.length, 1);
  assert.ok(rows[0].mine.value.startsWith(local.base) && rows[0].theirs.value.startsWith(remote.base));
});

test('SERVICE is refused unless enabled, and keeps to the outbound policy when it is', async () => {
  const off = await select(remote, `SELECT * WHERE { SERVICE <${local.url}/sparql> { ?s ?p ?o } } LIMIT 1`);
  assert.equal(off.status, 400);
  assert.match((await errorReport(off)).message ?? '', /SERVICE/);
  const internal = await select(local, 'SELECT * WHERE { SERVICE <http://10.1.2.3/sparql> { ?s ?p ?o } } LIMIT 1');
  assert.equal(internal.status, 400);
  const silent = await select(local, 'SELECT * WHERE { SERVICE SILENT <http://10.1.2.3/sparql> { ?s ?p ?o } } LIMIT 1');
  assert.equal(silent.status, 200, 'SERVICE SILENT ignores the refusal');
});
