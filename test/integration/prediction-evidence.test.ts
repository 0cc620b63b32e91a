import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, http, form, sharedCsv, parseTurtle, valuesOf, waitForTask, OT, type TestServer } from '../helpers.ts';

/**
 * Evidence that does not mislead (issue 55, items 2, 3 and 6), on a real server: the nearest
 * training compounds' "predicted" values are out of fold (from a cross-validation of the model's
 * recipe) or not shown, never the model re-predicting its own training rows; numbers come with
 * their reading (an uncertain class, a tie, a disagreement with all neighbours, the domain's
 * limit, a validation's baseline); MCP `list_models` lists the cross-validations of a model's
 * recipe with their statistics and baselines.
 */
let s: TestServer;
let client: Client;
const fx = { dataset: '', target: '', forest: '', knn: '', regression: '', regressionData: '', regressionTarget: '' };
const local = (u: string) => u.replace(s.base, s.url);

async function run(url: string, params: Record<string, string | string[]>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  if (r.status === 200) return r.text.trim();
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

const DESCRIPTORS = 'tpsa,exactmw,CrippenClogP,NumHBD,NumHBA,NumRotatableBonds';

before(async () => {
  s = await startTestServer();
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: sharedCsv('hamster_carcinogenicity.csv', 85), contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  fx.target = (await http(`${local(up.text.trim())}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  fx.dataset = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: up.text.trim(), descriptors: DESCRIPTORS });
  fx.forest = await run(`${s.base}/algorithm/random-forest-classification`, { dataset_uri: fx.dataset, prediction_feature: fx.target, numTrees: '30' });
  // acetaldehyde measured twice with labels that disagree: a 2-nearest-neighbour classifier ties on it (0.5)
  const twice = await http(`${s.url}/dataset`, { method: 'POST', body: `${sharedCsv('hamster_carcinogenicity.csv', 85)}CC=O,false\n`, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(twice.status, 200, twice.text);
  const twiceTarget = (await http(`${local(twice.text.trim())}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  const twiceData = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: twice.text.trim(), descriptors: DESCRIPTORS });
  fx.knn = await run(`${s.base}/algorithm/knn-classification`, { dataset_uri: twiceData, prediction_feature: twiceTarget, k: '2' });
  const reg = await http(`${s.url}/dataset`, { method: 'POST', body: sharedCsv('EPAFHM_log10.csv', 40, 9), contentType: 'text/csv', accept: 'text/uri-list' });
  fx.regressionTarget = (await http(`${local(reg.text.trim())}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  fx.regressionData = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: reg.text.trim(), descriptors: DESCRIPTORS });
  fx.regression = await run(`${s.base}/algorithm/mlr`, { dataset_uri: fx.regressionData, prediction_feature: fx.regressionTarget });
  client = new Client({ name: 'toxgraph-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`)));
});
after(async () => {
  await client?.close();
  await s.stop();
});

type Evidence = {
  prediction: {
    value: string | number | null;
    confidence: number | null;
    uncertain?: boolean;
    tie?: boolean;
    uncertain_below?: number;
    reading?: string;
    disagrees_with_all_neighbours: string | false;
  };
  applicability_domains: { model: string; metric: number | null; inside: boolean | null; limit: { inside_when: string; value: number } | null }[];
  nearest_training_compounds: { uri: string; measured: string | number | null; predicted: string | number | null }[];
  neighbour_predictions: { source: string; crossvalidation?: string; note: string };
};

async function evidence(model: string, compound: string): Promise<Evidence> {
  const r = await http(`${s.url}/reach_report/qprf/evidence?${new URLSearchParams({ model_uri: model, compound_uri: compound })}`, { accept: 'application/json' });
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text) as Evidence;
}

/** A structure predicted by a model: its compound URI and the prediction dataset. */
async function predicted(model: string, smiles: string): Promise<{ compound: string; dataset: string }> {
  const r = await http(local(model), { method: 'POST', body: form({ smiles }), accept: 'text/turtle' });
  assert.equal(r.status, 200, r.text);
  const quads = parseTurtle(r.text);
  const compound = quads.find((q) => q.predicate.value === `${OT}compound`)!.object.value;
  return { compound, dataset: r.headers.get('location')! };
}

/** Each compound's value of the fold model that held it out, read from the fold validations' prediction datasets. */
async function foldPredictions(cv: string): Promise<Map<string, string>> {
  const folds = valuesOf(parseTurtle((await http(local(cv), { accept: 'text/turtle' })).text), cv, `${OT}validation`);
  const out = new Map<string, string>();
  for (const fold of folds) {
    const v = parseTurtle((await http(local(fold), { accept: 'text/turtle' })).text);
    const [predictions] = valuesOf(v, fold, `${OT}predictionDataset`);
    const [foldModel] = valuesOf(v, fold, `${OT}model`);
    const m = parseTurtle((await http(local(foldModel), { accept: 'text/turtle' })).text);
    const confidence = new Set(m.filter((q) => q.predicate.value === `${OT}confidenceOf`).map((q) => q.subject.value));
    const feature = valuesOf(m, foldModel, `${OT}predictedVariables`).find((f) => !confidence.has(f))!;
    const d = parseTurtle((await http(local(predictions), { accept: 'text/turtle' })).text);
    for (const entry of d.filter((q) => q.predicate.value === `${OT}dataEntry`).map((q) => q.object)) {
      const compound = d.find((q) => q.subject.equals(entry) && q.predicate.value === `${OT}compound`)!.object.value;
      for (const node of d.filter((q) => q.subject.equals(entry) && q.predicate.value === `${OT}values`).map((q) => q.object))
        if (d.some((q) => q.subject.equals(node) && q.predicate.value === `${OT}feature` && q.object.value === feature))
          out.set(compound, d.find((q) => q.subject.equals(node) && q.predicate.value === `${OT}value`)!.object.value);
    }
  }
  return out;
}

const call = async (name: string, args: Record<string, unknown>) => {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.ok(!r.isError, JSON.stringify(r.content));
  return r.structuredContent as Record<string, any>;
};

test('item 2: the neighbours’ predicted values are never the model’s own re-predictions: held out (the learner trained again without them), or out of fold from a cross-validation of the same recipe, and said so', async () => {
  const { compound } = await predicted(fx.forest, 'CC(=O)Nc1ccc(O)cc1');
  // no cross-validation of the recipe yet: the learner trained again without the shown compounds predicts them
  const before = await evidence(fx.forest, compound);
  assert.equal(before.nearest_training_compounds.length, 5);
  assert.equal(before.neighbour_predictions.source, 'held-out');
  assert.match(before.neighbour_predictions.note, /no cross-validation of this model’s recipe is stored/);
  // the same as a model trained through REST on the training set less those compounds, with the same parameters
  const shown = before.nearest_training_compounds.map((n) => n.uri);
  const all = (await http(`${local(fx.dataset)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const rest = await run(`${s.base}/dataset`, { dataset_uri: fx.dataset, 'compound_uris[]': all.filter((c) => !shown.includes(c)) });
  const without = await run(`${s.base}/algorithm/random-forest-classification`, { dataset_uri: rest, prediction_feature: fx.target, numTrees: '30' });
  for (const n of before.nearest_training_compounds) {
    const r = await http(local(without), { method: 'POST', body: form({ compound_uri: n.uri }), accept: 'text/csv' });
    assert.equal(String(n.predicted), r.text.trim().split('\n')[1].split(',')[1], `${n.uri}: predicted by a model that did not see it`);
  }
  const qprfBefore = await run(`${s.base}/reach_report/qprf`, { model_uri: fx.forest, compound_uri: compound });
  const docBefore = (await http(local(qprfBefore), { accept: 'text/xml' })).text;
  assert.match(docBefore, /predicted correctly out of fold \(the learner trained again without them\)/);

  // a cross-validation of another recipe (other parameters) does not count
  await run(`${s.base}/crossvalidation`, {
    dataset_uri: fx.dataset,
    algorithm_uri: `${s.base}/algorithm/random-forest-classification`,
    prediction_feature: fx.target,
    algorithm_params: 'numTrees=5',
    num_folds: '3',
  });
  assert.equal((await evidence(fx.forest, compound)).neighbour_predictions.source, 'held-out', 'numTrees=5 is not the model’s recipe');

  // the same recipe cross-validated: each neighbour's value of the fold model that did not see it
  const cv = await run(`${s.base}/crossvalidation`, {
    dataset_uri: fx.dataset,
    algorithm_uri: `${s.base}/algorithm/random-forest-classification`,
    prediction_feature: fx.target,
    algorithm_params: 'numTrees=30',
    num_folds: '5',
  });
  const after = await evidence(fx.forest, compound);
  assert.equal(after.neighbour_predictions.source, 'out-of-fold');
  assert.equal(after.neighbour_predictions.crossvalidation, cv);
  const oof = await foldPredictions(cv);
  for (const n of after.nearest_training_compounds) {
    assert.ok(oof.has(n.uri), `${n.uri} is in a fold's test set`);
    assert.equal(String(n.predicted), oof.get(n.uri), 'the held-out fold model’s prediction');
  }
  const qprf = await run(`${s.base}/reach_report/qprf`, { model_uri: fx.forest, compound_uri: compound });
  const doc = (await http(local(qprf), { accept: 'text/xml' })).text;
  assert.match(doc, new RegExp(`predicted correctly out of fold \\(cross-validation ${cv}\\)`));
  assert.match(doc, /predicted out of fold/);
  // the prediction page says where the values come from
  const page = (await http(local((await predicted(fx.forest, 'CC(=O)Nc1ccc(O)cc1')).dataset), { accept: 'text/html' })).text;
  assert.match(page, /“predicted” is out of fold/);
});

test('item 3: a class probability near an even split is uncertain, a tie says how it is resolved, disagreement with all neighbours is flagged, the domain’s limit stands beside its metric', async () => {
  // k = 2 neighbours: acetaldehyde's two rows disagree, a tie (0.5)
  const smiles = ['CC=O', 'CC(=O)Nc1ccc(O)cc1', 'c1ccc2ccccc2c1', 'CCN(CC)N=O', 'Clc1ccc(Cl)cc1', 'CC(C)(C)c1ccc(O)cc1', 'NC(=O)c1ccccc1', 'CCCCCCCCO', 'O=C(O)c1ccccc1O'];
  let ties = 0;
  let firm = 0;
  for (const sm of smiles) {
    const { compound, dataset } = await predicted(fx.knn, sm);
    const e = await evidence(fx.knn, compound);
    const p = e.prediction;
    assert.equal(p.uncertain_below, 0.6, 'two classes: uncertain below an even split plus 0.1');
    assert.equal(p.uncertain, (p.confidence ?? 1) < 0.6, `${sm}: ${JSON.stringify(p)}`);
    const page = (await http(local(dataset), { accept: 'text/html' })).text;
    const card = /<section class="explained"[\s\S]*?<\/section>/.exec(page)?.[0] ?? '';
    if (p.tie) {
      ties++;
      assert.equal(p.confidence, 0.5);
      assert.match(p.reading!, /a tie .* resolved to “[^”]+”, the first of the model’s classes in its order/);
      assert.match(card, /\(uncertain\)/);
      assert.doesNotMatch(card, /<strong>[^<]*<\/strong> <small>by/, 'not in bold as a firm class');
    } else if (!p.uncertain) {
      firm++;
      assert.match(card, /<strong>[^<]+<\/strong>/);
    }
    // disagreement: flagged exactly when no nearest training compound has the predicted class
    const measured = e.nearest_training_compounds.map((n) => String(n.measured));
    assert.equal(p.disagrees_with_all_neighbours !== false, !measured.includes(String(p.value)), JSON.stringify(e));
    if (p.disagrees_with_all_neighbours) assert.match(card, /Disagrees with its neighbours/);
    // the embedded domain (Euclidean, k nearest) with its limit
    assert.equal(e.applicability_domains.length, 1);
    const d = e.applicability_domains[0];
    assert.equal(d.limit?.inside_when, 'at most');
    assert.equal(d.inside, d.metric! <= d.limit!.value, 'the verdict is the metric against the limit shown');
    assert.match(card, /inside when at most [\d.]+/);
  }
  assert.ok(ties > 0, 'a tie among the predictions of a 2-nearest-neighbour classifier');
  assert.ok(firm > 0, 'and a firm one');
  // regression: no class reading; flagged exactly when the value lies outside the neighbours' measured values
  for (const sm of ['CCCCCCCCO', 'c1ccc2ccccc2c1', 'CC(C)(C)c1ccc(O)cc1', 'ClC(Cl)(Cl)Cl', 'OCCO', 'CCCCCCCCCCCCCCCC(=O)O']) {
    const { compound } = await predicted(fx.regression, sm);
    const e = await evidence(fx.regression, compound);
    assert.equal(e.prediction.uncertain, undefined);
    const measured = e.nearest_training_compounds.map((n) => Number(n.measured));
    const v = Number(e.prediction.value);
    const beyond = v < Math.min(...measured) || v > Math.max(...measured);
    assert.equal(e.prediction.disagrees_with_all_neighbours !== false, beyond, JSON.stringify(e.prediction));
  }
});

test('item 3: validation and cross-validation pages and reports read their statistics against a baseline (majority class, mean predictor)', async () => {
  const cv = await run(`${s.base}/crossvalidation`, {
    dataset_uri: fx.dataset,
    algorithm_uri: `${s.base}/algorithm/knn-classification`,
    prediction_feature: fx.target,
    algorithm_params: 'k=2',
    num_folds: '4',
  });
  const csv = sharedCsv('hamster_carcinogenicity.csv', 85).trim().split('\n').slice(1);
  const positives = csv.filter((l) => l.trim().endsWith('true')).length;
  const majority = Math.max(positives, csv.length - positives) / csv.length;
  const page = (await http(`${local(cv)}`, { accept: 'text/html' })).text;
  const [, accuracy] = /majority class “[^”]+” is right for ([\d.]+) of the (\d+) rows/.exec(page) ?? [];
  assert.ok(accuracy, 'the cross-validation page gives the majority-class baseline');
  assert.ok(Math.abs(Number(accuracy) - majority) < 1e-3, `${accuracy} against ${majority}`);
  const report = await run(`${s.base}/report/crossvalidation`, { validation_uris: cv });
  assert.match((await http(local(report), { accept: 'text/xml' })).text, /Baseline: always predicting the majority class/);
  // regression: the mean predictor
  const rcv = await run(`${s.base}/crossvalidation`, { dataset_uri: fx.regressionData, algorithm_uri: `${s.base}/algorithm/mlr`, prediction_feature: fx.regressionTarget, num_folds: '4' });
  const rpage = (await http(`${local(rcv)}`, { accept: 'text/html' })).text;
  assert.match(rpage, /always predicting the mean of the \d+ rows gives RMSE [\d.]+ and R² 0/);
});

test('item 6: MCP list_models lists the cross-validations of each model’s recipe, with statistics and a baseline', async () => {
  const listed = await call('list_models', {});
  const forest = listed.models.find((m: { model: string }) => m.model === fx.forest);
  const cvs = forest.validations.filter((v: { kind: string }) => v.kind === 'crossvalidation');
  assert.ok(cvs.length >= 2, JSON.stringify(forest.validations));
  for (const v of cvs) {
    assert.match(v.validation, /\/crossvalidation\/\d+$/);
    assert.equal(typeof v.statistics.accuracy, 'number');
    assert.equal(v.baseline.kind, 'majority class');
    assert.ok(v.baseline.accuracy >= 0.5 && v.baseline.accuracy <= 1);
  }
  assert.ok(
    cvs.some((v: { algorithm_params: string }) => v.algorithm_params === 'numTrees=30'),
    'with the parameters to tell the recipes apart',
  );
  // a validation of the model itself is listed too
  const validation = await run(`${s.base}/validation/test_set_validation`, { model_uri: fx.regression, test_dataset_uri: fx.regressionData, prediction_feature: fx.regressionTarget });
  const again = (await call('list_models', {})).models.find((m: { model: string }) => m.model === fx.regression);
  const own = again.validations.find((v: { validation: string }) => v.validation === validation);
  assert.equal(own?.kind, 'validation', JSON.stringify(again.validations));
  assert.equal(typeof own.statistics.rSquare, 'number');
  assert.equal(own.baseline.kind, 'mean predictor');
  // the model page lists the same with their baselines
  const modelPage = (await http(local(fx.forest), { accept: 'text/html' })).text;
  assert.match(modelPage, /<th>baseline<\/th>/);
  assert.match(modelPage, /<td class="baseline">accuracy [\d.]+ <small>\(always “(true|false)”\)<\/small><\/td>/);
  const regression = listed.models.find((m: { model: string }) => m.model === fx.regression);
  const rcv = regression.validations.find((v: { kind: string }) => v.kind === 'crossvalidation');
  assert.equal(typeof rcv.statistics.rootMeanSquaredError, 'number');
  assert.equal(rcv.baseline.kind, 'mean predictor');
  assert.equal(rcv.baseline.rSquare, 0);
  assert.ok(rcv.baseline.rootMeanSquaredError > 0);
  // predict through MCP says where the neighbours' values come from, and how to read the prediction
  const { compound } = await predicted(fx.forest, 'CC(=O)Nc1ccc(O)cc1');
  const p = await call('predict', { model: fx.forest, compound });
  assert.equal(p.neighbour_predictions.source, 'out-of-fold');
  assert.equal(typeof p.prediction.uncertain, 'boolean');
  assert.ok(p.applicability_domains.every((d: { limit: unknown }) => d.limit === null || typeof d.limit === 'object'));
});
