import { readFileSync } from 'node:fs';
import { Parser } from 'n3';
import type { TrainingData } from '../src/learning/learner.ts';
import { leaveOneOut, leaveOneOutOf, readAcrossSources } from '../src/learning/read-across.ts';
import { benchServer, fmt, now, postAndFollow, ratio, withPolling, type Row } from './util.ts';

const OT = 'http://www.opentox.org/api/1.1#';
const BITS = 1024;

/**
 * Read-across (GenRA, issue 56): the leave-one-out read-across over a whole shared set through
 * the service (POST /algorithm/genra: Morgan bits calculated, sources stored, every source
 * predicted from the others, the leave-one-out dataset and validation written), against the same
 * leave-one-out computed in this process over the same bits (the baseline). EPAFHM regression
 * (580) and Kazius classification (4,069); Morgan radius 2, 1,024 bits, k = 10, s0 = 0. The
 * worst small GET and the event-loop delay during the training say whether the server stayed free.
 */
export async function benchReadAcross(): Promise<Row[]> {
  const bench = 'read-across (GenRA): leave-one-out over a shared set through the service vs in process';
  const server = await benchServer('toxgraph-bench-read-across-');
  const { base } = server;
  const rows: Row[] = [];
  try {
    for (const set of [
      { name: 'EPAFHM regression (580)', file: 'EPAFHM_log10.csv' },
      { name: 'Kazius classification (4,069)', file: 'kazius.csv' },
    ]) {
      const raw = await postAndFollow(`${base}/dataset`, {}, readFileSync(new URL(`../../shared/data/${set.file}`, import.meta.url), 'utf8'), 'text/csv');
      const target = (await (await fetch(`${raw}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim().split('\r\n')[0];
      let t = now();
      const described = await postAndFollow(`${base}/algorithm/morgan-fingerprint`, { dataset_uri: raw, radius: '2', nBits: String(BITS) });
      const fingerprints = now() - t;
      t = now();
      const polled = await withPolling(base, () => postAndFollow(`${base}/algorithm/genra`, { dataset_uri: raw, prediction_feature: target, k: '10', morgan_radius: '2', morgan_bits: String(BITS) }));
      const service = now() - t;
      // the same computation here: the server's own bits, the same rows
      const data = await trainingData(described, target);
      t = now();
      const state = leaveOneOut(readAcrossSources(data, { k: 10 }, 1));
      const inProcess = now() - t;
      const loo = leaveOneOutOf(state);
      rows.push(
        { bench, measure: `${set.name}: leave-one-out in process (baseline)`, value: `${fmt(inProcess, 0)} ms`, ratio: '1.00x' },
        {
          bench,
          measure: `${set.name}: POST /algorithm/genra through the service (fingerprints, leave-one-out, dataset and validation written)`,
          value: `${fmt(service, 0)} ms`,
          ratio: ratio(service / inProcess),
        },
        { bench, measure: `${set.name}: of which Morgan bits alone (POST /algorithm/morgan-fingerprint)`, value: `${fmt(fingerprints, 0)} ms` },
        { bench, measure: `${set.name}: worst GET /health / event-loop delay during the training`, value: `${fmt(polled.worstMs, 0)} ms / ${fmt(polled.loopMaxMs, 0)} ms` },
        { bench, measure: `${set.name}: leave-one-out ${quality(data, loo.value)}`, value: `${data.x.rows} sources` },
      );
    }
  } finally {
    await server.stop();
  }
  return rows;
}

/** A dataset's rows with the endpoint and the Morgan bits, as training reads them (compound ids for the ties). */
async function trainingData(dataset: string, target: string): Promise<TrainingData> {
  const quads = new Parser().parse(await (await fetch(dataset, { headers: { Accept: 'text/turtle' } })).text());
  const by = new Map<string, Map<string, string>>();
  for (const q of quads) {
    const m = by.get(q.subject.value) ?? new Map<string, string>();
    m.set(q.predicate.value, q.object.value);
    by.set(q.subject.value, m);
  }
  const values = new Map<string, Map<string, string>>();
  const compounds = new Map<string, string>();
  for (const q of quads) {
    if (q.predicate.value === `${OT}compound`) compounds.set(q.subject.value, q.object.value);
    if (q.predicate.value !== `${OT}values`) continue;
    const node = by.get(q.object.value)!;
    const entry = values.get(q.subject.value) ?? new Map<string, string>();
    entry.set(node.get(`${OT}feature`)!, node.get(`${OT}value`)!);
    values.set(q.subject.value, entry);
  }
  const fingerprint = [...new Set([...values.values()].flatMap((v) => [...v.keys()]))].find((f) => f !== target)!;
  const entries = [...values].filter(([, v]) => v.has(target) && v.get(target)!.trim() !== '');
  const classes = entries.some(([, v]) => Number.isNaN(Number(v.get(target)))) ? [...new Set(entries.map(([, v]) => v.get(target)!.trim()))].sort() : [];
  const x = new Float64Array(entries.length * BITS);
  entries.forEach(([, v], r) => {
    for (const b of (v.get(fingerprint) ?? '').split(/\s+/).filter(Boolean)) x[r * BITS + Number(b)] = 1;
  });
  return {
    x: { rows: entries.length, cols: BITS, data: x },
    binary: new Array(BITS).fill(true),
    y: Float64Array.from(entries, ([, v]) => (classes.length ? classes.indexOf(v.get(target)!.trim()) : Number(v.get(target)))),
    classes,
    ids: entries.map(([e]) => compounds.get(e)!),
  };
}

/** R², RMSE and coverage (regression) or balanced accuracy and coverage (classes) of the leave-one-out values. */
function quality(data: TrainingData, predicted: Float64Array): string {
  const pairs = [...predicted].map((p, i) => [data.y[i], p]).filter(([, p]) => !Number.isNaN(p));
  const coverage = `coverage ${fmt((100 * pairs.length) / predicted.length, 1)} %`;
  if (!data.classes.length) {
    const mean = pairs.reduce((t, [y]) => t + y, 0) / pairs.length;
    const sse = pairs.reduce((t, [y, p]) => t + (y - p) ** 2, 0);
    const sst = pairs.reduce((t, [y]) => t + (y - mean) ** 2, 0);
    return `R² ${fmt(1 - sse / sst, 3)}, RMSE ${fmt(Math.sqrt(sse / pairs.length), 3)}, ${coverage}`;
  }
  const recall = data.classes.map((_, c) => {
    const of = pairs.filter(([y]) => y === c);
    return of.filter(([, p]) => p === c).length / Math.max(1, of.length);
  });
  return `balanced accuracy ${fmt(recall.reduce((a, b) => a + b, 0) / recall.length, 3)}, ${coverage}`;
}
