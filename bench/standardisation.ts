import { readFileSync } from 'node:fs';
import initRDKitModule from '@rdkit/rdkit';
import { standardise } from '../src/chemistry/standardisation.ts';
import { freePort, spawnServer } from '../test/helpers.ts';
import { fmt, metric, now, postAndFollow, ratio, tempDir, withPolling, type Row } from './util.ts';

/**
 * Standardising the Kazius mutagenicity set (4,069 SMILES) with every rule, against parsing the
 * same SMILES to canonical SMILES alone (the baseline), on one thread in the same process; and
 * what the rules did to the set.
 */
export async function benchStandardisation(): Promise<Row[]> {
  const bench = 'standardisation: the Kazius set';
  const smiles = readFileSync(new URL('../../shared/data/kazius.csv', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(',')[0]);
  const rdkit: any = await (initRDKitModule as any)();
  rdkit.disable_logging();
  const canonical = () => {
    for (const s of smiles) {
      const mol = rdkit.get_mol(s);
      mol?.get_smiles();
      mol?.delete();
    }
  };
  // warm both paths, then time each twice and keep the faster
  canonical();
  smiles.slice(0, 200).forEach((s) => standardise(rdkit, s));
  const time = (work: () => void) => {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 2; i++) {
      const t = now();
      work();
      best = Math.min(best, now() - t);
    }
    return best;
  };
  const parseMs = time(canonical);
  let changed = 0;
  let failed = 0;
  const fired = new Map<string, number>();
  const standardiseMs = time(() => {
    changed = 0;
    failed = 0;
    fired.clear();
    for (const s of smiles) {
      const r = standardise(rdkit, s);
      if (!r.ok) failed++;
      else if (r.rules.length) {
        changed++;
        for (const rule of r.rules) fired.set(rule, (fired.get(rule) ?? 0) + 1);
      }
    }
  });
  const top = [...fired].sort((a, b) => b[1] - a[1]).slice(0, 5);
  return [
    ...(await standardisationJobs(smiles)),
    { bench, measure: `canonical SMILES of ${smiles.length} structures (baseline)`, value: `${fmt(parseMs, 0)} ms (${fmt((1000 * parseMs) / smiles.length, 0)} µs each)` },
    { bench, measure: 'standardised with every rule', value: `${fmt(standardiseMs, 0)} ms (${fmt((1000 * standardiseMs) / smiles.length, 0)} µs each)` },
    { bench, measure: 'standardisation / canonical SMILES', value: ratio(standardiseMs / parseMs) },
    { bench, measure: 'structures changed, not standardised', value: `${changed}, ${failed}` },
    { bench, measure: 'rules that fired most', value: top.map(([r, n]) => `${r} ${n}`).join(', ') },
  ];
}

/** How long the server rests after a job before its memory is read: longer than the worker pool's idle time. */
const REST_MS = 8_000;
const RUNS = 3;

/**
 * The standardisation as a user runs it, on a server process: the Kazius set uploaded, then the
 * same standardise-structures job run RUNS times. Per run: its time, the worst answer of a small
 * GET and the worst event-loop delay while it ran, and the resident memory once the server has
 * rested (the first run the baseline: memory must not remember history).
 */
async function standardisationJobs(smiles: string[]): Promise<Row[]> {
  const bench = `standardisation: the job on a server, Kazius (${smiles.length} rows), ${RUNS} runs`;
  const tmp = await tempDir('toxgraph-bench-standardisation-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await spawnServer(['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet'], { port });
  const rows: Row[] = [];
  const mib = (b: number) => `${fmt(b / 2 ** 20, 0)} MiB`;
  try {
    const dataset = await postAndFollow(`${base}/dataset`, {}, `SMILES\n${smiles.join('\n')}\n`, 'text/csv');
    const resident: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t = now();
      const run = await withPolling(base, () => postAndFollow(`${base}/algorithm/standardise-structures`, { dataset_uri: dataset }));
      const seconds = (now() - t) / 1000;
      await new Promise((r) => setTimeout(r, REST_MS));
      resident.push(await metric(base, 'process_resident_memory_bytes'));
      rows.push({ bench, measure: `run ${i + 1}: time / worst GET /health / worst event-loop delay`, value: `${fmt(seconds, 1)} s / ${fmt(run.worstMs, 0)} ms / ${fmt(run.loopMaxMs, 0)} ms` });
    }
    rows.push({ bench, measure: `resident memory ${REST_MS / 1000} s after run 1 (baseline)`, value: mib(resident[0]), ratio: '1.00x' });
    rows.push({ bench, measure: `resident memory ${REST_MS / 1000} s after run ${RUNS}`, value: mib(resident.at(-1)!), ratio: `${fmt(resident.at(-1)! / resident[0], 2)}x` });
  } finally {
    server.kill('SIGTERM');
    await server.exited;
    await tmp.remove();
  }
  return rows;
}
