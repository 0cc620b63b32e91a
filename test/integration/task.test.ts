import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, http, parseTurtle, OT, type TestServer } from '../helpers.ts';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { HttpError } from '../../src/core/errors.ts';
import { defineJob } from '../../src/task/job-definition.ts';
import { taskQuads } from '../../src/task/task-codec.ts';
import { df, ot, rdf } from '../../src/rdf/namespaces.ts';
import type { TripleStore } from '../../src/store/triple-store.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--task-concurrency', '1']);
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const status = (text: string, uri: string) => parseTurtle(text).find((q) => q.subject.value === uri && q.predicate.value === `${OT}hasStatus`)?.object.value;

test('a task answers 202 while running, reports progress, then 200 with its result URI', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const uri = await s.services.tasks.submit('slow work', async (job) => {
    job.progress(40);
    await gate;
    return `${s.base}/feature/42`;
  });
  await new Promise((r) => setTimeout(r, 400));
  const running = await http(local(uri), { accept: 'text/turtle' });
  assert.equal(running.status, 202);
  assert.equal(status(running.text, uri), 'Running');
  assert.match(running.text, /percentageCompleted "40"/);
  release();
  await s.services.tasks.settled(uri);
  const done = await http(local(uri), { accept: 'text/uri-list' });
  assert.equal(done.status, 200);
  assert.equal(done.text.trim(), `${s.base}/feature/42`);
  const rdf = await http(local(uri), { accept: 'text/turtle' });
  assert.equal(status(rdf.text, uri), 'Completed');
  assert.ok((await http(`${s.url}/task`, { accept: 'text/uri-list' })).text.includes(uri));
});

test('a failed task answers its error status with an ErrorReport; an unexpected failure is 500', async () => {
  const bad = await s.services.tasks.submit('bad input', async () => {
    throw new HttpError(400, 'InvalidInput', 'missing prediction_feature');
  });
  await s.services.tasks.settled(bad);
  const r = await http(local(bad), { accept: 'text/turtle' });
  assert.equal(r.status, 400);
  assert.equal(status(r.text, bad), 'Error');
  assert.match(r.text, /missing prediction_feature/);
  const crash = await s.services.tasks.submit('crash', async () => {
    throw new Error('learner exploded');
  });
  await s.services.tasks.settled(crash);
  const c = await http(local(crash), { accept: 'text/turtle' });
  assert.equal(c.status, 500);
  assert.match(c.text, /learner exploded/);
});

test('DELETE cancels a running task (503 afterwards) and a queued one never starts', async () => {
  let sawAbort = false;
  const running = await s.services.tasks.submit(
    'long',
    (job) =>
      new Promise((_, reject) =>
        job.signal.addEventListener('abort', () => {
          sawAbort = true;
          reject(new Error('stopped'));
        }),
      ),
  );
  let queuedRan = false;
  const queued = await s.services.tasks.submit('queued', async () => {
    queuedRan = true;
    return 'x';
  });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal((await http(local(queued), { method: 'DELETE' })).status, 200);
  assert.equal((await http(local(running), { method: 'DELETE' })).status, 200);
  await s.services.tasks.settled(running);
  assert.ok(sawAbort);
  assert.equal(queuedRan, false);
  for (const uri of [running, queued]) {
    const r = await http(local(uri), { accept: 'text/turtle' });
    assert.equal(r.status, 503);
    assert.equal(status(r.text, uri), 'Cancelled');
  }
  assert.equal((await http(`${s.url}/task/nope`, { accept: 'text/turtle' })).status, 404);
});

test('a task left running by a stopped server is ended as Error "interrupted" at the next start', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'toxgraph-task-'));
  try {
    // work that ignores its abort: the stop waits --stop-wait for it (0 s here), then closes the store under it
    const first = await startTestServer(['--base-url', 'http://toxgraph.test', '--stop-wait', '0'], dir);
    const uri = await first.services.tasks.submit('never ends', () => new Promise(() => {}));
    await new Promise((r) => setTimeout(r, 200));
    await first.stop();
    const second = await startTestServer(['--base-url', 'http://toxgraph.test'], dir);
    try {
      const r = await http(uri.replace(second.base, second.url), { accept: 'text/turtle' });
      assert.equal(r.status, 500);
      assert.match(r.text, /interrupted/);
    } finally {
      await second.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** From `failAfter(n)` on, the store accepts n more writes and refuses the rest (a store closed under running work). */
function closingStore(store: TripleStore): { failAfter(n: number): void; restore(): void } {
  const methods = ['replaceGraphs', 'createGraphs', 'deleteGraphs', 'update', 'bulkLoad'] as const;
  const originals = methods.map((m) => [m, store[m]] as const);
  let left = Number.POSITIVE_INFINITY;
  for (const [m, original] of originals) {
    (store as unknown as Record<string, unknown>)[m] = (...args: unknown[]) => {
      if (left-- <= 0) return Promise.reject(new Error('the store is closed'));
      return (original as (...a: unknown[]) => Promise<unknown>).apply(store, args);
    };
  }
  return {
    failAfter: (n) => (left = n),
    restore: () => {
      for (const [m, original] of originals) (store as unknown as Record<string, unknown>)[m] = original;
    },
  };
}

test('a task whose work wrote its result but whose end the store refused: after a restart it is Completed with its result, or Error with nothing it created left', async () => {
  // every cut-off point: the store refuses every write after the work's last (0), or all but one (1)
  for (const allowed of [0, 1]) {
    const dir = await mkdtemp(join(tmpdir(), 'toxgraph-task-end-'));
    try {
      const first = await startTestServer(['--base-url', 'http://toxgraph.test'], dir);
      const store = closingStore(first.services.store);
      let dataset = '';
      const uri = await first.services.tasks.submit('upload', async () => {
        dataset = await first.services.ids.next(first.services.uris.collection('dataset'));
        const d = df.namedNode(dataset);
        await first.services.store.replaceGraphs({
          [`${dataset}/entries`]: [df.quad(d, ot('dataEntry'), df.namedNode(`${dataset}#1`))],
          [dataset]: [df.quad(d, rdf('type'), ot('Dataset'))],
        });
        store.failAfter(allowed);
        return dataset;
      });
      await first.services.tasks.settled(uri);
      store.restore();
      await first.stop();
      const second = await startTestServer(['--base-url', 'http://toxgraph.test'], dir);
      try {
        const task = await http(uri.replace(second.base, second.url), { accept: 'text/turtle' });
        const ended = status(task.text, uri);
        const listed = (await http(`${second.url}/dataset`, { accept: 'text/uri-list' })).text.trim();
        if (ended === 'Completed') {
          assert.equal(listed, dataset, `allowed ${allowed}: a completed task's result is listed`);
          assert.equal((await second.services.store.readGraph(`${dataset}/entries`)).length, 1);
        } else {
          assert.equal(ended, 'Error', `allowed ${allowed}: ${task.text}`);
          assert.match(task.text, /Interrupted/);
          assert.equal(listed, '', `allowed ${allowed}: a task that ended as Error left its dataset`);
          assert.equal((await second.services.store.readGraph(`${dataset}/entries`)).length, 0, `allowed ${allowed}: rows left`);
        }
        assert.equal((await second.services.store.readGraph(`${uri}/minted`)).length, 0, 'the record of what it created is gone');
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
});

test('task work can run on the worker-thread pool, in parallel with the request path', async () => {
  const module = new URL('../fixtures/cpu-work.ts', import.meta.url).href;
  const uri = await s.services.tasks.submit('cpu work', async (job) => {
    const sum = await s.services.workers.run<number>(module, 'sumOfSquares', [2_000_000], job.signal);
    return `${s.base}/result/${sum}`;
  });
  // the server answers while the worker computes
  assert.equal((await http(`${s.url}/task`, { accept: 'text/uri-list' })).status, 200);
  await s.services.tasks.settled(uri);
  const done = await http(local(uri), { accept: 'text/uri-list' });
  assert.equal(done.status, 200);
  let expected = 0;
  for (let i = 0; i < 2_000_000; i++) expected += i * i;
  assert.equal(done.text.trim(), `${s.base}/result/${expected}`);
});

test('a job kind is a typed definition: its starter checks the input against the schema (what does not fit is 400); a queued job whose input does not fit ends as Error BadJobInput', async () => {
  const tasks = s.services.tasks;
  const jobs = {
    sum: defineJob({
      kind: 'test-sum',
      input: z.object({ numbers: z.array(z.number()) }),
      prepare: async ({ numbers }) => {
        if (!numbers.length) throw new HttpError(400, 'InvalidInput', 'numbers: none given');
        return { title: 'a sum', work: async () => `${s.base}/feature/${numbers.reduce((a, b) => a + b, 0)}` };
      },
    }),
  };
  const start = tasks.starters(jobs).sum;
  // a kind starts only once registered
  await assert.rejects(start({ numbers: [1] }), /not registered/);
  tasks.registerAll(jobs);
  const done = await start({ numbers: [1, 2, 3] });
  await tasks.settled(done);
  assert.equal((await http(local(done), { accept: 'text/uri-list' })).text.trim(), `${s.base}/feature/6`);
  await assert.rejects(start({ numbers: [] }), (e: HttpError) => e.status === 400);
  await assert.rejects(start({ numbers: ['1'] } as never), (e: HttpError) => e.status === 400 && /numbers\.0: .*expected number/.test(e.message));
  // as a worker takes it from the shared queue: a task record waiting, and an input of another shape
  const uri = `${s.base}/task/${randomUUID()}`;
  const now = new Date();
  await s.services.store.createGraphs({ [uri]: taskQuads({ uri, title: 'queued', status: 'Queued', percent: 0, created: now, modified: now, runner: 'queue' }) });
  await tasks.runQueued({ task: uri, kind: 'test-sum', input: { numbers: 'one, two' } }, 0);
  const r = await http(local(uri), { accept: 'text/turtle' });
  assert.equal(r.status, 500);
  assert.equal(status(r.text, uri), 'Error');
  assert.match(r.text, /BadJobInput/);
});

test('a running task says in words what it is doing, how long it has run and about how long is left; the words go when it ends', async () => {
  let finish!: () => void;
  const held = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const uri = await s.services.tasks.submit('Folding', async (job) => {
    job.progress(30, 'fold 3 of 10 done');
    await held;
    return `${s.base}/dataset/1`;
  });
  // the progress is written at most every 250 ms
  let page = '';
  for (let i = 0; i < 50 && !page.includes('fold 3 of 10 done'); i++) {
    await new Promise((r) => setTimeout(r, 100));
    page = (await http(local(uri), { accept: 'text/html' })).text;
  }
  assert.match(page, /<p class="task-stage">fold 3 of 10 done\. \d+ s so far, about \d+ s left<\/p>/);
  assert.match(page, /<meta http-equiv="refresh"/i, 'the page follows the work');
  const running = parseTurtle((await http(local(uri), { accept: 'text/turtle' })).text);
  assert.ok(running.some((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/description' && q.object.value === 'fold 3 of 10 done'));
  finish();
  await s.services.tasks.settled(uri);
  const done = parseTurtle((await http(local(uri), { accept: 'text/turtle' })).text);
  assert.ok(!done.some((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/description'), 'a finished task is not doing anything');
});
