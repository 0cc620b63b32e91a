import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, http, form, errorReport, type TestServer } from '../helpers.ts';

/** Per-caller quotas on the requests that start jobs (issue 41): 2 an hour for everyone, 4 for the members of "curators". */
let s: TestServer;
let admin: string;
before(async () => {
  s = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1', '--job-quota', '2/h', '--group-job-quotas', 'curators=4/h']);
  admin = await login('admin', 'admin-secret-1');
  for (const name of ['alice', 'bob', 'carol'])
    assert.equal((await http(`${s.url}/auth/user`, { method: 'POST', body: form({ username: name, password: `${name}-password` }), headers: { subjectid: admin } })).status, 200);
  assert.equal((await http(`${s.url}/auth/group`, { method: 'POST', body: form({ name: 'curators', members: 'carol' }), headers: { subjectid: admin } })).status, 200);
});
after(() => s.stop());

async function login(username: string, password: string): Promise<string> {
  const r = await http(`${s.url}/auth/authenticate`, { method: 'POST', body: form({ username, password }) });
  return /^token\.id=(\S+)$/m.exec(r.text)![1];
}

const upload = (token: string) => http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,y\nCCO,1\nCCCO,2\n', contentType: 'text/csv', accept: 'text/uri-list', headers: { subjectid: token } });

test('a caller over its quota gets 429 with Retry-After, while its reads and other callers go on; a group has its own quota; refusals are counted in /metrics', async () => {
  const alice = await login('alice', 'alice-password');
  const bob = await login('bob', 'bob-password');
  const carol = await login('carol', 'carol-password');
  const first = await upload(alice);
  assert.equal(first.status, 200, first.text);
  assert.equal((await upload(alice)).status, 200);
  const over = await upload(alice);
  assert.equal(over.status, 429, over.text);
  const retry = Number(over.headers.get('retry-after'));
  assert.ok(retry >= 1 && retry <= 3600, `Retry-After ${retry}`);
  assert.match((await errorReport(over)).message ?? '', /the quota is 2 per 3600 s/);
  // a job started another way counts too: descriptors of a dataset
  assert.equal((await http(`${s.url}/algorithm/rdkit-descriptors`, { method: 'POST', body: form({ dataset_uri: first.text.trim() }), headers: { subjectid: alice } })).status, 429);
  // reads go on, and so do other callers
  assert.equal((await http(first.text.trim().replace(s.base, s.url), { accept: 'text/csv', headers: { subjectid: alice } })).status, 200);
  assert.equal(
    (await http(`${s.url}/sparql`, { method: 'POST', body: 'ASK {}', contentType: 'application/sparql-query', accept: 'application/sparql-results+json', headers: { subjectid: alice } })).status,
    200,
  );
  assert.equal((await upload(bob)).status, 200, 'another caller');
  // a curator may start four
  for (let i = 0; i < 4; i++) assert.equal((await upload(carol)).status, 200, `carol's upload ${i + 1}`);
  assert.equal((await upload(carol)).status, 429);
  const metrics = (await http(`${s.url}/metrics`)).text;
  assert.match(metrics, /toxgraph_quota_refusals_total\{quota="jobs"\} 3/);
});
