import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, testStoreFlags, http, form, errorReport, featureTurtle, type TestServer } from '../helpers.ts';
import { linearRegressionFile } from '../onnx-fixtures.ts';

let s: TestServer;
let admin: string;
before(async () => {
  s = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  admin = await login('admin', 'admin-secret-1');
  for (const name of ['alice', 'bob']) {
    const r = await http(`${s.url}/auth/user`, { method: 'POST', body: form({ username: name, password: `${name}-password` }), headers: { subjectid: admin } });
    assert.equal(r.status, 200, r.text);
  }
});
after(() => s.stop());

async function login(username: string, password: string): Promise<string> {
  const r = await http(`${s.url}/auth/authenticate`, { method: 'POST', body: form({ username, password }) });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.type, 'text/plain');
  return /^token\.id=(\S+)$/m.exec(r.text)![1];
}

const as = (token: string | undefined, extra: Record<string, string> = {}) => ({ headers: token ? { subjectid: token, ...extra } : extra });

test('tokens: login, validity, the three places a token is read from, logout', async () => {
  const alice = await login('alice', 'alice-password');
  assert.match(alice, /^[A-Za-z0-9_-]{43}$/);
  assert.equal((await http(`${s.url}/auth/isTokenValid`, { method: 'POST', body: form({ tokenid: alice }) })).text.trim(), 'boolean=true');
  assert.equal((await http(`${s.url}/auth/isTokenValid`, { method: 'POST', body: form({ tokenid: 'forged' }) })).text.trim(), 'boolean=false');
  assert.equal((await http(`${s.url}/feature`, { accept: 'text/uri-list', ...as(alice) })).status, 200);
  assert.equal((await http(`${s.url}/feature?subjectid=${alice}`, { accept: 'text/uri-list' })).status, 200);
  assert.equal((await http(`${s.url}/feature`, { accept: 'text/uri-list', headers: { Authorization: `Bearer ${alice}` } })).status, 200);
  const anonymous = await http(`${s.url}/feature`, { accept: 'text/turtle' });
  assert.equal(anonymous.status, 401);
  assert.equal((await errorReport(anonymous)).code, 'Unauthorized');
  const bad = await http(`${s.url}/feature`, { accept: 'text/turtle', headers: { subjectid: 'not-a-token-12345' } });
  assert.equal(bad.status, 401);
  assert.ok(!bad.text.includes('not-a-token-12345'), 'the token is never echoed');
  assert.equal((await http(`${s.url}/auth/logout`, { method: 'POST', body: form({ subjectid: alice }) })).status, 200);
  assert.equal((await http(`${s.url}/feature`, { accept: 'text/turtle', ...as(alice) })).status, 401);
  assert.equal((await http(`${s.url}/auth/authenticate`, { method: 'POST', body: form({ username: 'alice', password: 'wrong' }) })).status, 401);
});

test('the creator owns a resource: others get 403, anonymous 401; the owner can open it to reading', async () => {
  const alice = await login('alice', 'alice-password');
  const bob = await login('bob', 'bob-password');
  const created = await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,LC50\nCCO,1.5\nc1ccccc1,2\n', contentType: 'text/csv', ...as(alice) });
  assert.equal(created.status, 200, created.text);
  const ds = created.text.trim().replace(s.base, s.url);
  assert.equal((await http(ds, { accept: 'text/csv', ...as(alice) })).status, 200);
  assert.equal((await http(ds, { accept: 'text/csv', ...as(bob) })).status, 403);
  assert.equal((await http(ds, { accept: 'text/csv' })).status, 401);
  // lists show only what the caller may read
  assert.ok((await http(`${s.url}/dataset`, { accept: 'text/uri-list', ...as(alice) })).text.includes(created.text.trim()));
  assert.ok(!(await http(`${s.url}/dataset`, { accept: 'text/uri-list', ...as(bob) })).text.includes(created.text.trim()));
  assert.ok(!(await http(`${s.url}/dataset`, { accept: 'text/turtle', ...as(bob) })).text.includes(created.text.trim()));
  assert.equal((await http(ds, { method: 'DELETE', ...as(bob) })).status, 403);
  assert.equal((await http(ds, { method: 'PUT', body: 'SMILES,LC50\nCCC,3\n', contentType: 'text/csv', ...as(bob) })).status, 403);
  // reading on the caller's behalf: a subset of alice's dataset is refused to bob
  const subset = await http(`${s.url}/dataset`, { method: 'POST', body: form({ dataset_uri: created.text.trim() }), ...as(bob) });
  assert.equal(subset.status, 403);
  const f = (await http(`${s.url}/feature`, { method: 'POST', body: featureTurtle('alice feature'), contentType: 'text/turtle', ...as(alice) })).text.trim();
  assert.equal((await http(f.replace(s.base, s.url), { method: 'DELETE', ...as(bob) })).status, 403);
  // authorize answers the same
  const authorize = (token: string, action: string) =>
    http(`${s.url}/auth/authorize`, { method: 'POST', body: form({ uri: created.text.trim(), action, subjectid: token }) }).then((r) => r.text.trim());
  assert.equal(await authorize(alice, 'DELETE'), 'boolean=true');
  assert.equal(await authorize(bob, 'GET'), 'boolean=false');
  // the owner opens it to reading
  assert.equal((await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: created.text.trim(), public_read: 'true' }), ...as(bob) })).status, 403);
  assert.equal((await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: created.text.trim(), public_read: 'true' }), ...as(alice) })).status, 200);
  assert.equal((await http(ds, { accept: 'text/csv', ...as(bob) })).status, 200);
  assert.equal((await http(ds, { method: 'DELETE', ...as(bob) })).status, 403);
  assert.equal((await http(ds, { method: 'DELETE', ...as(alice) })).status, 200);
});

test("the upload preview: any user previews and stores a file; another user's waiting file is not theirs to see or store", async () => {
  const alice = await login('alice', 'alice-password');
  const bob = await login('bob', 'bob-password');
  const fd = new FormData();
  fd.append('file', new Blob(['SMILES,LC50\nCCO,1.5\nCCCO,2\n'], { type: 'text/csv' }), 'mine.csv');
  const preview = await http(`${s.url}/dataset/preview`, { method: 'POST', body: fd, accept: 'application/json', ...as(alice) });
  assert.equal(preview.status, 200, preview.text);
  const { pending } = JSON.parse(preview.text);
  assert.equal((await http(`${s.url}/dataset/preview/${pending}`, { accept: 'application/json', ...as(bob) })).status, 404);
  assert.equal((await http(`${s.url}/dataset`, { method: 'POST', body: form({ pending }), accept: 'text/uri-list', ...as(bob) })).status, 404);
  assert.equal((await http(`${s.url}/dataset/preview/${pending}`, { accept: 'application/json', ...as(alice) })).status, 200);
  const stored = await http(`${s.url}/dataset`, { method: 'POST', body: form({ pending }), accept: 'text/uri-list', ...as(alice) });
  assert.equal(stored.status, 200, stored.text);
  assert.equal((await http(stored.text.trim().replace(s.base, s.url), { accept: 'text/csv', ...as(bob) })).status, 403, "the stored dataset is alice's");
});

test("a prediction's page explains it only to who may read the model and its training set", async () => {
  const alice = await login('alice', 'alice-password');
  const bob = await login('bob', 'bob-password');
  const follow = async (r: { status: number; text: string }) => {
    let uri = r.text.trim();
    for (let i = 0; r.status === 202 && i < 200 && uri.includes('/task/'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const t = await http(uri.replace(s.base, s.url), { accept: 'text/uri-list', ...as(alice) });
      if (t.status === 200) uri = t.text.trim();
    }
    return uri;
  };
  const post = async (path: string, params: Record<string, string>) => follow(await http(`${s.url}${path}`, { method: 'POST', body: form(params), accept: 'text/uri-list', ...as(alice) }));
  const up = await http(`${s.url}/dataset`, {
    method: 'POST',
    body: 'SMILES,LC50\nCCO,1.5\nCCCO,2\nCCCCO,2.4\nCCCCCO,2.9\nCCCCCCO,3.3\n',
    contentType: 'text/csv',
    accept: 'text/uri-list',
    ...as(alice),
  });
  const dataset = up.text.trim();
  const [lc50] = (await http(`${dataset.replace(s.base, s.url)}/features`, { accept: 'text/uri-list', ...as(alice) })).text.trim().split('\r\n');
  const described = await post('/algorithm/rdkit-descriptors', { dataset_uri: dataset, descriptors: 'CrippenClogP' });
  const model = await post('/algorithm/mlr', { dataset_uri: described, prediction_feature: lc50 });
  assert.match(model, /\/model\/\d+$/);
  const predicted = await http(model.replace(s.base, s.url), { method: 'POST', body: form({ smiles: 'CCCCCCCO' }), accept: 'text/uri-list', ...as(alice) });
  assert.equal(predicted.status, 200, predicted.text);
  const predictions = predicted.headers.get('location') ?? predicted.text.trim();
  assert.equal((await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: predictions, public_read: 'true' }), ...as(alice) })).status, 200);
  const page = (token: string) => http(predictions.replace(s.base, s.url), { accept: 'text/html', ...as(token) }).then((r) => r.text);
  assert.match(await page(alice), /class="explained"/);
  const bobs = await page(bob);
  assert.match(bobs, /<h1>/, 'bob reads the predictions');
  assert.doesNotMatch(bobs, /class="explained"/, "but not alice's training structures");
});

test("SPARQL never shows another user's private graphs, nor any access-control data", async () => {
  const alice = await login('alice', 'alice-password');
  const bob = await login('bob', 'bob-password');
  const ds = (await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,secret_value\nCCO,42\n', contentType: 'text/csv', ...as(alice) })).text.trim();
  const ask = async (token: string, query: string) => {
    const r = await http(`${s.url}/sparql`, { method: 'POST', body: form({ query }), accept: 'application/sparql-results+json', ...as(token) });
    assert.equal(r.status, 200, `${query}: ${r.text.slice(-400)}`);
    return JSON.stringify(JSON.parse(r.text));
  };
  const queries = [
    `SELECT * WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "${ds}")) }`,
    `SELECT * WHERE { <${ds}> ?p ?o }`,
    `SELECT * FROM <${ds}> WHERE { ?s ?p ?o }`,
    `SELECT * FROM NAMED <${ds}/entries> WHERE { GRAPH ?g { ?s ?p ?o } }`,
    `SELECT ?v WHERE { ?e <http://www.opentox.org/api/1.1#compound> ?c ; ?f ?v . FILTER(STR(?v) = "42") }`,
    `SELECT * WHERE { <${ds}> (<http://www.opentox.org/api/1.1#dataEntry>/<http://www.opentox.org/api/1.1#compound>)+ ?x }`,
    `SELECT * WHERE { { SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } } FILTER(CONTAINS(STR(?g), "dataset")) }`,
  ];
  for (const q of queries) {
    const seen = await ask(bob, q);
    assert.ok(!seen.includes(ds) && !seen.includes('"42"') && !seen.includes('secret_value'), `${q} → ${seen.slice(0, 300)}`);
  }
  assert.ok((await ask(alice, queries[1])).includes('secret_value') || (await ask(alice, queries[0])).includes(ds));
  const describe = await http(`${s.url}/sparql`, { method: 'POST', body: form({ query: `DESCRIBE <${ds}>` }), accept: 'application/n-triples', ...as(bob) });
  assert.ok(!describe.text.includes('secret_value'));
  for (const token of [alice, bob, admin]) {
    const leaked = await ask(token, 'SELECT * WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "urn:toxgraph:auth")) }');
    assert.ok(!leaked.includes('urn:toxgraph:auth'), 'access-control graphs are never visible');
    assert.ok(!(await ask(token, 'SELECT ?h WHERE { ?u <http://www.opentox.org/api/1.1#passwordHash> ?h }')).includes('scrypt'));
  }
});

test('what SPARQL shows a caller follows the policies at once, also for queries the store answers from what it keeps in memory', async () => {
  const alice = await login('alice', 'alice-password');
  const bob = await login('bob', 'bob-password');
  const ds = (await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,x\nCCO,1\n', contentType: 'text/csv', ...as(alice) })).text.trim();
  // every dataset: asked often enough that the store keeps the predicate's quads, and bob's part of them
  const titles = async (token: string) => {
    const r = await http(`${s.url}/sparql`, {
      method: 'POST',
      body: form({ query: 'SELECT ?d WHERE { ?d a ?type FILTER(?type = <http://www.opentox.org/api/1.1#Dataset>) }' }),
      accept: 'text/csv',
      ...as(token),
    });
    assert.equal(r.status, 200, r.text);
    return r.text;
  };
  for (let i = 0; i < 3; i++) assert.ok(!(await titles(bob)).includes(ds));
  assert.ok((await titles(alice)).includes(ds));
  assert.equal((await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: ds, public_read: 'true' }), ...as(alice) })).status, 200);
  assert.ok((await titles(bob)).includes(ds), 'a policy that lets bob read shows him the dataset');
  assert.equal((await http(`${s.url}/auth/policy?uri=${encodeURIComponent(ds)}`, { method: 'DELETE', ...as(alice) })).status, 200);
  assert.ok(!(await titles(bob)).includes(ds), 'and taking it back hides it again');
});

test('groups: the owner lets a group read; members read, and stop when they leave', async () => {
  const alice = await login('alice', 'alice-password');
  const bob = await login('bob', 'bob-password');
  const ds = (await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,x\nCCO,1\n', contentType: 'text/csv', ...as(alice) })).text.trim();
  assert.equal((await http(`${s.url}/auth/group`, { method: 'POST', body: form({ name: 'reviewers', 'members[]': ['bob'] }), ...as(alice) })).status, 403);
  assert.equal((await http(`${s.url}/auth/group`, { method: 'POST', body: form({ name: 'reviewers', 'members[]': ['bob'] }), ...as(admin) })).status, 200);
  assert.equal((await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: ds, group: 'nosuchgroup' }), ...as(alice) })).status, 400);
  assert.equal((await http(ds.replace(s.base, s.url), { accept: 'text/csv', ...as(bob) })).status, 403);
  assert.equal((await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: ds, group: 'reviewers' }), ...as(alice) })).status, 200);
  assert.equal((await http(ds.replace(s.base, s.url), { accept: 'text/csv', ...as(bob) })).status, 200);
  assert.equal((await http(ds.replace(s.base, s.url), { method: 'DELETE', ...as(bob) })).status, 403, 'reading only');
  assert.match((await http(`${s.url}/auth/policy?uri=${encodeURIComponent(ds)}`, { accept: 'text/turtle', ...as(alice) })).text, /ot:readableBy "reviewers"/);
  assert.equal((await http(`${s.url}/auth/group`, { method: 'POST', body: form({ name: 'reviewers', 'members[]': ['alice'] }), ...as(admin) })).status, 200);
  assert.equal((await http(ds.replace(s.base, s.url), { accept: 'text/csv', ...as(bob) })).status, 403);
  // deleting the policy takes every grant back
  assert.equal((await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: ds, public_read: 'true' }), ...as(alice) })).status, 200);
  assert.equal((await http(ds.replace(s.base, s.url), { accept: 'text/csv', ...as(bob) })).status, 200);
  assert.equal((await http(`${s.url}/auth/policy?uri=${encodeURIComponent(ds)}`, { method: 'DELETE', ...as(bob) })).status, 403);
  assert.equal((await http(`${s.url}/auth/policy?uri=${encodeURIComponent(ds)}`, { method: 'DELETE', ...as(alice) })).status, 200);
  assert.equal((await http(ds.replace(s.base, s.url), { accept: 'text/csv', ...as(bob) })).status, 403);
  assert.equal((await http(ds.replace(s.base, s.url), { accept: 'text/csv', ...as(alice) })).status, 200);
  assert.equal((await http(`${s.url}/auth/group/reviewers`, { method: 'DELETE', ...as(admin) })).status, 200);
});

test('only the administrator manages users', async () => {
  const alice = await login('alice', 'alice-password');
  assert.equal((await http(`${s.url}/auth/user`, { method: 'POST', body: form({ username: 'mallory', password: 'mallory-pass' }), ...as(alice) })).status, 403);
  assert.equal((await http(`${s.url}/auth/user`, { method: 'POST', body: form({ username: 'carol', password: 'carol-password' }), ...as(admin) })).status, 200);
  const carol = await login('carol', 'carol-password');
  assert.equal((await http(`${s.url}/auth/user/carol`, { method: 'DELETE', ...as(admin) })).status, 200);
  assert.equal((await http(`${s.url}/feature`, { accept: 'text/turtle', ...as(carol) })).status, 401, "a removed user's token stops working");
});

test('the user command works with the server stopped (opens the store) and running (through its API)', async () => {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const run = promisify(execFile);
  const dir = await mkdtemp(join(tmpdir(), 'toxgraph-cli-'));
  const store = await testStoreFlags(dir);
  const cli = (args: string[], env: Record<string, string>) => run(process.execPath, ['src/auth/user-cli.ts', ...args, '--data', dir, ...store], { env: { ...process.env, ...env }, timeout: 60_000 });
  try {
    await cli(['add', 'erin'], { TOXGRAPH_USER_PASSWORD: 'erin-password' });
    await cli(['group', 'chemists', 'erin'], {});
    const server = await startTestServer(['--auth', '--admin-user', 'root', '--admin-password', 'root-password'], dir);
    try {
      const port = new URL(server.url).port;
      await cli(['add', 'frank', '--port', port], { TOXGRAPH_USER_PASSWORD: 'frank-password', TOXGRAPH_ADMIN_USER: 'root', TOXGRAPH_ADMIN_PASSWORD: 'root-password' });
      for (const [u, p] of [
        ['erin', 'erin-password'],
        ['frank', 'frank-password'],
      ]) {
        const r = await http(`${server.url}/auth/authenticate`, { method: 'POST', body: form({ username: u, password: p }) });
        assert.equal(r.status, 200, `${u}: ${r.text}`);
      }
      await cli(['group', 'chemists', 'erin', 'frank', '--port', port], { TOXGRAPH_ADMIN_USER: 'root', TOXGRAPH_ADMIN_PASSWORD: 'root-password' });
      assert.equal(server.services.access.hasGroup('chemists'), true);
      await cli(['remove', 'frank', '--port', port], { TOXGRAPH_ADMIN_USER: 'root', TOXGRAPH_ADMIN_PASSWORD: 'root-password' });
      assert.equal((await http(`${server.url}/auth/authenticate`, { method: 'POST', body: form({ username: 'frank', password: 'frank-password' }) })).status, 401);
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('tokens of an OpenID Connect provider (JWTs checked against its JWKS) are accepted', async () => {
  const { generateKeyPair, exportJWK, SignJWT } = await import('jose');
  const { createServer } = await import('node:http');
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const jwks = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', () => r()));
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as { port: number }).port}/certs`;
  const issuer = 'https://keycloak.example/realms/toxgraph';
  const server = await startTestServer(['--auth', '--oidc-jwks-url', jwksUrl, '--oidc-issuer', issuer, '--oidc-audience', 'toxgraph']);
  const sign = (claims: Record<string, unknown>, key = privateKey, expires = '5m') =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
      .setIssuer((claims.iss as string) ?? issuer)
      .setAudience('toxgraph')
      .setIssuedAt()
      .setExpirationTime(expires)
      .sign(key);
  try {
    const good = await sign({ sub: 'f81d4fae', preferred_username: 'kc-user' });
    const created = await http(`${server.url}/feature`, { method: 'POST', body: featureTurtle('from keycloak'), contentType: 'text/turtle', headers: { Authorization: `Bearer ${good}` } });
    assert.equal(created.status, 200, created.text);
    const policy = await http(`${server.url}/auth/policy?uri=${encodeURIComponent(created.text.trim())}`, { accept: 'text/turtle', headers: { subjectid: good } });
    assert.match(policy.text, /"oidc:kc-user"/);
    const other = (await generateKeyPair('RS256')).privateKey;
    for (const bad of [await sign({ sub: 'x' }, other), await sign({ sub: 'x', iss: 'https://evil.example' }), await sign({ sub: 'x' }, privateKey, '-1m')]) {
      assert.equal((await http(`${server.url}/feature`, { accept: 'text/uri-list', headers: { subjectid: bad } })).status, 401);
    }
  } finally {
    await server.stop();
    jwks.close();
  }
});

test('every component: the owner may, another user may not (compounds: read only), anonymous gets 401', async () => {
  const alice = await login('alice', 'alice-password');
  const bob = await login('bob', 'bob-password');
  const feature = (await http(`${s.url}/feature`, { method: 'POST', body: featureTurtle('matrix'), contentType: 'text/turtle', ...as(alice) })).text.trim();
  const compound = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCO butanol', contentType: 'chemical/x-daylight-smiles', ...as(alice) })).text.trim();
  const dataset = (await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,y\nCCCCO,1\n', contentType: 'text/csv', ...as(alice) })).text.trim();
  const task = await currentUserTask(alice);
  const cases: [string, string, string | undefined, string | undefined, number, number][] = [
    // uri, method, body, content type, status for bob, status for alice
    [feature, 'GET', undefined, undefined, 403, 200],
    [feature, 'PUT', featureTurtle('changed'), 'text/turtle', 403, 200],
    [compound, 'GET', undefined, undefined, 200, 200],
    [compound, 'PUT', 'CCCCO 1-butanol', 'chemical/x-daylight-smiles', 403, 200],
    [`${compound}/feature`, 'POST', `feature_uri=${encodeURIComponent(feature)}&value=1`, 'application/x-www-form-urlencoded', 403, 200],
    [dataset, 'GET', undefined, undefined, 403, 200],
    [`${dataset}/metadata`, 'PUT', 'title=mine', 'application/x-www-form-urlencoded', 403, 200],
    [task, 'GET', undefined, undefined, 403, 200],
    [dataset, 'DELETE', undefined, undefined, 403, 200],
    [compound, 'DELETE', undefined, undefined, 403, 200],
    [feature, 'DELETE', undefined, undefined, 403, 200],
  ];
  for (const [uri, method, body, type, bobStatus, aliceStatus] of cases) {
    const call = (token?: string) => http(uri.replace(s.base, s.url), { method, body, contentType: type, accept: 'text/turtle', ...as(token) });
    assert.equal((await call()).status, 401, `anonymous ${method} ${uri}`);
    assert.equal((await call(bob)).status, bobStatus, `bob ${method} ${uri}`);
    assert.equal((await call(alice)).status, aliceStatus, `alice ${method} ${uri}`);
  }
  // only the owner publishes a protected resource to the ontology service
  const ds2 = (await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,y\nCCO,1\n', contentType: 'text/csv', ...as(alice) })).text.trim();
  assert.equal((await http(`${s.url}/ontology`, { method: 'POST', body: form({ 'uri[]': ds2 }), ...as(bob) })).status, 403);
  assert.equal((await http(`${s.url}/ontology`, { method: 'POST', body: form({ 'uri[]': ds2 }), ...as(alice) })).status, 200);
  // expired tokens stop working
  const shortLived = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1', '--token-ttl', '1']);
  try {
    const r = await http(`${shortLived.url}/auth/authenticate`, { method: 'POST', body: form({ username: 'admin', password: 'admin-secret-1' }) });
    const token = /token\.id=(\S+)/.exec(r.text)![1];
    assert.equal((await http(`${shortLived.url}/feature`, { accept: 'text/uri-list', headers: { subjectid: token } })).status, 200);
    await new Promise((res) => setTimeout(res, 1200));
    assert.equal((await http(`${shortLived.url}/feature`, { accept: 'text/uri-list', headers: { subjectid: token } })).status, 401);
  } finally {
    await shortLived.stop();
  }
});

/** A task started by `token`: it belongs to its creator because the runner mints its URI in the creator's name. */
async function currentUserTask(token: string): Promise<string> {
  const { currentUser } = await import('../../src/core/request-context.ts');
  const user = await s.services.access.userOfToken(token);
  const uri = await currentUser.run(user, () => s.services.tasks.submit('owned task', async () => `${s.base}/feature`));
  await s.services.tasks.settled(uri);
  return uri;
}

test('algorithms and models: any user applies an algorithm; the model belongs to its trainer, who may let others predict with it', async () => {
  const alice = await login('alice', 'alice-password');
  const bob = await login('bob', 'bob-password');
  const post = (url: string, token: string | undefined, params: Record<string, string>) =>
    http(url.replace(s.base, s.url), { method: 'POST', body: form(params), accept: 'text/uri-list', ...as(token) });
  const follow = async (token: string, task: string) => {
    for (;;) {
      const r = await http(task.replace(s.base, s.url), { accept: 'text/uri-list', ...as(token) });
      if (r.status !== 202) return r;
      await new Promise((res) => setTimeout(res, 100));
    }
  };
  const upload = await http(`${s.url}/dataset`, {
    method: 'POST',
    body: 'SMILES,y\nCCO,1\nCCCO,2\nCCCCO,3\nCCCCCO,4\nOc1ccccc1,2.5\n',
    contentType: 'text/csv',
    accept: 'text/uri-list',
    ...as(alice),
  });
  const dataset = upload.text.trim();
  const y = (await http(`${dataset.replace(s.base, s.url)}/features`, { accept: 'text/uri-list', ...as(alice) })).text.trim();
  assert.equal((await post(`${s.base}/algorithm/rdkit-descriptors`, undefined, { dataset_uri: dataset })).status, 401);
  assert.equal((await post(`${s.base}/algorithm/rdkit-descriptors`, bob, { dataset_uri: dataset })).status, 403, "bob may not read alice's dataset");
  const calc = await post(`${s.base}/algorithm/rdkit-descriptors`, alice, { dataset_uri: dataset });
  assert.equal(calc.status, 202, calc.text);
  const described = (await follow(alice, calc.text.trim())).text.trim();
  const train = await post(`${s.base}/algorithm/random-forest-regression`, alice, { dataset_uri: described, prediction_feature: y, numTrees: '5' });
  assert.equal(train.status, 202, train.text);
  const model = (await follow(alice, train.text.trim())).text.trim();
  assert.equal((await http(model.replace(s.base, s.url), { ...as(bob) })).status, 403);
  assert.equal((await post(model, bob, { dataset_uri: described })).status, 403);
  assert.equal((await post(model, alice, { dataset_uri: described })).status, 200);
  await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: model, public_read: 'true' }), ...as(alice) });
  await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: described, public_read: 'true' }), ...as(alice) });
  assert.equal((await post(model, bob, { dataset_uri: described })).status, 200, 'a readable model can be applied');
  assert.equal((await http(model.replace(s.base, s.url), { method: 'DELETE', ...as(bob) })).status, 403, 'but not deleted');
});

test('an ONNX import reads on its caller’s behalf: features and a training dataset the caller may not read are refused (403); the model belongs to its importer', async () => {
  const alice = await login('alice', 'alice-password');
  const bob = await login('bob', 'bob-password');
  const upload = await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,x1,y\nCCO,1,2\nCCCO,2,4\nc1ccccc1,3,5\n', contentType: 'text/csv', accept: 'text/uri-list', ...as(alice) });
  const dataset = upload.text.trim();
  const [x1, y] = (await http(`${dataset.replace(s.base, s.url)}/features`, { accept: 'text/uri-list', ...as(alice) })).text.trim().split('\r\n');
  const importAs = (token: string, fields: Record<string, string>) => {
    const fd = new FormData();
    fd.append('file', new Blob([Buffer.from(linearRegressionFile(1))], { type: 'application/onnx' }), 'model.onnx');
    for (const [k, v] of Object.entries(fields)) fd.append(k, v);
    return http(`${s.url}/model`, { method: 'POST', body: fd, accept: 'text/uri-list', ...as(token) });
  };
  const refused = await importAs(bob, { independent_features: x1, prediction_feature: y });
  assert.equal(refused.status, 403, refused.text);
  assert.match((await errorReport(refused)).message ?? '', /parameter independent_features/);
  for (const f of [x1, y]) await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: f, public_read: 'true' }), ...as(alice) });
  const training = await importAs(bob, { independent_features: x1, prediction_feature: y, training_dataset: dataset });
  assert.equal(training.status, 403, "bob may not read alice's training set");
  assert.match((await errorReport(training)).message ?? '', /parameter training_dataset/);
  const own = await importAs(alice, { independent_features: x1, prediction_feature: y, training_dataset: dataset });
  assert.equal(own.status, 201, own.text);
  assert.equal((await http(own.text.trim().replace(s.base, s.url), { ...as(bob) })).status, 403, 'the model is its importer’s');
});

test('API keys: named, read-only or read-write, shown once and kept hashed, their last use listed; a read-only key cannot write through REST, SPARQL Update or the Graph Store; revoked and expired keys get 401', async () => {
  const alice = await login('alice', 'alice-password');
  const make = async (fields: Record<string, string>, token = alice) => {
    const r = await http(`${s.url}/auth/key`, { method: 'POST', body: form(fields), accept: 'application/json', ...as(token) });
    assert.equal(r.status, 201, r.text);
    return JSON.parse(r.text) as { key: string; id: string; scope: string; expires: string };
  };
  const reader = await make({ name: 'dashboard', scope: 'read' });
  const writer = await make({ name: 'pipeline' });
  assert.match(reader.key, /^tgk_[A-Za-z0-9_-]{43}$/);
  assert.equal(writer.scope, 'write', 'read-write by default');
  assert.equal((await http(`${s.url}/auth/key`, { method: 'POST', body: form({ name: 'x', scope: 'admin' }), ...as(alice) })).status, 400);
  // a key works wherever a token does
  assert.equal((await http(`${s.url}/dataset`, { accept: 'text/uri-list', headers: { Authorization: `Bearer ${reader.key}` } })).status, 200);
  assert.equal((await http(`${s.url}/dataset?subjectid=${reader.key}`, { accept: 'text/uri-list' })).status, 200);
  const query = await http(`${s.url}/sparql`, { method: 'POST', body: 'ASK {}', contentType: 'application/sparql-query', accept: 'application/sparql-results+json', ...as(reader.key) });
  assert.equal(query.status, 200, 'a read-only key asks SPARQL queries');
  // ... and writes nothing
  const writes = [
    http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,y\nCCO,1\n', contentType: 'text/csv', ...as(reader.key) }),
    http(`${s.url}/sparql`, { method: 'POST', body: 'INSERT DATA { <urn:a> <urn:b> <urn:c> }', contentType: 'application/sparql-update', ...as(reader.key) }),
    http(`${s.url}/sparql`, { method: 'POST', body: form({ update: 'INSERT DATA { <urn:a> <urn:b> <urn:c> }' }), ...as(reader.key) }),
    http(`${s.url}/graph-store?graph=${encodeURIComponent('urn:x:g')}`, { method: 'PUT', body: '<urn:a> <urn:b> <urn:c> .', contentType: 'application/n-triples', ...as(reader.key) }),
    http(`${s.url}/auth/key`, { method: 'POST', body: form({ name: 'more' }), ...as(reader.key) }),
  ];
  for (const r of await Promise.all(writes)) {
    assert.equal(r.status, 403, r.text);
    assert.match((await errorReport(r)).message ?? '', /read-only API key/);
  }
  const upload = await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,y\nCCO,1\n', contentType: 'text/csv', accept: 'text/uri-list', ...as(writer.key) });
  assert.equal(upload.status, 200, 'a read-write key writes');
  assert.equal((await http(upload.text.trim().replace(s.base, s.url), { accept: 'text/csv', ...as(alice) })).status, 200, 'what it made is its user’s');
  // listed with their last use, never the key itself
  const listing = await http(`${s.url}/auth/key`, { accept: 'application/json', ...as(alice) });
  const keys = JSON.parse(listing.text) as { id: string; name: string; lastUsed: string | null; revoked: boolean }[];
  assert.deepEqual(keys.map((k) => k.name).sort(), ['dashboard', 'pipeline']);
  assert.ok(
    keys.every((k) => k.lastUsed !== null),
    'both were used',
  );
  assert.ok(!listing.text.includes(reader.key) && !listing.text.includes(writer.key));
  const bob = await login('bob', 'bob-password');
  assert.deepEqual(JSON.parse((await http(`${s.url}/auth/key`, { accept: 'application/json', ...as(bob) })).text), [], "another user's keys are not shown");
  assert.equal((await http(`${s.url}/auth/key/${reader.id}`, { method: 'DELETE', ...as(bob) })).status, 404, 'nor revoked by them');
  // revoked: 401
  assert.equal((await http(`${s.url}/auth/key/${reader.id}`, { method: 'DELETE', ...as(alice) })).status, 200);
  assert.equal((await http(`${s.url}/dataset`, { accept: 'text/uri-list', ...as(reader.key) })).status, 401);
  assert.equal(JSON.parse((await http(`${s.url}/auth/key`, { accept: 'application/json', ...as(alice) })).text).find((k: { id: string }) => k.id === reader.id).revoked, true);
  // expired: 401
  const brief = await make({ name: 'brief', expires_in_days: String(1.5 / 86400) });
  assert.equal((await http(`${s.url}/dataset`, { accept: 'text/uri-list', ...as(brief.key) })).status, 200);
  await new Promise((r) => setTimeout(r, 1600));
  assert.equal((await http(`${s.url}/dataset`, { accept: 'text/uri-list', ...as(brief.key) })).status, 401);
});

test('validations: any user validates what they may read; validations and cross-validations belong to their maker, also under the Ruby layout', async () => {
  const alice = await login('alice', 'alice-password');
  const bob = await login('bob', 'bob-password');
  const follow = async (token: string, r: { status: number; text: string }) => {
    assert.equal(r.status, 202, r.text);
    for (;;) {
      const t = await http(r.text.trim().replace(s.base, s.url), { accept: 'text/uri-list', ...as(token) });
      if (t.status !== 202) return t.text.trim();
      await new Promise((res) => setTimeout(res, 100));
    }
  };
  const post = (path: string, token: string | undefined, params: Record<string, string>) => http(`${s.url}${path}`, { method: 'POST', body: form(params), accept: 'text/uri-list', ...as(token) });
  const csv = `SMILES,y\n${['CCO', 'CCCO', 'CCCCO', 'CCCCCO', 'Oc1ccccc1', 'c1ccccc1', 'CC(C)O', 'CCN', 'CCCN', 'CCCCN'].map((m, i) => `${m},${i % 3}`).join('\n')}`;
  const dataset = (await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list', ...as(alice) })).text.trim();
  const y = (await http(`${dataset.replace(s.base, s.url)}/features`, { accept: 'text/uri-list', ...as(alice) })).text.trim();
  const described = await follow(alice, await post('/algorithm/rdkit-descriptors', alice, { dataset_uri: dataset }));
  const params = { dataset_uri: described, algorithm_uri: `${s.base}/algorithm/random-forest-regression`, prediction_feature: y, algorithm_params: 'numTrees=5' };
  assert.equal((await post('/validation/training_test_split', undefined, params)).status, 401);
  assert.equal((await post('/validation/training_test_split', bob, params)).status, 403, 'bob may not read the dataset');
  const validation = await follow(alice, await post('/validation/training_test_split', alice, params));
  assert.match(validation, /\/validation\/\d+$/);
  const cv = await follow(alice, await post('/crossvalidation', alice, { ...params, num_folds: '3', stratified: 'false' }));
  const loo = await post('/crossvalidation/loo', alice, params);
  assert.equal(loo.status, 202, 'the leave-one-out service is open to users');
  assert.equal((await http(loo.text.trim().replace(s.base, s.url), { method: 'DELETE', ...as(alice) })).status, 200, 'cancelled');
  for (const uri of [validation, cv, `${cv}/statistics`, cv.replace('/crossvalidation/', '/validation/crossvalidation/')]) {
    assert.equal((await http(uri.replace(s.base, s.url), { ...as(alice) })).status, 200, `alice ${uri}`);
    assert.equal((await http(uri.replace(s.base, s.url), { ...as(bob) })).status, 403, `bob ${uri}`);
  }
  // what the work made on alice's behalf is hers too: fold validations, split datasets, models
  const v = JSON.parse((await http(validation.replace(s.base, s.url), { accept: 'application/json', ...as(alice) })).text);
  const folds = (await http(`${cv.replace(s.base, s.url)}/validations`, { accept: 'text/uri-list', ...as(alice) })).text.trim().split('\r\n');
  for (const uri of [v.trainingDataset, v.testDataset, v.predictionDataset, v.model, folds[0]]) {
    assert.equal((await http(uri.replace(s.base, s.url), { ...as(bob) })).status, 403, `bob ${uri}`);
    assert.equal((await http(uri.replace(s.base, s.url), { ...as(alice) })).status, 200, `alice ${uri}`);
  }
  // descriptor features are shared: bob reads them
  const descriptorFeature = (await http(`${described.replace(s.base, s.url)}/features`, { accept: 'text/uri-list', ...as(alice) })).text.trim().split('\r\n')[1];
  assert.equal((await http(descriptorFeature.replace(s.base, s.url), { ...as(bob) })).status, 200);
  const list = await http(`${s.url}/validation`, { accept: 'text/uri-list', ...as(bob) });
  assert.ok(!list.text.includes(validation), 'lists show only what the caller may read');
  assert.equal((await http(cv.replace(s.base, s.url), { method: 'DELETE', ...as(bob) })).status, 403);
  assert.equal((await http(cv.replace(s.base, s.url), { method: 'DELETE', ...as(alice) })).status, 200);
});

test('the caller token is read one way everywhere: Authorization: Bearer also works for authorize and logout', async () => {
  const token = await login('alice', 'alice-password');
  const bearer = { headers: { Authorization: `Bearer ${token}` } };
  const authorize = await http(`${s.url}/auth/authorize`, { method: 'POST', body: form({ uri: `${s.base}/feature`, action: 'GET' }), ...bearer });
  assert.equal(authorize.text.trim(), 'boolean=true');
  assert.equal((await http(`${s.url}/feature`, { accept: 'text/uri-list', ...bearer })).status, 200);
  assert.equal((await http(`${s.url}/auth/logout`, { method: 'POST', body: form({}), ...bearer })).status, 200);
  assert.equal((await http(`${s.url}/feature`, { accept: 'text/uri-list', ...as(token) })).status, 401);
});

test('brute force on /auth/authenticate is slowed down', async () => {
  let status = 0;
  for (let i = 0; i < 7; i++) {
    status = (await http(`${s.url}/auth/authenticate`, { method: 'POST', body: form({ username: 'bob', password: `guess-${i}` }) })).status;
  }
  assert.equal(status, 429);
  // even the right password waits now
  const r = await http(`${s.url}/auth/authenticate`, { method: 'POST', body: form({ username: 'bob', password: 'bob-password' }) });
  assert.equal(r.status, 429);
  assert.ok(Number(r.headers.get('retry-after')) > 0);
});

test('the login throttle stops a name after five failures in 15 minutes, forgets them after, and never holds more than 10,000 keys', async () => {
  const { LoginThrottle } = await import('../../src/auth/login-throttle.ts');
  const throttle = new LoginThrottle();
  const t0 = 1_000_000;
  for (let i = 0; i < 5; i++) throttle.failed(['user:eve'], t0 + i);
  assert.throws(() => throttle.check(['user:eve'], t0 + 10), /too many failed logins/);
  assert.doesNotThrow(() => throttle.check(['user:eve'], t0 + 15 * 60 * 1000 + 10));
  for (let i = 0; i < 25_000; i++) throttle.failed([`user:guess-${i}`], t0 + 20);
  assert.ok(throttle.size <= 10_000, `${throttle.size} keys kept`);
});
