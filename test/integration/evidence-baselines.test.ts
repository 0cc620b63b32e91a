import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { startTestServer, http, form, sharedCsv, parseTurtle, valuesOf, waitForTask, OT, type TestServer } from '../helpers.ts';

/**
 * Issue 55, what remained: the QMRF's chapters 6 and 7 quote each validation statistic beside its
 * baseline (the majority class, or the mean predictor, on the same rows); the prediction
 * datasets a validation writes keep the test set's identifier columns, as a dataset predicted
 * through the model does; the upload preview reads the columns `id_columns=` names as
 * identifiers, and its form keeps the choice.
 */
let s: TestServer;
const fx = { raw: '', training: '', external: '', target: '', model: '', cv: '', test: '', trainingLabels: [] as string[], externalLabels: [] as string[] };
const local = (u: string) => u.replace(s.base, s.url);

async function run(url: string, params: Record<string, string | string[]>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  if (r.status === 200) return r.text.trim();
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

/** 60 rows of the hamster carcinogenicity set with a Lab ID each ("H-1" …: text, more values than classes). */
const LINES = sharedCsv('hamster_carcinogenicity.csv', 60)
  .trim()
  .split('\n')
  .slice(1)
  .map((l, i) => {
    const [smiles, label] = l.split(',');
    return { smiles, label: label.trim(), id: `H-${i + 1}` };
  });

const xmlOf = async (model: string) => (await http(local(await run(`${s.base}/reach_report/qmrf`, { model_uri: model })), { accept: 'application/qmrf-xml' })).text;
const element = (xml: string, name: string) => new RegExp(`<${name}[^>]*>([^<]*)</${name}>`).exec(xml)?.[1] ?? '';
const majority = (labels: string[]) => {
  const positives = labels.filter((l) => l === 'true').length;
  return { share: Math.max(positives, labels.length - positives) / labels.length, value: positives * 2 > labels.length ? 'true' : 'false' };
};
const four = (v: number) => Number(v.toPrecision(4)).toString();

before(async () => {
  s = await startTestServer();
  const csv = `SMILES,Lab ID,Carcinogenicity\n${LINES.map((l) => `${l.smiles},${l.id},${l.label}`).join('\n')}\n`;
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  fx.raw = up.text.trim();
  const features = parseTurtle((await http(local(`${fx.raw}/feature`), { accept: 'text/turtle' })).text);
  fx.target = features.find((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/title' && q.object.value === 'Carcinogenicity')!.subject.value;
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: fx.raw, descriptors: 'tpsa,exactmw,CrippenClogP' });
  // the first 45 structures train, the other 15 are the external validation set
  const compounds = (await http(`${local(described)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  assert.equal(compounds.length, 60, 'every structure is distinct');
  fx.training = await run(`${s.base}/dataset`, { dataset_uri: described, 'compound_uris[]': compounds.slice(0, 45) });
  fx.external = await run(`${s.base}/dataset`, { dataset_uri: described, 'compound_uris[]': compounds.slice(45) });
  fx.trainingLabels = LINES.slice(0, 45).map((l) => l.label);
  fx.externalLabels = LINES.slice(45).map((l) => l.label);
  fx.model = await run(`${s.base}/algorithm/random-forest-classification`, { dataset_uri: fx.training, prediction_feature: fx.target, numTrees: '10' });
  fx.cv = await run(`${s.base}/crossvalidation`, {
    dataset_uri: fx.training,
    algorithm_uri: `${s.base}/algorithm/random-forest-classification`,
    prediction_feature: fx.target,
    algorithm_params: 'numTrees=10',
    num_folds: '3',
  });
  fx.test = await run(`${s.base}/validation/test_set_validation`, { model_uri: fx.model, test_dataset_uri: fx.external, prediction_feature: fx.target });
});
after(() => s.stop());

test('QMRF chapters 6 and 7: each accuracy beside its majority-class baseline on the same rows (goodness of fit, cross-validation, external validation)', async () => {
  const xml = await xmlOf(fx.model);
  const beside = (labels: string[]) => {
    const { share, value } = majority(labels);
    return `(majority-class baseline ${four(share)}, always “${value}”)`;
  };
  assert.match(element(xml, 'goodness_of_fit'), /^Predictions of the training set by the model: accuracy = [\d.]+ /);
  assert.ok(element(xml, 'goodness_of_fit').includes(beside(fx.trainingLabels)), element(xml, 'goodness_of_fit'));
  const lmo = element(xml, 'lmo');
  assert.match(lmo, new RegExp(`${fx.cv}: accuracy = [\\d.]+ \\(majority-class baseline`), lmo);
  assert.ok(lmo.includes(beside(fx.trainingLabels)), lmo);
  const external = element(xml, 'validation_predictivity');
  assert.match(external, new RegExp(`${fx.test}: accuracy = [\\d.]+ \\(majority-class baseline`), external);
  assert.ok(external.includes(beside(fx.externalLabels)), external);
  // the baseline stands beside the accuracy only: AUC and MCC have none of it
  assert.doesNotMatch(lmo, /AUC = [\d.]+ \(/);
});

test('QMRF chapter 6: R² beside the mean predictor’s 0, RMSE beside the mean predictor’s RMSE (the actual values’ standard deviation)', async () => {
  const csv = sharedCsv('EPAFHM_log10.csv', 30, 7);
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  const target = (await http(`${local(up.text.trim())}/features`, { accept: 'text/uri-list' })).text.trim();
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: up.text.trim(), descriptors: 'tpsa,CrippenClogP' });
  const model = await run(`${s.base}/algorithm/mlr`, { dataset_uri: described, prediction_feature: target });
  const cv = await run(`${s.base}/crossvalidation`, { dataset_uri: described, algorithm_uri: `${s.base}/algorithm/mlr`, prediction_feature: target, num_folds: '3' });
  const values = csv
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => Number(l.split(',').at(-1)));
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length);
  const xml = await xmlOf(model);
  const expected = `R² = -?[\\d.]+ \\(mean predictor: 0\\), RMSE = [\\d.]+ \\(mean predictor: ${four(sd).replace('.', '\\.')}\\)`;
  assert.match(element(xml, 'goodness_of_fit'), new RegExp(`^Predictions of the training set by the model: ${expected}`));
  assert.match(element(xml, 'lmo'), new RegExp(`${cv}: ${expected}`));
});

/** The rows of a prediction dataset as CSV: its header and the column a title names. */
async function predictionCsv(dataset: string): Promise<{ header: string[]; rows: string[][] }> {
  const [header, ...rows] = parseCsv((await http(local(dataset), { accept: 'text/csv' })).text) as string[][];
  return { header, rows };
}

test('the prediction datasets a validation writes keep the test set’s identifier column beside the predictions (test set, every fold of a cross-validation)', async () => {
  const idOf = new Map(LINES.map((l) => [l.id, l]));
  const check = async (validation: string, expected: number) => {
    const [dataset] = valuesOf(parseTurtle((await http(local(validation), { accept: 'text/turtle' })).text), validation, `${OT}predictionDataset`);
    assert.ok(dataset, validation);
    const { header, rows } = await predictionCsv(dataset);
    const at = header.indexOf('Lab ID');
    assert.ok(at >= 0, `${validation}: ${header.join(',')}`);
    assert.ok(!header.some((h) => /tpsa|exactmw|CrippenClogP/.test(h)), `only the identifiers are kept: ${header.join(',')}`);
    assert.equal(rows.length, expected);
    for (const r of rows) assert.ok(idOf.has(r[at]), `${r[at]} is a Lab ID of the table`);
    return rows.map((r) => r[at]);
  };
  assert.deepEqual(
    (await check(fx.test, 15)).sort(),
    LINES.slice(45)
      .map((l) => l.id)
      .sort(),
  );
  const folds = valuesOf(parseTurtle((await http(local(fx.cv), { accept: 'text/turtle' })).text), fx.cv, `${OT}validation`);
  assert.equal(folds.length, 3);
  const held: string[] = [];
  for (const fold of folds) held.push(...(await check(fold, 15)));
  assert.deepEqual(
    held.sort(),
    LINES.slice(0, 45)
      .map((l) => l.id)
      .sort(),
    'each training row held out once, known by its Lab ID',
  );
});

test('the upload preview reads the columns id_columns= names as identifiers (text), and its form keeps the choice', async () => {
  const csv = 'SMILES,Lab ID,TD50\nCCO,1001,1.5\nc1ccccc1,1002,2\nCC(=O)O,1003,3.5\n';
  const preview = async (query: string) => {
    const r = await http(`${s.url}/dataset/preview${query}`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'application/json' });
    assert.equal(r.status, 200, r.text);
    return JSON.parse(r.text) as { pending: string; columns: { n: number; title: string; role: string; kind: string; identifier?: boolean }[] };
  };
  const plain = await preview('');
  assert.deepEqual(
    plain.columns.map((c) => [c.title, c.role, c.kind]),
    [
      ['Lab ID', 'value', 'numeric'],
      ['TD50', 'value', 'numeric'],
    ],
  );
  const plainPage = (await http(`${s.url}/dataset/preview/${plain.pending}`, { accept: 'text/html' })).text;
  assert.match(plainPage, /<input type="checkbox" name="id_columns" value="1">/);
  for (const query of ['?id_columns=Lab%20ID', '?id_columns=1']) {
    const chosen = await preview(query);
    assert.deepEqual(
      chosen.columns.map((c) => [c.title, c.role, c.kind]),
      [
        ['Lab ID', 'identifier', 'string'],
        ['TD50', 'value', 'numeric'],
      ],
      query,
    );
    const page = (await http(`${s.url}/dataset/preview/${chosen.pending}`, { accept: 'text/html' })).text;
    const row = /<tr><td>1<\/td><td>Lab ID<\/td>.*?<\/tr>/s.exec(page)?.[0] ?? '';
    assert.match(row, /<td>identifier<\/td><td>text<\/td>/, row);
    assert.match(row, /<input type="checkbox" name="id_columns" value="1" checked>/, 'the form keeps the choice');
    assert.match(page, /<input type="checkbox" name="id_columns" value="2">/);
    // unticked, it is undone: the form always sends the field (empty), over what came with the file
    assert.match(page, /<input type="hidden" name="id_columns" value="">/);
  }
  // stored from the form as it is sent: ticked (text), or unticked (numbers)
  const kindOf = async (dataset: string) => {
    const quads = parseTurtle((await http(`${local(dataset)}/feature`, { accept: 'text/turtle' })).text);
    const feature = quads.find((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/title' && q.object.value === 'Lab ID')?.subject.value;
    return quads.filter((q) => q.subject.value === feature && /(String|Numeric)Feature$/.test(q.object.value)).map((q) => q.object.value.replace(/.*#/, ''));
  };
  for (const [ticked, kind] of [
    [['', '1'], 'StringFeature'],
    [[''], 'NumericFeature'],
  ] as const) {
    const { pending } = await preview('?id_columns=1');
    const stored = await http(`${s.url}/dataset`, { method: 'POST', body: form({ pending, id_columns: [...ticked] }), accept: 'text/uri-list' });
    assert.equal(stored.status, 200, stored.text);
    assert.deepEqual(await kindOf(stored.text.trim()), [kind], ticked.join('|'));
  }
});
