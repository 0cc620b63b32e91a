import { loadConfig } from '../src/core/config.ts';
import { startServer } from '../src/server/server.ts';
import type { QuadstoreTripleStore } from '../src/store/quadstore-triple-store.ts';
import { df } from '../src/rdf/namespaces.ts';
import { fmt, now, ratio, tempDir, type Row } from './util.ts';

const READS = Number(process.env.TOXGRAPH_RESOURCE_READS ?? 500);

/**
 * The cost of the resource layer: `GET` of a compound, a feature, a model and a validation (as
 * Turtle, one client, keep-alive) against reading the same graph straight from quadstore in the
 * same process (the baseline), READS times each.
 */
export async function benchResources(): Promise<Row[]> {
  const rows: Row[] = [];
  const bench = `resources: GET as Turtle vs the same graph read from quadstore, ${READS} reads each`;
  const tmp = await tempDir('toxgraph-bench-resources-');
  const server = await startServer(loadConfig(['--port', '0', '--host', '127.0.0.1', '--data', tmp.dir, '--quiet'], {}));
  const base = server.url;
  const post = async (path: string, body: string | URLSearchParams, type?: string) => {
    const r = await fetch(`${base}${path}`, { method: 'POST', body, headers: { Accept: 'text/uri-list', ...(type ? { 'Content-Type': type } : {}) } });
    const text = (await r.text()).trim();
    if (r.status === 200) return text;
    if (r.status !== 202) throw new Error(`${path}: ${r.status} ${text}`);
    for (;;) {
      const t = await fetch(text, { headers: { Accept: 'text/uri-list' } });
      const answer = (await t.text()).trim();
      if (t.status === 200) return answer;
      if (t.status !== 202) throw new Error(`task ${text}: ${t.status} ${answer}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  };
  try {
    const csv = `SMILES,x1,x2,y\n${Array.from({ length: 40 }, (_, i) => `${'C'.repeat(i + 1)}O,${i},${(i * 7) % 5},${i * 2 + ((i * 3) % 4)}`).join('\n')}\n`;
    const dataset = await post('/dataset', csv, 'text/csv');
    const features = (await (await fetch(`${dataset}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim().split('\r\n');
    const compound = (await (await fetch(`${dataset}/compounds`, { headers: { Accept: 'text/uri-list' } })).text()).trim().split('\r\n')[0];
    const model = await post('/algorithm/mlr', new URLSearchParams({ dataset_uri: dataset, prediction_feature: features[2] }));
    const validation = await post(
      '/validation/training_test_split',
      new URLSearchParams({ dataset_uri: dataset, algorithm_uri: `${new URL(dataset).origin}/algorithm/mlr`, prediction_feature: features[2], random_seed: '1' }),
    );
    const quadstore = (server.services.store as QuadstoreTripleStore).quadstore;
    for (const [kind, uri] of [
      ['compound', compound],
      ['feature', features[0]],
      ['model', model],
      ['validation', validation],
    ] as const) {
      let quads = 0;
      const tRaw = now();
      for (let i = 0; i < READS; i++) quads = (await quadstore.get({ graph: df.namedNode(uri) })).items.length;
      const raw = (now() - tRaw) / READS;
      for (let i = 0; i < 20; i++) await (await fetch(uri, { headers: { Accept: 'text/turtle' } })).text();
      const tGet = now();
      for (let i = 0; i < READS; i++) {
        const r = await fetch(uri, { headers: { Accept: 'text/turtle' } });
        if (r.status !== 200) throw new Error(`GET ${uri}: ${r.status}`);
        await r.text();
      }
      const get = (now() - tGet) / READS;
      rows.push({ bench, measure: `${kind} (${quads} quads): quadstore read [baseline] / GET`, value: `${fmt(raw * 1000, 0)} µs / ${fmt(get * 1000, 0)} µs`, ratio: ratio(get / raw) });
    }
  } finally {
    await server.close();
    await tmp.remove();
  }
  return rows;
}
