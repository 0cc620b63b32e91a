import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import onnxProto from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import { startTestServer, http, form, waitForTask, type TestServer } from '../helpers.ts';
import { linearClassifierFile, linearRegressionFile, mlpFile, mlpValue } from '../onnx-fixtures.ts';
import { scorePmml } from '../pmml-evaluator.ts';

/**
 * Models in and out (issue 40): the ONNX file a model exports, run by onnxruntime (not by us),
 * predicts what the server predicts, and says which columns it needs; a file made elsewhere
 * (here, by the test with known weights) is imported, checked, and predicts; the PMML document
 * of a model, scored by a small PMML scorer written from the specification, predicts what the
 * server predicts.
 */
let s: TestServer;
/** Imports larger than this are refused (413). */
const IMPORT_LIMIT = 4_000_000;
before(async () => {
  s = await startTestServer(['--model-import-bytes', String(IMPORT_LIMIT)]);
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

async function described(file: string, rows: number): Promise<{ dataset: string; target: string; raw: string }> {
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
  return { dataset: await run(`${s.url}/algorithm/rdkit-descriptors`, { dataset_uri: raw }), target, raw };
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

test('a regression forest, gradient boosting, MLR, PLS and SVMs (every kernel) exported as ONNX predict in onnxruntime what the server predicts (1e-5 relative); the file names its columns and their algorithm', async () => {
  const { dataset, target } = await described('EPAFHM_log10.csv', 150);
  const learners: [string, Record<string, string>][] = [
    ['random-forest-regression', { numTrees: '30' }],
    ['gradient-boosting-regression', {}],
    ['mlr', {}],
    ['pls', {}],
    ...['rbf', 'linear', 'poly', 'sigmoid'].map((kernel): [string, Record<string, string>] => ['svr', { kernel }]),
  ];
  for (const [algorithm, parameters] of learners) {
    const model = await run(`${s.base}/algorithm/${algorithm}`, { dataset_uri: dataset, prediction_feature: target, ...parameters });
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
    assert.ok(worst < 1e-5, `${algorithm} ${JSON.stringify(parameters)}: worst relative difference ${worst}`);
  }
});

test('classification forests, boosting, logistic regression and SVMs exported as ONNX give the server’s classes and probabilities, with two classes and with three; a model without an ONNX form answers 406 naming why', async () => {
  const { dataset, target } = await described('hamster_carcinogenicity.csv', 85);
  for (const algorithm of ['random-forest-classification', 'gradient-boosting-classification', 'logistic-regression', 'svc']) {
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
  // three classes (EPAFHM's toxicity in three bins): softmax and the first most probable of three
  const lines = readFileSync('../shared/data/EPAFHM_log10.csv', 'utf8').trim().split('\n').slice(1, 121);
  const binned = ['SMILES,toxicity', ...lines.map((l) => `${l.split(',')[0]},${Number(l.split(',')[1]) < 0.5 ? 'low' : Number(l.split(',')[1]) < 1.5 ? 'medium' : 'high'}`)].join('\n');
  const raw = await run(`${s.url}/dataset`, {}, binned);
  const three = (await http(`${local(raw)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  const threeDescribed = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: raw });
  for (const algorithm of ['random-forest-classification', 'gradient-boosting-classification', 'logistic-regression']) {
    const model = await run(`${s.base}/algorithm/${algorithm}`, { dataset_uri: threeDescribed, prediction_feature: three, numTrees: '20' });
    const { out, rows } = await runExported(model, threeDescribed);
    const server = await serverPredictions(model, threeDescribed);
    const probabilities = out.probabilities.data as Float32Array | Float64Array;
    assert.equal(probabilities.length, rows * 3, `${algorithm}: three probabilities per row`);
    for (let i = 0; i < rows; i++) {
      assert.equal((out.label.data as string[])[i], server.value[i], `${algorithm} (three classes), row ${i}`);
      const row = probabilities.subarray(i * 3, (i + 1) * 3);
      assert.ok(Math.abs(Array.from(row).reduce((a, b) => a + b, 0) - 1) < 1e-5, `${algorithm}, row ${i}: probabilities sum to 1`);
      assert.ok(relative(Math.max(...row), server.confidence[i]) < 1e-5, `${algorithm} (three classes), row ${i}`);
    }
  }
  // libsvm's probabilities of three classes (pairwise coupling) have no ONNX form
  const svc = await run(`${s.base}/algorithm/svc`, { dataset_uri: threeDescribed, prediction_feature: three });
  const refused = await http(local(svc), { accept: 'application/onnx' });
  assert.equal(refused.status, 406, refused.text);
  assert.match(refused.text, /more than two classes/);
  const knn = await run(`${s.base}/algorithm/knn-classification`, { dataset_uri: dataset, prediction_feature: target });
  const r = await http(local(knn), { accept: 'application/onnx' });
  assert.equal(r.status, 406, r.text);
  assert.match(r.text, /knn-classification\) has no ONNX form here/);
});

const encoder = new TextEncoder();

/** POST /model: an ONNX file with its variables. */
function importModel(file: Uint8Array, fields: Record<string, string | string[]>) {
  const fd = new FormData();
  fd.append('file', new Blob([Buffer.from(file)], { type: 'application/onnx' }), 'model.onnx');
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) fd.append(name, v);
  return http(`${s.url}/model`, { method: 'POST', body: fd, accept: 'text/uri-list' });
}

/** A small table of two numeric descriptors, a numeric endpoint and a nominal one; its feature URIs by column title. */
async function knownTable() {
  const rows = [
    ['CCO', 1, 2, 'active'],
    ['CCCO', 0.5, -1, 'inactive'],
    ['c1ccccc1', 3, 0.25, 'active'],
    ['CC(=O)O', -2, 4, 'inactive'],
    ['CCN', 10, 1, 'active'],
  ];
  const csv = ['SMILES,x1,x2,y,activity', ...rows.map(([smiles, x1, x2, c]) => `${smiles},${x1},${x2},${2 * Number(x1)},${c}`)].join('\n');
  const dataset = await run(`${s.url}/dataset`, {}, csv);
  const uris = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const [x1, x2, y, activity] = uris;
  return { dataset, x1, x2, y, activity, rows };
}

test('imported ONNX models with known weights (linear, an MLP) predict exactly; a classifier gives its labels and probabilities; the model is documented (page, QMRF with the producer, QPRF) and validated like others', async () => {
  const t = await knownTable();
  const r = await importModel(linearRegressionFile(), { independent_features: [t.x1, t.x2], prediction_feature: t.y, title: 'Known weights', algorithm_description: 'MatMul and Add written by hand' });
  assert.equal(r.status, 201, r.text);
  const model = r.text.trim();
  assert.match(model, new RegExp(`^${s.base}/model/\\d+$`));
  assert.equal(r.headers.get('location'), model);
  const predictions = await run(model, { dataset_uri: t.dataset });
  const [header, ...lines] = parseCsv((await http(local(predictions), { accept: 'text/csv' })).text) as string[][];
  const value = header.findIndex((h) => /predicted by model/.test(h));
  const confidence = header.findIndex((h) => / confidence \(model/.test(h));
  assert.deepEqual(
    lines.map((l) => Number(l[value])),
    t.rows.map(([, x1, x2]) => 2 * Number(x1) - 3 * Number(x2) + 0.5),
  );
  assert.ok(confidence < 0 || lines.every((l) => l[confidence] === ''), 'an imported regression states no confidence');
  // described as every model: algorithm, variables, and no training dataset (none was named)
  const d = JSON.parse((await http(local(model), { accept: 'application/ld+json' })).text);
  const text = JSON.stringify(d);
  assert.match(text, /algorithm\/onnx-import/);
  assert.doesNotMatch(text, /trainingDataset/);
  assert.equal((await http(`${local(model)}/independent`, { accept: 'text/uri-list' })).text.trim(), [t.x1, t.x2].join('\r\n'));
  const page = (await http(local(model), { accept: 'text/html' })).text;
  assert.match(page, /MatMul and Add written by hand/);
  assert.match(page, /an imported model/);
  // exported again: the same file
  const back = new Uint8Array(await (await fetch(local(model), { headers: { Accept: 'application/onnx' } })).arrayBuffer());
  assert.ok(Buffer.from(back).equals(Buffer.from(linearRegressionFile())), 'the file as it came');
  // validated on a test set, and documented: the QMRF names the software that made the file
  const validation = JSON.parse((await http(local(await run(`${s.base}/validation/test_set_validation`, { model_uri: model, test_dataset_uri: t.dataset })), { accept: 'application/json' })).text);
  assert.equal(validation.numInstances, t.rows.length);
  const qmrf = (await http(local(await run(`${s.base}/reach_report/qmrf`, { model_uri: model })), { accept: 'application/qmrf-xml' })).text;
  assert.match(qmrf, /<software id="software_producer" name="handmade-test"[^>]*version="0.1"/);
  // and a QPRF of one prediction (no training set to find neighbours in)
  const compound = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  const qprf = await http(local(await run(`${s.base}/reach_report/qprf`, { model_uri: model, compound_uri: compound, dataset_uri: predictions })), { accept: 'text/html' });
  assert.equal(qprf.status, 200);
  assert.match(qprf.text, /none stored here \(an imported model\)/);

  // a small MLP (MatMul, Relu) predicts exactly too
  const mlp = await importModel(mlpFile(), { independent_features: [t.x1, t.x2], prediction_feature: t.y });
  assert.equal(mlp.status, 201, mlp.text);
  const [mlpHeader, ...mlpRows] = parseCsv((await http(local(await run(mlp.text.trim(), { dataset_uri: t.dataset })), { accept: 'text/csv' })).text) as string[][];
  const mlpColumn = mlpHeader.findIndex((h) => /predicted by model/.test(h));
  assert.deepEqual(
    mlpRows.map((l) => Number(l[mlpColumn])),
    t.rows.map(([, x1, x2]) => mlpValue(Number(x1), Number(x2))),
  );

  // a classifier of floats: its labels, and the probability of each as the confidence
  const c = await importModel(linearClassifierFile(['active', 'inactive']), { independent_features: [t.x1, t.x2], prediction_feature: t.activity, training_dataset: t.dataset });
  assert.equal(c.status, 201, c.text);
  const classified = await run(c.text.trim(), { dataset_uri: t.dataset });
  const [h2, ...l2] = parseCsv((await http(local(classified), { accept: 'text/csv' })).text) as string[][];
  const label = h2.findIndex((h) => /predicted by model/.test(h));
  const conf = h2.findIndex((h) => / confidence \(model/.test(h));
  t.rows.forEach(([, x1, x2], i) => {
    const d1 = Number(x1) - Number(x2);
    assert.equal(l2[i][label], d1 >= 0 ? 'active' : 'inactive', `row ${i}`);
    const p = Math.fround(1 / (1 + Math.exp(-2 * Math.abs(d1))));
    assert.ok(Math.abs(Number(l2[i][conf]) - p) < 1e-6, `row ${i}: ${l2[i][conf]} against ${p}`);
  });
});

test('imports that do not fit answer 400 naming the problem (width, labels, shapes, corrupt files, missing fields), 404 for unknown features, 413 above the limit; nothing is stored', async () => {
  const t = await knownTable();
  const before = (await http(`${s.url}/model`, { accept: 'text/uri-list' })).text;
  const cases: [Promise<Awaited<ReturnType<typeof importModel>>>, number, RegExp][] = [
    [importModel(linearRegressionFile(), { independent_features: [t.x1], prediction_feature: t.y }), 400, /independent_features: 1 given, and the model.{1,6}s input X takes 2 columns/],
    [importModel(linearRegressionFile(3), { independent_features: [t.x1, t.x2], prediction_feature: t.y }), 400, /takes 3 columns/],
    [importModel(linearClassifierFile(['toxic', 'inactive']), { independent_features: [t.x1, t.x2], prediction_feature: t.activity }), 400, /classes toxic are not values of the prediction feature/],
    [importModel(linearRegressionFile(), { independent_features: [t.x1, t.x2], prediction_feature: t.activity }), 400, /no label output/],
    [importModel(linearClassifierFile(['active', 'inactive']), { independent_features: [t.x1, t.x2], prediction_feature: t.y }), 400, /no output of one number per row/],
    [importModel(encoder.encode('not an onnx file at all, just text'), { independent_features: [t.x1, t.x2], prediction_feature: t.y }), 400, /file: not an ONNX model/],
    [importModel(linearRegressionFile().slice(0, 40), { independent_features: [t.x1, t.x2], prediction_feature: t.y }), 400, /file: not an ONNX model/],
    [importModel(linearRegressionFile(), { independent_features: [t.x1, t.x2] }), 400, /prediction_feature: missing/],
    [importModel(linearRegressionFile(), { prediction_feature: t.y }), 400, /independent_features: none given/],
    [importModel(linearRegressionFile(), { independent_features: [t.x1, `${s.base}/feature/999999`], prediction_feature: t.y }), 404, /feature\/999999 not found/],
    [importModel(new Uint8Array(IMPORT_LIMIT + 1), { independent_features: [t.x1, t.x2], prediction_feature: t.y }), 413, /exceeds the limit/],
    [importModel(linearRegressionFile(), { independent_features: Array.from({ length: 10_001 }, () => t.x1), prediction_feature: t.y }), 413, /the multipart body has more than \d+ (fields|parts)/],
    [
      importModel(linearRegressionFile(), { independent_features: [t.x1, t.x2], prediction_feature: t.y, training_dataset: t.dataset, applicability_domain: 'ad-astrology' }),
      400,
      /applicability_domain: ad-astrology is not one of/,
    ],
    [http(`${s.url}/model`, { method: 'POST', body: form({ prediction_feature: t.y }), accept: 'text/uri-list' }), 400, /multipart\/form-data/],
  ];
  for (const [reply, status, message] of cases) {
    const r = await reply;
    assert.equal(r.status, status, r.text);
    assert.match(r.text, message);
  }
  assert.equal((await http(`${s.url}/model`, { accept: 'text/uri-list' })).text, before, 'no model was stored');
  // the catalogue's entry says where the file goes
  const algorithm = await http(`${s.url}/algorithm/onnx-import`, { method: 'POST', body: form({ dataset_uri: t.dataset }), accept: 'text/uri-list' });
  assert.equal(algorithm.status, 400);
  assert.match(algorithm.text, /POST the ONNX file to/);
});

test('round trip: a forest exported as ONNX and imported again predicts what the native forest predicts, from the structures alone (descriptors calculated first), with the applicability domain it carries', async () => {
  const { dataset, target, raw } = await described('EPAFHM_log10.csv', 60);
  const native = await run(`${s.base}/algorithm/random-forest-regression`, { dataset_uri: dataset, prediction_feature: target, numTrees: '20' });
  const r = await fetch(local(native), { headers: { Accept: 'application/onnx' } });
  const bytes = new Uint8Array(await r.arrayBuffer());
  const meta = new Map(onnxProto.onnx.ModelProto.decode(bytes).metadataProps.map((p) => [p.key, p.value]));
  const columns = Array.from({ length: Number(meta.get('toxgraph.columns')) }, (_, i) => meta.get(`column.${i}`)!);
  const imported = await importModel(bytes, { independent_features: columns, prediction_feature: target, training_dataset: dataset });
  assert.equal(imported.status, 201, imported.text);
  const mine = await serverPredictions(native, dataset);
  const theirs = await serverPredictions(imported.text.trim(), dataset);
  assert.equal(theirs.value.length, mine.value.length);
  const worst = Math.max(...mine.value.map((v, i) => relative(Number(theirs.value[i]), Number(v))));
  assert.ok(worst < 1e-5, `worst relative difference ${worst}`);
  // from the structures alone: the descriptors come from the catalogue's RDKit algorithm, calculated first
  const fromStructures = await serverPredictions(imported.text.trim(), raw);
  assert.equal(fromStructures.value.length, mine.value.length);
  fromStructures.value.forEach((v, i) => assert.ok(relative(Number(v), Number(theirs.value[i])) < 1e-9, `row ${i}: ${v} against ${theirs.value[i]}`));
  // it carries a domain fitted on its training set (auto: the Euclidean distance to the nearest training compounds), as a model trained here
  const predictions = await run(imported.text.trim(), { dataset_uri: dataset });
  const [header, ...rows] = parseCsv((await http(local(predictions), { accept: 'text/csv' })).text) as string[][];
  const inside = header.findIndex((h) => /inside the applicability domain/.test(h));
  assert.ok(inside > 0, header.join(' | '));
  assert.ok(rows.every((r) => r[inside] === 'true' || r[inside] === 'false'));
  assert.ok(rows.filter((r) => r[inside] === 'true').length > rows.length / 2, 'most of its own training set is inside');
  const none = await importModel(bytes, { independent_features: columns, prediction_feature: target, applicability_domain: 'ad-leverage' });
  assert.equal(none.status, 400, 'a domain needs the training set');
  assert.match(none.text, /applicability_domain: a domain is fitted on the training set/);
});

/** A dataset's rows as maps feature → number (what a PMML scorer takes). */
async function numericRows(dataset: string): Promise<Map<string, number>[]> {
  const entries = (JSON.parse((await http(local(dataset), { accept: 'application/json' })).text) as { entries: { values: Record<string, unknown> }[] }).entries;
  return entries.map((e) => new Map(Object.entries(e.values).filter((p): p is [string, number] => typeof p[1] === 'number')));
}

test('PMML of linear and logistic regression, forests and SVMs (every kernel) scores what the server predicts; boosting and k-NN answer 406 naming why', async () => {
  const epafhm = await described('EPAFHM_log10.csv', 100);
  const hamster = await described('hamster_carcinogenicity.csv', 85);
  const cases: [typeof epafhm, string, Record<string, string>][] = [
    [epafhm, 'mlr', {}],
    [epafhm, 'pls', {}],
    [epafhm, 'random-forest-regression', { numTrees: '15' }],
    ...['rbf', 'linear', 'poly', 'sigmoid'].map((kernel): [typeof epafhm, string, Record<string, string>] => [epafhm, 'svr', { kernel }]),
    [hamster, 'logistic-regression', {}],
    [hamster, 'random-forest-classification', { numTrees: '15' }],
    [hamster, 'svc', {}],
    [hamster, 'svc', { kernel: 'poly' }],
  ];
  for (const [{ dataset, target }, algorithm, parameters] of cases) {
    const model = await run(`${s.base}/algorithm/${algorithm}`, { dataset_uri: dataset, prediction_feature: target, ...parameters });
    const reply = await http(local(model), { accept: 'text/xml' });
    assert.equal(reply.status, 200, `${algorithm}: ${reply.text.slice(0, 300)}`);
    assert.equal(reply.type, 'text/xml');
    const score = scorePmml(reply.text);
    // every variable names the descriptor algorithm that calculates it
    assert.equal(
      (reply.text.match(/<Extension name="descriptorAlgorithm" value="[^"]*\/algorithm\/rdkit-descriptors\//g) ?? []).length,
      (reply.text.match(/<DataField /g) ?? []).length - 1,
      algorithm,
    );
    const rows = await numericRows(dataset);
    const server = await serverPredictions(model, dataset);
    assert.equal(server.value.length, rows.length);
    rows.forEach((row, i) => {
      const scored = score(row);
      const what = `${algorithm} ${JSON.stringify(parameters)}, row ${i}`;
      if (typeof scored.value === 'number') assert.ok(relative(scored.value, Number(server.value[i])) < 1e-9, `${what}: ${scored.value} against ${server.value[i]}`);
      else {
        assert.equal(scored.value, server.value[i], what);
        if (scored.probabilities) assert.ok(relative(scored.probabilities.get(scored.value)!, server.confidence[i]) < 1e-9, `${what}: probability`);
      }
    });
  }
  for (const algorithm of ['gradient-boosting-regression', 'knn-regression']) {
    const model = await run(`${s.base}/algorithm/${algorithm}`, { dataset_uri: epafhm.dataset, prediction_feature: epafhm.target });
    const reply = await http(local(model), { accept: 'text/xml' });
    assert.equal(reply.status, 406, reply.text);
    assert.match(reply.text, /has no PMML form here/);
  }
});
