import { readFileSync } from 'node:fs';
import { freePort, spawnServer } from '../test/helpers.ts';
import { fmt, metric, now, postAndFollow, tempDir, withPolling, type Row } from './util.ts';

/** How long the server is left idle after a report before its memory is read "at rest". */
const REST_MS = 6_000;

/**
 * Validation reports of a cross-validation of the whole fathead minnow set (a random forest on
 * seven RDKit descriptors, 10 folds): the report made N times (deleted in between, so that it is
 * made again) and converted to HTML and PDF. Times as ratios against the cross-validation it
 * reports on (measured in the same run); resident memory at rest after each report; the worst
 * answer of a small GET and the worst event-loop delay while reports are made and converted.
 */
export async function benchReport(): Promise<Row[]> {
  const runs = Number(process.env.TOXGRAPH_REPORT_RUNS ?? 5);
  const rows: Row[] = [];
  const csv = readFileSync(new URL('../../shared/data/EPAFHM_log10.csv', import.meta.url), 'utf8');
  const bench = `report: cross-validation report of the fathead minnow set (${csv.trim().split('\n').length - 1} rows, random forest, 10 folds), ${runs} times`;
  const tmp = await tempDir('toxgraph-bench-report-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await spawnServer(['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet'], { port });
  const mib = (b: number) => `${fmt(b / 2 ** 20, 0)} MiB`;
  try {
    const raw = await postAndFollow(`${base}/dataset`, {}, csv, 'text/csv');
    const target = (await (await fetch(`${raw}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim();
    const dataset = await postAndFollow(`${base}/algorithm/rdkit-descriptors`, { dataset_uri: raw, descriptors: 'tpsa,exactmw,CrippenClogP,NumHBD,NumHBA,NumRotatableBonds,NumAromaticRings' });
    const t0 = now();
    const cv = await postAndFollow(`${base}/crossvalidation`, { dataset_uri: dataset, algorithm_uri: `${base}/algorithm/random-forest-regression`, prediction_feature: target, num_folds: '10' });
    const cvSeconds = (now() - t0) / 1000;
    const atRest: number[] = [];
    const times = { make: 0, html: 0, pdf: 0 };
    let worst = 0;
    let worstLoop = 0;
    let pdfBytes = 0;
    for (let i = 0; i < runs; i++) {
      const t = now();
      const made = await withPolling(base, async () => {
        const report = await postAndFollow(`${base}/report/crossvalidation`, { validation_uris: cv });
        const t1 = now();
        await (await fetch(report, { headers: { Accept: 'text/html' } })).text();
        const t2 = now();
        const pdf = await (await fetch(report, { headers: { Accept: 'application/pdf' } })).arrayBuffer();
        times.html += (t2 - t1) / 1000;
        times.pdf += (now() - t2) / 1000;
        times.make += (t1 - t) / 1000;
        pdfBytes = pdf.byteLength;
        return report;
      });
      worst = Math.max(worst, made.worstMs);
      worstLoop = Math.max(worstLoop, made.loopMaxMs);
      await fetch(made.result, { method: 'DELETE' });
      await new Promise((r) => setTimeout(r, REST_MS));
      atRest.push(await metric(base, 'process_resident_memory_bytes'));
      console.log(`report: ${i + 1}/${runs}: ${fmt((now() - t - REST_MS) / 1000, 1)} s with HTML and PDF, at rest ${mib(atRest.at(-1)!)}, worst GET ${fmt(made.worstMs, 0)} ms`);
    }
    rows.push({ bench, measure: 'the cross-validation reported on (baseline)', value: `${fmt(cvSeconds, 1)} s`, ratio: '1.00x' });
    rows.push({ bench, measure: 'mean time: make the report (facts, plots, DocBook)', value: `${fmt(times.make / runs, 2)} s`, ratio: `${fmt(times.make / runs / cvSeconds, 2)}x` });
    rows.push({ bench, measure: 'mean time: HTML / PDF from the DocBook', value: `${fmt(times.html / runs, 2)} s / ${fmt(times.pdf / runs, 2)} s (PDF ${fmt(pdfBytes / 1024, 0)} KiB)` });
    rows.push({ bench, measure: `resident memory ${REST_MS / 1000} s after report 1 (baseline)`, value: mib(atRest[0]), ratio: '1.00x' });
    rows.push({ bench, measure: `resident memory ${REST_MS / 1000} s after report ${runs}`, value: mib(atRest.at(-1)!), ratio: `${fmt(atRest.at(-1)! / atRest[0], 2)}x` });
    rows.push({ bench, measure: 'worst GET /health / worst event-loop delay while reports are made and converted', value: `${fmt(worst, 0)} ms / ${fmt(worstLoop, 0)} ms` });
  } finally {
    server.kill('SIGTERM');
    await server.exited;
    await tmp.remove();
  }
  return rows;
}
