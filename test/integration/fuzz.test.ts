import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import type { FuzzStats } from '../fuzz/fuzz-run.ts';

/**
 * Property-based fuzzing of every parser and form the server exposes (fast-check), with a fixed
 * seed so that a failure repeats. `npm run bench -- fuzz` runs many more inputs with a new seed.
 */
const SEED = 20261122;
const RUNS = 120;

/**
 * The server and the fuzzing (test/fuzz/fuzz-run.ts) run on a worker thread of this process: the
 * same inputs and checks, a failure thrown here. The test runner's async hook (its init and
 * destroy of every promise, to tell which test an error belongs to) is on this thread only; with
 * the server here it took a third of the run's CPU (61 s under `node --test`, 41 s for the same
 * inputs outside it). This thread loads no module of src/: a module loaded and not run in one
 * thread takes lines from the coverage that another thread's runs of it gave (c8's merge).
 */
function fuzzOnThread(flags: string[], options: { seed: number; runs: number }): Promise<FuzzStats[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('../fuzz/fuzz-run.ts', import.meta.url), { workerData: { fuzz: { flags, options } } });
    let stats: FuzzStats[] | undefined;
    worker.once('message', (m: FuzzStats[]) => {
      stats = m;
    });
    worker.once('error', reject);
    worker.once('exit', (code) => (stats ? resolve(stats) : reject(new Error(`the fuzzing thread exited (code ${code}) without its statistics`))));
  });
}

test(`fuzzed inputs (seed ${SEED}) answer 2xx or 4xx with an error report, never 500 or a hang, and refused ones write nothing`, async () => {
  const stats = await fuzzOnThread(['--query-timeout', '5000', '--body-limit', '200000', '--dataset-task-bytes', '100000'], { seed: SEED, runs: RUNS });
  const total = stats.reduce((n, r) => n + r.inputs, 0);
  for (const r of stats) console.log(`# fuzz ${r.target}: ${r.inputs} inputs in ${r.ms} ms, statuses ${JSON.stringify(r.byStatus)}`);
  console.log(`# fuzz: ${total} inputs in ${stats.length} targets, seed ${SEED}`);
});
