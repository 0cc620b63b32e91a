import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { sharedCsv, startTestServer, http, form, parseTurtle, errorReport, OT, waitForTask, valuesOf, type TestServer } from '../helpers.ts';

let s: TestServer;
before(async () => {
  // the dataset_service test posts to a second server on loopback
  s = await startTestServer(['--allow-private-targets', '127.0.0.0/8']);
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);

/** The first rows of the fathead minnow LC50 set (../shared/data): SMILES and the endpoint only. */
async function minnows(rows: number): Promise<{ dataset: string; target: string }> {
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: sharedCsv('EPAFHM_log10.csv', rows), contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  const dataset = up.text.trim();
  const target = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim();
  return { dataset, target };
}

const superalgorithm = (params: Record<string, string | string[]>) => http(`${s.url}/algorithm/superalgorithm`, { method: 'POST', body: form(params), accept: 'text/uri-list' });

test('a supermodel chains descriptors, feature selection, learning and a linked applicability-domain model, and predicts a freshly posted SMILES', async () => {
  const { dataset, target } = await minnows(50);
  const r = await superalgorithm({
    dataset_uri: dataset,
    prediction_feature: target,
    feature_calculation: `${s.base}/algorithm/rdkit-descriptors`,
    feature_selection: `${s.base}/algorithm/fs-correlation`,
    model_learning: `${s.base}/algorithm/random-forest-regression`,
    applicability_domain: 'ad-leverage',
    validation_service: `${s.base}/crossvalidation`,
    parameter: [`${encodeURIComponent(`${s.base}/algorithm/fs-correlation`)} numToSelect 4`, 'random-forest-regression,numTrees,20'],
  });
  assert.equal(r.status, 202, r.text);
  const model = await waitForTask(s, r.text.trim());
  const description = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(description, model, `${OT}algorithm`), [`${s.base}/algorithm/superalgorithm`]);
  assert.equal(valuesOf(description, model, `${OT}independentVariables`).length, 4, 'numToSelect reached the selection step');
  assert.deepEqual(valuesOf(description, model, `${OT}dependentVariables`), [target]);
  const [domain] = valuesOf(description, model, `${OT}hasDomain`);
  assert.ok(domain && domain !== model, 'the domain step made a separate AD model, linked by ot:hasDomain');
  const domainDescription = parseTurtle((await http(local(domain), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(domainDescription, domain, `${OT}algorithm`), [`${s.base}/algorithm/ad-leverage`]);
  assert.deepEqual(
    valuesOf(domainDescription, domain, `${OT}independentVariables`).sort(),
    valuesOf(description, model, `${OT}independentVariables`).sort(),
    'the domain is fitted on the selected features, never on the target',
  );
  const parameters = new Map(
    valuesOf(description, model, `${OT}parameters`).map((p) => [valuesOf(description, p, 'http://purl.org/dc/elements/1.1/title')[0], valuesOf(description, p, `${OT}paramValue`)[0]]),
  );
  assert.equal(parameters.get('numTrees'), '20');
  assert.equal(parameters.get('model_learning'), `${s.base}/algorithm/random-forest-regression`);
  assert.equal(parameters.get('feature_calculation'), `${s.base}/algorithm/rdkit-descriptors`);

  // validation_service: the recipe cross-validated (the learner on the selected features), linked from the supermodel
  const [crossvalidation] = valuesOf(description, model, 'http://www.w3.org/2000/01/rdf-schema#seeAlso');
  assert.match(crossvalidation ?? '', /\/crossvalidation\/\d+$/);
  const folds = (await http(`${local(crossvalidation)}/validations`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  assert.equal(folds.length, 10);
  const cv = parseTurtle((await http(local(crossvalidation), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(cv, crossvalidation, `${OT}algorithm`), [`${s.base}/algorithm/random-forest-regression`]);
  const statistics = (await http(`${local(crossvalidation)}/statistics`, { accept: 'application/json' })).text;
  assert.match(statistics, /rootMeanSquaredError/);

  // a structure it has never seen: the descriptors are calculated by the supermodel itself
  const posted = await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' });
  const compound = posted.text.trim();
  const one = await http(local(model), { method: 'POST', body: form({ compound_uri: compound }), accept: 'text/csv' });
  assert.equal(one.status, 200, one.text);
  const rows = parseCsv(one.text) as string[][];
  assert.equal(rows.length, 2);
  const [metric] = valuesOf(domainDescription, domain, `${OT}adMetric`);
  const [membership] = valuesOf(domainDescription, domain, `${OT}adMembership`);
  const features = (await http(`${local(one.headers.get('location')!)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  assert.equal(features.length, 4, 'prediction, confidence, AD metric and AD membership');
  assert.ok(features.includes(metric) && features.includes(membership));
  const predicted = Number(rows[1][1]);
  assert.ok(Number.isFinite(predicted) && predicted > -3 && predicted < 8, `a plausible -log10(LC50): ${predicted}`);
  assert.equal(rows[1][features.indexOf(membership) + 1], 'true', 'octanol is like the training set');
});

test('superalgorithm requests are checked before any work: missing or wrong steps and parameters answer 400 naming them', async () => {
  const { dataset, target } = await minnows(10);
  const expect400 = async (params: Record<string, string | string[]>, pattern: RegExp) => {
    const r = await http(`${s.url}/algorithm/superalgorithm`, { method: 'POST', body: form(params), accept: 'text/turtle' });
    assert.equal(r.status, 400, JSON.stringify(params));
    assert.match((await errorReport(r)).message ?? '', pattern);
  };
  await expect400({ dataset_uri: dataset, prediction_feature: target }, /model_learning/);
  await expect400({ dataset_uri: dataset, prediction_feature: target, model_learning: 'ad-leverage' }, /model_learning.*not a learning algorithm/);
  await expect400({ dataset_uri: dataset, prediction_feature: target, model_learning: 'mlr', feature_calculation: 'mlr' }, /feature_calculation/);
  await expect400({ dataset_uri: dataset, prediction_feature: target, model_learning: 'mlr', feature_calculation: 'rdkit-descriptors', parameter: 'mlr ridge -1' }, /ridge/);
  await expect400({ dataset_uri: dataset, prediction_feature: target, model_learning: 'mlr', parameter: 'no-such-algorithm a 1' }, /parameter/);
  await expect400({ dataset_uri: dataset, prediction_feature: target, model_learning: 'mlr', feature_calculation: 'rdkit-descriptors', parameter: 'fs-correlation numToSelect 3' }, /not a step/);
  await expect400({ dataset_uri: dataset, prediction_feature: target, model_learning: 'mlr' }, /no numeric or fingerprint features/);
  await expect400(
    { dataset_uri: dataset, prediction_feature: target, model_learning: 'mlr', feature_calculation: 'rdkit-descriptors', validation_service: `${s.base}/validation/bootstrapping` },
    /validation_service/,
  );
  await expect400({ dataset_uri: dataset, prediction_feature: target, model_learning: 'mlr', feature_calculation: 'rdkit-descriptors', dataset_service: 'ftp://example.org/dataset' }, /only http/);
  await expect400(
    { dataset_uri: dataset, prediction_feature: target, model_learning: ['mlr', 'svc'], feature_calculation: 'rdkit-descriptors' },
    /model_learning.*all do regression or all do classification/,
  );
  await expect400({ dataset_uri: dataset, prediction_feature: target, model_learning: 'mlr mlr', feature_calculation: 'rdkit-descriptors' }, /model_learning.*twice/);
  await expect400({ dataset_uri: dataset, prediction_feature: target, model_learning: 'mlr', feature_calculation: 'fs-correlation' }, /feature_calculation.*descriptor-calculation or pattern-mining/);
});

/** Build a supermodel and predict one compound with it: answers the model and its prediction (the first value). */
async function supermodelPrediction(params: Record<string, string | string[]>, compound: string): Promise<{ model: string; value: string }> {
  const r = await superalgorithm(params);
  assert.equal(r.status, 202, r.text);
  const model = await waitForTask(s, r.text.trim());
  const one = await http(local(model), { method: 'POST', body: form({ compound_uri: compound }), accept: 'text/csv' });
  assert.equal(one.status, 200, one.text);
  return { model, value: (parseCsv(one.text) as string[][])[1][1] };
}

test("several model_learning steps make a consensus supermodel: the mean of its members' predictions, cross-validated as one recipe", async () => {
  const { dataset, target } = await minnows(40);
  const compound = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  const recipe = {
    dataset_uri: dataset,
    prediction_feature: target,
    feature_calculation: 'rdkit-descriptors',
    feature_selection: 'fs-correlation',
  };
  const selection = 'fs-correlation numToSelect 5';
  const trees = 'random-forest-regression numTrees 15';
  const mlr = await supermodelPrediction({ ...recipe, model_learning: 'mlr', parameter: selection }, compound);
  const forest = await supermodelPrediction({ ...recipe, model_learning: 'random-forest-regression', parameter: [selection, trees] }, compound);
  const both = await supermodelPrediction(
    { ...recipe, model_learning: ['mlr', `${s.base}/algorithm/random-forest-regression`], validation_service: `${s.base}/crossvalidation`, parameter: [selection, trees] },
    compound,
  );
  const mean = (Number(mlr.value) + Number(forest.value)) / 2;
  assert.ok(Math.abs(Number(both.value) - mean) < 1e-9, `${both.value} is the mean of ${mlr.value} and ${forest.value}`);
  assert.notEqual(mlr.value, forest.value, 'two different members');

  const description = parseTurtle((await http(local(both.model), { accept: 'text/turtle' })).text);
  const parameters = new Map(
    valuesOf(description, both.model, `${OT}parameters`).map((p) => [valuesOf(description, p, 'http://purl.org/dc/elements/1.1/title')[0], valuesOf(description, p, `${OT}paramValue`)[0]]),
  );
  assert.equal(parameters.get('model_learning'), `${s.base}/algorithm/mlr ${s.base}/algorithm/random-forest-regression`);
  assert.equal(parameters.get('random-forest-regression.numTrees'), '15', 'each member keeps its parameter values');
  assert.match(valuesOf(description, both.model, 'http://purl.org/dc/elements/1.1/title')[0], /Consensus of/);
  const [crossvalidation] = valuesOf(description, both.model, 'http://www.w3.org/2000/01/rdf-schema#seeAlso');
  const statistics = JSON.parse((await http(`${local(crossvalidation)}/statistics`, { accept: 'application/json' })).text);
  assert.match(JSON.stringify(statistics), /rootMeanSquaredError/);
  assert.equal((await http(`${local(crossvalidation)}/validations`, { accept: 'text/uri-list' })).text.trim().split('\r\n').length, 10);
});

test('pattern mining as a feature_calculation step: a classification supermodel on mined fragments classifies a fresh SMILES', async () => {
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: sharedCsv('kazius.csv', 1000, 40), contentType: 'text/csv', accept: 'text/uri-list' });
  const dataset = up.text.trim();
  const target = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim();
  const compound = (await http(`${s.url}/compound`, { method: 'POST', body: 'O=[N+]([O-])c1ccc2ccccc2c1', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  const { model, value } = await supermodelPrediction(
    {
      dataset_uri: dataset,
      prediction_feature: target,
      feature_calculation: 'frequent-substructures',
      model_learning: 'naive-bayes',
      parameter: ['frequent-substructures minSup 0.05', `frequent-substructures prediction_feature ${target}`],
    },
    compound,
  );
  assert.match(value, /^(mutagenic|non-mutagenic)$/);
  const description = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
  const independent = valuesOf(description, model, `${OT}independentVariables`);
  assert.ok(independent.length > 0);
  const fragment = parseTurtle((await http(local(independent[0]), { accept: 'text/turtle' })).text);
  assert.ok(valuesOf(fragment, independent[0], `${OT}smarts`).length === 1, 'the model learns from mined fragments');
  assert.match(valuesOf(fragment, independent[0], 'http://purl.org/dc/elements/1.1/description')[0], /chi-square/, 'supervised mining, by a parameter addressed to the step');
});

test('dataset_service: a supermodel stores its predictions at the dataset service it was made with, unless a request says otherwise', async () => {
  const remote = await startTestServer();
  try {
    const { dataset, target } = await minnows(20);
    const r = await superalgorithm({
      dataset_uri: dataset,
      prediction_feature: target,
      feature_calculation: 'rdkit-descriptors',
      model_learning: 'mlr',
      dataset_service: `${remote.base}/dataset/`,
      parameter: 'rdkit-descriptors descriptors tpsa,exactmw',
    });
    assert.equal(r.status, 202, r.text);
    const model = await waitForTask(s, r.text.trim());
    const there = await http(local(model), { method: 'POST', body: form({ dataset_uri: dataset }), accept: 'text/uri-list' });
    const stored = there.status === 202 ? await waitForTask(s, there.text.trim()) : there.text.trim();
    assert.ok(stored.startsWith(`${remote.base}/dataset/`), stored);
    const rows = parseCsv((await http(stored.replace(remote.base, remote.url), { accept: 'text/csv' })).text) as string[][];
    assert.equal(rows.length, 21);
    assert.match(rows[0][1], /predicted by model/);
    const here = await http(local(model), { method: 'POST', body: form({ dataset_uri: dataset, dataset_service: `${s.base}/dataset` }), accept: 'text/uri-list' });
    const local2 = here.status === 202 ? await waitForTask(s, here.text.trim()) : here.text.trim();
    assert.ok(local2.startsWith(`${s.base}/dataset/`), local2);
  } finally {
    await remote.stop();
  }
});

test('several applicability_domain steps: one linked AD model each, all estimated beside the prediction; a deleted one is left out', async () => {
  const { dataset, target } = await minnows(30);
  const r = await superalgorithm({
    dataset_uri: dataset,
    prediction_feature: target,
    feature_calculation: 'rdkit-descriptors',
    model_learning: 'mlr',
    applicability_domain: ['ad-leverage', `${s.base}/algorithm/ad-ranges`],
    parameter: 'rdkit-descriptors descriptors tpsa,exactmw,CrippenClogP',
  });
  assert.equal(r.status, 202, r.text);
  const model = await waitForTask(s, r.text.trim());
  const description = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
  const domains = valuesOf(description, model, `${OT}hasDomain`);
  assert.equal(domains.length, 2);
  const compound = (
    await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })
  ).text.trim();
  const predictOne = async () => {
    const one = await http(local(model), { method: 'POST', body: form({ compound_uri: compound }), accept: 'text/csv' });
    assert.equal(one.status, 200, one.text);
    return (parseCsv(one.text) as string[][])[1].slice(1);
  };
  const both = await predictOne();
  assert.equal(both.length, 6, 'prediction, confidence and two estimates per domain');
  assert.deepEqual(
    both.filter((v) => v === 'false'),
    ['false', 'false'],
    'a C40 chain lies outside both domains of small fish toxicants',
  );
  assert.equal((await http(local(domains[1]), { method: 'DELETE' })).status, 200);
  assert.equal((await predictOne()).length, 4, 'the deleted domain model is no longer estimated');
});

test('the recipe is cross-validated with the feature selection inside every fold: noise features selected on all rows do not look predictive', async () => {
  // 40 structures, a random target and 300 random features: selecting the 5 best of them on all
  // rows and then cross-validating finds a spurious fit; selecting inside each fold must not
  let seed = 7;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const smiles = sharedCsv('EPAFHM_log10.csv', 40)
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(',')[0]);
  const header = ['SMILES', 'target', ...Array.from({ length: 300 }, (_, k) => `noise${k}`)].join(',');
  const lines = smiles.map((smi) => [smi, ...Array.from({ length: 301 }, () => (random() * 10).toFixed(4))].join(','));
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: `${header}\n${lines.join('\n')}\n`, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  const dataset = up.text.trim();
  const features = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const r = await superalgorithm({
    dataset_uri: dataset,
    prediction_feature: features[0],
    feature_selection: 'fs-correlation',
    model_learning: 'mlr',
    validation_service: `${s.base}/crossvalidation`,
    parameter: 'fs-correlation numToSelect 5',
  });
  assert.equal(r.status, 202, r.text);
  const model = await waitForTask(s, r.text.trim());
  const description = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
  assert.equal(valuesOf(description, model, `${OT}independentVariables`).length, 5);
  const [crossvalidation] = valuesOf(description, model, 'http://www.w3.org/2000/01/rdf-schema#seeAlso');
  const statistics = JSON.parse((await http(`${local(crossvalidation)}/statistics`, { accept: 'application/json' })).text);
  const q2 = Number(JSON.stringify(statistics).match(/"rSquare":(-?[\d.e-]+)/)?.[1]);
  assert.ok(Number.isFinite(q2) && q2 < 0.1, `Q² of a recipe on noise: ${q2}`);
  // the same learner cross-validated on the five features chosen with all rows: the optimistic figure
  const chosen = valuesOf(description, model, `${OT}independentVariables`);
  const leaky = await http(`${s.url}/crossvalidation`, {
    method: 'POST',
    body: form({
      dataset_uri: `${dataset}?${[...chosen, features[0]].map((f) => `feature_uris[]=${encodeURIComponent(f)}`).join('&')}`,
      algorithm_uri: `${s.base}/algorithm/mlr`,
      prediction_feature: features[0],
      num_folds: '10',
      random_seed: '1',
    }),
    accept: 'text/uri-list',
  });
  assert.equal(leaky.status, 202, leaky.text);
  const leakyCv = await waitForTask(s, leaky.text.trim());
  const leakyStatistics = JSON.stringify(JSON.parse((await http(`${local(leakyCv)}/statistics`, { accept: 'application/json' })).text));
  const leakyQ2 = Number(leakyStatistics.match(/"rSquare":(-?[\d.e-]+)/)?.[1]);
  assert.ok(leakyQ2 > q2 + 0.1, `selection on all rows looks better (${leakyQ2}) than the honest recipe (${q2})`);
});

test('structure_standardisation: the chain learns from parents, and the supermodel predicts a salt exactly as its parent (a supermodel without it does not)', async () => {
  const { dataset, target } = await minnows(40);
  const recipe = { dataset_uri: dataset, prediction_feature: target, feature_calculation: 'rdkit-descriptors', model_learning: 'random-forest-regression' };
  const trees = 'random-forest-regression numTrees 10';
  const build = async (params: Record<string, string | string[]>) => {
    const r = await superalgorithm(params);
    assert.equal(r.status, 202, r.text);
    return waitForTask(s, r.text.trim());
  };
  const standardising = await build({ ...recipe, structure_standardisation: 'standardise-structures', parameter: [trees, 'standardise-structures stereo remove'] });
  const plain = await build({ ...recipe, parameter: trees });

  const description = parseTurtle((await http(local(standardising), { accept: 'text/turtle' })).text);
  const parameters = new Map(
    valuesOf(description, standardising, `${OT}parameters`).map((p) => [valuesOf(description, p, 'http://purl.org/dc/elements/1.1/title')[0], valuesOf(description, p, `${OT}paramValue`)[0]]),
  );
  assert.equal(parameters.get('structure_standardisation'), `${s.base}/algorithm/standardise-structures`);
  assert.equal(parameters.get('standardise-structures.stereo'), 'remove');
  // it learnt from the standardised dataset, and not from its curation columns
  const [training] = valuesOf(description, standardising, `${OT}trainingDataset`);
  // (the descriptors' dataset, made from the standardised one)
  const sourceOf = async (d: string, property: string) => valuesOf(parseTurtle((await http(`${local(d)}/metadata`, { accept: 'text/turtle' })).text), d, property);
  const [standardised] = await sourceOf(training, 'http://purl.org/dc/elements/1.1/source');
  assert.deepEqual(await sourceOf(standardised, `${OT}hasSource`), [`${s.base}/algorithm/standardise-structures`]);
  assert.deepEqual(await sourceOf(standardised, 'http://purl.org/dc/elements/1.1/source'), [dataset]);
  for (const f of valuesOf(description, standardising, `${OT}independentVariables`)) {
    const feature = parseTurtle((await http(local(f), { accept: 'text/turtle' })).text);
    assert.deepEqual(
      valuesOf(feature, f, 'http://www.w3.org/2002/07/owl#sameAs').filter((t) => t.includes('algorithmTypes')),
      [],
      `${f} is not a curation column`,
    );
  }

  // salts beside their parents, predicted as a dataset of bare structures
  const pairs = ['CCCCCCCCO', 'CCCCCCCC[O-].[Na+]', 'CCCCN', 'CCCCN.Cl', 'CCCCCC(=O)O', 'CCCCCC(=O)[O-].[K+]'];
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: `SMILES\n${pairs.join('\n')}\n`, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  const predict = async (model: string) => {
    const r = await http(local(model), { method: 'POST', body: form({ dataset_uri: up.text.trim() }), accept: 'text/uri-list' });
    assert.ok(r.status === 200 || r.status === 202, r.text);
    const result = r.status === 202 ? await waitForTask(s, r.text.trim()) : r.text.trim();
    const rows = parseCsv((await http(local(result), { accept: 'text/csv' })).text) as string[][];
    assert.deepEqual(
      rows.slice(1).map((row) => row[0]),
      pairs.map((p) => (p.includes('.') ? rows.slice(1).find((row) => row[0] === p)?.[0] : p)),
      'the rows keep their own structures',
    );
    return rows.slice(1).map((row) => Number(row[1]));
  };
  const withParents = await predict(standardising);
  for (let i = 0; i < pairs.length; i += 2) {
    assert.ok(Number.isFinite(withParents[i]), pairs[i]);
    assert.equal(withParents[i + 1], withParents[i], `${pairs[i + 1]} is predicted as ${pairs[i]}`);
  }
  const asDrawn = await predict(plain);
  assert.ok(
    [0, 2, 4].some((i) => asDrawn[i + 1] !== asDrawn[i]),
    `without standardisation a salt's descriptors are its own: ${JSON.stringify(asDrawn)}`,
  );

  // one compound: the same
  const salt = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCN.Cl', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  const one = await http(local(standardising), { method: 'POST', body: form({ compound_uri: salt }), accept: 'text/csv' });
  assert.equal(one.status, 200, one.text);
  assert.equal(Number((parseCsv(one.text) as string[][])[1][1]), withParents[2]);

  // the chain's steps are part of the supermodel: out of the lists while it stands, listed again when it goes
  const listed = async () => (await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text;
  assert.ok(!(await listed()).includes(`${standardised}\r\n`), 'the standardised dataset is part of the supermodel');
  assert.equal((await http(local(standardising), { method: 'DELETE' })).status, 200);
  assert.ok((await listed()).includes(`${standardised}\r\n`), 'released when the supermodel is deleted');

  const twice = await superalgorithm({ ...recipe, structure_standardisation: ['standardise-structures', 'standardise-structures'] });
  assert.equal(twice.status, 400);
  const wrong = await http(`${s.url}/algorithm/superalgorithm`, { method: 'POST', body: form({ ...recipe, structure_standardisation: 'rdkit-descriptors' }), accept: 'text/turtle' });
  assert.equal(wrong.status, 400);
  assert.match((await errorReport(wrong)).message ?? '', /structure_standardisation.*structure-standardisation algorithm/);
});
