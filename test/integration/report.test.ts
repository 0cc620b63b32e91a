import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jstat from 'jstat';
import { sharedCsv, startTestServer, http, form, parseTurtle, errorReport, OT, waitForTask, valuesOf, checkRdfXml, type TestServer } from '../helpers.ts';

let s: TestServer;
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const DC = 'http://purl.org/dc/elements/1.1/';

/** The DocBook 5 RELAX NG schema of Debian's docbook5-xml, and poppler's PDF tools: the independent readers of a report. */
const DOCBOOK_RNG = '/usr/share/xml/docbook/schema/rng/5.0/docbook.rng';
const hasTool = (name: string) => spawnSync(name, ['-v'], { stdio: 'ignore' }).error === undefined;
const CHECKERS_NOTE = 'docbook5-xml, libxml2-utils or poppler-utils (Debian) is not installed; .ci/run installs them';
const canCheck = existsSync(DOCBOOK_RNG) && hasTool('xmllint') && hasTool('pdftotext') && hasTool('pdftoppm');

/** POST form parameters; follow a task when the answer is 202. */
async function run(url: string, params: Record<string, string>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  if (r.status === 200) return r.text.trim();
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

async function upload(csv: string): Promise<{ dataset: string; target: string }> {
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  const dataset = up.text.trim();
  return { dataset, target: (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim() };
}

const DESCRIPTORS = 'tpsa,exactmw,CrippenClogP,NumHBD,NumHBA,NumRotatableBonds,NumAromaticRings';

/** Regression: 60 fathead minnow structures with descriptors, cross-validated twice on the same folds. */
const regression = { dataset: '', target: '', mlr: '', forest: '' };
/** Classification: every 25th Kazius structure with descriptors, cross-validated with logistic regression. */
const classification = { dataset: '', target: '', cv: '' };

async function crossvalidate(dataset: string, target: string, algorithm: string): Promise<string> {
  return run(`${s.base}/crossvalidation`, { dataset_uri: dataset, algorithm_uri: `${s.base}/algorithm/${algorithm}`, prediction_feature: target, num_folds: '5', random_seed: '2' });
}

before(async () => {
  // graph store writes: a copy of another service's validation is written as it would be harvested
  s = await startTestServer(['--sparql-update']);
  const minnows = await upload(sharedCsv('EPAFHM_log10.csv', 60));
  regression.target = minnows.target;
  regression.dataset = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: minnows.dataset, descriptors: DESCRIPTORS });
  regression.mlr = await crossvalidate(regression.dataset, regression.target, 'mlr');
  regression.forest = await crossvalidate(regression.dataset, regression.target, 'random-forest-regression');
  const kazius = await upload(sharedCsv('kazius.csv', 1000, 25));
  classification.target = kazius.target;
  classification.dataset = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: kazius.dataset, descriptors: DESCRIPTORS });
  classification.cv = await crossvalidate(classification.dataset, classification.target, 'logistic-regression');
});

const folds = async (cv: string) => (await http(`${local(cv)}/validations`, { accept: 'text/uri-list' })).text.trim().split('\r\n');

/** A statistic of a validation (or of a cross-validation's pooled statistics) as the service states it. */
async function statistic(validationUrl: string, name: string): Promise<number> {
  const tree = JSON.parse((await http(validationUrl, { accept: 'application/json' })).text);
  const node = tree.regressionStatistics ?? tree.classificationStatistics;
  return Number(node[name]);
}

const four = (v: number) => Number(v.toPrecision(4)).toString();

/** Text of a PDF as poppler reads it, and the number of its pages rendered that are not blank. */
function readPdf(pdf: Buffer): { text: string; pages: number; inkedPages: number } {
  const dir = mkdtempSync(join(tmpdir(), 'toxgraph-pdf-'));
  try {
    const file = join(dir, 'report.pdf');
    writeFileSync(file, pdf);
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    execFileSync('pdftoppm', ['-r', '20', '-gray', file, join(dir, 'page')]);
    const pages = readdirSync(dir).filter((f) => f.startsWith('page'));
    // a page is inked when some pixel is not near white (binary PGM: three header lines, then one byte per pixel)
    const inked = pages.filter((p) => {
      const data = readFileSync(join(dir, p));
      let offset = 0;
      for (let lines = 0; lines < 3; offset++) if (data[offset] === 0x0a) lines++;
      return data.subarray(offset).some((b) => b < 200);
    });
    return { text, pages: pages.length, inkedPages: inked.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function pdfOf(report: string): Promise<Buffer> {
  const r = await fetch(local(report), { headers: { accept: 'application/pdf' } });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/pdf');
  const pdf = Buffer.from(await r.arrayBuffer());
  assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
  return pdf;
}

function checkDocBook(xml: string): void {
  assert.match(xml, /<article xmlns="http:\/\/docbook.org\/ns\/docbook"/);
  if (!canCheck) return;
  const check = spawnSync('xmllint', ['--noout', '--relaxng', DOCBOOK_RNG, '-'], { input: xml, encoding: 'utf8' });
  assert.equal(check.status, 0, `DocBook 5 validity: ${check.stderr.slice(0, 600)}`);
}

test('report types are listed; unknown types and reports answer 404', async () => {
  const types = (await http(`${s.url}/report`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  assert.deepEqual(
    types,
    ['validation', 'crossvalidation', 'algorithm_comparison'].map((t) => `${s.base}/report/${t}`),
  );
  assert.equal((await http(`${s.url}/report/qmrf`, { accept: 'text/uri-list' })).status, 404);
  assert.equal((await http(`${s.url}/report/validation/999`, { accept: 'text/turtle' })).status, 404);
});

test('a validation report: the report object in RDF and YAML, its DocBook (valid DocBook 5) with the statistics and a plot, and HTML and PDF converted from it', {
  skip: !canCheck && CHECKERS_NOTE,
}, async () => {
  const [fold] = await folds(regression.mlr);
  const report = await run(`${s.base}/report/validation`, { validation_uris: fold });
  assert.match(report, new RegExp(`^${s.base}/report/validation/\\d+$`));

  const object = parseTurtle((await http(local(report), { accept: 'text/turtle' })).text);
  assert.ok(valuesOf(object, report, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type').includes(`${OT}ValidationReport`));
  assert.deepEqual(valuesOf(object, report, `${OT}reportType`), ['validation']);
  assert.deepEqual(valuesOf(object, report, `${OT}reportValidation`), [fold]);
  const validation = JSON.parse((await http(local(fold), { accept: 'application/json' })).text);
  assert.deepEqual(valuesOf(object, report, `${OT}reportModel`), [validation.model]);
  assert.deepEqual(valuesOf(object, report, `${OT}reportAlgorithm`), [`${s.base}/algorithm/mlr`]);
  assert.ok(!Number.isNaN(Date.parse(valuesOf(object, report, `${OT}date`)[0])));
  assert.match((await http(local(report), { accept: 'text/x-yaml' })).text, /reportType: validation/);
  // the report object as RDF/XML, read by an independent parser too
  const rdfxml = await http(local(report), { accept: 'application/rdf+xml' });
  assert.equal(rdfxml.headers.get('content-type'), 'application/rdf+xml');
  await checkRdfXml(rdfxml.text);

  const docbook = await http(local(report), { accept: 'text/xml' });
  assert.equal(docbook.headers.get('content-type'), 'text/xml; charset=utf-8');
  checkDocBook(docbook.text);
  const r2 = await statistic(local(fold), 'rSquare');
  assert.ok(docbook.text.includes(`<entry>R² (coefficient of determination)</entry><entry>${four(r2)}</entry>`), `R² ${four(r2)} in the statistics table`);
  assert.equal(docbook.text.match(/<figure>/g)?.length, 1, 'the predicted-against-actual plot');
  assert.match(docbook.text, /<imagedata format="svg"><svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);

  const html = await http(local(report), { accept: 'text/html' });
  assert.equal(html.status, 200);
  assert.ok(html.text.includes('<img src="data:image/svg+xml;base64,') && html.text.includes(four(r2)), 'plots as SVG images (the page policy allows no inline styles)');
  assert.ok(html.text.includes(`<link rel="alternate" type="application/pdf" href="${report.replace(s.base, '')}?media=application/pdf">`), 'the page links its PDF');

  const pdf = readPdf(await pdfOf(report));
  assert.ok(pdf.text.includes('R² (coefficient of determination)'), 'Unicode text is drawn as text');
  assert.ok(pdf.text.includes(four(r2)));
  assert.ok(pdf.text.includes('Predicted against actual'), 'the plot’s text is in the PDF');
  assert.equal(pdf.inkedPages, pdf.pages, 'no blank page');

  // the same validation again: the same report, at once
  const again = await http(`${s.url}/report/validation`, { method: 'POST', body: form({ validation_uris: fold }), accept: 'text/uri-list' });
  assert.equal(again.status, 200);
  assert.equal(again.text.trim(), report);
  const listed = (await http(`${s.url}/report/validation?validation=${encodeURIComponent(fold)}`, { accept: 'text/uri-list' })).text.trim();
  assert.equal(listed, report);
});

test('a cross-validation report: pooled statistics as the service states them, one row per fold, plots; also under /validation/report', async () => {
  const report = await run(`${s.base}/validation/report/crossvalidation`, { validation_uris: regression.mlr });
  assert.match(report, new RegExp(`^${s.base}/report/crossvalidation/\\d+$`));
  const docbook = (await http(local(report), { accept: 'text/xml' })).text;
  checkDocBook(docbook);
  const pooled = await statistic(`${local(regression.mlr)}/statistics`, 'rSquare');
  assert.ok(docbook.includes(`<entry>R² (coefficient of determination)</entry><entry>${four(pooled)}</entry>`), 'the pooled R²');
  const foldUris = await folds(regression.mlr);
  for (const [i, f] of foldUris.entries()) {
    const r2 = await statistic(local(f), 'rSquare');
    assert.ok(docbook.includes(`<row><entry>${i + 1}</entry><entry>12</entry><entry>${four(r2)}</entry>`), `fold ${i + 1}: R² ${four(r2)}`);
  }
  assert.equal(docbook.match(/<figure>/g)?.length, 2, 'R² per fold and predicted against actual');
  assert.equal((await http(`${s.url}/validation/report/crossvalidation/${report.split('/').pop()}`, { accept: 'text/turtle' })).status, 200);
});

test('a classification report: confusion matrix and per-class statistics as the validation states them, ROC curves and the confusion plot', async () => {
  const report = await run(`${s.base}/report/crossvalidation`, { validation_uris: classification.cv });
  const docbook = (await http(local(report), { accept: 'text/xml' })).text;
  checkDocBook(docbook);
  const pooled = JSON.parse((await http(`${local(classification.cv)}/statistics`, { accept: 'application/json' })).text).classificationStatistics;
  assert.ok(docbook.includes(`<entry>accuracy</entry><entry>${four(pooled.accuracy)}</entry>`));
  const cells: { confusionMatrixActual: string; confusionMatrixPredicted: string; confusionMatrixValue: number }[] = pooled.confusionMatrix.confusionMatrixCell;
  const classes = [...new Set(cells.map((c) => c.confusionMatrixActual))].sort();
  for (const actual of classes) {
    const row = classes.map((p) => cells.find((c) => c.confusionMatrixActual === actual && c.confusionMatrixPredicted === p)?.confusionMatrixValue ?? 0);
    assert.ok(docbook.includes(`<row><entry>${actual}</entry>${row.map((n) => `<entry>${n}</entry>`).join('')}</row>`), `confusion row of ${actual}`);
  }
  assert.match(docbook, /<title>ROC curves, one per class/);
  assert.match(docbook, /<title>Confusion matrix<\/title>/);
  for (const c of classes) assert.ok(docbook.includes(`<row><entry>${c}</entry>`), `statistics of class ${c}`);
});

test('an algorithm comparison: each statistic per identifier, and paired t-tests over the folds that agree with a direct computation', { skip: !canCheck && CHECKERS_NOTE }, async () => {
  const report = await run(`${s.base}/report/algorithm_comparison`, { validation_uris: `${regression.mlr},${regression.forest}`, identifier: 'MLR,RF' });
  const object = parseTurtle((await http(local(report), { accept: 'text/turtle' })).text);
  const compared = valuesOf(object, report, `${OT}comparedValidation`).map((n) => [valuesOf(object, n, `${DC}title`)[0], valuesOf(object, n, `${OT}reportValidation`)[0]]);
  assert.deepEqual(compared.sort(), [
    ['MLR', regression.mlr],
    ['RF', regression.forest],
  ]);
  const docbook = (await http(local(report), { accept: 'text/xml' })).text;
  checkDocBook(docbook);
  // R² of each fold of both cross-validations, read from the fold validations
  const perFold = async (cv: string) => Promise.all((await folds(cv)).map((f) => statistic(local(f), 'rSquare')));
  const [a, b] = [await perFold(regression.mlr), await perFold(regression.forest)];
  const d = a.map((v, i) => v - b[i]);
  const mean = d.reduce((x, y) => x + y, 0) / d.length;
  const sd = Math.sqrt(d.reduce((x, y) => x + (y - mean) ** 2, 0) / (d.length - 1));
  const t = mean / (sd / Math.sqrt(d.length));
  const p = 2 * (1 - jstat.jStat.studentt.cdf(Math.abs(t), d.length - 1));
  const row = new RegExp(
    `<row><entry>MLR – RF</entry><entry>R²</entry><entry>${four(mean).replace('.', '\\.')}</entry><entry>${four(t).replace('.', '\\.')}</entry><entry>${four(p).replace('.', '\\.')}</entry><entry>(\\* significant: (MLR|RF) is better|no significant difference)</entry></row>`,
  );
  const match = row.exec(docbook);
  assert.ok(match, `the R² t-test row (difference ${four(mean)}, t ${four(t)}, p ${four(p)})`);
  assert.equal(match[1].startsWith('*'), p < 0.05);
  assert.equal(docbook.match(/<figure>/g)?.length, 4, 'one chart per statistic');
  const pdf = readPdf(await pdfOf(report));
  assert.ok(pdf.text.includes('Significance of the differences') && pdf.text.includes('MLR – RF'));
  assert.equal(pdf.inkedPages, pdf.pages);
});

test('report requests are checked before any work: 400 or 404 naming the parameter; DELETE removes a report', async () => {
  const [fold] = await folds(regression.mlr);
  const expect = async (type: string, params: Record<string, string>, status: number, pattern: RegExp) => {
    const r = await http(`${s.url}/report/${type}`, { method: 'POST', body: form(params), accept: 'text/turtle' });
    assert.equal(r.status, status, `${type} ${JSON.stringify(params)}: ${r.text.slice(0, 200)}`);
    assert.match((await errorReport(r)).message ?? '', pattern);
  };
  await expect('validation', {}, 400, /validation_uris/);
  await expect('validation', { validation_uris: regression.mlr }, 400, /is a cross-validation/);
  await expect('validation', { validation_uris: `${s.base}/validation/999999` }, 404, /validation_uris/);
  await expect('crossvalidation', { validation_uris: fold }, 400, /not a cross-validation/);
  await expect('crossvalidation', { validation_uris: `${regression.mlr},${regression.forest}` }, 400, /algorithm_comparison/);
  await expect('algorithm_comparison', { validation_uris: regression.mlr, identifier: 'A' }, 400, /at least two/);
  await expect('algorithm_comparison', { validation_uris: `${regression.mlr},${regression.forest}`, identifier: 'A' }, 400, /identifier/);
  await expect('algorithm_comparison', { validation_uris: `${regression.mlr},${regression.forest}`, identifier: 'A,A' }, 400, /distinct/);
  await expect('algorithm_comparison', { validation_uris: `${regression.mlr},${classification.cv}`, identifier: 'A,B' }, 400, /one kind/);
  await expect('validation', { validation_uris: 'not a uri <>' }, 400, /validation_uris|IRI/);
  // a copy of another service's validation without what a report reads: refused before any task
  const foreign = 'http://elsewhere.example/validation/1';
  const put = await http(`${s.url}/graph-store?graph=${encodeURIComponent(foreign)}`, {
    method: 'PUT',
    body: `<${foreign}> a <${OT}Validation> ; <${OT}predictionFeature> <http://elsewhere.example/feature/1> .`,
    contentType: 'text/turtle',
  });
  assert.ok([201, 204].includes(put.status), put.text);
  await expect('validation', { validation_uris: foreign }, 400, /is not a validation this service can report/);

  const report = await run(`${s.base}/report/crossvalidation`, { validation_uris: regression.forest });
  assert.equal((await http(local(report), { method: 'DELETE' })).status, 200);
  assert.equal((await http(local(report), { accept: 'text/turtle' })).status, 404);
  assert.equal((await http(local(report), { method: 'DELETE' })).status, 404);
});
