import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import fc from 'fast-check';
import { startTestServer, http, form, type TestServer } from '../helpers.ts';
import { linearRegressionFile } from '../onnx-fixtures.ts';
import { spellingsOf } from '../fuzz/path-spellings.ts';

/**
 * Issue 52: one canonical form of every request path, before anything looks at it. For every
 * route and every spelling of its path (case, percent-encoding, repeated or trailing slashes,
 * `.`/`..` segments), what another user may do is what they may do on the canonical spelling.
 */
let s: TestServer;
let alice: string;
let bob: string;
/** Alice's resources, by the route parameter that names them. */
const owned: Record<string, string> = {};
let dataset = '';
let model = '';

before(async () => {
  s = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  const admin = await login('admin', 'admin-secret-1');
  for (const name of ['alice', 'bob']) {
    const r = await http(`${s.url}/auth/user`, { method: 'POST', body: form({ username: name, password: `${name}-password` }), headers: { subjectid: admin } });
    assert.equal(r.status, 200, r.text);
  }
  alice = await login('alice', 'alice-password');
  bob = await login('bob', 'bob-password');
  const upload = await http(`${s.url}/dataset`, {
    method: 'POST',
    body: 'SMILES,x1,y\nCCO,1,2\nCCCO,2,4\nc1ccccc1,3,5\n',
    contentType: 'text/csv',
    accept: 'text/uri-list',
    headers: { subjectid: alice },
  });
  assert.equal(upload.status, 200, upload.text);
  dataset = upload.text.trim();
  const [x1, y] = (await http(`${dataset.replace(s.base, s.url)}/features`, { accept: 'text/uri-list', headers: { subjectid: alice } })).text.trim().split('\r\n');
  const fd = new FormData();
  fd.append('file', new Blob([Buffer.from(linearRegressionFile(1))], { type: 'application/onnx' }), 'model.onnx');
  for (const [k, v] of Object.entries({ independent_features: x1, prediction_feature: y, training_dataset: dataset })) fd.append(k, v);
  const imported = await http(`${s.url}/model`, { method: 'POST', body: fd, accept: 'text/uri-list', headers: { subjectid: alice } });
  assert.equal(imported.status, 201, imported.text);
  model = imported.text.trim();
  owned.dataset = dataset.slice(`${s.base}/dataset/`.length);
  owned.model = model.slice(`${s.base}/model/`.length);
  owned.feature = x1.slice(`${s.base}/feature/`.length);
});
after(() => s?.stop());

async function login(username: string, password: string): Promise<string> {
  const r = await http(`${s.url}/auth/authenticate`, { method: 'POST', body: form({ username, password }) });
  return /^token\.id=(\S+)$/m.exec(r.text)![1];
}

/** A request with its path exactly as written (fetch would resolve dot segments first). */
function raw(method: string, path: string, token: string, body?: string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path,
        method,
        headers: { subjectid: token, accept: 'text/uri-list, text/csv;q=0.9, */*;q=0.1', ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A route's path with its parameters naming alice's resources (or something plausible). */
function pathOf(pattern: string): string {
  const component = pattern.split('/')[1];
  return pattern
    .replace(/:id\b/, () => owned[component] ?? 'mlr')
    .replace(/:(\w+)/g, (_, name) => ({ type: 'validation', name: 'alice', cid: '1', pending: 'nothing', instance: 'x' })[name as string] ?? 'x')
    .replace(/\*\w+/, 'x');
}

test('every route, every spelling of its path: the same answer as the canonical spelling (another letter case: 404), so access decisions never differ', async () => {
  // the routes that change what they name: as bob, on alice's resources; reads of everything
  const routes = s.routes.filter((r) => r.path !== '/mcp' && (r.method === 'GET' || (r.path.includes(':id') && owned[r.path.split('/')[1]] !== undefined)));
  assert.ok(routes.length > 50, `${routes.length} routes`);
  let spellings = 0;
  for (const route of routes) {
    const canonical = pathOf(route.path);
    const expected = await raw(route.method, canonical, bob);
    await fc.assert(
      fc.asyncProperty(spellingsOf(canonical), async (spelling) => {
        spellings++;
        const got = await raw(route.method, spelling.path, bob);
        if (spelling.caseChanged) assert.ok(got.status === 404 || got.status === expected.status, `${route.method} ${spelling.path}: ${got.status} (canonical ${canonical}: ${expected.status})`);
        else assert.equal(got.status, expected.status, `${route.method} ${spelling.path}: ${got.status}, but ${canonical}: ${expected.status} ${got.text.slice(0, 200)}`);
      }),
      { seed: 52, numRuns: 6 },
    );
  }
  console.log(`# ${routes.length} routes, ${spellings} spellings`);
  // alice's resources are all still hers and whole
  assert.equal((await http(dataset.replace(s.base, s.url), { accept: 'text/csv', headers: { subjectid: alice } })).status, 200);
  assert.equal((await http(model.replace(s.base, s.url), { accept: 'text/uri-list', headers: { subjectid: alice } })).status, 200);
});

test('the reproductions of issue 52: /DATASET/1 and /MODEL/1 are no resources; PUT and DELETE of other spellings are refused', async () => {
  const path = new URL(dataset).pathname;
  assert.equal((await raw('GET', path, bob)).status, 403);
  for (const spelling of [
    path.toUpperCase(),
    path.replace('/dataset/', '/Dataset/'),
    `${path}/`,
    path.replace('/dataset/', '/dataset//'),
    path.replace('/dataset/', '/x/../dataset/'),
    path.replace(/(\d+)$/, (d) => `%3${d[0]}${d.slice(1)}`),
  ]) {
    const got = await raw('GET', spelling, bob);
    assert.ok([403, 404].includes(got.status), `GET ${spelling}: ${got.status}`);
    assert.ok((await raw('DELETE', spelling, bob)).status >= 400, `DELETE ${spelling}`);
    assert.ok((await raw('PUT', `${spelling}/metadata?title=taken`, bob)).status >= 400, `PUT ${spelling}/metadata`);
  }
  const onnx = await raw('GET', new URL(model).pathname.toUpperCase(), bob);
  assert.equal(onnx.status, 404);
  assert.equal((await http(dataset.replace(s.base, s.url), { accept: 'text/csv', headers: { subjectid: alice } })).status, 200, 'still there');
});

test('URIs in parameters are judged as the resource they name in any spelling', async () => {
  const { pathname } = new URL(dataset);
  const spellings = [
    `${s.base}${pathname}/`,
    `${s.base}${pathname.replace('/dataset/', '/dataset//')}`,
    `${s.base}${pathname.replace(/(\d)$/, (d) => `%3${d}`)}`,
    `${s.base.replace('http://', 'HTTP://')}${pathname}/.`,
  ];
  for (const uri of spellings) {
    const r = await raw('POST', '/dataset', bob, new URLSearchParams({ dataset_uri: uri }).toString());
    assert.ok([403, 404].includes(r.status), `dataset_uri=${uri}: ${r.status} ${r.text.slice(0, 200)}`);
    const authorize = await http(`${s.url}/auth/authorize`, { method: 'POST', body: form({ uri, action: 'GET', subjectid: bob }) });
    assert.equal(authorize.text.trim(), 'boolean=false', `authorize ${uri}`);
  }
});

test('a path that is not well-formed percent-encoding is a 400 with an error report', async () => {
  const r = await raw('GET', '/dataset/%zz', bob);
  assert.equal(r.status, 400);
  assert.match(r.text, /not well-formed/);
});
