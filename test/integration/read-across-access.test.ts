import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { startTestServer, http, form, type TestServer } from '../helpers.ts';

/**
 * Read-across under access control (issue 56): analogues come only from the datasets the caller
 * may read; a category is its maker's until shared, and a shared one shows each reader only the
 * values that reader may read.
 */
let s: TestServer;
let alice: string;
let bob: string;
const TERM = 'http://www.opentox.org/echaEndpoints.owl#Acute_toxicity_to_fish_lethality';
const as = (token: string) => ({ headers: { subjectid: token } });

async function login(username: string, password: string): Promise<string> {
  const r = await http(`${s.url}/auth/authenticate`, { method: 'POST', body: form({ username, password }) });
  assert.equal(r.status, 200, r.text);
  return /^token\.id=(\S+)$/m.exec(r.text)![1];
}

async function upload(token: string, csv: string): Promise<string> {
  const r = await http(`${s.url}/dataset?${new URLSearchParams({ endpoint_column: '1', endpoint: TERM })}`, {
    method: 'POST',
    body: csv,
    contentType: 'text/csv',
    accept: 'text/uri-list',
    ...as(token),
  });
  assert.equal(r.status, 200, r.text);
  return r.text.trim();
}

before(async () => {
  s = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  const admin = await login('admin', 'admin-secret-1');
  for (const name of ['alice', 'bob']) {
    const r = await http(`${s.url}/auth/user`, { method: 'POST', body: form({ username: name, password: `${name}-password` }), headers: { subjectid: admin } });
    assert.equal(r.status, 200, r.text);
  }
  [alice, bob] = [await login('alice', 'alice-password'), await login('bob', 'bob-password')];
});
after(() => s.stop());

test('analogues and categories show each caller only the data that caller may read', async () => {
  const mine = await upload(alice, 'SMILES,LC50\nCCCCCCO,1.1\nCCCCCCCCCO,2.2\n');
  const theirs = await upload(bob, 'SMILES,LC50\nCCCCCCCO,1.7\nCCCCO,0.25\n');
  const target = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list', ...as(alice) })).text.trim();
  const sources = async (token: string) => {
    const r = await http(`${target.replace(s.base, s.url)}/analogues?${new URLSearchParams({ endpoint: TERM, k: '10' })}`, { accept: 'application/json', ...as(token) });
    assert.equal(r.status, 200, r.text);
    return new Set((JSON.parse(r.text).analogues as { values: { dataset: string }[] }[]).flatMap((a) => a.values.map((v) => v.dataset)));
  };
  assert.deepEqual([...(await sources(alice))], [mine]);
  assert.deepEqual([...(await sources(bob))], [theirs]);
  // alice's category: hers alone until she shares it
  const made = await http(`${s.url}/category`, { method: 'POST', body: form({ target, endpoint: TERM, similarity_threshold: '0' }), accept: 'text/uri-list', ...as(alice) });
  assert.equal(made.status, 201, made.text);
  const category = made.text.trim().replace(s.base, s.url);
  assert.ok([403, 404].includes((await http(category, { accept: 'text/turtle', ...as(bob) })).status), 'bob cannot read alice’s category');
  assert.equal((await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: made.text.trim(), public_read: 'true' }), ...as(alice) })).status, 200);
  // shared: bob reads it, and its matrix shows him no value of alice's dataset
  const matrix = async (token: string) => {
    const r = await http(`${category}/matrix`, { accept: 'text/csv', ...as(token) });
    assert.equal(r.status, 200, r.text);
    return (parseCsv(r.text) as string[][]).slice(1).filter((row) => row[4] !== '');
  };
  assert.equal((await matrix(alice)).length, 2, 'alice sees her two values');
  assert.equal((await matrix(bob)).length, 0, 'bob sees none of them');
});

test('assessments: another user sees nothing of a draft; a shared one shows each reader only the measured values that reader may read', async () => {
  const mine = await upload(alice, 'SMILES,LC50\nCCCCCCCO,1.3\nCCCCCCCCCCO,2.5\n');
  const target = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list', ...as(alice) })).text.trim();
  const category = (await http(`${s.url}/category`, { method: 'POST', body: form({ target, endpoint: TERM, similarity_threshold: '0' }), accept: 'text/uri-list', ...as(alice) })).text.trim();
  const made = await http(`${s.url}/assessment`, { method: 'POST', body: form({ category, scenario: '2' }), accept: 'text/uri-list', ...as(alice) });
  assert.equal(made.status, 201, made.text);
  const assessment = made.text.trim();
  const read = (token: string) => http(assessment.replace(s.base, s.url), { accept: 'text/turtle', ...as(token) });
  assert.ok([403, 404].includes((await read(bob)).status), 'bob cannot read alice’s draft');
  assert.ok(!(await http(`${s.url}/assessment`, { accept: 'text/uri-list', ...as(bob) })).text.includes(assessment), 'nor see it listed');
  assert.ok((await read(alice)).text.includes(mine), 'alice sees the values her assessment rests on');
  assert.equal((await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: assessment, public_read: 'true' }), ...as(alice) })).status, 200);
  const shared = await read(bob);
  assert.equal(shared.status, 200);
  assert.ok(!shared.text.includes(mine), 'bob reads the assessment without alice’s measured values');
  // nor through SPARQL: the assessment's graph holds no measured value, and the provenance query reads them from datasets bob may read
  const rests = async (token: string) => {
    const r = await http(`${s.url}/ontology/queries/gap-fill-sources?${new URLSearchParams({ assessment })}`, { accept: 'application/sparql-results+json', ...as(token) });
    assert.equal(r.status, 200, r.text);
    return JSON.parse(r.text).results.bindings as { dataset: { value: string } }[];
  };
  assert.ok(
    (await rests(alice)).some((b) => b.dataset.value === mine),
    'alice’s query finds her values',
  );
  assert.ok(!(await rests(bob)).some((b) => b.dataset.value === mine), 'bob’s finds none of them');
  const graph = await http(
    `${s.url}/sparql?query=${encodeURIComponent(`SELECT ?v WHERE { GRAPH <${assessment}> { ?fill <http://www.w3.org/ns/prov#wasDerivedFrom> ?s . ?s <http://www.opentox.org/api/1.1#value> ?v } }`)}`,
    {
      accept: 'application/sparql-results+json',
      ...as(bob),
    },
  );
  assert.equal(JSON.parse(graph.text).results.bindings.length, 0, 'no value copied into the assessment’s graph');
  const page = await http(assessment.replace(s.base, s.url), { accept: 'text/html', ...as(bob) });
  assert.equal(page.status, 200, page.text.slice(0, 300));
  assert.match(page.text, /is not shared with you/);
  assert.ok(!page.text.includes(mine));
});
