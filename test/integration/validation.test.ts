import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { notOnRemoteStores, startTestServer, http, form, errorReport, OT, waitForTask, checkRdfXml, resourceLists, parseTurtle, valuesOf, type TestServer } from '../helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const REFERENCE = JSON.parse(readFileSync(new URL('../../../shared/reference/validation-statistics.json', import.meta.url), 'utf8'));
/** n distinct compounds: the linear alkanes C1 … Cn. */
const alkane = (i: number) => 'C'.repeat(i + 1);

async function upload(csv: string): Promise<string> {
  const r = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(r.status, 200, r.text);
  return r.text.trim();
}
const features = async (dataset: string) => (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
async function task(path: string, params: Record<string, string>): Promise<string> {
  const r = await http(`${s.url}${path}`, { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.equal(r.status, 202, `${path}: ${r.text.slice(0, 500)}`);
  return waitForTask(s, r.text.trim());
}
const json = async (uri: string) => JSON.parse((await http(local(uri), { accept: 'application/json' })).text);
const csvOf = async (uri: string) => parseCsv((await http(local(uri), { accept: 'text/csv' })).text) as string[][];

/** Compare every expected value (recursively) with ours, to 1e-9. */
function compare(expected: Record<string, unknown>, actual: Record<string, unknown>, path: string): void {
  for (const [key, value] of Object.entries(expected)) {
    assert.ok(key in actual, `${path}.${key} is missing`);
    if (value && typeof value === 'object') compare(value as Record<string, unknown>, actual[key] as Record<string, unknown>, `${path}.${key}`);
    else assert.ok(Math.abs((actual[key] as number) - (value as number)) <= 1e-9, `${path}.${key}: ${actual[key]} ≠ ${value}`);
  }
}

/** Our statistics in the shape of the reference file. */
function referenceShape(validation: any): Record<string, unknown> {
  if (validation.regressionStatistics) return validation.regressionStatistics;
  const c = validation.classificationStatistics;
  const matrix: Record<string, Record<string, number>> = {};
  for (const cell of c.confusionMatrix.confusionMatrixCell) (matrix[cell.confusionMatrixActual] ??= {})[cell.confusionMatrixPredicted] = cell.confusionMatrixValue;
  const perClass = Object.fromEntries(c.classValueStatistics.map((x: any) => [x.classValue, x]));
  return { ...c, confusionMatrix: matrix, classValueStatistics: perClass };
}

test('validate_datasets reproduces every reference statistic (scikit-learn) to 1e-9', notOnRemoteStores, async () => {
  for (const c of REFERENCE.cases) {
    const n = c.actual.length;
    const actual = await upload(['SMILES,actual', ...c.actual.map((v: unknown, i: number) => `${alkane(i)},${v}`)].join('\n'));
    const predictions = await upload(['SMILES,predicted,confidence', ...c.predicted.map((v: unknown, i: number) => `${alkane(i)},${v},${c.confidence[i]}`)].join('\n'));
    const [actualFeature] = await features(actual);
    const [predicted, confidence] = await features(predictions);
    // declare the confidence column as the confidence of the predictions
    const turtle = `@prefix ot: <${OT}> . @prefix dc: <http://purl.org/dc/elements/1.1/> . <${confidence}> a ot:NumericFeature ; dc:title "confidence" ; ot:confidenceOf <${predicted}> .`;
    assert.equal((await http(local(confidence), { method: 'PUT', body: turtle, contentType: 'text/turtle' })).status, 200);
    const validation = await task('/validation/validate_datasets', { test_dataset_uri: actual, prediction_feature: actualFeature, prediction_dataset_uri: predictions, predicted_feature: predicted });
    const v = await json(validation);
    assert.equal(v.validationType, 'validate_datasets');
    assert.equal(v.numInstances, n);
    assert.equal(v.numUnpredicted, 0);
    compare(c.expected, referenceShape(v), c.name);
  }
});

test('validation representations: XML valid against the published schema, YAML, HTML with the confusion matrix', async () => {
  const c = REFERENCE.cases.find((x: any) => x.kind === 'classification');
  const actual = await upload(['SMILES,actual', ...c.actual.map((v: string, i: number) => `${alkane(i)},${v}`)].join('\n'));
  const predictions = await upload(['SMILES,predicted', ...c.predicted.map((v: string, i: number) => `${alkane(i)},${v}`)].join('\n'));
  const validation = await task('/validation/validate_datasets', {
    test_dataset_uri: actual,
    prediction_feature: (await features(actual))[0],
    prediction_dataset_uri: predictions,
    predicted_feature: (await features(predictions))[0],
  });
  const rdfXml = await http(local(validation));
  assert.equal(rdfXml.type, 'application/rdf+xml');
  const quads = await checkRdfXml(rdfXml.text);
  assert.ok(quads.some((q) => q.predicate.value === `${OT}confusionMatrixValue`));
  const xml = await http(local(validation), { accept: 'application/xml' });
  assert.equal(xml.type, 'application/xml');
  assert.match(xml.text, /<confusionMatrixCell>/);
  const schema = await http(`${s.url}/validation/schema.xsd`);
  assert.equal(schema.status, 200);
  let xmllint = true;
  try {
    execFileSync('xmllint', ['--version'], { stdio: 'ignore' });
  } catch {
    xmllint = false;
  }
  if (xmllint) {
    const dir = mkdtempSync(join(tmpdir(), 'toxgraph-xsd-'));
    try {
      writeFileSync(join(dir, 'schema.xsd'), schema.text);
      writeFileSync(join(dir, 'validation.xml'), xml.text);
      execFileSync('xmllint', ['--noout', '--schema', join(dir, 'schema.xsd'), join(dir, 'validation.xml')], { stdio: 'pipe' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } else console.log('# xmllint (Debian libxml2-utils) is not installed: the XML was not checked against the schema; .ci/run installs it');
  const yaml = await http(local(validation), { accept: 'text/x-yaml' });
  assert.equal(yaml.type, 'text/x-yaml');
  assert.match(yaml.text, /accuracy: 0\.766666/);
  const html = await http(local(validation), { accept: 'text/html' });
  assert.match(html.text, /Confusion matrix/);
  assert.match(html.text, /<th>active<\/th><td>19<\/td><td>6<\/td>/);
});

let regression: { dataset: string; target: string };
const RF = () => `${s.base}/algorithm/random-forest-regression`;

test('training_test_split and bootstrapping: sizes, disjoint sets, deterministic for a seed', async () => {
  const raw = await upload(readFileSync('../shared/data/EPAFHM_log10.csv', 'utf8').trim().split('\n').slice(0, 61).join('\n'));
  const target = (await features(raw))[0];
  const dataset = await task('/algorithm/rdkit-descriptors', { dataset_uri: raw });
  regression = { dataset, target };
  const params = { dataset_uri: dataset, algorithm_uri: RF(), prediction_feature: target, algorithm_params: 'numTrees=10;minSamplesLeaf=2' };
  const v1 = await json(await task('/validation/training_test_split', params));
  const compoundsOf = async (d: string) => (await http(`${local(d)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const training = await compoundsOf(v1.trainingDataset);
  const test = await compoundsOf(v1.testDataset);
  assert.equal(training.length, Math.round(60 * 0.66));
  assert.equal(training.length + test.length, 60);
  assert.equal(training.filter((c) => test.includes(c)).length, 0, 'no compound in both');
  assert.equal(v1.numInstances, test.length);
  assert.equal(v1.algorithmParams, 'numTrees=10;minSamplesLeaf=2');
  const v2 = await json(await task('/validation/training_test_split', params));
  assert.equal(v2.regressionStatistics.rootMeanSquaredError, v1.regressionStatistics.rootMeanSquaredError, 'same seed, same result');
  const v3 = await json(await task('/validation/training_test_split', { ...params, random_seed: '7', split_ratio: '0.5' }));
  assert.equal((await compoundsOf(v3.trainingDataset)).length, 30);

  const b = await json(await task('/validation/bootstrapping', { ...params, bootstrap_percentage: '1' }));
  const drawn = (await http(local(b.trainingDataset), { accept: 'text/csv' })).text.trim().split('\n').length - 1;
  const distinct = new Set(await compoundsOf(b.trainingDataset));
  assert.equal(drawn, 60, 'n draws with replacement');
  assert.ok(distinct.size < 60, 'some compounds drawn twice');
  const left = await compoundsOf(b.testDataset);
  assert.equal(left.length, 60 - distinct.size, 'the test set is what was not drawn');
  assert.equal(left.filter((c) => distinct.has(c)).length, 0);
});

test('test_set_validation and training_test_validation (both spellings); list filters', async () => {
  const { dataset, target } = regression;
  const model = await task('/algorithm/random-forest-regression', { dataset_uri: dataset, prediction_feature: target, numTrees: '10' });
  const v = await json(await task('/validation/test_set_validation', { model_uri: model, test_dataset_uri: dataset }));
  assert.equal(v.validationType, 'test_set_validation');
  assert.equal(v.predictionFeature, target, "defaults to the model's dependent variable");
  assert.equal(v.model, model);
  assert.ok(v.regressionStatistics.rSquare > 0.7, 'fit on its own training set');
  for (const path of ['/validation/training_test_valdiation', '/validation/training_test_validation']) {
    const t = await json(await task(path, { algorithm_uri: RF(), prediction_feature: target, training_dataset_uri: dataset, test_dataset_uri: dataset, algorithm_params: 'numTrees=5' }));
    assert.equal(t.validationType, 'training_test_validation');
  }
  const byModel = (await http(`${s.url}/validation?model=${encodeURIComponent(model)}`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  assert.deepEqual(byModel, [v.uri]);
  const byAlgorithm = (await http(`${s.url}/validation?algorithm=${encodeURIComponent(RF())}`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  assert.ok(byAlgorithm.length >= 3 && byAlgorithm.includes(v.uri));
  assert.equal((await http(local(v.uri), { method: 'DELETE' })).status, 200);
  assert.equal((await http(local(v.uri))).status, 404);
});

test('cross-validation: stratified folds, exactly k fold validations, pooled statistics, DELETE with its folds', async () => {
  const lines = readFileSync('../shared/data/kazius.csv', 'utf8').trim().split('\n');
  const raw = await upload([lines[0], ...lines.slice(1).filter((_, i) => i % 40 === 0)].join('\n'));
  const target = (await features(raw))[0];
  const dataset = await task('/algorithm/morgan-fingerprint', { dataset_uri: raw, nBits: '1024' });
  const cv = await task('/crossvalidation', {
    dataset_uri: dataset,
    algorithm_uri: `${s.base}/algorithm/random-forest-classification`,
    prediction_feature: target,
    num_folds: '5',
    algorithm_params: 'numTrees=20',
  });
  const c = await json(cv);
  assert.equal(c.numFolds, 5);
  assert.match(c.title, /^5-fold cross-validation of Random forest classification on /, 'lists name it by what it is');
  assert.equal(c.stratified, 'true');
  const folds = (await http(`${local(cv)}/validations`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  assert.equal(folds.length, 5);
  const csv = (await http(local(raw), { accept: 'text/csv' })).text.trim().split(/\r?\n/).slice(1);
  const n = csv.length;
  const mutagenic = csv.filter((l) => l.endsWith(',mutagenic')).length;
  let correct = 0;
  let sizes = 0;
  for (const [i, f] of folds.entries()) {
    const v = await json(f);
    assert.equal(v.crossvalidationInfo.crossvalidationFold, i + 1);
    assert.equal(v.crossvalidationInfo.crossvalidation, cv);
    const cells = v.classificationStatistics.confusionMatrix.confusionMatrixCell;
    const actualMutagenic = cells.filter((x: any) => x.confusionMatrixActual === 'mutagenic').reduce((a: number, x: any) => a + x.confusionMatrixValue, 0);
    assert.ok(Math.abs(actualMutagenic - (mutagenic * v.numInstances) / n) <= 1, `fold ${i + 1}: ${actualMutagenic} mutagenic of ${v.numInstances}`);
    correct += v.classificationStatistics.numCorrect;
    sizes += v.numInstances;
  }
  assert.equal(sizes, n);
  const cvXml = await http(local(cv));
  assert.equal(cvXml.type, 'application/rdf+xml');
  assert.equal((await checkRdfXml(cvXml.text)).filter((q) => q.predicate.value === `${OT}validation`).length, 5);
  await checkRdfXml((await http(`${local(cv)}/statistics`)).text);
  const pooled = await json(`${cv}/statistics`);
  assert.equal(pooled.numInstances, n);
  assert.equal(pooled.classificationStatistics.numCorrect, correct, 'pooled, not averaged');
  assert.ok(pooled.classificationStatistics.accuracy > 0.6, `accuracy ${pooled.classificationStatistics.accuracy}`);
  assert.ok(pooled.classificationStatistics.averageAreaUnderRoc > 0.6);
  const list = (await http(`${s.url}/crossvalidation?dataset=${encodeURIComponent(dataset)}`, { accept: 'text/uri-list' })).text.trim();
  assert.equal(list, cv);
  assert.equal((await http(`${s.url}/validation/crossvalidation/${cv.split('/').pop()}/statistics`, { accept: 'application/json' })).status, 200, 'Ruby layout alias');

  // the folds' datasets, models and validations are part of the cross-validation: left out of the lists unless asked for
  const fold = parseTurtle((await http(local(folds[0]), { accept: 'text/turtle' })).text);
  const [foldModel] = valuesOf(fold, folds[0], `${OT}model`);
  const [foldTraining] = valuesOf(fold, folds[0], `${OT}trainingDataset`);
  const [foldPredictions] = valuesOf(fold, folds[0], `${OT}predictionDataset`);
  const PART_OF = 'http://purl.org/dc/terms/isPartOf';
  assert.deepEqual(valuesOf(fold, folds[0], PART_OF), [cv]);
  for (const part of [foldModel, foldTraining, foldPredictions]) {
    const graph = parseTurtle((await http(part.startsWith(`${s.base}/dataset/`) ? `${local(part)}/metadata` : local(part), { accept: 'text/turtle' })).text);
    assert.deepEqual(valuesOf(graph, part, PART_OF), [cv], `${part} is part of the cross-validation`);
  }
  // a fold's sets are selections of the dataset's rows: the entry numbers as runs in its metadata, no entries graph, the values the dataset's own
  const trainingMeta = parseTurtle((await http(`${local(foldTraining)}/metadata`, { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(trainingMeta, foldTraining, `${OT}rowsOf`), [dataset]);
  const [runs] = valuesOf(trainingMeta, foldTraining, `${OT}selectedRows`);
  assert.match(runs, /^\d+(-\d+)?( \d+(-\d+)?)*$/);
  const selected = runs.split(' ').flatMap((run) => {
    const [a, b = a] = run.split('-').map(Number);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
  const entries = await http(`${s.url}/graph-store?graph=${encodeURIComponent(`${foldTraining}/entries`)}`, { accept: 'text/turtle' });
  assert.equal(entries.status, 404, 'no entries graph');
  const sourceRows = (await csvOf(dataset)).slice(1);
  const fromFold = (await csvOf(foldTraining)).slice(1);
  assert.equal(fromFold.length, selected.length);
  fromFold.forEach((r, i) => assert.deepEqual(r, sourceRows[selected[i] - 1], `row ${i + 1} is the dataset's row ${selected[i]}, values and all`));
  const foldRows = fromFold.length;
  const asRdf = parseTurtle((await http(local(foldTraining), { accept: 'text/turtle' })).text);
  assert.equal(asRdf.filter((q) => q.predicate.value === `${OT}dataEntry`).length, foldRows, 'its RDF lists every row');
  // a new title keeps it a selection; new columns give it values of its own
  assert.equal((await http(`${local(foldTraining)}/metadata`, { method: 'PUT', body: form({ title: 'renamed fold' }) })).status, 200);
  assert.deepEqual((await csvOf(foldTraining)).slice(1), fromFold);
  const copy = await http(local(foldTraining), { method: 'PUT', body: form({ dataset_uri: raw }), accept: 'text/uri-list' });
  assert.equal(copy.status, 200, copy.text);
  const merged = parseTurtle((await http(`${local(foldTraining)}/metadata`, { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(merged, foldTraining, `${OT}rowsOf`), [], 'a rewritten selection holds its values');
  assert.deepEqual(valuesOf(merged, foldTraining, `${OT}selectedRows`), []);
  assert.equal((await csvOf(foldTraining)).length - 1, foldRows + (await csvOf(raw)).length - 1 - foldRows, 'the merge adds the rows it lacked');
  // the dataset a selection came from changes (a compound deleted: its rows are numbered again): the fold's test set keeps its rows and values
  const [foldTest] = valuesOf(fold, folds[0], `${OT}testDataset`);
  const testBefore = await csvOf(foldTest);
  const gone = (await http(`${local(dataset)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  assert.equal((await http(`${local(dataset)}?compound_uris[]=${encodeURIComponent(gone)}`, { method: 'DELETE' })).status, 200);
  assert.deepEqual(await csvOf(foldTest), testBefore);
  assert.deepEqual(valuesOf(parseTurtle((await http(`${local(foldTest)}/metadata`, { accept: 'text/turtle' })).text), foldTest, `${OT}rowsOf`), [], 'it holds its values now');

  const listed = async (path: string) => (await http(`${s.url}${path}`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  for (const [path, member] of [
    ['/dataset', foldTraining],
    ['/dataset', foldPredictions],
    ['/model', foldModel],
    ['/validation', folds[0]],
  ]) {
    assert.ok(!(await listed(path)).includes(member), `${member} is not in ${path}`);
    assert.ok((await listed(`${path}?intermediate=true`)).includes(member), `${member} is in ${path}?intermediate=true`);
  }
  assert.ok((await listed('/dataset')).includes(dataset), "the user's own datasets are listed");
  assert.ok((await listed(`/validation?model=${encodeURIComponent(foldModel)}`)).includes(folds[0]), 'a filtered list names what it is about');
  assert.equal((await http(`${s.url}/dataset?intermediate=maybe`, { accept: 'text/uri-list' })).status, 400);
  const page = (await http(`${s.url}/dataset`, { accept: 'text/html' })).text;
  assert.match(page, /href="\/dataset\?intermediate=true">List it too</);
  assert.ok(!page.includes(`"${foldTraining.replace(s.base, '')}"`), 'nor in the page');
  const picker = (await http(`${s.url}/algorithm/mlr`, { accept: 'text/html' })).text;
  assert.ok(!picker.includes(`value="${foldTraining}"`) && picker.includes(`value="${dataset}"`), "the forms' dataset choices leave them out");

  // for people: named by what it is, its statistics first, in words, each fold beside the mean
  const cvPage = (await http(local(cv), { accept: 'text/html' })).text;
  assert.match(cvPage, /<h1>5-fold cross-validation of Random forest classification on [^<]*Morgan[^<]*<\/h1>/);
  assert.ok(cvPage.indexOf('Classification statistics') < cvPage.indexOf('<section'), 'the statistics come before the triples');
  assert.match(cvPage, /AUC \(area under the ROC curve/);
  assert.equal((/<h2>Per fold<\/h2><table[\s\S]*?<\/table>/.exec(cvPage)?.[0].match(/<tr><td><a href="\/validation\/\d+">fold \d<\/a>/g) ?? []).length, 5);
  assert.match(cvPage, /<tr><th>mean<\/th><td>0\.\d+<\/td>/);
  assert.doesNotMatch(cvPage.slice(cvPage.indexOf('<main'), cvPage.indexOf('<section')), /\b(percentWithoutClass|numInstances|averageAreaUnderRoc)</, 'no raw statistic keys before the triples');
  assert.match((await http(local(folds[0]), { accept: 'text/html' })).text, /<h1>Fold 1 of the 5-fold cross-validation of Random forest classification on /);
  assert.match((await json(folds[0])).title, /^Fold \d of the 5-fold cross-validation of Random forest classification on /);
  assert.match((await http(`${local(cv)}/statistics`, { accept: 'text/html' })).text, /<h1>Pooled statistics of the 5-fold cross-validation of /);

  assert.equal((await http(local(cv), { method: 'DELETE' })).status, 200);
  assert.equal((await http(local(cv))).status, 404);
  assert.equal((await http(local(folds[0]))).status, 404);
  // and the work made inside it: never left hidden from the lists
  for (const part of [foldModel, foldPredictions, foldTest]) assert.equal((await http(local(part))).status, 404, `${part} went with it`);
});

test('leave-one-out, super stratification of a numeric target, and y-scrambling', notOnRemoteStores, async () => {
  const { dataset, target } = regression;
  const small = await upload(readFileSync('../shared/data/EPAFHM_log10.csv', 'utf8').trim().split('\n').slice(0, 13).join('\n'));
  const smallDescribed = await task('/algorithm/rdkit-descriptors', { dataset_uri: small });
  const smallTarget = (await features(small))[0];
  const loo = await task('/crossvalidation/loo', { dataset_uri: smallDescribed, algorithm_uri: RF(), prediction_feature: smallTarget, algorithm_params: 'numTrees=5' });
  assert.equal((await json(loo)).numFolds, 12);
  assert.equal((await http(`${local(loo)}/validations`, { accept: 'text/uri-list' })).text.trim().split('\r\n').length, 12);

  const params = { dataset_uri: dataset, algorithm_uri: RF(), prediction_feature: target, num_folds: '5', stratified: 'super', algorithm_params: 'numTrees=20' };
  const superCv = await task('/crossvalidation', params);
  const real = await json(`${superCv}/statistics`);
  // the spec's default (stratified=true) on a regression target works: stratified on the sorted target, and says so
  const { stratified: _explicit, ...byDefault } = params;
  const defaulted = await task('/crossvalidation', byDefault);
  const d = await json(defaulted);
  assert.equal(d.stratified, 'super');
  assert.match(String(d.description), /default.*regression target.*sorted target/);
  assert.deepEqual((await json(`${defaulted}/statistics`)).regressionStatistics, real.regressionStatistics);
  const scrambled = await task('/crossvalidation', { ...params, y_scramble: 'true', y_scramble_seed: '3' });
  const s2 = await json(`${scrambled}/statistics`);
  assert.equal((await json(scrambled)).yScramble, true);
  assert.ok(real.regressionStatistics.q2 > 0.3, `Q² ${real.regressionStatistics.q2}`);
  assert.ok(s2.regressionStatistics.q2 < real.regressionStatistics.q2 - 0.2, `scrambled Q² ${s2.regressionStatistics.q2} vs ${real.regressionStatistics.q2}`);
});

test('validation errors: 400 naming the parameter, 404 for unknown resources', async () => {
  const { dataset, target } = regression;
  const base = { dataset_uri: dataset, algorithm_uri: RF(), prediction_feature: target };
  const cases: [string, Record<string, string>, number, RegExp][] = [
    ['/crossvalidation', { ...base, algorithm_uri: '' }, 400, /algorithm_uri/],
    ['/crossvalidation', { ...base, prediction_feature: '' }, 400, /prediction_feature/],
    ['/crossvalidation', { ...base, stratified: 'false', num_folds: '1' }, 400, /num_folds/],
    ['/crossvalidation', { ...base, stratified: 'false', num_folds: '1000' }, 400, /num_folds.*larger/],
    ['/crossvalidation', { ...base, stratified: 'maybe' }, 400, /stratified/],
    ['/crossvalidation', { ...base, stratified: 'true' }, 400, /stratified=true.*regression/],
    ['/crossvalidation', { ...base, stratified: 'false', algorithm_params: 'numTrees=0' }, 400, /algorithm_params.*numTrees/],
    ['/crossvalidation', { ...base, stratified: 'false', algorithm_params: 'colour=red' }, 400, /algorithm_params.*colour/],
    ['/crossvalidation', { ...base, algorithm_uri: `${s.base}/algorithm/nothing` }, 404, /algorithm/],
    ['/crossvalidation', { ...base, algorithm_uri: `${s.base}/algorithm/rdkit-descriptors` }, 400, /not a supervised/],
    ['/crossvalidation', { ...base, dataset_uri: `${s.base}/dataset/99999` }, 404, /dataset/],
    ['/validation/training_test_split', { ...base, split_ratio: '1.5' }, 400, /split_ratio/],
    ['/validation/training_test_split', { ...base, split_ratio: '0' }, 400, /split_ratio/],
    ['/validation/training_test_split', { ...base, y_scramble: 'perhaps' }, 400, /y_scramble/],
    ['/validation/bootstrapping', { ...base, random_seed: 'x' }, 400, /random_seed/],
    ['/validation/test_set_validation', { test_dataset_uri: dataset }, 400, /model_uri/],
    ['/validation/test_set_validation', { model_uri: `${s.base}/model/99999`, test_dataset_uri: dataset }, 404, /model/],
    ['/validation/validate_datasets', { test_dataset_uri: dataset, prediction_feature: target, prediction_dataset_uri: dataset }, 400, /predicted_feature/],
  ];
  const before = await resourceLists(s);
  for (const [path, p, status, message] of cases) {
    const r = await http(`${s.url}${path}`, { method: 'POST', body: form(p), accept: 'text/turtle' });
    assert.equal(r.status, status, `${path} ${JSON.stringify(p)}: ${r.text.slice(0, 300)}`);
    assert.match((await errorReport(r)).message ?? '', message, `${path} ${JSON.stringify(p)}`);
  }
  assert.equal(await resourceLists(s), before, 'refused requests write nothing');
  assert.equal((await http(`${s.url}/validation/99999`)).status, 404);
  assert.equal((await http(`${s.url}/crossvalidation/99999`)).status, 404);
  assert.equal((await http(`${s.url}/validation?model=${encodeURIComponent('x> } DROP ALL {')}`, { accept: 'text/uri-list' })).status, 400);
});

test('splits and folds keep every row of one structure on one side, and say how many rows and structures each side holds', notOnRemoteStores, async () => {
  // 24 structures, 12 of them twice (a duplicate row has its own value, as repeated measurements do)
  const lines = ['SMILES,y,x'];
  for (let i = 0; i < 24; i++) {
    lines.push(`${alkane(i)},${i * 0.5},${i}`);
    if (i % 2 === 0) lines.push(`${alkane(i)},${i * 0.5 + 0.1},${i}`);
  }
  const dataset = await upload(`${lines.join('\n')}\n`);
  const [target] = await features(dataset);
  const compoundsOf = async (d: string) => (await http(`${local(d)}/compounds`, { accept: 'text/uri-list' })).text.trim().split(/\r?\n/).filter(Boolean);
  const checkSides = async (v: Record<string, unknown>) => {
    const training = await compoundsOf(String(v.trainingDataset));
    const test = await compoundsOf(String(v.testDataset));
    const shared = training.filter((c) => test.includes(c));
    assert.deepEqual(shared, [], `structures on both sides of ${v.validationType}`);
    assert.equal(v.numTrainingStructures, new Set(training).size);
    assert.equal(v.numTestStructures, new Set(test).size);
    assert.equal(Number(v.numTrainingRows) + Number(v.numTestRows) >= 36, true);
    return { training, test };
  };
  const base = { dataset_uri: dataset, algorithm_uri: `${s.base}/algorithm/mlr`, prediction_feature: target };
  for (const seed of ['1', '2', '3']) {
    const split = await json(await task('/validation/training_test_split', { ...base, split_ratio: '0.9', random_seed: seed }));
    const { training, test } = await checkSides(split);
    assert.equal(Number(split.numTrainingRows) + Number(split.numTestRows), 36);
    assert.equal(new Set([...training, ...test]).size, 24);
    assert.ok(Math.abs(Number(split.numTrainingRows) - 32) <= 1, `training rows ${split.numTrainingRows}`);
  }
  await checkSides(await json(await task('/validation/bootstrapping', { ...base, random_seed: '4' })));
  for (const stratified of ['false', 'super']) {
    const cv = await task('/crossvalidation', { ...base, num_folds: '4', stratified });
    const folds = (await json(cv)).validation as string[];
    assert.equal(folds.length, 4);
    const testRows: number[] = [];
    for (const f of folds) {
      const fold = await json(f);
      await checkSides(fold);
      testRows.push(Number(fold.numTestRows));
    }
    assert.equal(
      testRows.reduce((a, b) => a + b, 0),
      36,
    );
    assert.ok(Math.max(...testRows) - Math.min(...testRows) <= 2, `fold sizes ${testRows}`);
  }
  // leave one structure out: one fold per structure
  const loo = await json(await task('/crossvalidation/loo', base));
  assert.equal(loo.numFolds, 24, JSON.stringify(loo).slice(0, 1500));
});
