import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import onnxProto from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import { startTestServer, http, form, waitForTask, type TestServer } from '../helpers.ts';

/**
 * Models out as ONNX (issue 40): the file a model exports, run by onnxruntime (not by us),
 * predicts what the server predicts, and says which columns it needs.
 */
let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);

/** POST and answer the resulting URI (at once, or when its task ends). */
async function run(url: string, params: Record<string, string>, body?: string): Promise<string> {
  const r = body
    ? await http(local(url), { method: 'POST', body, contentType: 'text/csv', accept: 'text/uri-list' })
    : await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  if (r.status === 200) return r.text.trim();
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

async function described(file: string, rows: number): Promise<{ dataset: string; target: string }> {
  const raw = await run(
    `${s.url}/dataset`,
    {},
    readFileSync(`../shared/data/${file}`, 'utf8')
      .trim()
      .split('\n')
      .slice(0, rows + 1)
      .join('\n'),
  );
  const target = (await http(`${local(raw)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  return { dataset: await run(`${s.url}/algorithm/rdkit-descriptors`, { dataset_uri: raw }), target };
}

/** A model's ONNX file, its metadata, and onnxruntime's predictions of a dataset's rows (in the columns the metadata names). */
async function runExported(model: string, dataset: string) {
  const r = await fetch(local(model), { headers: { Accept: 'application/onnx' } });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/onnx');
  const bytes = new Uint8Array(await r.arrayBuffer());
  const decoded = onnxProto.onnx.ModelProto.decode(bytes);
  const meta = new Map(decoded.metadataProps.map((p) => [p.key, p.value]));
  const columns = Array.from({ length: Number(meta.get('toxgraph.columns')) }, (_, i) => meta.get(`column.${i}`)!);
  const entries = (JSON.parse((await http(local(dataset), { accept: 'application/json' })).text) as { entries: { values: Record<string, unknown> }[] }).entries;
  const x = new Float64Array(entries.length * columns.length);
  entries.forEach((e, row) =>
    columns.forEach((c, j) => {
      const v = e.values[c];
      x[row * columns.length + j] = typeof v === 'number' ? v : Number.NaN;
    }),
  );
  const session = await ort.InferenceSession.create(bytes);
  const out = await session.run({ X: new ort.Tensor('float64', x, [entries.length, columns.length]) });
  return { decoded, meta, columns, out, rows: entries.length };
}

/** The server's own predictions of the dataset, as CSV columns. */
async function serverPredictions(model: string, dataset: string): Promise<{ value: string[]; confidence: number[] }> {
  const predictions = await run(model, { dataset_uri: dataset });
  const [header, ...rows] = parseCsv((await http(local(predictions), { accept: 'text/csv' })).text) as string[][];
  const value = header.findIndex((h) => /predicted by model/.test(h));
  const confidence = header.findIndex((h) => / confidence \(model/.test(h));
  return { value: rows.map((r) => r[value]), confidence: rows.map((r) => Number(r[confidence])) };
}

const relative = (a: number, b: number) => Math.abs(a - b) / Math.max(1e-12, Math.abs(b));

test('a regression forest, gradient boosting, MLR and PLS exported as ONNX predict in onnxruntime what the server predicts (1e-5 relative); the file names its columns and their algorithm', async () => {
  const { dataset, target } = await described('EPAFHM_log10.csv', 150);
  for (const algorithm of ['random-forest-regression', 'gradient-boosting-regression', 'mlr', 'pls']) {
    const model = await run(`${s.base}/algorithm/${algorithm}`, { dataset_uri: dataset, prediction_feature: target, numTrees: '30' });
    const { decoded, meta, columns, out, rows } = await runExported(model, dataset);
    assert.equal(decoded.producerName, 'ToxGraph');
    assert.equal(meta.get('toxgraph.model'), model);
    const independent = (await http(`${local(model)}/independent`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
    assert.deepEqual(new Set(columns), new Set(independent), 'one column per independent variable');
    // every column is a descriptor made by RDKit's descriptor algorithm instance
    for (const c of new Set(columns)) assert.match(meta.get(`feature.${c}.algorithm`) ?? '', /\/algorithm\/rdkit-descriptors\//, c);
    const server = await serverPredictions(model, dataset);
    assert.equal(server.value.length, rows);
    const values = out.variable.data as Float32Array | Float64Array;
    const worst = Math.max(...server.value.map((v, i) => relative(values[i], Number(v))));
    assert.ok(worst < 1e-5, `${algorithm}: worst relative difference ${worst}`);
  }
});

test('classification forests, boosting and logistic regression exported as ONNX give the server’s classes and probabilities; a model without an ONNX form answers 406 naming why', async () => {
  const { dataset, target } = await described('hamster_carcinogenicity.csv', 85);
  for (const algorithm of ['random-forest-classification', 'gradient-boosting-classification', 'logistic-regression']) {
    const model = await run(`${s.base}/algorithm/${algorithm}`, { dataset_uri: dataset, prediction_feature: target, numTrees: '30' });
    const { out, rows } = await runExported(model, dataset);
    const server = await serverPredictions(model, dataset);
    const labels = out.label.data as string[];
    const probabilities = out.probabilities.data as Float32Array | Float64Array;
    const classes = probabilities.length / rows;
    for (let i = 0; i < rows; i++) {
      assert.equal(labels[i], server.value[i], `${algorithm}, row ${i}`);
      const best = Math.max(...probabilities.subarray(i * classes, (i + 1) * classes));
      assert.ok(relative(best, server.confidence[i]) < 1e-5, `${algorithm}, row ${i}: ${best} against ${server.confidence[i]}`);
    }
  }
  const knn = await run(`${s.base}/algorithm/knn-classification`, { dataset_uri: dataset, prediction_feature: target });
  const r = await http(local(knn), { accept: 'application/onnx' });
  assert.equal(r.status, 406, r.text);
  assert.match(r.text, /knn-classification\) has no ONNX form here/);
});
