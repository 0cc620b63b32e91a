import { readFileSync } from 'node:fs';
import { ClassicLevel } from 'classic-level';
import { Quadstore } from 'quadstore';
import { loadConfig } from '../src/core/config.ts';
import { startServer } from '../src/server/server.ts';
import { df, xsd } from '../src/rdf/namespaces.ts';
import { fmt, now, ratio, tempDir, type Row } from './util.ts';

const SAMPLE_QUADS = 200_000;

async function waitForTask(url: string, base: string, taskUri: string): Promise<string> {
  for (;;) {
    const r = await fetch(taskUri.replace(base, url), { headers: { Accept: 'text/uri-list' } });
    const text = (await r.text()).trim();
    if (r.status === 200) return text;
    if (r.status !== 202) throw new Error(`task failed: ${r.status} ${text}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

/**
 * Kazius CSV upload; a 4,069 × 200 numeric matrix stored and read back as CSV through the
 * dataset component; each against raw quadstore (its six default indexes) writing and reading
 * quads of the same shape, measured in this run on 200,000 quads and scaled to the same count.
 */
export async function benchDataset(): Promise<Row[]> {
  const rows: Row[] = [];
  const row = (measure: string, value: string, r?: string) => rows.push({ bench: 'dataset', measure, value, ratio: r });
  const kazius = readFileSync('../shared/data/kazius.csv', 'utf8');
  const smiles = kazius
    .split(/\r?\n/)
    .slice(1)
    .filter(Boolean)
    .map((l) => l.split(',')[0]);
  const FEATURES = 200;
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 100;
  const matrix = [
    ['SMILES', ...Array.from({ length: FEATURES }, (_, j) => `descriptor_${j + 1}`)].join(','),
    ...smiles.map((s) => [s, ...Array.from({ length: FEATURES }, () => random().toFixed(6))].join(',')),
  ].join('\n');
  const values = smiles.length * FEATURES;

  // baseline: raw quadstore, default indexes, quads like ours (one per value, in batches)
  const raw = await tempDir('toxgraph-bench-raw-');
  const backend = new ClassicLevel<string, Uint8Array>(raw.dir, { keyEncoding: 'utf8', valueEncoding: 'view' } as any);
  const qs = new Quadstore({ backend: backend as any, dataFactory: df as any });
  await qs.open();
  const g = df.namedNode('http://localhost:8080/dataset/1/entries');
  const feats = Array.from({ length: FEATURES }, (_, k) => df.namedNode(`http://localhost:8080/feature/${k + 1}`));
  const tRaw = now();
  let batch: any[] = [];
  for (let i = 0; i < SAMPLE_QUADS; i++) {
    batch.push(
      df.quad(df.namedNode(`http://localhost:8080/dataset/1#entry-${String(Math.floor(i / FEATURES)).padStart(8, '0')}`), feats[i % FEATURES], df.literal(random().toFixed(6), xsd('double')), g),
    );
    if (batch.length === 20_000) {
      await qs.multiPut(batch);
      batch = [];
    }
  }
  const rawWriteRate = SAMPLE_QUADS / ((now() - tRaw) / 1000);
  const tRead = now();
  let n = 0;
  for await (const _ of qs.match(undefined, undefined, undefined, g) as any) n++;
  const rawReadRate = n / ((now() - tRead) / 1000);
  await qs.close();
  await raw.remove();

  const tmp = await tempDir('toxgraph-bench-dataset-');
  const server = await startServer(loadConfig(['--port', '0', '--host', '127.0.0.1', '--data', tmp.dir, '--quiet'], {}));
  try {
    const post = async (body: string) => {
      const r = await fetch(`${server.url}/dataset`, { method: 'POST', body, headers: { 'Content-Type': 'text/csv', Accept: 'text/uri-list' } });
      const text = (await r.text()).trim();
      if (r.status === 202) return waitForTask(server.url, server.services.config.baseUrl, text);
      if (r.status !== 200) throw new Error(`upload failed: ${r.status} ${text}`);
      return text;
    };
    const tK = now();
    await post(kazius);
    row('Kazius CSV upload (4,069 rows, 1 nominal column; compounds registered)', `${fmt((now() - tK) / 1000, 1)} s`);

    const quads = values + smiles.length * 3;
    const tM = now();
    const uri = await post(matrix);
    const storeSeconds = (now() - tM) / 1000;
    const rawStoreSeconds = quads / rawWriteRate;
    row(`raw quadstore (6 default indexes) writing ${quads} quads [baseline, rate of ${SAMPLE_QUADS} scaled]`, `${fmt(rawStoreSeconds, 1)} s`, ratio(1));
    row(`4,069 × ${FEATURES} matrix stored through POST /dataset (${quads} quads)`, `${fmt(storeSeconds, 1)} s`, ratio(rawStoreSeconds / storeSeconds));

    const tC = now();
    const res = await fetch(uri.replace(server.services.config.baseUrl, server.url), { headers: { Accept: 'text/csv' } });
    const csv = await res.text();
    const readSeconds = (now() - tC) / 1000;
    const lines = csv.split('\r\n').length - 2;
    if (lines !== smiles.length) throw new Error(`CSV has ${lines} rows`);
    const rawReadSeconds = quads / rawReadRate;
    row(`raw quadstore reading ${quads} quads of one graph [baseline, rate of ${SAMPLE_QUADS} scaled]`, `${fmt(rawReadSeconds, 1)} s`, ratio(1));
    row(`matrix read back as CSV (${lines} rows × ${FEATURES} values)`, `${fmt(readSeconds, 1)} s`, ratio(rawReadSeconds / readSeconds));
    row('memory after the matrix (RSS)', `${fmt(process.memoryUsage().rss / 2 ** 20, 0)} MiB`);
  } finally {
    await server.close();
    await tmp.remove();
  }
  return rows;
}
