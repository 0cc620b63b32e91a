import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { STORE_SUITE } from './store-suite.ts';

/**
 * Runs a tier of the tests (issue 53): `unit` and `integration` use both cores, two files at a
 * time (every integration file starts its own servers on its own temporary stores and ports);
 * the few files that assert on the order of events under load (the event loop answering /health
 * during a long upload or download, a kill -9 in the middle of a task) and the scale-out suite
 * (several serve and worker processes on one remote store) then run one at a time. With
 * TOXGRAPH_TEST_STORE (virtuoso, oxigraph) every test server has its own remote store.
 * Each run prints the spec reporter's lines and, at its end, the slowest files and hooks
 * (test/reporters/timings.ts, kept in test-output/timings.txt).
 *
 *   node test/run-tier.ts unit|integration [files…]
 *   TOXGRAPH_TEST_STORE=virtuoso node test/run-tier.ts integration
 */
const ONE_AT_A_TIME = ['operations.test.ts', 'bounded-input.test.ts', 'bounded-output.test.ts', 'scale-out.test.ts'];

const [tier, ...only] = process.argv.slice(2);
/** V8's code cache of the project's modules, shared by the tiers' processes (node_modules/.cache: gone with a clean install). */
const COMPILE_CACHE = new URL('../node_modules/.cache/toxgraph-compile', import.meta.url).pathname;
const folder = `test/${tier}`;
const files = (
  only.length
    ? only
    : readdirSync(folder)
        .filter((f) => f.endsWith('.test.ts'))
        .filter((f) => !(process.env.TOXGRAPH_TEST_STORE && tier === 'integration') || STORE_SUITE.includes(f))
        .map((f) => `${folder}/${f}`)
).sort();
const missing = STORE_SUITE.filter((f) => tier === 'integration' && !readdirSync(folder).includes(f));
if (missing.length) throw new Error(`STORE_SUITE names files that do not exist: ${missing.join(', ')}`);
const serial = files.filter((f) => ONE_AT_A_TIME.some((name) => f.endsWith(`/${name}`)));
const parallel = files.filter((f) => !serial.includes(f));

function run(label: string, list: string[], concurrency: number): number {
  if (!list.length) return 0;
  const result = spawnSync(
    process.execPath,
    [
      '--test',
      `--test-concurrency=${concurrency}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=./test/reporters/timings.ts',
      '--test-reporter-destination=stdout',
      ...list,
    ],
    // NODE_COMPILE_CACHE: every test process, worker thread and spawned server compiles the same
    // modules; cached, an import of the server and the learners costs about 1 s of CPU, not 2.5 s
    { stdio: 'inherit', env: { NODE_COMPILE_CACHE: COMPILE_CACHE, ...process.env, TOXGRAPH_CHECK_TEMPLATES: '1', TOXGRAPH_TEST_TIER: label } },
  );
  return result.status ?? 1;
}

// the timings of a run on a remote store are kept apart from the embedded store's
const label = process.env.TOXGRAPH_TEST_STORE ? `${tier}-${process.env.TOXGRAPH_TEST_STORE}` : tier;
const together = run(label, parallel, 2);
const alone = run(`${label}-one-at-a-time`, serial, 1);
process.exit(together || alone);
