import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, spawnServer, freePort, http, form, parseTurtle, OT } from '../helpers.ts';

test('/health answers 200 while the store answers; /metrics has requests by route, event loop, memory, tasks, store size', async () => {
  const s = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  try {
    // no token needed for either
    const health = await http(`${s.url}/health`);
    assert.equal(health.status, 200);
    const body = JSON.parse(health.text);
    assert.equal(body.status, 'ok');
    assert.deepEqual(body.tasks, { queued: 0, running: 0 });
    assert.equal((await http(`${s.url}/feature`, { accept: 'text/uri-list' })).status, 401);
    const metrics = await http(`${s.url}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.type, /^text\/plain/);
    const text = metrics.text;
    assert.match(text, /toxgraph_http_requests_total\{method="GET",route="\/health",status="200"\} 1/);
    // refused before routing (no token), still counted under its route
    assert.match(text, /toxgraph_http_requests_total\{method="GET",route="\/feature",status="401"\} 1/);
    assert.match(text, /toxgraph_http_request_duration_seconds_bucket\{le="0.1",method="GET",route="\/health",status="200"\} 1/);
    assert.match(text, /nodejs_eventloop_lag_p99_seconds [0-9.e-]+/);
    assert.match(text, /process_resident_memory_bytes [1-9]/);
    assert.match(text, /nodejs_heap_size_used_bytes [1-9]/);
    assert.match(text, /toxgraph_tasks\{state="running"\} 0/);
    assert.match(text, /toxgraph_tasks_ended_total\{status="Error"\} 0/);
    assert.match(text, /toxgraph_store_memory_bytes [0-9]/);
    const size = Number(/toxgraph_store_size_bytes ([0-9.e+]+)/.exec(text)?.[1]);
    if (s.services.config.storeUrl) assert.ok(Number.isNaN(size), 'no size on disk for a remote store');
    else assert.ok(size > 10_000, `store size ${size}`);
    const writerHeap = Number(/toxgraph_store_writer_heap_bytes ([0-9.e+]+)/.exec(text)?.[1]);
    if (s.services.config.storeUrl) assert.ok(Number.isNaN(writerHeap), 'no writer thread for a remote store');
    else assert.ok(writerHeap > 100_000, `writer thread heap ${writerHeap}`);
    // the store closed: health says so
    await s.services.store.close();
    const down = await http(`${s.url}/health`);
    assert.equal(down.status, 503);
    assert.equal(JSON.parse(down.text).status, 'unavailable');
  } finally {
    await s.stop().catch(() => undefined);
  }
});

test('start-up: requests that arrive before the server is ready are answered 503 with Retry-After, never left hanging', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'toxgraph-start-'));
  const port = await freePort();
  const server = await spawnServer(['--data', dir, '--host', '127.0.0.1'], { waitForListening: false, port });
  try {
    const seen: number[] = [];
    let retryAfter: string | null = null;
    // until ready, or a minute: how long start-up takes depends on the machine's load
    for (const deadline = Date.now() + 60_000; Date.now() < deadline && seen.at(-1) !== 200; ) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5_000), headers: { Accept: 'text/turtle' } });
        seen.push(r.status);
        if (r.status === 503) {
          retryAfter = r.headers.get('retry-after');
          assert.ok(parseTurtle(await r.text()).some((q) => q.object.value === `${OT}ErrorReport`));
          await new Promise((r) => setTimeout(r, 10));
        } else await r.arrayBuffer();
      } catch (e) {
        // not listening yet (connection refused) is fine; a request that hangs is not
        assert.notEqual((e as Error).name, 'TimeoutError', 'a request during start-up hung');
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    assert.equal(seen.at(-1), 200, `statuses seen: ${seen.length} answers, the last ${seen.slice(-5).join(',')}`);
    assert.ok(seen.includes(503), `no request arrived during start-up (statuses: ${seen.join(',')})`);
    assert.equal(retryAfter, '1');
  } finally {
    server.kill('SIGTERM');
    await server.exited;
    await rm(dir, { recursive: true, force: true });
  }
});

/** A dataset upload big enough to run as a task for a few seconds. */
function bigCsv(): string {
  const rows = readFileSync('../shared/data/kazius.csv', 'utf8').trim().split('\n');
  return `${rows.slice(0, 2001).join('\n')}\n`;
}

async function taskStatus(url: string, task: string): Promise<{ status?: string; error?: string }> {
  const r = await http(task.replace(/^https?:\/\/[^/]+/, url), { accept: 'text/turtle' });
  const quads = parseTurtle(r.text);
  return { status: quads.find((q) => q.predicate.value === `${OT}hasStatus`)?.object.value, error: quads.find((q) => q.predicate.value === `${OT}errorCode`)?.object.value };
}

for (const [how, signal] of [
  ['SIGTERM (clean shutdown)', 'SIGTERM'],
  ['kill -9 (crash)', 'SIGKILL'],
] as const) {
  test(`${how} in the middle of an upload task: restart finds no half-written dataset, the task ended as Error, the upload then succeeds`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toxgraph-crash-'));
    const args = ['--data', dir, '--host', '127.0.0.1', '--base-url', 'http://toxgraph.test', '--dataset-task-bytes', '10000'];
    try {
      const first = await spawnServer(args);
      const url = `http://127.0.0.1:${first.port}`;
      const started = await http(`${url}/dataset`, { method: 'POST', body: bigCsv(), contentType: 'text/csv', accept: 'text/uri-list' });
      assert.equal(started.status, 202, started.text);
      const task = started.text.trim();
      // wait until it runs, then stop the server under it
      for (let i = 0; i < 200 && (await taskStatus(url, task)).status !== 'Running'; i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 300));
      first.kill(signal);
      const code = await first.exited;
      if (signal === 'SIGTERM') assert.equal(code, 0, first.stderr());

      const second = await spawnServer(args);
      const url2 = `http://127.0.0.1:${second.port}`;
      try {
        const after = await taskStatus(url2, task);
        const entries = async () => {
          const r = await http(`${url2}/sparql`, {
            method: 'POST',
            body: form({ query: `SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?d <${OT}dataEntry> ?e } }` }),
            accept: 'application/sparql-results+json',
          });
          return Number(JSON.parse(r.text).results.bindings[0].n.value);
        };
        const listed = (await http(`${url2}/dataset`, { accept: 'text/uri-list' })).text.trim();
        if (signal === 'SIGTERM' && after.status === 'Completed') {
          // a clean stop may let the running task finish: then the dataset is whole
          assert.equal(listed.split(/\r?\n/).length, 1);
          assert.equal(await entries(), 2000);
        } else {
          assert.equal(after.status, 'Error');
          assert.equal(after.error, 'Interrupted');
          assert.equal(listed, '', 'a half-written dataset is listed');
          assert.equal(await entries(), 0, 'rows of the interrupted upload remain');
        }
        const again = await http(`${url2}/dataset`, { method: 'POST', body: bigCsv(), contentType: 'text/csv', accept: 'text/uri-list' });
        assert.equal(again.status, 202);
        let result: { status?: string } = {};
        for (let i = 0; i < 1200 && !['Completed', 'Error'].includes(result.status ?? ''); i++) {
          await new Promise((r) => setTimeout(r, 100));
          result = await taskStatus(url2, again.text.trim());
        }
        assert.equal(result.status, 'Completed');
      } finally {
        second.kill('SIGTERM');
        assert.equal(await second.exited, 0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

/** 240 distinct structures with two numeric columns and a numeric target. */
function syntheticCsv(): string {
  const lines = ['SMILES,y,x1,x2'];
  const heads = ['', 'O', 'N', 'Cl', 'Br', 'F'];
  for (let n = 1; n <= 40; n++) for (const [h, head] of heads.entries()) lines.push(`${head}${'C'.repeat(n)},${n * 0.1 + h},${n},${h}`);
  return `${lines.join('\n')}\n`;
}

async function runTask(url: string, path: string, params: Record<string, string>): Promise<string> {
  const r = await http(`${url}${path}`, { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.equal(r.status, 202, r.text);
  return r.text.trim();
}

async function until(url: string, task: string, done: (t: { status?: string; percent: number }) => boolean): Promise<{ status?: string; percent: number }> {
  for (let i = 0; i < 1200; i++) {
    const r = await http(task.replace(/^https?:\/\/[^/]+/, url), { accept: 'text/turtle' });
    const quads = parseTurtle(r.text);
    const t = {
      status: quads.find((q) => q.predicate.value === `${OT}hasStatus`)?.object.value,
      percent: Number(quads.find((q) => q.predicate.value === `${OT}percentageCompleted`)?.object.value ?? 0),
    };
    if (done(t)) return t;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`task ${task} never reached the state waited for`);
}

test('kill -9 in the middle of a descriptor calculation and of a cross-validation: nothing half-written after restart, tasks Interrupted, the same requests then succeed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'toxgraph-crash-jobs-'));
  const args = ['--data', dir, '--host', '127.0.0.1', '--base-url', 'http://toxgraph.test'];
  const list = async (url: string, path: string) => (await http(`${url}${path}`, { accept: 'text/uri-list' })).text.trim().split(/\r?\n/).filter(Boolean);
  try {
    let server = await spawnServer(args);
    let url = `http://127.0.0.1:${server.port}`;
    const upload = await http(`${url}/dataset`, { method: 'POST', body: syntheticCsv(), contentType: 'text/csv', accept: 'text/uri-list' });
    assert.equal(upload.status, 200, upload.text);
    const dataset = upload.text.trim();
    const target = (await list(url, `${dataset.replace('http://toxgraph.test', '')}/features`))[0];
    const jobs: [string, string, Record<string, string>][] = [
      ['descriptors', '/algorithm/rdkit-descriptors', { dataset_uri: dataset }],
      [
        'cross-validation',
        '/crossvalidation',
        { dataset_uri: dataset, prediction_feature: target, algorithm_uri: 'http://toxgraph.test/algorithm/random-forest-regression', algorithm_params: 'numTrees=400', num_folds: '10' },
      ],
    ];
    for (const [name, path, params] of jobs) {
      const before = { datasets: await list(url, '/dataset'), validations: await list(url, '/validation'), crossvalidations: await list(url, '/crossvalidation') };
      const task = await runTask(url, path, params);
      // kill it once it has done some of its work (for the cross-validation: a fold or more written)
      await until(url, task, (t) => t.status === 'Running' && t.percent >= (name === 'cross-validation' ? 15 : 1));
      server.kill('SIGKILL');
      await server.exited;
      server = await spawnServer(args);
      url = `http://127.0.0.1:${server.port}`;
      const after = await until(url, task, () => true);
      assert.equal(after.status, 'Error', name);
      assert.deepEqual(await list(url, '/dataset'), before.datasets, `${name}: a dataset was left behind`);
      assert.deepEqual(await list(url, '/validation'), before.validations, `${name}: fold validations were left behind`);
      assert.deepEqual(await list(url, '/crossvalidation'), before.crossvalidations, name);
      const again = await runTask(url, path, name === 'cross-validation' ? { ...params, algorithm_params: 'numTrees=10' } : params);
      assert.equal((await until(url, again, (t) => t.status === 'Completed' || t.status === 'Error')).status, 'Completed', name);
    }
    server.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
