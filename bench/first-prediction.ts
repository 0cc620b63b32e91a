import { readFileSync } from 'node:fs';
import { freePort, spawnServer } from '../test/helpers.ts';
import { fmt, now, postAndFollow, ratio, tempDir, type Row } from './util.ts';

/**
 * Time to a first prediction, as the workbench's path takes a person there over HTTP: the
 * fathead minnow set (EPAFHM, 580 structures) uploaded through the preview and stored from its
 * form, RDKit descriptors, a random forest with its applicability domain, one new structure
 * predicted (the model page's form: a 303 to its page, which explains it), and that page read.
 * Each step's time, and its share of the whole (the baseline).
 */
export async function benchFirstPrediction(): Promise<Row[]> {
  const bench = 'first prediction: EPAFHM, upload (preview, store) → descriptors → random forest with AD → one structure predicted and explained';
  const tmp = await tempDir('toxgraph-bench-first-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await spawnServer(['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet'], { port });
  const steps: [string, number][] = [];
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const t = now();
    const out = await work();
    steps.push([name, now() - t]);
    return out;
  };
  try {
    const csv = readFileSync(new URL('../../shared/data/EPAFHM_log10.csv', import.meta.url));
    const pending = await step('upload: the preview read', async () => {
      const form = new FormData();
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'EPAFHM_log10.csv');
      const res = await fetch(`${base}/dataset/preview`, { method: 'POST', body: form, headers: { Accept: 'application/json' } });
      if (res.status !== 200) throw new Error(`preview: ${res.status} ${(await res.text()).slice(0, 300)}`);
      return ((await res.json()) as { pending: string }).pending;
    });
    const dataset = await step('upload: stored from the preview', () => postAndFollow(`${base}/dataset`, { pending, endpoint_column: '1' }));
    const target = (await (await fetch(`${dataset}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim().split('\r\n')[0];
    const described = await step('RDKit descriptors (43)', () => postAndFollow(`${base}/algorithm/rdkit-descriptors`, { dataset_uri: dataset }));
    const model = await step('random forest (100 trees) with its applicability domain', () =>
      postAndFollow(`${base}/algorithm/random-forest-regression`, { dataset_uri: described, prediction_feature: target }),
    );
    await step('one new structure predicted and its page read (explained)', async () => {
      const res = await fetch(model, { method: 'POST', body: new URLSearchParams({ smiles: 'CCCCCCCCCCO' }), headers: { Accept: 'text/html' }, redirect: 'manual' });
      const page = await fetch(`${base}${res.headers.get('location')}`, { headers: { Accept: 'text/html' } });
      if (!(await page.text()).includes('class="explained"')) throw new Error('the prediction page explains nothing');
    });
  } finally {
    server.kill('SIGTERM');
    await server.exited;
    await tmp.remove();
  }
  const total = steps.reduce((n, [, ms]) => n + ms, 0);
  return [
    ...steps.map(([measure, ms]): Row => ({ bench, measure, value: `${fmt(ms / 1000, 2)} s`, ratio: ratio(ms / total) })),
    { bench, measure: 'from upload to a predicted structure (the baseline: 1.00x)', value: `${fmt(total / 1000, 1)} s`, ratio: '1.00x' },
  ];
}
