import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { STORE_SUITE } from './store-suite.ts';

/**
 * Runs the tests (issue 53) on both cores, two files at a time: `unit`, `integration`, or `all`
 * (both tiers in one queue, what `npm test` runs, so that no core waits at the end of a tier).
 * Every integration file starts its own servers on its own temporary stores and ports, so files
 * share nothing. The queue starts with the files that take longest (LONGEST, then the rest in
 * order), so that no long file starts last while the other core has nothing left to do. The
 * scale-out suite (several serve and worker processes on one remote store) then runs alone. With
 * TOXGRAPH_TEST_STORE (virtuoso, oxigraph) every test server has its own remote store and only the
 * store suite (test/store-suite.ts) of the integration tier runs.
 * Each run prints the spec reporter's lines and, at its end, the slowest files and hooks
 * (test/reporters/timings.ts, kept in test-output/timings.txt).
 *
 * `differential` (test/differential/) compares the store's own query and update evaluators with
 * Comunica on thousands of generated requests; Comunica, the reference, makes it slow (about
 * 70 s of CPU), so it is a stage of its own in CI (`npm run test:differential`), not of `all`.
 *
 *   node test/run-tier.ts unit|integration|differential|all [files…]
 *   TOXGRAPH_TEST_STORE=virtuoso node test/run-tier.ts integration
 */
const ONE_AT_A_TIME = ['scale-out.test.ts'];
/** The longest a test may take (the slowest take about 40 s; those that need more say so themselves). */
const TEST_TIMEOUT_MS = 600_000;
/** The files that took longest on two cores (test-output/timings.txt), longest first. */
const LONGEST = [
  'integration/fuzz.test.ts',
  'integration/conformal.test.ts',
  'integration/structure-search.test.ts',
  'integration/operations.test.ts',
  'integration/bounded-output.test.ts',
  'integration/auth.test.ts',
  'integration/dataset.test.ts',
  'integration/path-spelling.test.ts',
  'integration/model-exchange.test.ts',
  'integration/task.test.ts',
];

const [tier, ...only] = process.argv.slice(2);
if (!['unit', 'integration', 'differential', 'all'].includes(tier)) throw new Error('usage: node test/run-tier.ts unit|integration|differential|all [files…]');
/** V8's code cache of the project's modules, shared by the tiers' processes (node_modules/.cache: gone with a clean install). */
const COMPILE_CACHE = new URL('../node_modules/.cache/toxgraph-compile', import.meta.url).pathname;
const remoteStore = process.env.TOXGRAPH_TEST_STORE;
const UNTRACKED_PROMISES = new URL('./untracked-promises.ts', import.meta.url).href;

function filesOf(folder: 'unit' | 'integration' | 'differential'): string[] {
  const names = readdirSync(`test/${folder}`).filter((f) => f.endsWith('.test.ts'));
  if (folder === 'integration') {
    const missing = STORE_SUITE.filter((f) => !names.includes(f));
    if (missing.length) throw new Error(`STORE_SUITE names files that do not exist: ${missing.join(', ')}`);
  }
  return names
    .filter((f) => !(remoteStore && folder === 'integration') || STORE_SUITE.includes(f))
    .sort()
    .map((f) => `test/${folder}/${f}`);
}

const listed = only.length ? only : tier === 'all' ? [...filesOf('integration'), ...filesOf('unit')] : filesOf(tier as 'unit' | 'integration' | 'differential');
const rank = (f: string) => {
  const i = LONGEST.findIndex((name) => f.endsWith(`/${name}`));
  return i < 0 ? LONGEST.length : i;
};
// a stable sort: the rest keep their order (the integration files before the short unit files)
const files = [...listed].sort((a, b) => rank(a) - rank(b));
const serial = files.filter((f) => ONE_AT_A_TIME.some((name) => f.endsWith(`/${name}`)));
const parallel = files.filter((f) => !serial.includes(f));

function run(label: string, list: string[], concurrency: number): number {
  if (!list.length) return 0;
  const result = spawnSync(
    process.execPath,
    [
      // node:test's async hook without promise tracking, in every test process (see the file)
      '--import',
      UNTRACKED_PROMISES,
      '--test',
      `--test-concurrency=${concurrency}`,
      // a test that hangs fails after TEST_TIMEOUT_MS with its name, not when CI's time runs out
      `--test-timeout=${TEST_TIMEOUT_MS}`,
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
