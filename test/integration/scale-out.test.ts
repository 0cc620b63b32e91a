import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { featureTurtle, form, freePort, http, sharedCsv, spawnServer, type ServerProcess } from '../helpers.ts';
import { hasVirtuoso, startVirtuoso, type RunningVirtuoso } from '../remote/virtuoso.ts';
import { hasRedis, startRedis, type RunningRedis } from '../remote/redis.ts';

/**
 * Scale-out (README, "Scaling out"): two serve processes and two workers on one remote store
 * (Virtuoso) and one Redis, each a real process as an operator starts it. Run by
 * `npm run test:remote` (it needs virtuoso-opensource-7-bin and redis-server from Debian).
 */
const wanted = process.env.TOXGRAPH_TEST_STORE === 'virtuoso';
const skip = !wanted ? 'run by npm run test:remote' : !hasVirtuoso || !hasRedis ? 'needs Virtuoso and redis-server (Debian packages; .ci/run installs them)' : false;

describe('several processes on one store and one queue', { skip }, () => {
  let dir: string;
  let virtuoso: RunningVirtuoso;
  let redis: RunningRedis;
  let base: string;
  let shared: string[];
  const serve: ServerProcess[] = [];
  const workers: ServerProcess[] = [];
  const url = (i: number) => `http://127.0.0.1:${serve[i].port}`;
  /** A URI minted by the service, as served by process i. */
  const at = (i: number, uri: string) => uri.replace(base, url(i));

  const startWorker = async () => {
    const w = await spawnServer([...shared, '--data', await mkdtemp(join(dir, 'worker-')), '--task-concurrency', '1', '--workers', '1', '--job-lock-seconds', '3'], { worker: true });
    workers.push(w);
    return w;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toxgraph-scale-'));
    [virtuoso, redis] = await Promise.all([startVirtuoso(join(dir, 'virtuoso')), startRedis(join(dir, 'redis'))]);
    const ports = [await freePort(), await freePort()];
    // one service behind (say) a load balancer: every process mints URIs under the same base
    base = `http://127.0.0.1:${ports[0]}`;
    shared = [...virtuoso.storeFlags, '--redis-url', redis.url, '--base-url', base, '--quiet'];
    for (const port of ports) serve.push(await spawnServer([...shared, '--data', await mkdtemp(join(dir, 'serve-'))], { port }));
    await startWorker();
    await startWorker();
  });

  after(async () => {
    for (const p of [...serve, ...workers]) p.kill('SIGKILL');
    await Promise.all([...serve, ...workers].map((p) => p.exited));
    await Promise.all([virtuoso?.stop(), redis?.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  /** POST to process i; answers the task URI (202). */
  async function startTask(i: number, path: string, params: Record<string, string>): Promise<string> {
    const r = await http(`${url(i)}${path}`, { method: 'POST', body: form(params), accept: 'text/uri-list' });
    assert.equal(r.status, 202, `${path}: ${r.text.slice(0, 400)}`);
    return r.text.trim();
  }

  /** Follow a task on process i until it leaves Queued/Running; answers its status code and text. */
  async function follow(i: number, task: string, limitMs = 180_000): Promise<{ status: number; text: string }> {
    const until = Date.now() + limitMs;
    for (;;) {
      const r = await http(at(i, task), { accept: 'text/uri-list' });
      if (r.status !== 202) return r;
      if (Date.now() > until) throw new Error(`task ${task} still running after ${limitMs} ms`);
      await new Promise((res) => setTimeout(res, 200));
    }
  }

  async function statusOf(i: number, task: string): Promise<string> {
    const ttl = (await http(at(i, task), { accept: 'text/turtle' })).text;
    return /hasStatus\s+"(\w+)"/.exec(ttl)?.[1] ?? '';
  }

  let fingerprints: string;
  let target: string;

  /** A random-forest cross-validation of the fingerprints, started on process i. */
  const crossValidate = (i: number, folds: number, trees: number) =>
    startTask(i, '/crossvalidation', {
      dataset_uri: fingerprints,
      algorithm_uri: `${base}/algorithm/random-forest-classification`,
      prediction_feature: target,
      num_folds: String(folds),
      algorithm_params: `numTrees=${trees}`,
    });

  async function untilRunning(i: number, task: string): Promise<void> {
    while ((await statusOf(i, task)) !== 'Running') await new Promise((r) => setTimeout(r, 100));
  }

  test('a job started on one serve process runs on a worker and is followed on the other', async () => {
    const upload = await http(`${url(0)}/dataset`, { method: 'POST', body: sharedCsv('kazius.csv', 60, 40), contentType: 'text/csv', accept: 'text/uri-list' });
    assert.equal(upload.status, 200, upload.text);
    const raw = upload.text.trim();
    // the other process reads what the first wrote
    target = (await http(`${at(1, raw)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
    assert.ok(target.startsWith(`${base}/feature/`), target);
    const described = await startTask(0, '/algorithm/morgan-fingerprint', { dataset_uri: raw, nBits: '512' });
    const done = await follow(1, described);
    assert.equal(done.status, 200, done.text);
    fingerprints = done.text.trim();
    const turtle = (await http(at(1, described), { accept: 'text/turtle' })).text;
    assert.match(turtle, /<urn:toxgraph:runner> "queue"/, 'the task was run from the shared queue');

    const cv = await crossValidate(0, 3, 10);
    const result = await follow(1, cv);
    assert.equal(result.status, 200, result.text);
    const cvUri = result.text.trim();
    for (const i of [0, 1]) {
      const c = JSON.parse((await http(at(i, cvUri), { accept: 'application/json' })).text);
      assert.equal(c.numFolds, 3, `process ${i} reads the cross-validation`);
    }
  });

  test('ids minted by two serve processes at once never collide', async () => {
    const post = (i: number, n: number) => http(`${url(i)}/feature`, { method: 'POST', body: featureTurtle(`f${i}-${n}`), contentType: 'text/turtle', accept: 'text/uri-list' });
    const replies = await Promise.all(Array.from({ length: 80 }, (_, n) => post(n % 2, n)));
    const uris = replies.map((r) => {
      assert.equal(r.status, 200, r.text);
      return r.text.trim();
    });
    assert.equal(new Set(uris).size, uris.length, 'every feature has its own URI');
    // and each is the feature that was posted
    const titles = await Promise.all(uris.map(async (u) => /dc:title\s+"([^"]+)"/.exec((await http(at(0, u), { accept: 'text/turtle' })).text)?.[1]));
    assert.equal(new Set(titles).size, uris.length);
  });

  test('the same structure posted to two processes at once is one compound', async () => {
    const replies = await Promise.all(
      [0, 1, 0, 1].map((i) => http(`${url(i)}/compound`, { method: 'POST', body: 'CC(=O)Oc1ccccc1C(=O)O', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })),
    );
    for (const r of replies) assert.equal(r.status, 200, r.text);
    assert.equal(new Set(replies.map((r) => r.text.trim())).size, 1);
  });

  test('a task cancelled on the other serve process stops on its worker', async () => {
    const before = (await http(`${url(0)}/crossvalidation`, { accept: 'text/uri-list' })).text;
    const cv = await crossValidate(0, 10, 400);
    await untilRunning(1, cv);
    assert.equal((await http(at(1, cv), { method: 'DELETE' })).status, 200);
    assert.equal((await http(at(0, cv), { accept: 'text/uri-list' })).status, 503, 'Cancelled');
    // the worker stops, leaves it Cancelled and removes what it had made
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(await statusOf(0, cv), 'Cancelled');
    assert.equal((await http(`${url(1)}/crossvalidation`, { accept: 'text/uri-list' })).text, before);
  });

  test('a job whose workers are killed runs again on another worker', async () => {
    // big enough that a fast machine cannot finish it between Running and the kill (200 trees once did, in 0.7 s)
    const cv = await crossValidate(1, 5, 1500);
    await untilRunning(0, cv);
    await new Promise((r) => setTimeout(r, 200));
    for (const w of workers.splice(0)) {
      w.kill('SIGKILL');
      await w.exited;
    }
    assert.equal(await statusOf(0, cv), 'Running', 'nobody ends a queued job while its worker might come back');
    await startWorker();
    const result = await follow(0, cv);
    assert.equal(result.status, 200, `the job ran again and completed: ${result.text}`);
    const c = JSON.parse((await http(at(0, result.text.trim()), { accept: 'application/json' })).text);
    assert.equal(c.numFolds, 5);
    // what the killed run had made was removed before the job ran again: one cross-validation of this recipe
    const all = (await http(`${url(0)}/crossvalidation`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
    const ofThisRecipe = await Promise.all(all.map(async (u) => JSON.parse((await http(at(0, u), { accept: 'application/json' })).text).numFolds === 5));
    assert.equal(ofThisRecipe.filter(Boolean).length, 1);
  });

  test('structures registered on one serve process are found by structure search on the other, and by a process started later', async () => {
    const body = 'Cc1nc2ccc(OCC)cc2s1 Ethoxymethylbenzothiazole\nCCCCOc1ccc2ncsc2c1\nCCOC(C)=O';
    const posted = await http(`${url(0)}/compound`, { method: 'POST', body, contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' });
    assert.equal(posted.status, 200, posted.text);
    const [a, b, c] = posted.text.trim().split(/\r?\n/);
    const find = async (where: string, query: string) => (await http(`${where}/compound?${query}`, { accept: 'text/uri-list' })).text.trim().split(/\r?\n/);
    const thiazole = `smarts=${encodeURIComponent('c1ccc2scnc2c1')}`;
    // the other process hears of them over Redis
    for (let i = 0; i < 100 && !(await find(url(1), thiazole)).includes(b); i++) await new Promise((r) => setTimeout(r, 100));
    const found = await find(url(1), thiazole);
    assert.ok(found.includes(a) && found.includes(b) && !found.includes(c), found.join(' '));
    assert.deepEqual(await find(url(1), 'search=ethoxymethylbenzothiazole'), [a]);
    assert.deepEqual(await find(url(1), `similarity=${encodeURIComponent('CCOC(C)=O')}&threshold=1`), [c]);
    // a process started now reads the index from the store
    const port = await freePort();
    const third = await spawnServer([...shared, '--data', await mkdtemp(join(dir, 'serve-'))], { port });
    try {
      const later = await find(`http://127.0.0.1:${port}`, thiazole);
      assert.ok(later.includes(a) && later.includes(b) && !later.includes(c));
    } finally {
      third.kill('SIGTERM');
      await third.exited;
    }
  });
});

describe('access control across serve processes', { skip }, () => {
  let dir: string;
  let virtuoso: RunningVirtuoso;
  let redis: RunningRedis;
  const serve: ServerProcess[] = [];
  const url = (i: number) => `http://127.0.0.1:${serve[i].port}`;
  const as = (token: string) => ({ headers: { subjectid: token } });

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toxgraph-scale-auth-'));
    [virtuoso, redis] = await Promise.all([startVirtuoso(join(dir, 'virtuoso')), startRedis(join(dir, 'redis'))]);
    const ports = [await freePort(), await freePort()];
    const flags = [...virtuoso.storeFlags, '--redis-url', redis.url, '--base-url', `http://127.0.0.1:${ports[0]}`, '--quiet', '--auth', '--host', '127.0.0.1'];
    // the first creates the administrator; the second finds it in the store
    serve.push(await spawnServer([...flags, '--data', await mkdtemp(join(dir, 'serve-')), '--admin-user', 'admin', '--admin-password', 'admin-secret-1'], { port: ports[0] }));
    serve.push(await spawnServer([...flags, '--data', await mkdtemp(join(dir, 'serve-'))], { port: ports[1] }));
  });

  after(async () => {
    for (const p of serve) p.kill('SIGKILL');
    await Promise.all(serve.map((p) => p.exited));
    await Promise.all([virtuoso?.stop(), redis?.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  async function login(i: number, username: string, password: string): Promise<string> {
    const r = await http(`${url(i)}/auth/authenticate`, { method: 'POST', body: form({ username, password }) });
    assert.equal(r.status, 200, r.text);
    return /^token\.id=(\S+)$/m.exec(r.text)![1];
  }

  test('users, tokens and policies made on one process hold on the other', async () => {
    const admin = await login(1, 'admin', 'admin-secret-1');
    // a user created on one process logs in on the other, whose token the first accepts
    assert.equal((await http(`${url(1)}/auth/user`, { method: 'POST', body: form({ username: 'alice', password: 'alice-password' }), ...as(admin) })).status, 200);
    assert.equal((await http(`${url(1)}/auth/user`, { method: 'POST', body: form({ username: 'bob', password: 'bob-password' }), ...as(admin) })).status, 200);
    const alice = await login(0, 'alice', 'alice-password');
    const bob = await login(1, 'bob', 'bob-password');
    const created = await http(`${url(1)}/feature`, { method: 'POST', body: featureTurtle('alice only'), contentType: 'text/turtle', accept: 'text/uri-list', ...as(alice) });
    assert.equal(created.status, 200, created.text);
    const feature = created.text.trim().replace(/^http:\/\/127\.0\.0\.1:\d+/, url(0));
    // the policy made by process 1 (alice owns it) is known to process 0
    assert.equal((await http(feature, { accept: 'text/turtle', ...as(alice) })).status, 200);
    assert.equal((await http(feature, { accept: 'text/turtle', ...as(bob) })).status, 403);
    // alice opens it on process 0: bob may read it on process 1
    assert.equal((await http(`${url(0)}/auth/policy`, { method: 'POST', body: form({ uri: created.text.trim(), public_read: 'true' }), ...as(alice) })).status, 200);
    const onOne = feature.replace(url(0), url(1));
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await http(onOne, { accept: 'text/turtle', ...as(bob) })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(status, 200, 'the changed policy reached the other process');
    // a token logged out on one process is refused by the other
    assert.equal((await http(`${url(1)}/auth/logout`, { method: 'POST', body: form({ subjectid: alice }) })).status, 200);
    let refused = 0;
    for (let i = 0; i < 50 && refused !== 401; i++) {
      refused = (await http(feature, { accept: 'text/turtle', ...as(alice) })).status;
      if (refused !== 401) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(refused, 401);
  });

  test('/health answers 503 when Redis does not answer', async () => {
    const healthy = await http(`${url(0)}/health`);
    assert.equal(healthy.status, 200);
    assert.equal(JSON.parse(healthy.text).redis, 'ok');
    await redis.stop();
    const sick = await http(`${url(0)}/health`);
    assert.equal(sick.status, 503, sick.text);
    assert.notEqual(JSON.parse(sick.text).redis, 'ok');
  });
});
