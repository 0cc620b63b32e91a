import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { parse as parseCsv } from 'csv-parse/sync';
import { notOnRemoteStores, sharedCsv, startTestServer, http, form, checkRdfXml, parseTurtle, errorReport, OT, waitForTask, valuesOf, resourceLists, type TestServer } from '../helpers.ts';

let s: TestServer;
before(async () => {
  // the dataset_service test posts to a second server on loopback
  s = await startTestServer(['--allow-private-targets', '127.0.0.0/8']);
});
/** The store of the restarted server (removed at the end). */
let restartedDir: string | undefined;
after(async () => {
  await s.stop();
  if (restartedDir) await rm(restartedDir, { recursive: true, force: true });
});

const local = (uri: string) => uri.replace(s.base, s.url);
const DC = 'http://purl.org/dc/elements/1.1/';
const csvRows = (text: string) => parseCsv(text) as string[][];
/** The header and `rows` rows of a shared data file, every `step`-th row. */

async function upload(csv: string): Promise<string> {
  const r = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(r.status, 200, r.text);
  return r.text.trim();
}

/** POST form parameters; follow a task when the answer is 202. */
async function run(url: string, params: Record<string, string>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.ok(r.status === 200 || r.status === 202, `${url} ${JSON.stringify(params)}: ${r.status} ${r.text}`);
  return r.status === 202 ? waitForTask(s, r.text.trim()) : r.text.trim();
}

const features = async (dataset: string) => (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
const table = async (dataset: string) => csvRows((await http(local(dataset), { accept: 'text/csv' })).text);

function pearson(a: number[], b: number[]): number {
  const ma = a.reduce((x, y) => x + y, 0) / a.length;
  const mb = b.reduce((x, y) => x + y, 0) / b.length;
  let sab = 0,
    saa = 0,
    sbb = 0;
  a.forEach((x, i) => {
    sab += (x - ma) * (b[i] - mb);
    saa += (x - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  });
  return sab / Math.sqrt(saa * sbb);
}

let regression: { raw: string; withDescriptors: string; target: string; model: string };

test('regression: train a random forest on RDKit descriptors; the model describes its variables and parameters', async () => {
  const raw = await upload(sharedCsv('EPAFHM_log10.csv', 120));
  const target = (await features(raw))[0];
  const withDescriptors = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: raw });
  const model = await run(`${s.base}/algorithm/random-forest-regression`, { dataset_uri: withDescriptors, prediction_feature: target, numTrees: '40' });
  assert.match(model, new RegExp(`^${s.base}/model/\\d+$`));
  regression = { raw, withDescriptors, target, model };

  const r = await http(local(model));
  assert.equal(r.type, 'application/rdf+xml');
  const q = await checkRdfXml(r.text);
  assert.ok(valuesOf(q, model, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type').includes(`${OT}Model`));
  assert.deepEqual(valuesOf(q, model, `${OT}algorithm`), [`${s.base}/algorithm/random-forest-regression`]);
  assert.deepEqual(valuesOf(q, model, `${OT}trainingDataset`), [withDescriptors]);
  assert.deepEqual(valuesOf(q, model, `${OT}dependentVariables`), [target]);
  const independent = valuesOf(q, model, `${OT}independentVariables`);
  assert.equal(independent.length, 43);
  assert.deepEqual(new Set(independent), new Set((await features(withDescriptors)).slice(1)));
  const predicted = valuesOf(q, model, `${OT}predictedVariables`);
  assert.equal(predicted.length, 2);
  const numTrees = valuesOf(q, model, `${OT}parameters`).find((p) => valuesOf(q, p, `${DC}title`)[0] === 'numTrees')!;
  assert.equal(valuesOf(q, numTrees, `${OT}paramValue`)[0], '40');

  for (const [path, expected] of [
    ['independent', independent],
    ['dependent', [target]],
    ['predicted', predicted],
  ] as const) {
    const list = await http(`${local(model)}/${path}`, { accept: 'text/uri-list' });
    assert.deepEqual(new Set(list.text.trim().split('\r\n')), new Set(expected), path);
  }
  // predicted features: numeric, their source is the model; the confidence feature says whose confidence it is
  const pf = await Promise.all(predicted.map(async (f) => ({ f, q: parseTurtle((await http(local(f), { accept: 'text/turtle' })).text) })));
  for (const { f, q: fq } of pf) {
    assert.ok(valuesOf(fq, f, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type').includes(`${OT}NumericFeature`));
    assert.deepEqual(valuesOf(fq, f, `${OT}hasSource`), [model]);
  }
  assert.equal(pf.filter(({ f, q: fq }) => valuesOf(fq, f, `${OT}confidenceOf`).length === 1).length, 1);

  const yaml = await http(local(model), { accept: 'text/x-yaml' });
  assert.equal(yaml.type, 'text/x-yaml');
  assert.match(yaml.text, /independentVariables:\n( {2}- http\S+\n){43}/);
  const list = await http(`${s.url}/model`, { accept: 'text/uri-list' });
  assert.ok(list.text.includes(model));
  assert.equal((await http(local(model), { method: 'PUT', body: '' })).status, 405, 'models are immutable');

  // named by what it is
  assert.match(valuesOf(q, model, `${DC}title`)[0], /^Random forest regression of -log10\(LC50_mmol\) on .* with RDKit molecular descriptors$/);

  // an applicability domain by default, on the model's own variables
  assert.deepEqual(valuesOf(q, model, `${OT}hasDomain`), [model]);
  const domain = valuesOf(q, model, `${OT}parameters`).find((p) => valuesOf(q, p, `${DC}title`)[0] === 'applicability_domain')!;
  assert.equal(valuesOf(q, domain, `${OT}paramValue`)[0], 'ad-euclidean-knn');
  assert.equal(valuesOf(q, model, `${OT}adMetric`).length, 1);
  assert.equal(valuesOf(q, model, `${OT}adMembership`).length, 1);
});

test('applicability_domain when training: none, a method by id or URI; what cannot apply to the features answers 400', async () => {
  const { withDescriptors, target } = regression;
  const train = (domain: string) =>
    http(`${s.url}/algorithm/mlr`, { method: 'POST', body: form({ dataset_uri: withDescriptors, prediction_feature: target, applicability_domain: domain }), accept: 'text/uri-list' });
  const describe = async (model: string) => parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
  const started = async (domain: string) => {
    const r = await train(domain);
    assert.ok(r.status === 200 || r.status === 202, r.text);
    return r.status === 202 ? waitForTask(s, r.text.trim()) : r.text.trim();
  };
  const none = await started('none');
  assert.deepEqual(valuesOf(await describe(none), none, `${OT}hasDomain`), []);
  const ranges = await started(`${s.base}/algorithm/ad-ranges`);
  const q = await describe(ranges);
  assert.deepEqual(valuesOf(q, ranges, `${OT}hasDomain`), [ranges]);
  // predictions carry the verdict and the metric
  const out = await http(local(ranges), { method: 'POST', body: form({ dataset_uri: regression.raw }), accept: 'text/uri-list' });
  const predictions = out.status === 202 ? await waitForTask(s, out.text.trim()) : out.text.trim();
  const rows = await table(predictions);
  assert.equal(rows[0].length, 5, `SMILES, prediction, confidence, metric, membership: ${rows[0]}`);
  assert.ok(rows.slice(1).every((r) => r[4] === 'true' || r[4] === 'false'));
  assert.ok(
    rows.slice(1).some((r) => r[4] === 'true'),
    'training compounds are inside their own ranges',
  );
  for (const [domain, pattern] of [
    ['ad-tanimoto', /needs fingerprint features/],
    ['shiny', /applicability_domain: shiny is none of auto, none, ad-leverage/],
  ] as const) {
    const r = await http(`${s.url}/algorithm/mlr`, { method: 'POST', body: form({ dataset_uri: withDescriptors, prediction_feature: target, applicability_domain: domain }), accept: 'text/turtle' });
    assert.equal(r.status, 400, domain);
    assert.match((await errorReport(r)).message ?? '', pattern);
  }
});

test('regression predictions: a new dataset with values and confidences; descriptors calculated when the dataset lacks them', async () => {
  const { raw, withDescriptors, target, model } = regression;
  const predictions = await run(model, { dataset_uri: withDescriptors });
  const rows = await table(predictions);
  assert.equal(rows.length, 121);
  assert.equal(rows[0].length, 5, 'SMILES, prediction, confidence, and the applicability domain: metric and membership');
  assert.ok(rows.slice(1).filter((r) => r[4] === 'true').length > 100, 'the training compounds are mostly inside their own domain');
  const predicted = rows.slice(1).map((r) => Number(r[1]));
  const confidence = rows.slice(1).map((r) => Number(r[2]));
  assert.ok(
    confidence.every((c) => c >= 0 && c <= 1),
    'confidence in [0, 1]',
  );
  const actual = (await table(raw)).slice(1).map((r) => Number(r[1]));
  assert.ok(pearson(predicted, actual) > 0.8, `training fit r = ${pearson(predicted, actual)}`);

  // the raw dataset has no descriptors: the model calculates them (a task), with the same result
  const fromRaw = await run(model, { dataset_uri: raw });
  assert.deepEqual(
    (await table(fromRaw)).slice(1).map((r) => r[1]),
    rows.slice(1).map((r) => r[1]),
  );

  // result_dataset: the predictions become new columns of that dataset
  const copy = await upload(sharedCsv('EPAFHM_log10.csv', 120));
  assert.equal(await run(model, { dataset_uri: withDescriptors, result_dataset: copy }), copy);
  const merged = await table(copy);
  assert.equal(merged[0].length, 6);
  assert.deepEqual(
    merged.slice(1).map((r) => r[2]),
    rows.slice(1).map((r) => r[1]),
  );
  assert.ok(target);
});

test('dataset_service: predictions and descriptors stored at another dataset service (a second server)', async () => {
  const { withDescriptors, model } = regression;
  const remote = await startTestServer();
  try {
    const here = await table(await run(model, { dataset_uri: withDescriptors }));
    const there = await run(model, { dataset_uri: withDescriptors, dataset_service: `${remote.base}/dataset` });
    assert.ok(there.startsWith(`${remote.base}/dataset/`), there);
    const rows = csvRows((await http(there.replace(remote.base, remote.url), { accept: 'text/csv' })).text);
    assert.match(rows[0][1], /predicted by model/);
    assert.deepEqual(
      rows.slice(1).map((r) => r[1]),
      here.slice(1).map((r) => r[1]),
    );
    // descriptor results too
    const descriptors = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: regression.raw, descriptors: 'tpsa', dataset_service: `${remote.base}/dataset/` });
    assert.ok(descriptors.startsWith(`${remote.base}/dataset/`));
    assert.equal(csvRows((await http(descriptors.replace(remote.base, remote.url), { accept: 'text/csv' })).text)[0][2], 'tpsa');
    // a service that cannot be reached is a 502 of the task; a non-http one is refused at once
    const unreachable = await http(local(model), { method: 'POST', body: form({ dataset_uri: withDescriptors, dataset_service: 'http://127.0.0.1:9/dataset' }), accept: 'text/turtle' });
    assert.equal(unreachable.status, 502);
    const ftp = await http(local(model), { method: 'POST', body: form({ dataset_uri: withDescriptors, dataset_service: 'ftp://example.org/dataset' }), accept: 'text/turtle' });
    assert.equal(ftp.status, 400);
  } finally {
    await remote.stop();
  }
});

test('prediction of one compound in the negotiated format', async () => {
  const { model } = regression;
  const compound = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  const r = await http(local(model), { method: 'POST', body: form({ compound_uri: compound }), accept: 'text/csv' });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.type, 'text/csv');
  const rows = csvRows(r.text);
  assert.equal(rows.length, 2);
  assert.equal(rows[1][0], 'CCCCCCCCO');
  assert.ok(Number.isFinite(Number(rows[1][1])));
  const rdf = await http(local(model), { method: 'POST', body: form({ compound_uri: compound }), accept: 'text/turtle' });
  assert.match(rdf.text, /ot:dataEntry/);

  // the model page's form (a browser asks for HTML): 303 to the prediction's own page, whose other formats all resolve
  const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  const posted = await http(local(model), { method: 'POST', body: form({ smiles: 'CCCCCCO' }), accept: browser });
  assert.equal(posted.status, 303, posted.text);
  const location = posted.headers.get('location')!;
  assert.match(location, /^\/dataset\/\d+$/);
  const page = await http(`${s.url}${location}`, { accept: browser });
  assert.equal(page.status, 200);
  assert.match(page.text, /CCCCCCO/);
  // the prediction explained: its confidence's meaning, the domain's verdict, the nearest training structures, a QPRF
  const explained = /<section class="explained"[\s\S]*?<\/section>/.exec(page.text)?.[0] ?? '';
  assert.match(explained, /Confidence<\/dt><dd>[\d.]+ <small>\(1 - min\(1, sd over trees/);
  assert.match(explained, /<strong class="(inside|outside)">/);
  assert.match(explained, /mean distance to the k nearest training compounds [\d.]+/);
  assert.equal((explained.match(/<tr><td><a href="\/compound\//g) ?? []).length, 5, 'five nearest training structures');
  assert.match(explained, /<form class="run" method="post" action="\/reach_report\/qprf">/);

  // a whole dataset from the model page's form: a task, then the predictions, whose rows can be narrowed to those inside the domain
  const batch = await http(local(model), { method: 'POST', body: form({ dataset_uri: regression.raw }), accept: browser });
  assert.equal(batch.status, 303);
  let at = batch.headers.get('location')!;
  if (at.startsWith('/task/')) at = (await waitForTask(s, `${s.base}${at}`)).replace(s.base, '');
  const predictions = (await http(`${s.url}${at}`, { accept: browser })).text;
  const inside = /<a href="([^"]+)">true \((\d+)\)<\/a>/.exec(predictions);
  assert.ok(inside, 'a link to the rows inside the domain');
  const only = (await http(`${s.url}${inside[1].replace(/&amp;/g, '&')}`, { accept: browser })).text;
  assert.match(only, new RegExp(`<p>${inside[2]} rows?, `));
  assert.match(only, /<strong>true \(\d+\)<\/strong>/);
  assert.match(only, /<a href="[^"]+">all rows<\/a>/);
  const csvInside = await http(`${s.url}${inside[1].replace(/&amp;/g, '&')}&media=text%2Fcsv`);
  assert.equal(csvRows(csvInside.text).length - 1, Number(inside[2]), 'the same rows as CSV');
  assert.ok(
    csvRows(csvInside.text)
      .slice(1)
      .every((r) => r.at(-1) === 'true'),
  );
  const alternates = [...page.text.matchAll(/<a href="([^"]+)" type="([^"]+)">/g)].map((m) => [m[1].replace(/&amp;/g, '&'), m[2]]);
  assert.ok(alternates.length >= 5, `the page's other formats: ${JSON.stringify(alternates)}`);
  for (const [href, type] of alternates) {
    const other = await http(`${s.url}${href}`, { accept: browser });
    assert.equal(other.status, 200, `${href}: ${other.text.slice(0, 200)}`);
    assert.equal(other.type, type, href);
  }
});

test('classification: random forest and k-nearest neighbours on Morgan fingerprints; nominal predictions with class probabilities', async () => {
  const raw = await upload(sharedCsv('kazius.csv', 160, 25));
  const target = (await features(raw))[0];
  const fp = await run(`${s.base}/algorithm/morgan-fingerprint`, { dataset_uri: raw, nBits: '1024' });
  for (const learner of ['random-forest-classification', 'knn-classification']) {
    const model = await run(`${s.base}/algorithm/${learner}`, { dataset_uri: fp, prediction_feature: target });
    const q = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
    const independent = valuesOf(q, model, `${OT}independentVariables`);
    assert.equal(independent.length, 1, 'the fingerprint is one variable');
    const predictedFeature = valuesOf(q, model, `${OT}predictedVariables`);
    const types = await Promise.all(
      predictedFeature.map(async (f) => valuesOf(parseTurtle((await http(local(f), { accept: 'text/turtle' })).text), f, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type')),
    );
    assert.ok(
      types.some((t) => t.includes(`${OT}NominalFeature`)),
      learner,
    );
    const rows = (await table(await run(model, { dataset_uri: fp }))).slice(1);
    const actual = (await table(raw)).slice(1).map((r) => r[1]);
    assert.ok(
      rows.every((r) => ['mutagenic', 'non-mutagenic'].includes(r[1])),
      `${learner}: ${JSON.stringify(rows.filter((r) => !['mutagenic', 'non-mutagenic'].includes(r[1])))}`,
    );
    assert.ok(
      rows.every((r) => Number(r[2]) >= 0.5 - 1e-9 && Number(r[2]) <= 1),
      `${learner}: a binary prediction's probability is at least one half`,
    );
    const correct = rows.filter((r, i) => r[1] === actual[i]).length / rows.length;
    assert.ok(correct > 0.75, `${learner} training accuracy ${correct}`);
  }
});

test('training and prediction errors answer 400/404 naming the parameter', async () => {
  const { raw, withDescriptors, target, model } = regression;
  const nominal = await upload('SMILES,Class\nCCO,a\nCCCO,b\nCCCCO,a\n');
  const nominalTarget = (await features(nominal))[0];
  const post = (url: string, p: Record<string, string>) => http(local(url), { method: 'POST', body: form(p), accept: 'application/rdf+xml' });
  const cases: [string, Record<string, string>, number, RegExp][] = [
    [`${s.base}/algorithm/random-forest-regression`, { dataset_uri: withDescriptors }, 400, /prediction_feature/],
    [`${s.base}/algorithm/random-forest-regression`, { prediction_feature: target }, 400, /dataset_uri/],
    [`${s.base}/algorithm/random-forest-regression`, { dataset_uri: withDescriptors, prediction_feature: `${s.base}/feature/99999` }, 400, /prediction_feature.*not a feature of dataset/],
    [`${s.base}/algorithm/random-forest-regression`, { dataset_uri: nominal, prediction_feature: nominalTarget }, 400, /not numeric/],
    [`${s.base}/algorithm/random-forest-regression`, { dataset_uri: withDescriptors, prediction_feature: target, numTrees: '0' }, 400, /numTrees/],
    [`${s.base}/algorithm/random-forest-regression`, { dataset_uri: `${s.base}/dataset/99999`, prediction_feature: target }, 404, /dataset/],
    [`${s.base}/algorithm/random-forest-classification`, { dataset_uri: raw, prediction_feature: target }, 400, /no numeric or fingerprint features/],
    [model, {}, 400, /dataset_uri/],
    [model, { dataset_uri: withDescriptors, result_dataset: raw, dataset_service: `${s.base}/dataset` }, 400, /not both/],
    [model, { dataset_uri: `${s.base}/dataset/99999` }, 404, /dataset/],
    [model, { dataset_uri: nominal, compound_uri: `${s.base}/compound/1` }, 400, /not both/],
    [`${s.base}/model/99999`, { dataset_uri: raw }, 404, /model/],
  ];
  const before = await resourceLists(s);
  for (const [url, p, status, message] of cases) {
    const r = await post(url, p);
    assert.equal(r.status, status, `${url} ${JSON.stringify(p)}: ${r.text.slice(0, 400)}`);
    assert.match((await errorReport(r)).message ?? '', message, `${url} ${JSON.stringify(p)}`);
  }
  assert.equal(await resourceLists(s), before, 'refused requests write nothing');
  // a model whose variables are plain uploaded columns cannot predict a dataset without them
  const uploaded = await upload('SMILES,x,y\nCCO,1,2\nCCCO,2,4\nCCCCO,3,6\nCCCCCO,4,8\n');
  const [x, y] = await features(uploaded);
  const linear = await run(`${s.base}/algorithm/random-forest-regression`, {
    dataset_uri: `${uploaded}?feature_uris[]=${encodeURIComponent(x)}&feature_uris[]=${encodeURIComponent(y)}`,
    prediction_feature: y,
    numTrees: '5',
    minSamplesLeaf: '1',
  });
  const missing = await post(linear, { dataset_uri: nominal });
  assert.equal(missing.status, 400);
  assert.match((await errorReport(missing)).message ?? '', new RegExp(`lacks independent variables.*${x.replace(/[/.]/g, '\\$&')}`));
  // the model list filtered by an endpoint that no model has
  assert.equal((await http(`${s.url}/model?query=${encodeURIComponent('http://www.opentox.org/echaEndpoints.owl#Nothing')}`, { accept: 'text/uri-list' })).status, 404);
  assert.equal((await http(`${s.url}/model?query=${encodeURIComponent('bad iri> } DROP ALL')}`, { accept: 'text/uri-list' })).status, 400);
});

test('models survive a restart and predict the same; DELETE removes them', async () => {
  const { withDescriptors, model } = regression;
  const before = await table(await run(model, { dataset_uri: withDescriptors }));
  const dataDir = s.dataDir;
  await s.close();
  s = await startTestServer(['--base-url', s.base], dataDir);
  restartedDir = dataDir;
  const after = await table(await run(model, { dataset_uri: withDescriptors }));
  assert.deepEqual(
    after.slice(1).map((r) => r.slice(1)),
    before.slice(1).map((r) => r.slice(1)),
  );
  assert.equal((await http(local(model), { method: 'DELETE' })).status, 200);
  assert.equal((await http(local(model))).status, 404);
  assert.equal((await http(local(model), { method: 'POST', body: form({ dataset_uri: withDescriptors }) })).status, 404);
});

test('every learner of the catalogue trains over HTTP and predicts with confidences in [0, 1]; PMML where there is a form, 406 where there is none', notOnRemoteStores, async () => {
  const learners = (await http(`${s.url}/algorithm`, { accept: 'text/uri-list' })).text
    .trim()
    .split('\r\n')
    .filter((u) => !/descriptors|fingerprint|maccs|superalgorithm|frequent-substructures|standardise-structures|onnx-import|\/algorithm\/(ad|fs|dc)-/.test(u));
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: await upload(sharedCsv('EPAFHM_log10.csv', 60, 9)) });
  const numericTarget = (await features(described))[0];
  const classes = await upload(sharedCsv('kazius.csv', 60, 60));
  const classTarget = (await features(classes))[0];
  const classesDescribed = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: classes });
  for (const learner of learners) {
    const types = valuesOf(parseTurtle((await http(local(learner), { accept: 'text/turtle' })).text), learner, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type');
    const regression = types.includes('http://www.opentox.org/algorithmTypes.owl#Regression');
    const dataset = regression ? described : classesDescribed;
    const model = await run(learner, { dataset_uri: dataset, prediction_feature: regression ? numericTarget : classTarget });
    const rows = (await table(await run(model, { dataset_uri: dataset }))).slice(1);
    assert.equal(rows.length, 60, learner);
    for (const r of rows) {
      assert.ok(regression ? Number.isFinite(Number(r[1])) : ['mutagenic', 'non-mutagenic'].includes(r[1]), `${learner}: ${r[1]}`);
      assert.ok(Number(r[2]) >= 0 && Number(r[2]) <= 1, `${learner}: confidence ${r[2]}`);
    }
    const pmml = await http(local(model), { accept: 'text/xml' });
    if (learner.endsWith('/mlr')) {
      assert.equal(pmml.status, 200);
      assert.equal(pmml.type, 'text/xml');
      assert.match(pmml.text, /<RegressionModel [^>]*functionName="regression"/);
      assert.equal((pmml.text.match(/<NumericPredictor /g) ?? []).length, 43);
      // the PMML reproduces the model's predictions: intercept + Σ coefficient · value
      const intercept = Number(/intercept="([^"]+)"/.exec(pmml.text)![1]);
      const coefficients = new Map([...pmml.text.matchAll(/<NumericPredictor name="([^"]+)" exponent="1" coefficient="([^"]+)"/g)].map((m) => [m[1].replace(/&amp;/g, '&'), Number(m[2])]));
      const values = await table(dataset);
      const header = await features(dataset);
      const first = values[1];
      let y = intercept;
      header.forEach((f, j) => coefficients.has(f) && (y += coefficients.get(f)! * Number(first[j + 1])));
      assert.ok(Math.abs(y - Number(rows[0][1])) < 1e-6, `PMML ${y} vs model ${rows[0][1]}`);
    } else {
      // PMML of the others is scored in model-exchange.test.ts
      const withPmml = /\/(pls|logistic-regression|random-forest-(regression|classification)|svr|svc)$/.test(learner);
      assert.equal(pmml.status, withPmml ? 200 : 406, `${learner}: ${withPmml ? 'PMML' : 'no PMML form'}`);
    }
  }
});

test('model content is stored in small literals that never split a surrogate pair', async () => {
  const { contentChunks } = await import('../../src/rdf/text-chunks.ts');
  const text = `{"classes":["${'a'.repeat(4082)}🧪 mutagen","x"],"state":${'1'.repeat(9000)}}`;
  const chunks = contentChunks(text, 4096);
  assert.equal(chunks.join(''), text);
  assert.ok(chunks.every((c) => c.length <= 4097));
  // the pair that straddles a boundary stays in one literal: every piece is well-formed UTF-16
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
  assert.ok(
    chunks.every((c) => !lone.test(c)),
    'a chunk holds half a surrogate pair',
  );
  assert.equal(chunks[0].length, 4097);
  assert.deepEqual(contentChunks('', 4096), []);
});

test('an algorithm_uri that is not one of ours, or malformed, is a 404 naming the parameter, never a 500', async () => {
  for (const algorithm of [`${s.base}/algorithm/%zz`, `${s.base}/algorithm/random-forest-classification/x`, 'http://elsewhere.example/algorithm/random-forest-classification']) {
    const r = await http(`${s.url}/crossvalidation`, {
      method: 'POST',
      body: form({ dataset_uri: `${s.base}/dataset/1`, algorithm_uri: algorithm, prediction_feature: `${s.base}/feature/1` }),
      accept: 'application/json',
    });
    assert.equal(r.status, 404, `${algorithm}: ${r.status} ${r.text}`);
    assert.match(JSON.parse(r.text).message, /algorithm_uri/);
  }
});
