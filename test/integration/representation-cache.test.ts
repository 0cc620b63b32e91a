import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startTestServer, http, form, featureTurtle, type TestServer, type Reply } from '../helpers.ts';

const SMILES = 'chemical/x-daylight-smiles';

async function postCompound(s: TestServer, smiles: string, headers: Record<string, string> = {}): Promise<string> {
  const r = await http(`${s.url}/compound`, { method: 'POST', body: smiles, contentType: SMILES, accept: 'text/uri-list', headers });
  assert.equal(r.status, 200, r.text);
  return r.text.trim().replace(s.base, s.url);
}

async function cacheFigures(s: TestServer): Promise<{ hits: number; stores: number }> {
  const text = (await http(`${s.url}/metrics`)).text;
  const figure = (event: string) => Number(new RegExp(`toxgraph_representation_cache_total\\{event="${event}"\\} ([0-9]+)`).exec(text)?.[1]);
  return { hits: figure('hits'), stores: figure('stores') };
}

/** The status of a GET sent with another Host header than the URL's (fetch always sends the URL's). */
function statusWithHost(url: string, host: string, accept: string): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path: target.pathname, headers: { Host: host, Accept: accept } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every header but those Node writes per response. */
function headersOf(r: Reply): Record<string, string> {
  const out: Record<string, string> = {};
  r.headers.forEach((value, name) => {
    if (!['date', 'connection', 'keep-alive'].includes(name)) out[name] = value;
  });
  return out;
}

test('a repeated GET of a compound is answered again with the same bytes and headers (from the representation cache on the embedded store), under its route; another Accept is another representation', async () => {
  const s = await startTestServer();
  try {
    const compound = await postCompound(s, 'c1ccccc1O');
    const first = await http(compound, { accept: SMILES });
    const second = await http(compound, { accept: SMILES });
    const inchi = await http(compound, { accept: 'chemical/x-inchi' });
    assert.equal(first.status, 200);
    assert.equal(first.text, 'Oc1ccccc1\n');
    assert.equal(second.text, first.text);
    assert.deepEqual(headersOf(second), headersOf(first));
    assert.equal(second.headers.get('content-security-policy'), first.headers.get('content-security-policy'));
    assert.match(inchi.text, /^InChI=1S\/C6H6O\//);
    assert.equal(inchi.type, 'chemical/x-inchi');
    // the check against DNS rebinding still holds for what is cached: the Host is part of the key
    assert.equal(await statusWithHost(compound, `attacker.example:${new URL(s.url).port}`, SMILES), 403);
    const figures = await cacheFigures(s);
    if (s.services.config.storeUrl) assert.deepEqual(figures, { hits: 0, stores: 0 }, 'another process may write a remote store: nothing is cached');
    else assert.deepEqual(figures, { hits: 1, stores: 2 });
    // the answer from the cache is counted under its route like any other
    assert.match((await http(`${s.url}/metrics`)).text, /toxgraph_http_requests_total\{method="GET",route="\/compound\/:id",status="200"\} 3/);
  } finally {
    await s.stop();
  }
});

test('a write to the store is seen by the next GET: a compound page lists the dataset uploaded after it was first shown', async () => {
  const s = await startTestServer();
  try {
    const compound = await postCompound(s, 'CCO');
    const page = await http(compound, { accept: 'text/html' });
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /Datasets that hold it[\s\S]*\/dataset\/[0-9]/);
    assert.equal((await http(compound, { accept: 'text/html' })).text, page.text);
    const upload = await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,value\r\nCCO,1.5\r\n', contentType: 'text/csv', accept: 'text/uri-list' });
    assert.equal(upload.status, 200, upload.text);
    const dataset = upload.text.trim();
    const after = await http(compound, { accept: 'text/html' });
    assert.ok(after.text.includes(dataset), 'the page shows the new dataset');
    // a feature replaced by PUT: the next GET has the new title
    const created = await http(`${s.url}/feature`, { method: 'POST', body: featureTurtle('before'), contentType: 'text/turtle', accept: 'text/uri-list' });
    const feature = created.text.trim().replace(s.base, s.url);
    for (let i = 0; i < 2; i++) assert.match((await http(feature, { accept: 'text/turtle' })).text, /"before"/);
    assert.equal((await http(feature, { method: 'PUT', body: featureTurtle('after'), contentType: 'text/turtle', accept: 'text/uri-list' })).status, 200);
    const replaced = (await http(feature, { accept: 'text/turtle' })).text;
    assert.match(replaced, /"after"/);
    assert.doesNotMatch(replaced, /"before"/);
  } finally {
    await s.stop();
  }
});

test('with access control on, nothing is answered from the cache: a caller without a token is refused after one with a token read the compound', async () => {
  const s = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  try {
    const login = await http(`${s.url}/auth/authenticate`, { method: 'POST', body: form({ username: 'admin', password: 'admin-secret-1' }) });
    assert.equal(login.status, 200);
    const token = /^token\.id=(\S+)$/m.exec(login.text)![1];
    const compound = await postCompound(s, 'CC(=O)O', { subjectid: token });
    for (let i = 0; i < 2; i++) assert.equal((await http(compound, { accept: SMILES, headers: { subjectid: token } })).status, 200);
    assert.equal((await http(compound, { accept: SMILES })).status, 401);
    assert.equal((await http(`${s.url}/auth/logout`, { method: 'POST', body: form({ subjectid: token }) })).status, 200);
    assert.equal((await http(compound, { accept: SMILES, headers: { subjectid: token } })).status, 401);
    assert.deepEqual(await cacheFigures(s), { hits: 0, stores: 0 });
  } finally {
    await s.stop();
  }
});

test('--representation-cache-mb 0 turns the cache off', async () => {
  const s = await startTestServer(['--representation-cache-mb', '0']);
  try {
    const compound = await postCompound(s, 'c1ccncc1');
    for (let i = 0; i < 2; i++) assert.equal((await http(compound, { accept: SMILES })).text, 'c1ccncc1\n');
    assert.deepEqual(await cacheFigures(s), { hits: 0, stores: 0 });
  } finally {
    await s.stop();
  }
});

test('the cache keeps to its budget: the oldest representations leave first', async (t) => {
  const s = await startTestServer(['--representation-cache-mb', '1']);
  try {
    if (s.services.config.storeUrl) return t.skip('no representation cache on a remote store');
    const smiles = Array.from({ length: 60 }, (_, i) => `${'C'.repeat(i + 1)}O`);
    const posted = await http(`${s.url}/compound`, { method: 'POST', body: smiles.join('\n'), contentType: SMILES, accept: 'text/uri-list' });
    assert.equal(posted.status, 200, posted.text);
    const compounds = posted.text
      .trim()
      .split(/\r?\n/)
      .map((u) => u.replace(s.base, s.url));
    assert.equal(compounds.length, smiles.length);
    let sent = 0;
    for (const compound of compounds) {
      for (const accept of ['text/html', 'image/svg+xml', 'chemical/x-mdl-molfile', 'application/rdf+xml']) {
        const r = await http(compound, { accept });
        assert.equal(r.status, 200);
        sent += Buffer.byteLength(r.text);
      }
    }
    assert.ok(sent > 1.5 * 2 ** 20, `the representations (${sent} bytes) are more than the budget`);
    const text = (await http(`${s.url}/metrics`)).text;
    const held = Number(/toxgraph_representation_cache_bytes ([0-9]+)/.exec(text)?.[1]);
    assert.ok(held > 0 && held <= 2 ** 20, `held ${held} bytes`);
    const { hits } = await cacheFigures(s);
    // the first representation sent has left, the last is still there
    await http(compounds[0], { accept: 'text/html' });
    assert.equal((await cacheFigures(s)).hits, hits);
    await http(compounds.at(-1)!, { accept: 'application/rdf+xml' });
    assert.equal((await cacheFigures(s)).hits, hits + 1);
  } finally {
    await s.stop();
  }
});
