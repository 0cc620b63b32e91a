import { readFileSync } from 'node:fs';
import { freePort, spawnServer } from '../test/helpers.ts';
import { fmt, metric, now, postAndFollow, tempDir, withPolling, type Row } from './util.ts';

/** How long the server is left idle after a job before its memory is read "at rest". */
const REST_MS = 6_000;

/**
 * The jobs of the regulatory half against one server process, the same supermodel built N
 * times on the whole fathead minnow set: RDKit descriptors, selection of 10 features by
 * correlation, a random forest and a leverage applicability-domain model, then predictions of
 * the whole set with their AD estimates. Resident memory after each build (at rest), and the
 * worst answer of a small GET and the worst event-loop delay while the jobs run.
 */
export async function benchSupermodel(): Promise<Row[]> {
  const runs = Number(process.env.TOXGRAPH_SUPERMODEL_RUNS ?? 5);
  const rows: Row[] = [];
  const csv = readFileSync(new URL('../../shared/data/EPAFHM_log10.csv', import.meta.url), 'utf8');
  const bench = `supermodel: fathead minnow LC50 (${csv.trim().split('\n').length - 1} rows), descriptors + fs-correlation (10) + random forest + ad-leverage, ${runs} builds`;
  const tmp = await tempDir('toxgraph-bench-supermodel-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await spawnServer(['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet'], { port });
  const mib = (b: number) => `${fmt(b / 2 ** 20, 0)} MiB`;
  try {
    const dataset = await postAndFollow(`${base}/dataset`, {}, csv, 'text/csv');
    const target = (await (await fetch(`${dataset}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim();
    const atRest: number[] = [];
    let worst = 0;
    let worstLoop = 0;
    let buildSeconds = 0;
    let predictSeconds = 0;
    for (let i = 0; i < runs; i++) {
      const t = now();
      const built = await withPolling(base, () =>
        postAndFollow(`${base}/algorithm/superalgorithm`, {
          dataset_uri: dataset,
          prediction_feature: target,
          feature_calculation: 'rdkit-descriptors',
          feature_selection: 'fs-correlation',
          model_learning: 'random-forest-regression',
          applicability_domain: 'ad-leverage',
          parameter: 'fs-correlation numToSelect 10',
        }),
      );
      const t2 = now();
      const predicted = await withPolling(base, () => postAndFollow(built.result, { dataset_uri: dataset }));
      const predictionTime = (now() - t2) / 1000;
      buildSeconds += (t2 - t) / 1000;
      predictSeconds += predictionTime;
      worst = Math.max(worst, built.worstMs, predicted.worstMs);
      worstLoop = Math.max(worstLoop, built.loopMaxMs, predicted.loopMaxMs);
      await new Promise((r) => setTimeout(r, REST_MS));
      atRest.push(await metric(base, 'process_resident_memory_bytes'));
      console.log(
        `supermodel: build ${i + 1}/${runs}: ${fmt((t2 - t) / 1000, 1)} s, predictions ${fmt(predictionTime, 1)} s, at rest ${mib(atRest.at(-1)!)}, worst GET ${fmt(Math.max(built.worstMs, predicted.worstMs), 0)} ms`,
      );
    }
    rows.push({ bench, measure: 'mean time: supermodel build / predictions of the whole set', value: `${fmt(buildSeconds / runs, 1)} s / ${fmt(predictSeconds / runs, 1)} s` });
    rows.push({ bench, measure: `resident memory ${REST_MS / 1000} s after build 1 (baseline)`, value: mib(atRest[0]), ratio: '1.00x' });
    rows.push({ bench, measure: `resident memory ${REST_MS / 1000} s after build ${runs}`, value: mib(atRest.at(-1)!), ratio: `${fmt(atRest.at(-1)! / atRest[0], 2)}x` });
    rows.push({ bench, measure: `resident memory ${REST_MS / 1000} s after a build, smallest / largest`, value: `${mib(Math.min(...atRest))} / ${mib(Math.max(...atRest))}` });
    rows.push({ bench, measure: 'worst GET /health / worst event-loop delay during the jobs', value: `${fmt(worst, 0)} ms / ${fmt(worstLoop, 0)} ms` });
  } finally {
    server.kill('SIGTERM');
    await server.exited;
    await tmp.remove();
  }
  return rows;
}
