import { test, before, after } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.ts';
import { fuzzServer, prepareContext } from '../fuzz/fuzz-run.ts';

/**
 * Property-based fuzzing of every parser and form the server exposes (fast-check), with a fixed
 * seed so that a failure repeats. `npm run bench -- fuzz` runs many more inputs with a new seed.
 */
const SEED = 20261122;
const RUNS = 120;

let s: TestServer;
before(async () => {
  s = await startTestServer(['--query-timeout', '5000', '--body-limit', '200000', '--dataset-task-bytes', '100000']);
});
after(() => s.stop());

test(`fuzzed inputs (seed ${SEED}) answer 2xx or 4xx with an error report, never 500 or a hang, and refused ones write nothing`, async () => {
  const context = await prepareContext(s);
  const stats = await fuzzServer(s, context, { seed: SEED, runs: RUNS });
  const total = stats.reduce((n, r) => n + r.inputs, 0);
  for (const r of stats) console.log(`# fuzz ${r.target}: ${r.inputs} inputs, statuses ${JSON.stringify(r.byStatus)}`);
  console.log(`# fuzz: ${total} inputs in ${stats.length} targets, seed ${SEED}`);
});
