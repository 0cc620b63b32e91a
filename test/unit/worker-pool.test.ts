import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CRASH_WORDS, isCrashMessage, runInChunks, WorkerCrash, WorkerPool } from '../../src/task/worker-pool.ts';

const module = new URL('../fixtures/cpu-work.ts', import.meta.url).href;
const crashing = new URL('../fixtures/wasm-crash.ts', import.meta.url).href;

test('runInChunks answers one result per item in order, and queues at most one chunk per thread: a call made meanwhile waits for one chunk, not for the whole job', async () => {
  const pool = new WorkerPool(2);
  // counts what the pool has been handed and not yet answered
  let inFlight = 0;
  let most = 0;
  const run = pool.run.bind(pool);
  pool.run = (async (...args: Parameters<WorkerPool['run']>) => {
    most = Math.max(most, ++inFlight);
    try {
      return await run(...args);
    } finally {
      inFlight--;
    }
  }) as WorkerPool['run'];
  try {
    const items = Array.from({ length: 95 }, (_, i) => i);
    const fractions: number[] = [];
    const job = runInChunks<number, number>(pool, { module, fn: 'squaresAfter', chunk: 10, args: [40] }, items, { progress: (f) => fractions.push(f) });
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.deepEqual(await pool.run(module, 'squaresAfter', [[3], 0]), [9]);
    // the pool's queue is first come, first served: behind a whole job's chunks it would come after all ten
    const chunksBefore = fractions.length;
    assert.deepEqual(
      await job,
      items.map((n) => n * n),
    );
    assert.equal(most, 3, 'two chunks of the job and the call made meanwhile');
    assert.equal(fractions.length, 10);
    assert.equal(fractions.at(-1), 1);
    assert.ok(chunksBefore < 10, `the call made meanwhile came after ${chunksBefore} of the job's 10 chunks`);
  } finally {
    await pool.close();
  }
});

test('runInChunks of nothing calls nothing; a failing chunk fails the job', async () => {
  const pool = new WorkerPool(2);
  try {
    assert.deepEqual(await runInChunks(pool, { module, fn: 'squaresAfter', chunk: 10, args: [0] }, []), []);
    await assert.rejects(runInChunks(pool, { module, fn: 'noSuchExport', chunk: 10 }, [1, 2]));
    // the other lanes start no more chunks once one has failed
    let started = 0;
    const run = pool.run.bind(pool);
    pool.run = ((...args: Parameters<WorkerPool['run']>) => {
      started++;
      return run(...args);
    }) as WorkerPool['run'];
    await assert.rejects(
      runInChunks(
        pool,
        { module, fn: 'noSuchExport', chunk: 1 },
        Array.from({ length: 20 }, (_, i) => i),
      ),
    );
    assert.ok(started <= 3, `${started} chunks started of 20`);
  } finally {
    await pool.close();
  }
});

test('a call that is not background work starts before queued background work: it waits only for the piece already running', async () => {
  const pool = new WorkerPool(1);
  try {
    const order: string[] = [];
    const pieces = [1, 2, 3, 4].map((i) => pool.run<number[]>(module, 'squaresAfter', [[i], 40], undefined, { background: true }).then(() => order.push(`piece ${i}`)));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const call = pool.run<number[]>(module, 'squaresAfter', [[5], 0]).then(() => order.push('call'));
    await Promise.all([...pieces, call]);
    assert.deepEqual(order, ['piece 1', 'call', 'piece 2', 'piece 3', 'piece 4']);
  } finally {
    await pool.close();
  }
});

test('a call that crashes the WebAssembly of its thread fails with a WorkerCrash, and the thread is replaced: the next call runs on a fresh one', async () => {
  const pool = new WorkerPool(1);
  try {
    const first = await pool.run<number>(crashing, 'thread', []);
    await assert.rejects(pool.run(crashing, 'trap', []), (e: Error) => e instanceof WorkerCrash && /unreachable/.test(e.message));
    // the crashed thread would answer "crashed before"
    const next = await pool.run<number>(crashing, 'thread', []);
    assert.notEqual(next, first);
    // and so again, with calls queued behind the one that crashes: they run on the fresh thread
    const queued = [pool.run(crashing, 'trap', []), pool.run<number>(crashing, 'thread', []), pool.run<number>(module, 'sumOfSquares', [4])];
    await assert.rejects(queued[0], WorkerCrash);
    const after = await queued[1];
    assert.notEqual(after, next);
    assert.equal(await queued[2], 14);
  } finally {
    await pool.close();
  }
});

test('a call whose thread stops under it fails with a WorkerCrash, and the next call gets a fresh thread', async () => {
  const pool = new WorkerPool(1);
  try {
    const first = await pool.run<number>(crashing, 'thread', []);
    await assert.rejects(pool.run(crashing, 'stopThread', []), (e: Error) => e instanceof WorkerCrash && /exit code 3/.test(e.message));
    assert.notEqual(await pool.run<number>(crashing, 'thread', []), first);
  } finally {
    await pool.close();
  }
});

test('a crash is told from its words: the traps of WebAssembly, a stack overflow, and errors that say they came of one; other errors keep their thread', async () => {
  for (const m of [
    'memory access out of bounds',
    'RuntimeError: unreachable',
    'table index is out of bounds',
    'null function or function signature mismatch',
    'Maximum call stack size exceeded',
    `the SMILES could not be read: RDKit failed on it (${CRASH_WORDS}: memory access out of bounds)`,
  ])
    assert.ok(isCrashMessage(m), m);
  for (const m of ['not a valid SMARTS pattern: "[[["', 'the host is unreachable', 'cancelled']) assert.ok(!isCrashMessage(m), m);
  const pool = new WorkerPool(1);
  try {
    const first = await pool.run<number>(crashing, 'thread', []);
    await assert.rejects(pool.run(module, 'noSuchExport', []), (e: Error) => !(e instanceof WorkerCrash));
    assert.equal(await pool.run<number>(crashing, 'thread', []), first);
  } finally {
    await pool.close();
  }
});
