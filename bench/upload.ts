import { freePort, spawnServer } from '../test/helpers.ts';
import { fmt, now, postAndFollow, tempDir, withPolling, residentMemory, type Row } from './util.ts';
import { syntheticCsv } from '../test/fixtures.ts';

/**
 * Peak memory of a large upload: a 100,000-row CSV posted to a fresh server, its resident memory
 * sampled from /proc every 100 ms while the upload runs (peak above idle), the worst answer of a
 * small GET meanwhile, and a check that every row was stored.
 */
export async function benchUpload(): Promise<Row[]> {
  const rowsToUpload = Number(process.env.TOXGRAPH_UPLOAD_ROWS ?? 100_000);
  const bench = `upload: ${rowsToUpload.toLocaleString('en')}-row CSV (generated acyclic structures, 3 columns)`;
  const csv = syntheticCsv(rowsToUpload);
  const tmp = await tempDir('toxgraph-bench-upload-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await spawnServer(['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet'], { port });
  const rss = () => residentMemory(server.pid)?.all ?? 0;
  const mib = (b: number) => `${fmt(b / 2 ** 20, 0)} MiB`;
  const rows: Row[] = [];
  try {
    await (await fetch(`${base}/health`)).arrayBuffer();
    const idle = rss();
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 100);
    const t = now();
    let upload: Awaited<ReturnType<typeof withPolling<string>>>;
    try {
      upload = await withPolling(base, () => postAndFollow(`${base}/dataset`, {}, csv, 'text/csv'));
    } finally {
      clearInterval(sampler);
    }
    const dataset = upload.result;
    const worstGet = upload.worstMs;
    const seconds = (now() - t) / 1000;
    const count = `SELECT (COUNT(?e) AS ?n) WHERE { GRAPH ?g { <${dataset}> <http://www.opentox.org/api/1.1#dataEntry> ?e } }`;
    const answer = await fetch(`${base}/sparql`, { method: 'POST', headers: { 'Content-Type': 'application/sparql-query', Accept: 'application/sparql-results+json' }, body: count });
    const stored = Number((await answer.json()).results.bindings[0].n.value);
    const metadata = await (await fetch(`${dataset}/metadata`, { headers: { Accept: 'application/n-triples' } })).text();
    const warnings = metadata.split('\n').filter((l) => l.includes('#warning>')).length;
    rows.push({ bench, measure: 'CSV size', value: `${fmt(csv.length / 2 ** 20, 1)} MiB` });
    rows.push({ bench, measure: 'upload time (task accepted to completed)', value: `${fmt(seconds, 1)} s` });
    rows.push({ bench, measure: 'rows stored (warnings)', value: `${stored} (${warnings})` });
    rows.push({ bench, measure: 'resident memory, idle before', value: mib(idle) });
    rows.push({ bench, measure: 'peak resident memory above idle', value: mib(peak - idle) });
    rows.push({ bench, measure: 'worst GET /health during the upload', value: `${fmt(worstGet, 0)} ms` });
    rows.push({ bench, measure: 'worst event-loop delay during the upload', value: `${fmt(upload.loopMaxMs, 0)} ms` });
  } finally {
    server.kill('SIGTERM');
    await server.exited;
    await tmp.remove();
  }
  return rows;
}
