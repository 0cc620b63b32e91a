import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedCsv, startTestServer, http, form, parseTurtle, errorReport, OT, waitForTask, valuesOf, checkRdfXml, type TestServer } from '../helpers.ts';

let s: TestServer;
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const DTD = new URL('../../../shared/qmrf/qmrf.dtd', import.meta.url).pathname;
const hasXmllint = spawnSync('xmllint', ['--version'], { stdio: 'ignore' }).error === undefined;
const OTEE = 'http://www.opentox.org/echaEndpoints.owl#';
const DOCBOOK_RNG = '/usr/share/xml/docbook/schema/rng/5.0/docbook.rng';
const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** xmllint's verdict on a document against the shared qmrf.dtd (independent of our own checks). */
function dtdErrors(xml: string): string {
  if (!hasXmllint) return '';
  const dir = mkdtempSync(join(tmpdir(), 'toxgraph-qmrf-'));
  try {
    const file = join(dir, 'qmrf.xml');
    writeFileSync(file, xml);
    const r = spawnSync('xmllint', ['--noout', '--nonet', '--dtdvalid', DTD, file], { encoding: 'utf8' });
    return r.status === 0
      ? ''
      : r.stderr
          .split('\n')
          .filter((l) => !l.includes('failed to load external entity') && !/^\s*\^?\s*$/.test(l) && !l.startsWith('<!DOCTYPE'))
          .join('\n') || `xmllint exit ${r.status}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function run(url: string, params: Record<string, string | string[]>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  if (r.status === 200) return r.text.trim();
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

const fixture = { dataset: '', external: '', target: '', model: '', cv: '', loo: '', scrambled: '', test: '', forest: '', compound: '' };

before(async () => {
  s = await startTestServer();
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: sharedCsv('EPAFHM_log10.csv', 80), contentType: 'text/csv', accept: 'text/uri-list' });
  const raw = up.text.trim();
  fixture.target = (await http(`${local(raw)}/features`, { accept: 'text/uri-list' })).text.trim();
  // the endpoint of the target: fish acute toxicity
  const put = await http(local(fixture.target), {
    method: 'PUT',
    contentType: 'text/turtle',
    body: `<${fixture.target}> a <${OT}Feature>, <${OT}NumericFeature> ; <http://purl.org/dc/elements/1.1/title> "-log10(LC50_mmol)" ; <${OT}units> "-log10(mmol/L)" ; <http://www.w3.org/2002/07/owl#sameAs> <${OTEE}Acute_toxicity_to_fish_lethality> .`,
  });
  assert.equal(put.status, 200, put.text);
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: raw, descriptors: 'tpsa,exactmw,CrippenClogP,NumHBD' });
  // the first 60 structures train, the other 20 are the external validation set
  const compounds = (await http(`${local(described)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const subset = async (part: string[]) => run(`${s.base}/dataset`, { dataset_uri: described, 'compound_uris[]': part });
  fixture.dataset = await subset(compounds.slice(0, 60));
  fixture.external = await subset(compounds.slice(60));
  fixture.model = await run(`${s.base}/algorithm/mlr`, { dataset_uri: fixture.dataset, prediction_feature: fixture.target });
  const cv = (extra: Record<string, string>, path = '/crossvalidation') =>
    run(`${s.base}${path}`, { dataset_uri: fixture.dataset, algorithm_uri: `${s.base}/algorithm/mlr`, prediction_feature: fixture.target, num_folds: '5', ...extra });
  fixture.cv = await cv({});
  fixture.loo = await cv({}, '/crossvalidation/loo');
  fixture.scrambled = await cv({ y_scramble: 'true', y_scramble_seed: '3' });
  fixture.test = await run(`${s.base}/validation/test_set_validation`, { model_uri: fixture.model, test_dataset_uri: fixture.external, prediction_feature: fixture.target });
  const forest = await run(`${s.base}/algorithm/random-forest-regression`, { dataset_uri: fixture.dataset, prediction_feature: fixture.target });
  fixture.forest = await run(`${s.base}/validation/test_set_validation`, { model_uri: forest, test_dataset_uri: fixture.external, prediction_feature: fixture.target });
  fixture.compound = (await http(`${local(fixture.dataset)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[3];
});

/** The QAF model checklist of a QMRF as its RDF states it: question → verdict. */
async function checklist(report: string): Promise<Map<string, string>> {
  const rdf = parseTurtle((await http(local(report), { accept: 'text/turtle' })).text);
  return new Map(valuesOf(rdf, report, `${OT}qafChecklistElement`).map((n) => [valuesOf(rdf, n, `${OT}qafQuestion`)[0], valuesOf(rdf, n, `${OT}qafVerdict`)[0]]));
}

const regression = async (uri: string) => JSON.parse((await http(local(uri), { accept: 'application/json' })).text).regressionStatistics;
const four = (v: number) => Number(v.toPrecision(4)).toString();
const element = (xml: string, name: string) => new RegExp(`<${name}[^>]*>([^<]*)</${name}>`).exec(xml)?.[1] ?? '';

test('a QMRF made from a model is valid against qmrf.dtd and states what the service knows: endpoint, algorithm, descriptors, fit, validations', async () => {
  const report = await run(`${s.base}/reach_report/qmrf`, { model_uri: fixture.model });
  assert.match(report, new RegExp(`^${s.base}/reach_report/qmrf/\\d+$`));
  const xml = (await http(local(report), { accept: 'application/qmrf-xml' })).text;
  assert.equal(dtdErrors(xml), '', 'xmllint --dtdvalid qmrf.dtd');
  assert.match(element(xml, 'QSAR_title'), /^Multiple linear regression of -log10\(LC50_mmol\) on /);
  assert.equal(element(xml, 'endpoint_units'), '-log10(mmol/L)');
  assert.match(xml, new RegExp(`<endpoint id="endpoint_1" name="[^"]+"[^>]*ontology_term="${OTEE}Acute_toxicity_to_fish_lethality"`));
  assert.match(element(xml, 'equation'), /^-log10\(LC50_mmol\) = -?[\d.]+ [+−] [\d.]+·tpsa/);
  assert.equal((xml.match(/<descriptor id=/g) ?? []).length, 4);
  assert.equal(element(xml, 'descriptors_chemicals_ratio'), '60 chemicals / 4 descriptors = 15');
  // goodness of fit: the model's predictions of its training set, as the validation service scores them
  const fitted = await regression(await run(`${s.base}/validation/test_set_validation`, { model_uri: fixture.model, test_dataset_uri: fixture.dataset, prediction_feature: fixture.target }));
  assert.match(element(xml, 'goodness_of_fit'), new RegExp(`R² = ${four(fitted.rSquare)} \\(mean predictor: 0\\), RMSE = ${four(fitted.rootMeanSquaredError)} \\(mean predictor: [\\d.]+\\)`));
  const pooled = await regression(`${fixture.cv}/statistics`);
  assert.ok(element(xml, 'lmo').includes(`${fixture.cv}: R² = ${four(pooled.rSquare)}`), 'the 5-fold cross-validation');
  assert.ok(element(xml, 'loo').includes(fixture.loo));
  assert.ok(element(xml, 'yscrambling').includes(fixture.scrambled));
  assert.ok(!element(xml, 'lmo').includes(fixture.scrambled), 'y-scrambling is not robustness');
  const external = await regression(fixture.test);
  assert.ok(element(xml, 'validation_predictivity').includes(`${fixture.test}: R² = ${four(external.rSquare)}`));
  assert.match(xml, /<validation_set_availability[^>]*answer="Yes"/);
  assert.match(xml, /<training_set_availability[^>]*answer="Yes"/);
  assert.match(element(xml, 'app_domain_description'), /^Euclidean distance to the k nearest training compounds on 4 features/, 'the domain every model carries by default');

  // the RDF of spec 2.8: a QMRFReport about the model, authors in a container
  const rdf = parseTurtle((await http(local(report), { accept: 'text/turtle' })).text);
  assert.ok(valuesOf(rdf, report, `${RDF_NS}type`).includes(`${OT}QMRFReport`));
  assert.deepEqual(valuesOf(rdf, report, `${OT}reportModel`), [fixture.model]);
  assert.deepEqual(valuesOf(rdf, report, `${OT}reportEndpoint`), [`${OTEE}Acute_toxicity_to_fish_lethality`]);
  const [authors] = valuesOf(rdf, report, `${OT}authors`);
  assert.ok(valuesOf(rdf, authors, `${RDF_NS}type`).includes(`${RDF_NS}Seq`));
  const [first] = valuesOf(rdf, authors, `${RDF_NS}_1`);
  assert.ok(valuesOf(rdf, first, `${RDF_NS}type`).includes(`${OT}Author`));

  // the OECD QAF model checklist, judged from the document
  const qaf = await checklist(report);
  assert.equal(qaf.get('Is the endpoint identified (a term of an endpoint catalogue)?'), 'met');
  assert.equal(qaf.get('Is the applicability domain defined?'), 'met');
  assert.equal(qaf.get('Is the goodness of fit reported?'), 'met');
  assert.equal(qaf.get('Is chance correlation excluded (y-scrambling)?'), 'met');
  assert.equal(qaf.get('Is the predictivity shown on an external validation set?'), 'met');
  assert.equal(qaf.get('Is a mechanistic interpretation given?'), 'not known');

  // the QMRF's RDF as RDF/XML, read by an independent parser too
  const qmrfRdf = await http(local(report), { accept: 'application/rdf+xml' });
  assert.equal(qmrfRdf.headers.get('content-type'), 'application/rdf+xml');
  await checkRdfXml(qmrfRdf.text);

  // the same document in the other formats
  const pdf = Buffer.from(await (await fetch(local(report), { headers: { accept: 'application/pdf' } })).arrayBuffer());
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  const xlsx = await fetch(local(report), { headers: { accept: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' } });
  assert.equal(xlsx.status, 200);
  assert.equal(
    Buffer.from(await xlsx.arrayBuffer())
      .subarray(0, 2)
      .toString(),
    'PK',
    'an XLSX is a zip',
  );
  const html = (await http(local(report), { accept: 'text/html' })).text;
  assert.ok(html.includes('<form method="post"') && html.includes('name="model_species"'), 'the HTML view is also an editing form');
  assert.ok(html.includes('OECD QSAR Assessment Framework: model checklist'));
  const editor = await http(`${local(report)}/editor`, {});
  assert.equal(editor.headers.get('content-type'), 'application/x-java-jnlp-file');
  assert.ok(editor.text.includes(`${report}?media=`));
});

test('a supermodel’s QMRF states its learner, its applicability domain and its limits', async () => {
  const raw = (await http(`${s.url}/dataset`, { method: 'POST', body: sharedCsv('EPAFHM_log10.csv', 60), contentType: 'text/csv', accept: 'text/uri-list' })).text.trim();
  const target = (await http(`${local(raw)}/features`, { accept: 'text/uri-list' })).text.trim();
  const supermodel = await run(`${s.base}/algorithm/superalgorithm`, {
    dataset_uri: raw,
    prediction_feature: target,
    feature_calculation: 'rdkit-descriptors',
    model_learning: 'mlr',
    applicability_domain: 'ad-leverage',
    parameter: 'rdkit-descriptors descriptors tpsa,exactmw,CrippenClogP,NumHBD',
  });
  const report = await run(`${s.base}/reach_report/qmrf`, { model_uri: supermodel });
  const xml = (await http(local(report), { accept: 'application/qmrf-xml' })).text;
  assert.equal(dtdErrors(xml), '');
  assert.match(element(xml, 'algorithm_type'), /Multiple linear regression \(in a supermodel\)/);
  assert.match(element(xml, 'app_domain_description'), /Leverage/);
  // h* = 3p′/n with p′ = 4 descriptors + 1 and n = 60
  assert.match(element(xml, 'applicability_limits'), /h\* = 3p′\/n = 0\.25 \(n = 60\)/);
  assert.match(xml, /<software id="software_rdkit" name="RDKit \(RDKit.js\)"/);
  const qaf = await checklist(report);
  assert.equal(qaf.get('Is the applicability domain defined?'), 'met');
  assert.equal(qaf.get('Are the limits of the applicability domain stated?'), 'met');
  assert.equal(qaf.get('Is the endpoint identified (a term of an endpoint catalogue)?'), 'not met', 'this target has no owl:sameAs');
  // QPRFs of its predictions: the applicability-domain verdict of the linked AD model
  const verdict = async (smiles: string) => {
    const compound = (await http(`${s.url}/compound`, { method: 'POST', body: smiles, contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
    const qprf = await run(`${s.base}/reach_report/qprf`, { model_uri: supermodel, compound_uri: compound });
    return (await checklist(qprf)).get('Is the substance inside the model’s applicability domain?');
  };
  assert.equal(await verdict('CCCCCCCCO'), 'met', 'octanol is like the training set');
  assert.equal(await verdict('C'.repeat(40)), 'not met', 'a C40 chain is not');
});

test('QMRF XML: a valid document is stored as it is; an invalid one answers 400 with its errors and stores nothing', async () => {
  const report = await run(`${s.base}/reach_report/qmrf`, { model_uri: fixture.model });
  const xml = (await http(local(report), { accept: 'application/qmrf-xml' })).text;
  const before = (await http(`${s.url}/reach_report/qmrf`, { accept: 'text/uri-list' })).text.trim().split('\r\n').length;
  const posted = await http(`${s.url}/reach_report/qmrf`, {
    method: 'POST',
    body: xml.replace(/<QSAR_title([^>]*)>[^<]*</, '<QSAR_title$1>A fish toxicity model<'),
    contentType: 'application/qmrf-xml',
    accept: 'text/uri-list',
  });
  assert.equal(posted.status, 200, posted.text);
  const copy = posted.text.trim();
  assert.equal(element((await http(local(copy), { accept: 'application/qmrf-xml' })).text, 'QSAR_title'), 'A fish toxicity model');
  for (const [bad, pattern] of [
    [xml.replace('<QSAR_models', '<QSAR_modelz').replace('</QSAR_models>', '</QSAR_modelz>'), /QSAR_modelz/],
    [xml.replace(/answer="Yes"/, 'answer="Perhaps"'), /Perhaps/],
    [xml.replace('idref="author_1"', 'idref="nobody"'), /IDREF nobody/],
    [xml.replace('</QMRF_chapters>', ''), /well-formed|QMRF_chapters/],
    ['<html/>', /root element/],
  ] as [string, RegExp][]) {
    const r = await http(`${s.url}/reach_report/qmrf`, { method: 'POST', body: bad, contentType: 'application/qmrf-xml', accept: 'text/turtle' });
    assert.equal(r.status, 400, bad.slice(0, 80));
    assert.match((await errorReport(r)).message ?? '', pattern);
  }
  assert.equal((await http(`${s.url}/reach_report/qmrf`, { accept: 'text/uri-list' })).text.trim().split('\r\n').length, before + 1, 'only the valid one was stored');
  // replacing a report's XML
  const replaced = await http(local(copy), { method: 'POST', body: xml, contentType: 'application/qmrf-xml', accept: 'text/uri-list' });
  assert.equal(replaced.status, 200);
  assert.match(element((await http(local(copy), { accept: 'application/qmrf-xml' })).text, 'QSAR_title'), /^Multiple linear regression of /);
  assert.equal((await http(local(copy), { method: 'POST', body: '<QMRF/>', contentType: 'application/qmrf-xml', accept: 'text/turtle' })).status, 400);
});

test('section updates by form: text and answers of single elements, validation_uri attachments of the same model; the document stays valid', async () => {
  const report = await run(`${s.base}/reach_report/qmrf`, { model_uri: fixture.model });
  const update = async (params: Record<string, string>) => http(local(report), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  const ok = await update({ model_species: 'Pimephales promelas (fathead minnow)', 'training_set_data@cas': 'Yes', mechanistic_basis: 'Narcosis: a baseline toxicity driven by log P' });
  assert.equal(ok.status, 200, ok.text);
  const xml = (await http(local(report), { accept: 'application/qmrf-xml' })).text;
  assert.equal(element(xml, 'model_species'), 'Pimephales promelas (fathead minnow)');
  assert.match(xml, /<training_set_data[^>]*cas="Yes"/);
  assert.equal(dtdErrors(xml), '');
  assert.equal((await checklist(report)).get('Is a mechanistic interpretation given?'), 'met', 'the checklist follows the edit');
  for (const [params, pattern] of [
    [{ 'training_set_data@cas': 'Maybe' }, /Maybe/],
    [{ no_such_element: 'x' }, /no_such_element/],
    [{ QSAR_software: 'x' }, /holds elements/],
    [{ 'QSAR_title@chapter': '9' }, /chapter/],
    [{ validation_uri: fixture.forest }, /another model/],
    [{ validation_uri: `${s.base}/validation/999999` }, /not found/],
  ] as [Record<string, string>, RegExp][]) {
    const r = await http(local(report), { method: 'POST', body: form(params), accept: 'text/turtle' });
    assert.ok(r.status === 400 || r.status === 404, `${JSON.stringify(params)}: ${r.status}`);
    assert.match((await errorReport(r)).message ?? '', pattern);
  }
  // a split validation of the same algorithm on a sample of the training set is the model's
  const split = await run(`${s.base}/validation/training_test_split`, {
    dataset_uri: fixture.dataset,
    algorithm_uri: `${s.base}/algorithm/mlr`,
    prediction_feature: fixture.target,
    split_ratio: '0.8',
    random_seed: '5',
  });
  assert.equal((await update({ validation_uri: split })).status, 200);
  const after = (await http(local(report), { accept: 'application/qmrf-xml' })).text;
  assert.ok(element(after, 'validation_predictivity').includes(split));
  const rdf = parseTurtle((await http(local(report), { accept: 'text/turtle' })).text);
  assert.ok(valuesOf(rdf, report, `${OT}reportValidation`).includes(split));
  // the editing form of a browser is answered with the report again
  const browser = await http(local(report), { method: 'POST', body: form({ endpoint_protocol: 'OECD TG 203' }), accept: 'text/html', redirect: 'manual' });
  assert.equal(browser.status, 303);
  assert.equal(browser.headers.get('location'), report.replace(s.base, ''));
});

test('QMRF search by model, algorithm, dataset, compound, endpoint and text; DELETE', async () => {
  const report = await run(`${s.base}/reach_report/qmrf`, { model_uri: fixture.model });
  await http(local(report), { method: 'POST', body: form({ summary_comments: 'zebrafish-free screening' }), accept: 'text/uri-list' });
  const search = async (q: Record<string, string>) =>
    (await http(`${s.url}/reach_report/qmrf?${new URLSearchParams(q)}`, { accept: 'text/uri-list' })).text
      .trim()
      .split('\r\n')
      .filter((u) => u);
  assert.ok((await search({ model_uri: fixture.model })).includes(report));
  assert.ok((await search({ algorithm_uri: `${s.base}/algorithm/mlr` })).includes(report));
  assert.deepEqual(await search({ algorithm_uri: `${s.base}/algorithm/svr` }), []);
  assert.ok((await search({ dataset_uri: fixture.dataset })).includes(report));
  assert.ok((await search({ compound_uri: fixture.compound })).includes(report));
  const other = (await http(`${s.url}/compound`, { method: 'POST', body: 'CC(C)(C)C(C)(C)C(C)(C)C', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  assert.deepEqual(await search({ compound_uri: other }), []);
  assert.ok((await search({ endpoint_uri: `${OTEE}Acute_toxicity_to_fish_lethality` })).includes(report));
  assert.deepEqual(await search({ search: 'zebrafish-free screening' }), [report]);
  assert.equal((await http(local(report), { method: 'DELETE' })).status, 200);
  assert.equal((await http(local(report), { accept: 'application/qmrf-xml' })).status, 404);
  assert.equal((await http(`${s.url}/reach_report/qmrf`, { method: 'POST', body: form({ model_uri: `${s.base}/model/999999` }), accept: 'text/turtle' })).status, 404);
});

test('a QPRF for one prediction: the prediction as the model makes it, the nearest training compounds as the similarity search ranks them, the QAF prediction checklist', async () => {
  const compounds = (await http(`${local(fixture.external)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const compound = compounds[2];
  const report = await run(`${s.base}/reach_report/qprf`, { model_uri: fixture.model, compound_uri: compound });
  assert.match(report, new RegExp(`^${s.base}/reach_report/qprf/\\d+$`));
  const rdf = parseTurtle((await http(local(report), { accept: 'text/turtle' })).text);
  assert.ok(valuesOf(rdf, report, `${RDF_NS}type`).includes(`${OT}QPRFReport`));
  assert.deepEqual(valuesOf(rdf, report, `${OT}reportModel`), [fixture.model]);
  assert.deepEqual(valuesOf(rdf, report, `${OT}reportCompound`), [compound]);
  await checkRdfXml((await http(local(report), { accept: 'application/rdf+xml' })).text);
  // the same prediction as the model answers for the compound
  const direct = await http(local(fixture.model), { method: 'POST', body: form({ compound_uri: compound }), accept: 'text/csv' });
  const value = Number(direct.text.trim().split('\n')[1].split(',')[1]);
  assert.ok(Math.abs(Number(valuesOf(rdf, report, `${OT}predictedValue`)[0]) - value) < 1e-9);
  // the nearest training compound is the best hit of the service's own similarity search among the training set
  const docbook = (await http(local(report), { accept: 'text/xml' })).text;
  const training = new Set((await http(`${local(fixture.dataset)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n'));
  const smiles = /<varlistentry><term>SMILES<\/term><listitem><para>([^<]+)</.exec(docbook)![1];
  const hits = (await http(`${s.url}/compound?similarity=${encodeURIComponent(smiles)}&threshold=0.01`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const best = hits.find((h) => training.has(h));
  const [, first] = /<row><entry>1<\/entry><entry><link xlink:href="([^"]+)"/.exec(docbook) ?? [];
  assert.equal(first, best);
  assert.equal((docbook.match(/<row><entry>\d<\/entry><entry><link/g) ?? []).length, 5, 'five nearest training compounds');
  if (existsSync(DOCBOOK_RNG) && hasXmllint) assert.equal(spawnSync('xmllint', ['--noout', '--relaxng', DOCBOOK_RNG, '-'], { input: docbook }).status, 0, 'valid DocBook 5');
  // the QAF prediction checklist
  const qaf = await checklist(report);
  assert.equal(qaf.get('Is the substance’s structure correct and unambiguous?'), 'met');
  assert.equal(qaf.get('Is the substance inside the model’s applicability domain?'), 'met', 'the model carries an applicability domain (by default), and the substance is inside it');
  assert.equal(qaf.get('Is the confidence of the prediction stated?'), 'met');
  assert.equal(qaf.get('Is the prediction adequate for the regulatory purpose?'), 'not known');
  const pdf = Buffer.from(await (await fetch(local(report), { headers: { accept: 'application/pdf' } })).arrayBuffer());
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  assert.ok((await http(local(report), { accept: 'text/html' })).text.includes('prediction checklist'));
  assert.ok((await http(`${s.url}/reach_report/qprf?model_uri=${encodeURIComponent(fixture.model)}`, { accept: 'text/uri-list' })).text.includes(report));

  // from a row of a prediction dataset: that row's prediction
  const predictions = await run(fixture.model, { dataset_uri: fixture.external });
  const fromRow = await run(`${s.base}/reach_report/qprf`, { dataset_uri: predictions, compound_uri: compound });
  const rowRdf = parseTurtle((await http(local(fromRow), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(rowRdf, fromRow, `${OT}reportDataset`), [predictions]);
  assert.ok(Math.abs(Number(valuesOf(rowRdf, fromRow, `${OT}predictedValue`)[0]) - value) < 1e-9);

  const expect = async (params: Record<string, string>, status: number, pattern: RegExp) => {
    const r = await http(`${s.url}/reach_report/qprf`, { method: 'POST', body: form(params), accept: 'text/turtle' });
    assert.equal(r.status, status, JSON.stringify(params));
    assert.match((await errorReport(r)).message ?? '', pattern);
  };
  await expect({ model_uri: fixture.model }, 400, /compound_uri/);
  await expect({ compound_uri: compound }, 400, /model_uri/);
  await expect({ model_uri: `${s.base}/model/999999`, compound_uri: compound }, 404, /model_uri/);
  await expect({ model_uri: fixture.model, compound_uri: `${s.base}/compound/999999` }, 404, /compound_uri/);
  await expect({ dataset_uri: fixture.dataset, compound_uri: compound }, 400, /not a prediction dataset/);
  assert.equal((await http(local(report), { method: 'DELETE' })).status, 200);
  assert.equal((await http(local(report), { accept: 'text/turtle' })).status, 404);
});

test('the species and test guideline given with an upload reach QMRF 3.1 and 3.6', async () => {
  const csv = 'SMILES,EC50,logP\nCCCCCCCCO,1.5,3.0\nCC(C)CO,2.25,0.8\nCCCCO,2.0,0.9\nCCO,3.1,-0.3\nCCCCCO,1.9,1.5\n';
  const query = new URLSearchParams({ endpoint_column: '1', species: 'Daphnia magna', guideline: 'OECD TG 202', endpoint: `${OTEE}Acute_toxicity_to_daphnia` });
  const up = await http(`${s.url}/dataset?${query}`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  const dataset = up.text.trim();
  const [ec50, logP] = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  // the model learns from descriptors calculated here (so that any structure can be predicted), not from the table's logP
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: dataset, descriptors: 'tpsa' });
  const features = (await http(`${local(described)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const model = await run(`${s.base}/algorithm/mlr`, {
    dataset_uri: `${described}?${features
      .filter((f) => f !== logP)
      .map((f) => `feature_uris[]=${encodeURIComponent(f)}`)
      .join('&')}`,
    prediction_feature: ec50,
  });
  const report = await run(`${s.base}/reach_report/qmrf`, { model_uri: model });
  const xml = (await http(local(report), { accept: 'application/qmrf-xml' })).text;
  assert.equal(dtdErrors(xml), '');
  assert.equal(element(xml, 'model_species'), 'Daphnia magna');
  assert.equal(element(xml, 'endpoint_protocol'), 'OECD TG 202');
  assert.equal(element(xml, 'descriptors_selection'), 'The 1 numeric feature of the training dataset chosen for the model.', 'no fingerprints named where there are none');
  assert.ok(ec50);
  assert.match(xml, new RegExp(`ontology_term="${OTEE}Acute_toxicity_to_daphnia"`));
  // and the QPRF of a prediction: the endpoint with its species and guideline, what the confidence means
  const compound = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  const qprf = await run(`${s.base}/reach_report/qprf`, { model_uri: model, compound_uri: compound });
  const docbook = (await http(local(qprf), { accept: 'application/docbook+xml' })).text;
  assert.match(docbook, /<term>Species<\/term><listitem><para>Daphnia magna</);
  assert.match(docbook, /<term>Test guideline<\/term><listitem><para>OECD TG 202</);
  assert.match(docbook, /<term>Endpoint<\/term><listitem><para>EC50/);
  assert.match(docbook, /<term>Confidence<\/term><listitem><para>[\d.]+ \(/);
});
