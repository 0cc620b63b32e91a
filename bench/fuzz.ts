import { startTestServer } from '../test/helpers.ts';
import { fuzzServer, prepareContext } from '../test/fuzz/fuzz-run.ts';
import { now, type Row } from './util.ts';

/**
 * The fuzz properties of `npm test` with many more inputs and a new seed each run
 * (`TOXGRAPH_FUZZ_SEED` and `TOXGRAPH_FUZZ_RUNS` repeat or size a run). A failure prints the
 * seed and the counterexample.
 */
export async function benchFuzz(): Promise<Row[]> {
  const seed = Number(process.env.TOXGRAPH_FUZZ_SEED ?? Date.now() % 2 ** 31);
  const runs = Number(process.env.TOXGRAPH_FUZZ_RUNS ?? 1000);
  const s = await startTestServer(['--query-timeout', '5000', '--body-limit', '200000', '--dataset-task-bytes', '100000']);
  try {
    const started = now();
    const stats = await fuzzServer(s, await prepareContext(s), { seed, runs, only: process.env.TOXGRAPH_FUZZ_ONLY });
    const seconds = (now() - started) / 1000;
    const rows: Row[] = stats.map((r) => ({
      bench: `fuzz (seed ${seed})`,
      measure: r.target,
      value: `${r.inputs} inputs`,
      ratio: Object.entries(r.byStatus)
        .map(([k, v]) => `${k}:${v}`)
        .join(' '),
    }));
    const total = stats.reduce((n, r) => n + r.inputs, 0);
    rows.push({ bench: `fuzz (seed ${seed})`, measure: 'all targets', value: `${total} inputs in ${seconds.toFixed(0)} s`, ratio: 'no 5xx, no hang, refusals wrote nothing' });
    return rows;
  } finally {
    await s.stop();
  }
}
