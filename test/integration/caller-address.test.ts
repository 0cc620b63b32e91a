import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, http, form, type TestServer } from '../helpers.ts';
import { loadConfig } from '../../src/core/config.ts';

/**
 * Issue 52 #5, #6: who the caller is. X-Forwarded-For is written by whoever connects, so it
 * counts only when the connection comes from a proxy named by --trust-proxy, and then only the
 * addresses that proxy (and other trusted ones) added: read from the right.
 */
const servers: TestServer[] = [];
after(() => Promise.all(servers.map((s) => s.stop())));

const upload = (s: TestServer, headers: Record<string, string> = {}, path = '/dataset') =>
  http(`${s.url}${path}`, { method: 'POST', body: 'SMILES,y\nCCO,1\nCCCO,2\n', contentType: 'text/csv', accept: 'text/uri-list', headers });

test('without --trust-proxy the socket is the caller: another X-Forwarded-For neither escapes the job quota nor the login throttle', async () => {
  const s = await startTestServer(['--job-quota', '1/h']);
  servers.push(s);
  assert.equal((await upload(s)).status, 200);
  assert.equal((await upload(s, { 'X-Forwarded-For': '203.0.113.7' })).status, 429);
  assert.equal((await upload(s, { 'X-Forwarded-For': '198.51.100.1, 203.0.113.8' })).status, 429);
  // other spellings and aliases of routes that start jobs count too
  for (const path of ['/dataset/', '//dataset', '/dataset/preview', '/validation/crossvalidation', '/crossvalidation/', '/model', '/algorithm/rdkit-descriptors']) {
    assert.equal((await upload(s, {}, path)).status, 429, path);
  }
  assert.equal((await upload(s, {}, '/DATASET')).status, 404, 'another letter case is another path');

  const authOn = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  servers.push(authOn);
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) {
    const r = await http(`${authOn.url}/auth/authenticate`, { method: 'POST', body: form({ username: `user${i}`, password: 'wrong' }), headers: { 'X-Forwarded-For': `203.0.113.${i + 1}` } });
    statuses.push(r.status);
  }
  assert.deepEqual(statuses, [...Array(5).fill(401), ...Array(7).fill(429)], 'password spraying from one address is throttled whatever it says it is');
});

test('with --trust-proxy naming the proxy, the nearest untrusted address of X-Forwarded-For is the caller', async () => {
  const s = await startTestServer(['--job-quota', '1/h', '--trust-proxy', '127.0.0.1, 10.0.0.0/8']);
  servers.push(s);
  assert.equal((await upload(s, { 'X-Forwarded-For': '203.0.113.7' })).status, 200);
  assert.equal((await upload(s, { 'X-Forwarded-For': '203.0.113.7' })).status, 429, 'the same client again');
  // the client wrote a first address itself; the proxy appended the one it saw, after another trusted proxy
  assert.equal((await upload(s, { 'X-Forwarded-For': '198.51.100.99, 203.0.113.7, 10.1.2.3' })).status, 429, 'the left-most address is the client’s word');
  assert.equal((await upload(s, { 'X-Forwarded-For': '203.0.113.8' })).status, 200, 'another client behind the proxy');
});

test('--trust-proxy takes addresses, never "all"', () => {
  assert.throws(() => loadConfig(['--trust-proxy', 'all'], {}), /names the proxies/);
  assert.throws(() => loadConfig(['--trust-proxy', 'nginx'], {}), /--trust-proxy takes addresses/);
  assert.equal(loadConfig(['--trust-proxy', '10.0.0.5, 10.89.0.0/24'], {}).trustProxy.length, 2);
});
