import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, spawnServer, type ServerProcess } from '../test/helpers.ts';
import { hasVirtuoso, startVirtuoso } from '../test/remote/virtuoso.ts';
import { hasRedis, startRedis } from '../test/remote/redis.ts';
import { fmt, now, postAndFollow, tempDir, type Row } from './util.ts';

/**
 * Scale-out of the job queue: N cross-validations submitted at once to one serve process, run by
 * 1, 2 and 4 worker processes (`toxgraph worker`, each running one job at a time on one worker
 * thread) over one Virtuoso and one Redis on this machine. Baseline: one worker, in this run.
 */
export async function benchScaleOut(): Promise<Row[]> {
  if (!hasVirtuoso || !hasRedis) return [{ bench: 'scale-out', measure: 'skipped', value: 'needs virtuoso-opensource-7-bin and redis-server' }];
  const jobs = Number(process.env.TOXGRAPH_SCALE_JOBS ?? 8);
  const rowsToUse = Number(process.env.TOXGRAPH_SCALE_ROWS ?? 600);
  const bench = `scale-out: ${jobs} cross-validations at once (Kazius, ${rowsToUse} rows, Morgan 1024 bits, random forest 50 trees, 5 folds)`;
  const tmp = await tempDir('toxgraph-bench-scale-');
  const [virtuoso, redis] = await Promise.all([startVirtuoso(join(tmp.dir, 'virtuoso')), startRedis(join(tmp.dir, 'redis'))]);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const shared = [...virtuoso.storeFlags, '--redis-url', redis.url, '--base-url', base, '--quiet', '--host', '127.0.0.1'];
  const serve = await spawnServer([...shared, '--data', join(tmp.dir, 'serve')], { port });
  let workers: ServerProcess[] = [];
  const startWorkers = async (n: number) => {
    for (let i = 0; i < n; i++) workers.push(await spawnServer([...shared, '--data', join(tmp.dir, `worker-${workers.length}`), '--task-concurrency', '1', '--workers', '1'], { worker: true }));
  };
  const stopWorkers = async () => {
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    workers = [];
  };
  const rows: Row[] = [];
  try {
    // every sixth row: Kazius is sorted by class
    const [header, ...lines] = readFileSync(new URL('../../shared/data/kazius.csv', import.meta.url), 'utf8')
      .trim()
      .split('\n');
    const csv = [header, ...lines.filter((_, i) => i % 6 === 0).slice(0, rowsToUse)].join('\n');
    await startWorkers(1);
    const raw = await postAndFollow(`${base}/dataset`, {}, csv, 'text/csv');
    const target = (await (await fetch(`${raw}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim().split('\r\n')[0];
    const fingerprints = await postAndFollow(`${base}/algorithm/morgan-fingerprint`, { dataset_uri: raw, nBits: '1024' });
    await stopWorkers();
    let baseline = 0;
    for (const n of [1, 2, 4]) {
      await startWorkers(n);
      const t = now();
      await Promise.all(
        Array.from({ length: jobs }, (_, i) =>
          postAndFollow(`${base}/crossvalidation`, {
            dataset_uri: fingerprints,
            algorithm_uri: `${base}/algorithm/random-forest-classification`,
            prediction_feature: target,
            num_folds: '5',
            random_seed: String(i + 1),
            algorithm_params: 'numTrees=50',
          }),
        ),
      );
      const seconds = (now() - t) / 1000;
      const perMinute = (jobs / seconds) * 60;
      baseline ||= perMinute;
      rows.push({
        bench,
        measure: `${n} worker process${n > 1 ? 'es' : ''}: all done in / cross-validations per minute`,
        value: `${fmt(seconds, 1)} s / ${fmt(perMinute, 1)}`,
        ratio: `${fmt(perMinute / baseline, 2)}x`,
      });
      await stopWorkers();
    }
  } finally {
    await stopWorkers();
    serve.kill('SIGTERM');
    await serve.exited;
    await Promise.all([virtuoso.stop(), redis.stop()]);
    await tmp.remove();
  }
  return rows;
}
