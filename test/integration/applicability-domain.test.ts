import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { Matrix, inverse } from 'ml-matrix';
import { sharedCsv, startTestServer, http, form, parseTurtle, errorReport, OT, waitForTask, valuesOf, type TestServer } from '../helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const csvRows = (text: string) => parseCsv(text) as string[][];
const OTA = 'http://www.opentox.org/algorithmTypes.owl#';

async function upload(csv: string): Promise<string> {
  const r = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(r.status, 200, r.text);
  return r.text.trim();
}

async function post(url: string, params: Record<string, string | string[]>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.ok(r.status === 200 || r.status === 202, `${url}: ${r.status} ${r.text}`);
  return r.status === 202 ? waitForTask(s, r.text.trim()) : r.text.trim();
}

/** A dataset as CSV rows (header: SMILES, then feature titles) with its feature URIs in column order. */
async function table(dataset: string): Promise<{ rows: string[][]; features: string[] }> {
  const rows = csvRows((await http(local(dataset), { accept: 'text/csv' })).text);
  const features = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  return { rows, features };
}

let descriptors: string;
let selected: string[];
let leverageModel: string;

test('leverage: an AD model whose metric on its training compounds is the diagonal of the hat matrix, computed directly', async () => {
  descriptors = await post(`${s.url}/algorithm/rdkit-descriptors`, { dataset_uri: await upload(sharedCsv('EPAFHM_log10.csv', 60)) });
  const { rows, features } = await table(descriptors);
  const names = ['amw', 'CrippenClogP', 'tpsa'];
  selected = names.map((n) => features[rows[0].indexOf(n) - 1]);
  const ref = `${descriptors}?${selected.map((f) => `feature_uris[]=${encodeURIComponent(f)}`).join('&')}`;
  leverageModel = await post(`${s.url}/algorithm/ad-leverage`, { dataset_uri: ref });
  assert.match(leverageModel, /\/model\/\d+$/);

  const description = parseTurtle((await http(local(leverageModel), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(description, leverageModel, `${OT}algorithm`), [`${s.base}/algorithm/ad-leverage`]);
  assert.deepEqual(valuesOf(description, leverageModel, `${OT}independentVariables`).sort(), [...selected].sort());
  const [metric] = valuesOf(description, leverageModel, `${OT}adMetric`);
  const [membership] = valuesOf(description, leverageModel, `${OT}adMembership`);
  assert.ok(metric && membership, 'the model names its metric and membership features');
  assert.deepEqual(valuesOf(description, leverageModel, `${OT}dependentVariables`), []);
  assert.equal((await http(`${local(leverageModel)}/dependent`, { accept: 'text/uri-list' })).text.trim(), '');

  // the model applied to its own training set
  const estimated = await post(leverageModel, { dataset_uri: descriptors });
  const out = await table(estimated);
  const metricAt = out.features.indexOf(metric) + 1;
  const memberAt = out.features.indexOf(membership) + 1;
  assert.ok(metricAt > 0 && memberAt > 0, 'the answer holds both features');

  // H = X (X'X)⁻¹ X' with the intercept column, on the raw descriptor values
  const at = names.map((n) => rows[0].indexOf(n));
  const x = new Matrix(rows.slice(1).map((r) => [1, ...at.map((c) => Number(r[c]))]));
  const hat = x.mmul(inverse(x.transpose().mmul(x))).mmul(x.transpose());
  assert.equal(out.rows.length, rows.length);
  const bySmiles = new Map(out.rows.slice(1).map((r) => [r[0], r]));
  const threshold = (3 * (names.length + 1)) / (rows.length - 1);
  let outside = 0;
  rows.slice(1).forEach((r, i) => {
    const got = bySmiles.get(r[0])!;
    const h = Number(got[metricAt]);
    assert.ok(Math.abs(h - hat.get(i, i)) < 1e-9, `row ${i + 1}: leverage ${h}, hat matrix ${hat.get(i, i)}`);
    assert.equal(got[memberAt], String(h <= threshold));
    if (h > threshold) outside++;
  });
  assert.ok(outside < rows.length - 1, 'most training compounds are inside');
});

test('a compound far outside the training set is flagged; its descriptors are calculated by the model', async () => {
  const far = await upload(`SMILES\n${'C'.repeat(60)}\nCCCCCCO\n`);
  const estimated = await post(leverageModel, { dataset_uri: far });
  const description = parseTurtle((await http(local(leverageModel), { accept: 'text/turtle' })).text);
  const [metric] = valuesOf(description, leverageModel, `${OT}adMetric`);
  const [membership] = valuesOf(description, leverageModel, `${OT}adMembership`);
  const { rows, features } = await table(estimated);
  const row = (smiles: string) => rows.find((r) => r[0] === smiles)!;
  const m = features.indexOf(metric) + 1;
  const inside = features.indexOf(membership) + 1;
  assert.equal(row('C'.repeat(60))[inside], 'false');
  assert.ok(Number(row('C'.repeat(60))[m]) > 1, `a C60 alkane has a leverage far above h* (got ${row('C'.repeat(60))[m]})`);
  assert.equal(row('CCCCCCO')[inside], 'true', 'hexanol is like the training set');

  // one compound: compound_uri
  const compound = (await http(`${local(far)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  const single = await post(leverageModel, { compound_uri: compound });
  assert.ok((await http(local(single), { accept: 'text/csv' })).text.includes('false'));
});

test('Euclidean k-nearest-neighbour and descriptor-range domains flag the same outlier; Tanimoto on Morgan fingerprints too', async () => {
  const ref = `${descriptors}?${selected.map((f) => `feature_uris[]=${encodeURIComponent(f)}`).join('&')}`;
  const far = await upload(`SMILES\n${'C'.repeat(60)}\nCCCCCCO\n`);
  for (const [id, params] of [
    ['ad-euclidean-knn', { k: '3', Z: '1.645' }],
    ['ad-ranges', {}],
  ] as const) {
    const model = await post(`${s.url}/algorithm/${id}`, { dataset_uri: ref, ...params });
    const description = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
    const [membership] = valuesOf(description, model, `${OT}adMembership`);
    const { rows, features } = await table(await post(model, { dataset_uri: far }));
    const inside = features.indexOf(membership) + 1;
    assert.equal(rows.find((r) => r[0] === 'C'.repeat(60))![inside], 'false', id);
  }
  const training = await upload(sharedCsv('EPAFHM_log10.csv', 60));
  const fingerprints = await post(`${s.url}/algorithm/morgan-fingerprint`, { dataset_uri: training });
  const tanimoto = await post(`${s.url}/algorithm/ad-tanimoto`, { dataset_uri: fingerprints, threshold: '0.3' });
  const description = parseTurtle((await http(local(tanimoto), { accept: 'text/turtle' })).text);
  const [metric] = valuesOf(description, tanimoto, `${OT}adMetric`);
  const [membership] = valuesOf(description, tanimoto, `${OT}adMembership`);
  const own = await table(await post(tanimoto, { dataset_uri: fingerprints }));
  const m = own.features.indexOf(metric) + 1;
  assert.ok(
    own.rows.slice(1).every((r) => Number(r[m]) === 1),
    'each training compound is most similar to itself',
  );
  const odd = await table(await post(tanimoto, { dataset_uri: await upload('SMILES\n[Pt](Cl)(Cl)(N)N\n') }));
  assert.equal(odd.rows[1][odd.features.indexOf(membership) + 1], 'false', 'cisplatin is nothing like the fathead minnow set');
});

test('AD algorithms in the catalogue; bad parameters and unsuitable datasets answer 400 naming the cause; AD models are not validated', async () => {
  const algorithm = parseTurtle((await http(`${s.url}/algorithm/ad-euclidean-knn`, { accept: 'text/turtle' })).text);
  assert.ok(valuesOf(algorithm, `${s.base}/algorithm/ad-euclidean-knn`, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type').includes(`${OTA}ApplicabilityDomain`));
  const bad = await http(`${s.url}/algorithm/ad-euclidean-knn`, { method: 'POST', body: form({ dataset_uri: descriptors, k: '0' }), accept: 'text/turtle' });
  assert.equal(bad.status, 400);
  assert.match((await errorReport(bad)).message ?? '', /\bk\b/);
  const unknownFeature = await http(`${s.url}/algorithm/ad-ranges`, {
    method: 'POST',
    body: form({ dataset_uri: `${descriptors}?feature_uris[]=${encodeURIComponent(`${s.base}/feature/999999`)}` }),
    accept: 'text/turtle',
  });
  assert.equal(unknownFeature.status, 400);
  assert.match((await errorReport(unknownFeature)).message ?? '', /dataset_uri selects features that are not in dataset/);
  const noFingerprints = await http(`${s.url}/algorithm/ad-tanimoto`, { method: 'POST', body: form({ dataset_uri: descriptors }), accept: 'text/turtle' });
  assert.equal(noFingerprints.status, 400);
  assert.match((await errorReport(noFingerprints)).message ?? '', /fingerprint/);
  const validation = await http(`${s.url}/validation/test_set_validation`, { method: 'POST', body: form({ model_uri: leverageModel, test_dataset_uri: descriptors }), accept: 'text/turtle' });
  assert.equal(validation.status, 400);
  assert.match((await errorReport(validation)).message ?? '', /applicability-domain/);
});

test('embedded domain: a k-nearest-neighbours model is its own AD model and answers predictions and AD estimates together', async () => {
  const algorithm = parseTurtle((await http(`${s.url}/algorithm/knn-regression`, { accept: 'text/turtle' })).text);
  assert.ok(valuesOf(algorithm, `${s.base}/algorithm/knn-regression`, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type').includes(`${OTA}ApplicabilityDomain`));
  const { rows, features } = await table(descriptors);
  const target = features[rows[0].indexOf('-log10(LC50_mmol)') - 1];
  const ref = `${descriptors}?${[...selected, target].map((f) => `feature_uris[]=${encodeURIComponent(f)}`).join('&')}`;
  const model = await post(`${s.url}/algorithm/knn-regression`, { dataset_uri: ref, prediction_feature: target, k: '3' });
  const description = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(description, model, `${OT}hasDomain`), [model], 'ot:hasDomain is the model itself');
  const [metric] = valuesOf(description, model, `${OT}adMetric`);
  const [membership] = valuesOf(description, model, `${OT}adMembership`);
  const predictedVariables = valuesOf(description, model, `${OT}predictedVariables`);
  assert.equal(predictedVariables.length, 2);
  for (const f of [metric, membership, ...predictedVariables]) {
    const feature = parseTurtle((await http(local(f), { accept: 'text/turtle' })).text);
    assert.deepEqual(valuesOf(feature, f, `${OT}hasSource`), [model], `${f} comes from the model`);
  }
  const answer = await table(await post(model, { dataset_uri: await upload(`SMILES\n${'C'.repeat(60)}\nCCCCCCO\n`) }));
  assert.deepEqual([...answer.features].sort(), [...predictedVariables, metric, membership].sort());
  const row = (smiles: string) => answer.rows.find((r) => r[0] === smiles)!;
  const inside = answer.features.indexOf(membership) + 1;
  assert.equal(row('C'.repeat(60))[inside], 'false');
  assert.equal(row('CCCCCCO')[inside], 'true');
  for (const f of predictedVariables) assert.ok(Number.isFinite(Number(row('CCCCCCO')[answer.features.indexOf(f) + 1])), 'predictions beside the estimates');
});

test("the domain a person fits from the catalogue leaves the endpoint out: only the descriptors calculated here, or a model's own variables; it predicts a new structure, and its page offers no validation or QMRF", async () => {
  const { rows, features } = await table(descriptors);
  const endpoint = features[0];
  assert.equal(rows[0][1], rows[0][1], 'the uploaded LC50 column is the first feature');
  const whole = await post(`${s.url}/algorithm/ad-euclidean-knn`, { dataset_uri: descriptors });
  const description = parseTurtle((await http(local(whole), { accept: 'text/turtle' })).text);
  const independent = valuesOf(description, whole, `${OT}independentVariables`);
  assert.equal(independent.length, features.length - 1);
  assert.ok(!independent.includes(endpoint), 'the endpoint is no feature of the domain');
  assert.ok(valuesOf(description, whole, `${OT}warning`).some((w) => /dataset's own values were left out/.test(w)));
  // a new structure: its descriptors are calculated, and the verdict given (the endpoint is not asked for)
  const compound = (
    await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })
  ).text.trim();
  const one = await http(local(whole), { method: 'POST', body: form({ compound_uri: compound }), accept: 'text/csv' });
  assert.equal(one.status, 200, one.text);
  assert.equal(csvRows(one.text)[1].at(-1), 'false', 'a C52 chain is outside');

  // the domain of a model: its own variables
  const model = await post(`${s.url}/algorithm/mlr`, {
    dataset_uri: `${descriptors}?${[endpoint, ...selected].map((f) => `feature_uris[]=${encodeURIComponent(f)}`).join('&')}`,
    prediction_feature: endpoint,
    applicability_domain: 'none',
  });
  const ofModel = await post(`${s.url}/algorithm/ad-ranges`, { dataset_uri: descriptors, model_uri: model });
  const modelDomain = parseTurtle((await http(local(ofModel), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(modelDomain, ofModel, `${OT}independentVariables`).sort(), [...selected].sort());
  // prediction_feature leaves one out explicitly
  const without = await post(`${s.url}/algorithm/ad-ranges`, {
    dataset_uri: `${descriptors}?${selected.map((f) => `feature_uris[]=${encodeURIComponent(f)}`).join('&')}`,
    prediction_feature: selected[0],
  });
  assert.equal(valuesOf(parseTurtle((await http(local(without), { accept: 'text/turtle' })).text), without, `${OT}independentVariables`).length, selected.length - 1);
  const notAModel = await http(`${s.url}/algorithm/ad-ranges`, { method: 'POST', body: form({ dataset_uri: descriptors, model_uri: whole }), accept: 'text/turtle' });
  assert.equal(notAModel.status, 400);
  assert.match((await errorReport(notAModel)).message ?? '', /model_uri.*not a predictive model/);

  // its page: the estimate form, no validation, cross-validation or QMRF forms
  const page = (await http(local(whole), { accept: 'text/html' })).text;
  assert.match(page, /Is a structure inside this domain\?/);
  const forms = (html: string) => [...html.matchAll(/<form [^>]*action="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(forms(page), [whole.replace(s.base, '')]);
  assert.deepEqual(
    forms((await http(local(model), { accept: 'text/html' })).text).sort(),
    ['/crossvalidation', '/reach_report/qmrf', '/validation/test_set_validation', '/validation/training_test_split', model.replace(s.base, ''), model.replace(s.base, '')].sort(),
  );
  // the catalogue form asks which feature is the endpoint
  const form_ = (await http(`${s.url}/algorithm/ad-leverage?dataset_uri=${encodeURIComponent(descriptors)}`, { accept: 'text/html' })).text;
  assert.match(form_, /The endpoint, left out of the domain <select name="prediction_feature"><option value="">none<\/option>/);
});
