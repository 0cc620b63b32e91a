import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedCsv, startTestServer, http, form, errorReport, type TestServer } from '../helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--sparql-update']);
});
after(() => s.stop());

const update = (text: string, params: Record<string, string | string[]> = {}) => http(`${s.url}/sparql`, { method: 'POST', body: form({ update: text, ...params }), accept: 'text/turtle' });
const ask = async (query: string) => JSON.parse((await http(`${s.url}/sparql?query=${encodeURIComponent(query)}`, { accept: 'application/sparql-results+json' })).text).boolean as boolean;
const G = 'http://example.org/my-graph';

test('SPARQL 1.1 Update over the protocol: INSERT DATA, DELETE/INSERT WHERE (form and application/sparql-update), using-graph-uri', async () => {
  assert.equal((await update(`INSERT DATA { GRAPH <${G}> { <http://example.org/a> <http://example.org/p> 1 } }`)).status, 204);
  assert.ok(await ask(`ASK { GRAPH <${G}> { <http://example.org/a> <http://example.org/p> 1 } }`));
  const body = await http(`${s.url}/sparql`, {
    method: 'POST',
    body: `DELETE { GRAPH <${G}> { ?s <http://example.org/p> ?o } } INSERT { GRAPH <${G}> { ?s <http://example.org/p> 2 } } WHERE { GRAPH <${G}> { ?s <http://example.org/p> ?o } }`,
    contentType: 'application/sparql-update',
  });
  assert.equal(body.status, 204, body.text);
  assert.ok(await ask(`ASK { GRAPH <${G}> { <http://example.org/a> <http://example.org/p> 2 } }`));
  assert.ok(!(await ask(`ASK { GRAPH <${G}> { <http://example.org/a> <http://example.org/p> 1 } }`)));
  // the protocol's dataset: the WHERE reads the graph named by using-graph-uri
  const copy = await update(`INSERT { GRAPH <${G}-copy> { ?s ?p ?o } } WHERE { ?s ?p ?o }`, { 'using-graph-uri': G });
  assert.equal(copy.status, 204, copy.text);
  assert.ok(await ask(`ASK { GRAPH <${G}-copy> { <http://example.org/a> <http://example.org/p> 2 } }`));
  const mixed = await update(`INSERT { GRAPH <${G}-x> { ?s ?p ?o } } USING <${G}> WHERE { ?s ?p ?o }`, { 'using-graph-uri': G });
  assert.equal(mixed.status, 400);
  assert.equal((await update(`DROP GRAPH <${G}-copy>`)).status, 204);
  assert.ok(!(await ask(`ASK { GRAPH <${G}-copy> { ?s ?p ?o } }`)));
});

test('updates never touch the graphs of resources, vocabularies or access control: 400, nothing written', async () => {
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: sharedCsv('EPAFHM_log10.csv', 3), contentType: 'text/csv', accept: 'text/uri-list' });
  const dataset = up.text.trim();
  const before = (await http(`${dataset.replace(s.base, s.url)}`, { accept: 'text/csv' })).text;
  for (const text of [
    `INSERT DATA { GRAPH <${G}> { <http://example.org/b> <http://example.org/p> 3 } . GRAPH <${dataset}> { <${dataset}> <http://purl.org/dc/elements/1.1/title> "hijacked" } }`,
    `DELETE WHERE { GRAPH <${dataset}> { ?s ?p ?o } }`,
    'DROP GRAPH <http://www.opentox.org/api/1.1>',
  ]) {
    const r = await update(text);
    assert.equal(r.status, 400, text);
    assert.match((await errorReport(r)).message ?? '', /Nothing was written|graphs this server keeps/);
  }
  assert.ok(!(await ask(`ASK { GRAPH <${G}> { <http://example.org/b> ?p ?o } }`)), 'the allowed part of a refused update was not written either');
  assert.equal((await http(`${dataset.replace(s.base, s.url)}`, { accept: 'text/csv' })).text, before);
  assert.equal((await http(`${s.url}/ontology/term?iri=${encodeURIComponent('http://www.opentox.org/api/1.1#Model')}`, { accept: 'text/turtle' })).status, 200);
  // CLEAR ALL / DROP ALL mean the graphs updates may change: the resources' graphs are not among them
  assert.equal((await update(`INSERT DATA { GRAPH <${G}-mine> { <http://example.org/e> <http://example.org/p> 1 } }`)).status, 204);
  assert.equal((await update('CLEAR ALL')).status, 204);
  assert.ok(!(await ask(`ASK { GRAPH <${G}-mine> { ?s ?p ?o } }`)), 'a graph of its own is cleared');
  assert.equal((await http(`${dataset.replace(s.base, s.url)}`, { accept: 'text/csv' })).text, before, 'the dataset is untouched');
  assert.equal((await http(`${s.url}/ontology/term?iri=${encodeURIComponent('http://www.opentox.org/api/1.1#Model')}`, { accept: 'text/turtle' })).status, 200, 'the vocabularies too');
});

test('the service description says that this endpoint takes updates', async () => {
  const sd = (await http(`${s.url}/sparql`, { accept: 'application/n-triples' })).text;
  assert.match(sd, /<http:\/\/www\.w3\.org\/ns\/sparql-service-description#supportedLanguage> <http:\/\/www\.w3\.org\/ns\/sparql-service-description#SPARQL11Update>/);
});

test('malformed updates, LOAD, queries sent as updates and updates sent with GET are refused', async () => {
  assert.equal((await update('INSERT DATA { <a> }')).status, 400);
  assert.match((await errorReport(await update('LOAD <http://example.org/data.ttl>'))).message ?? '', /LOAD/);
  assert.equal((await update('SELECT * WHERE { ?s ?p ?o }')).status, 400);
  assert.equal((await http(`${s.url}/sparql?update=${encodeURIComponent('CLEAR DEFAULT')}`, { accept: 'text/turtle' })).status, 400);
  assert.equal(
    (await http(`${s.url}/ontology`, { method: 'POST', body: form({ update: `INSERT DATA { GRAPH <${G}> { <http://example.org/c> <http://example.org/p> 1 } }` }), accept: 'text/turtle' })).status,
    400,
    'the ontology service does not update',
  );
  // a page of another site cannot update
  const foreign = await http(`${s.url}/sparql`, { method: 'POST', body: form({ update: 'CLEAR DEFAULT' }), headers: { Origin: 'http://evil.example' }, accept: 'text/turtle' });
  assert.equal(foreign.status, 403);
});

test('who may update: nobody without --sparql-update; with access control, administrators only', async () => {
  const plain = await startTestServer();
  try {
    const r = await http(`${plain.url}/sparql`, { method: 'POST', body: form({ update: 'CLEAR DEFAULT' }), accept: 'text/turtle' });
    assert.equal(r.status, 403);
    assert.match((await errorReport(r)).message ?? '', /--sparql-update/);
  } finally {
    await plain.stop();
  }
  const guarded = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  try {
    const login = async (username: string, password: string) =>
      (await http(`${guarded.url}/auth/authenticate`, { method: 'POST', body: form({ username, password }) })).text.trim().replace(/^token\.id=/, '');
    const admin = await login('admin', 'admin-secret-1');
    await http(`${guarded.url}/auth/user`, { method: 'POST', body: form({ username: 'carol', password: 'carol-password' }), headers: { subjectid: admin } });
    const carol = await login('carol', 'carol-password');
    const send = (token?: string) =>
      http(`${guarded.url}/sparql`, {
        method: 'POST',
        body: form({ update: `INSERT DATA { GRAPH <${G}> { <http://example.org/d> <http://example.org/p> 1 } }` }),
        headers: token ? { subjectid: token } : {},
        accept: 'text/turtle',
      });
    assert.equal((await send()).status, 401);
    assert.equal((await send(carol)).status, 403);
    assert.equal((await send(admin)).status, 204);
  } finally {
    await guarded.stop();
  }
});
