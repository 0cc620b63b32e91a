import { readFileSync } from 'node:fs';
import { freePort, spawnServer } from '../test/helpers.ts';
import { fmt, metric, now, postAndFollow, tempDir, withPolling, residentMemory, type Row } from './util.ts';

const DATA = new URL('../../shared/data/', import.meta.url);

/** How long the server is left idle after a job before its memory is read "at rest": longer than the worker pool's idle time. */
const REST_MS = 6_000;
/** And read again once more has passed: the retired workers' memory returned by the allocator, a few collections run. */
const SETTLED_MS = 20_000;

/**
 * Memory that must not remember history: the same 10-fold cross-validation (random forest on
 * Morgan fingerprints of Kazius) run N times against one server process, its resident memory
 * read from its own /metrics right after each run and again after it has rested (idle workers
 * retired), the first run being the baseline. Also the worst
 * answer time of a small GET while each heavy job runs.
 */
export async function benchMemory(): Promise<Row[]> {
  const runs = Number(process.env.TOXGRAPH_MEMORY_RUNS ?? 20);
  const rowsToUse = Number(process.env.TOXGRAPH_MEMORY_ROWS ?? 4069);
  const rows: Row[] = [];
  const bench = `memory: Kazius (${rowsToUse} rows), Morgan 2048 bits, random forest 100 trees, 10-fold CV, ${runs} runs`;
  const tmp = await tempDir('toxgraph-bench-memory-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const start = () => spawnServer(['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet'], { port });
  let server = await start();
  const mib = (b: number) => `${fmt(b / 2 ** 20, 0)} MiB`;
  try {
    const idle = await metric(base, 'process_resident_memory_bytes');
    rows.push({ bench, measure: 'resident memory, idle after start', value: mib(idle) });
    const csv = readFileSync(new URL('kazius.csv', DATA), 'utf8')
      .trim()
      .split('\n')
      .slice(0, rowsToUse + 1)
      .join('\n');
    const upload = await withPolling(base, () => postAndFollow(`${base}/dataset`, {}, csv, 'text/csv'));
    const dataset = upload.result;
    rows.push({ bench, measure: 'upload: worst GET /health / worst event-loop delay during it', value: `${fmt(upload.worstMs, 0)} ms / ${fmt(upload.loopMaxMs, 0)} ms` });
    const target = (await (await fetch(`${dataset}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim().split('\r\n')[0];
    const fp = await withPolling(base, () => postAndFollow(`${base}/algorithm/morgan-fingerprint`, { dataset_uri: dataset, nBits: '2048' }));
    rows.push({ bench, measure: 'Morgan fingerprints: worst GET /health / worst event-loop delay during it', value: `${fmt(fp.worstMs, 0)} ms / ${fmt(fp.loopMaxMs, 0)} ms` });
    rows.push({ bench, measure: 'resident memory after upload and fingerprints', value: mib(await metric(base, 'process_resident_memory_bytes')) });
    const after: number[] = [];
    const atRest: number[] = [];
    const settled: number[] = [];
    const anon: number[] = [];
    const heap: number[] = [];
    let worstCv = 0;
    let worstCvLoop = 0;
    const crossvalidate = () =>
      withPolling(base, () =>
        postAndFollow(`${base}/crossvalidation`, {
          dataset_uri: fp.result,
          algorithm_uri: `${base}/algorithm/random-forest-classification`,
          prediction_feature: target,
          num_folds: '10',
          random_seed: '1',
        }),
      );
    for (let i = 0; i < runs; i++) {
      const t = now();
      const cv = await crossvalidate();
      const seconds = (now() - t) / 1000;
      worstCv = Math.max(worstCv, cv.worstMs);
      worstCvLoop = Math.max(worstCvLoop, cv.loopMaxMs);
      after.push(await metric(base, 'process_resident_memory_bytes'));
      await new Promise((r) => setTimeout(r, REST_MS));
      atRest.push(await metric(base, 'process_resident_memory_bytes'));
      heap.push(await metric(base, 'nodejs_heap_size_used_bytes'));
      const writerHeap = await metric(base, 'toxgraph_store_writer_heap_bytes');
      const kinds = residentMemory(server.pid);
      if (kinds) anon.push(kinds.anon);
      const stored = await metric(base, 'toxgraph_store_size_bytes');
      // native memory that is not the heap in use: the heap committed, ArrayBuffers and LevelDB's own
      const heapTotal = await metric(base, 'nodejs_heap_size_total_bytes');
      const external = await metric(base, 'nodejs_external_memory_bytes');
      const leveldb = await metric(base, 'toxgraph_store_memory_bytes');
      await new Promise((r) => setTimeout(r, SETTLED_MS - REST_MS));
      settled.push(await metric(base, 'process_resident_memory_bytes'));
      console.log(
        `memory: run ${i + 1}/${runs}: ${fmt(seconds, 1)} s, store ${mib(stored)} on disk, resident ${mib(after.at(-1)!)}, at rest ${mib(atRest.at(-1)!)} (${SETTLED_MS / 1000} s: ${mib(settled.at(-1)!)})${kinds ? ` (anonymous ${mib(kinds.anon)}, mapped files ${mib(kinds.file)})` : ''}, JS heap used ${mib(heap.at(-1)!)} of ${mib(heapTotal)}, external ${mib(external)}, LevelDB ${mib(leveldb)} (store writer thread's heap ${mib(writerHeap)}), worst GET ${fmt(cv.worstMs, 0)} ms, worst event-loop delay ${fmt(cv.loopMaxMs, 0)} ms`,
      );
    }
    const series = (measure: string, values: number[]) => {
      if (values.length === 0) return;
      rows.push({ bench, measure: `${measure} after run 1 (baseline)`, value: mib(values[0]), ratio: '1.00x' });
      rows.push({ bench, measure: `${measure} after run ${values.length}`, value: mib(values.at(-1)!), ratio: `${fmt(values.at(-1)! / values[0], 2)}x` });
      rows.push({ bench, measure: `${measure}, largest after any run`, value: mib(Math.max(...values)), ratio: `${fmt(Math.max(...values) / values[0], 2)}x` });
    };
    series('resident memory right', after);
    series(`resident memory ${REST_MS / 1000} s`, atRest);
    series(`resident memory ${SETTLED_MS / 1000} s`, settled);
    series(`anonymous resident memory ${REST_MS / 1000} s`, anon);
    series(`JS heap in use ${REST_MS / 1000} s`, heap);
    rows.push({ bench, measure: 'cross-validations: worst GET /health / worst event-loop delay during them', value: `${fmt(worstCv, 0)} ms / ${fmt(worstCvLoop, 0)} ms` });
    // what memory owes to the store's size rather than to the process's history: a new process on
    // the same store, after one more run of the same CV
    server.kill('SIGTERM');
    await server.exited;
    server = await start();
    await crossvalidate();
    await new Promise((r) => setTimeout(r, SETTLED_MS));
    const fresh = await metric(base, 'process_resident_memory_bytes');
    rows.push({
      bench,
      measure: `a new process on the store of those ${runs} runs, ${SETTLED_MS / 1000} s after one more run (against run ${runs} of the first process)`,
      value: mib(fresh),
      ratio: `${fmt(fresh / settled.at(-1)!, 2)}x`,
    });
  } finally {
    server.kill('SIGTERM');
    await server.exited;
    await tmp.remove();
  }
  return rows;
}
