import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../helpers.ts';

/**
 * Issue 55's journey in a real browser, as the toxicologist made it: a carcinogenicity workbook
 * laid out as people lay them out (a title row, a blank row, a header with a line break in a
 * cell, a units row, a footnote, a salt, duplicates whose classes disagree) taken from the
 * datasets page to a standardised dataset, descriptors, a random forest, its cross-validation
 * and report, a prediction of the salt, a QMRF and a QPRF, by the pages alone (clicks, forms,
 * file inputs). The server's API is only read, to check what the pages did.
 */
const CHROMIUM = process.env.TOXGRAPH_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = new URL('../../test-output/screenshots/', import.meta.url).pathname;
const skip = !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM} (Debian package chromium)`;
const run$ = promisify(execFile);

const SALT = 'CCCCC(CC)C(=O)[O-].[Na+]';
const PARENT = 'CCCCC(CC)C(=O)O';
const PCP = 'Oc1c(Cl)c(Cl)c(Cl)c(Cl)c1Cl';

let s: TestServer;
let browser: Browser;
let page: Page;
let dir: string;

before(async () => {
  s = await startTestServer();
  dir = await mkdtemp(join(tmpdir(), 'toxgraph-journey-'));
  mkdirSync(SHOTS, { recursive: true });
  if (skip) return;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
});
after(async () => {
  await browser?.close();
  await s?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `journey-${name}.png`), fullPage: true });
const main = async () => ((await page.textContent('main')) ?? '').replace(/\s+/g, ' ');

/** After a form: the page it leads to, through the task pages that reload until the result. */
async function arriveAt(expected: RegExp): Promise<void> {
  try {
    await page.waitForURL((url) => expected.test(url.pathname), { timeout: 180_000 });
  } catch (e) {
    await shot('failed-arrival');
    throw new Error(`not at ${expected} but at ${page.url()}: ${(await main().catch(() => '')).slice(0, 600)}`, { cause: e });
  }
}

/** The workbook's data rows: Lab ID, Name, SMILES, class. */
let rows: string[][];

/**
 * The workbook, shaped like the person's: a title, a blank row, a header whose class column
 * has a line break, a units row, 64 hamster carcinogenicity rows (three of every four of the
 * shared set, both classes), the sodium salt of an acid that is also there as the acid, two
 * structures twice with classes that disagree, and a footnote.
 */
async function workbook(): Promise<string> {
  const [, ...lines] = readFileSync(new URL('../../../shared/data/hamster_carcinogenicity.csv', import.meta.url), 'utf8')
    .trim()
    .split('\n');
  const data = lines
    .filter((_, i) => i % 4 !== 3)
    .map((l) => l.split(','))
    .map(([smiles, active], i) => [`RC-${String(i + 1).padStart(3, '0')}`, `compound ${i + 1}`, smiles.trim(), active.trim() === 'true' ? 'yes' : 'no']);
  const twice = data[9];
  data.push(
    ['RC-901', '2-ethylhexanoic acid', PARENT, 'no'],
    ['RC-902', 'sodium 2-ethylhexanoate', SALT, 'no'],
    ['RC-903', 'pentachlorophenol', PCP, 'yes'],
    ['RC-904', 'pentachlorophenol', PCP, 'no'],
    ['RC-905', `${twice[1]} (retest)`, twice[2], twice[3] === 'yes' ? 'no' : 'yes'],
  );
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('CPDB rat');
  sheet.addRow(['Rat carcinogenicity (CPDB subset)']);
  sheet.addRow([]);
  sheet.addRow(['Lab ID', 'Name', 'Structure (SMILES)', 'Carcinogenic\n(rat)']);
  sheet.addRow(['[id]', '', '', '[class]']);
  for (const row of data) sheet.addRow(row);
  rows = data;
  sheet.addRow(['Source: CPDB; * tested in males only']);
  const file = join(dir, 'rat-carcinogenicity.xlsx');
  await book.xlsx.writeFile(file);
  return file;
}

let dataset: string;

test('the workbook from the datasets page: the preview finds the header, the units, the structures and the conflicts; stored', { skip }, async () => {
  await page.goto(`${s.url}/`);
  await page.click('nav.site >> text=Datasets');
  await page.setInputFiles('input[type=file][name=file]', await workbook());
  await page.click('form.upload button[type=submit] >> nth=0');
  await arriveAt(/^\/dataset\/preview\/[\w-]+$/);
  const text = await main();
  assert.match(text, /Nothing is stored yet/);
  // the header under the title and the blank row, its line break folded; the units row and the footnote not read as data
  assert.match(text, /row 3 was read as the header/);
  assert.match(text, /row 4, under the header, was read as the columns' units/);
  assert.match(text, /row 74 after the data is a footnote, not read as data/);
  assert.match(text, /: 69 rows; the structures are in the column Structure \(SMILES\)\./);
  const columns = await page.locator('form.upload-preview table.report >> nth=0 >> tbody tr').allTextContents();
  const classColumn = columns.findIndex((c) => c.includes('Carcinogenic (rat)')) + 1;
  assert.match(columns[classColumn - 1], /classes \(yes, no\)/, 'the units row is not a class');
  assert.equal(await page.inputValue(`input[name=units_${classColumn}]`), 'class');
  assert.equal(await page.inputValue('input[name=units_1]'), 'id');
  // the conflicting duplicates, as conflicts
  const conflicts = await page.locator('ul.conflicts li').allTextContents();
  assert.equal(conflicts.length, 2, conflicts.join('\n'));
  assert.match(conflicts.join('\n'), /conflicting duplicate of row \d+ \(Oc1c\(Cl\)c\(Cl\)c\(Cl\)c\(Cl\)c1Cl\): Carcinogenic \(rat\) is "no" here, "yes" in row \d+/);
  // identifier columns offered: Lab ID is one
  await page.check('input[name=id_columns][value="1"]');
  await page.selectOption('select[name=endpoint_column]', { label: 'Carcinogenic (rat)' });
  await page.fill('input[name=species]', 'Rattus norvegicus');
  await page.fill('input[name=title]', 'Rat carcinogenicity (CPDB subset)');
  await shot('preview');
  await page.click('form.upload-preview button:has-text("Store the dataset")');
  await arriveAt(/^\/dataset\/\d+$/);
  dataset = page.url();
  assert.match((await page.textContent('h1')) ?? '', /Rat carcinogenicity/);
  const head = ((await page.textContent('table.dataset thead')) ?? '').replace(/\s+/g, ' ');
  assert.match(head, /Carcinogenic \(rat\)/);
  assert.match(head, /Lab ID/);
  await shot('dataset');
});

let model: string;

test('standardise, calculate descriptors and train a random forest from the pages: the feature to predict is the class column', { skip }, async () => {
  await page.goto(dataset);
  await page.click('nav.actions >> text=Train a model or run another algorithm');
  await page.click('text=Standardise structures (QSAR-ready parents)');
  await shot('standardise');
  await page.click('form.run button[type=submit]');
  await arriveAt(/^\/dataset\/\d+$/);
  assert.notEqual(page.url(), dataset, 'a new dataset of the parents');
  const standardised = page.url();
  assert.match(await main(), /rows \d+ and \d+ have the same parent structure \([^)]*, CCCCC\(CC\)C\(=O\)O\)/, 'the salt and its acid have one parent');
  await shot('standardised');

  await page.click('nav.actions >> text=Calculate descriptors');
  await page.fill('input[name=descriptors]', 'tpsa,exactmw,CrippenClogP,NumHBD,NumHBA,NumRotatableBonds,NumAromaticRings,FractionCSP3,NumHeavyAtoms,NumHeteroatoms,NumRings');
  await page.click('form.run button[type=submit]');
  await arriveAt(/^\/dataset\/\d+$/);
  assert.notEqual(page.url(), standardised);
  assert.match((await page.textContent('table.dataset thead')) ?? '', /CrippenClogP/);
  await shot('descriptors');

  await page.click('nav.actions >> text=Train a model or run another algorithm');
  await page.click('text=Random forest classification');
  const chosen = await page.$eval('select[name=prediction_feature]', (s) => (s as HTMLSelectElement).selectedOptions[0]?.textContent ?? '');
  assert.equal(chosen, 'Carcinogenic (rat)', 'the training form chooses the endpoint, not "Lab ID"');
  // the dataset's own columns before the descriptors
  const groups = await page.$$eval('select[name=prediction_feature] optgroup', (gs) => gs.map((g) => [g.getAttribute('label'), [...g.querySelectorAll('option')].map((o) => o.textContent)]));
  assert.equal(groups[0][0], "The dataset's own columns");
  assert.ok((groups[0][1] as string[]).includes('Lab ID') && (groups[1][1] as string[]).includes('CrippenClogP'), JSON.stringify(groups));
  await page.fill('input[name=numTrees]', '25');
  await shot('train');
  await page.click('form.run button[type=submit]');
  await arriveAt(/^\/model\/\d+$/);
  model = page.url();
  assert.match(await main(), /Predicts\s*Carcinogenic \(rat\)/);
  await shot('model');
});

test('cross-validate from the model page and open the report: accuracy beside its majority-class baseline', { skip }, async () => {
  await page.goto(model);
  // the recipe repeated is the model's own (25 trees), not the learner's defaults
  assert.match(await page.inputValue('form[action="/crossvalidation"] input[name=algorithm_params]'), /numTrees=25/);
  await page.fill('input[name=num_folds]', '5');
  await page.click('text=Cross-validate this recipe');
  await arriveAt(/^\/crossvalidation\/\d+$/);
  assert.match((await page.textContent('h1')) ?? '', /^5-fold cross-validation of Random forest classification/);
  assert.match(await main(), /Baseline ?baseline: always predicting the majority class/);
  await shot('crossvalidation');
  await page.click('text=Make a report of this cross-validation');
  await arriveAt(/^\/report\/crossvalidation\/\d+$/);
  const text = await main();
  const yes = rows.filter((r) => r[3] === 'yes').length;
  const [majority, share] = yes * 2 > rows.length ? ['yes', yes / rows.length] : ['no', 1 - yes / rows.length];
  const baseline = `Baseline: always predicting the majority class “${majority}” is right for ${Number(share.toPrecision(4))} of the 69 rows`;
  // the pooled statistics' table, and right after it the baseline they are read against
  const pooled = await page.evaluate(() => {
    const table = [...document.querySelectorAll('main table')].find((t) => /Statistics of all \d+ predicted rows/.test(t.querySelector('caption')?.textContent ?? ''));
    const accuracy = [...(table?.querySelectorAll('tr') ?? [])].find((tr) => tr.cells[0]?.textContent === 'accuracy')?.cells[1]?.textContent;
    return { accuracy, after: table?.nextElementSibling?.textContent?.replace(/\s+/g, ' ') ?? '' };
  });
  assert.match(pooled.accuracy ?? '', /^0\.\d+$/, `the pooled accuracy: ${text}`);
  assert.ok(pooled.after.startsWith(baseline), `the baseline right after the statistics: ${pooled.after}`);
  await shot('report');
  // and on the model page, each validation's baseline beside its statistics
  await page.goto(model);
  const validation = (await page.locator('h2:has-text("Validations") + table tbody tr').first().textContent()) ?? '';
  assert.match(validation, new RegExp(`5-fold cross-validation.*accuracy 0\\.\\d+.*accuracy ${Number(share.toPrecision(4))} \\(always “${majority}”\\)`), validation);
});

/** The explanation of the prediction of `smiles` from the model's form: its value, what was predicted, the domain's verdict, the neighbours. */
async function predict(smiles: string) {
  await page.goto(model);
  await page.fill('form.predict input[name=smiles]', smiles);
  await page.click('form.predict button[type=submit]');
  await arriveAt(/^\/dataset\/\d+$/);
  await page.waitForSelector('section.explained');
  const card = page.locator('section.explained').first();
  const facts = Object.fromEntries(
    await card.locator('dl.facts > dt').evaluateAll((dts) => dts.map((dt) => [dt.textContent?.trim() ?? '', (dt.nextElementSibling?.textContent ?? '').replace(/\s+/g, ' ').trim()])),
  ) as Record<string, string>;
  const neighbours = await card
    .locator('table.neighbours tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [tr.querySelector('img')?.getAttribute('alt'), ...[...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent)].join(' ')));
  const caption = ((await card.locator('table.neighbours caption').textContent()) ?? '').replace(/\s+/g, ' ');
  return { facts, neighbours, caption, url: page.url() };
}

let saltPrediction: string;
/** How many of the salt's neighbours the page shows predicted right out of fold. */
let agreeing: number;

test('predict the salt from the model page: standardised to its parent, the parent’s value, domain and neighbours, neighbours predicted out of fold', { skip }, async () => {
  const parent = await predict(PARENT);
  const salt = await predict(SALT);
  saltPrediction = salt.url;
  agreeing = salt.neighbours.filter((n) => n.split(' ').at(-1) === n.split(' ').at(-2)).length;
  await shot('prediction-salt');
  assert.match(
    salt.facts['Structure predicted'] ?? '',
    /standardised first, as the model's training structures were \(standardise-structures: .*\): predicted from the QSAR-ready parent CCCCC\(CC\)C\(=O\)O/,
  );
  assert.equal(salt.facts['Carcinogenic (rat)'], parent.facts['Carcinogenic (rat)'], 'the salt is predicted as its parent');
  assert.equal(salt.facts['Applicability domain'], parent.facts['Applicability domain']);
  assert.deepEqual(salt.neighbours, parent.neighbours);
  // the number with its reading, and the domain's metric beside its limit
  assert.match(salt.facts['Carcinogenic (rat)'], /^(yes|no) probability 0\.\d+, at least 0\.6 \(an even split of 2 classes plus 0\.1\)|\(uncertain\)/);
  assert.match(salt.facts['Applicability domain'], /^(inside|outside).*; mean distance to the k nearest training compounds \d+(\.\d+)? \(inside when at most \d+(\.\d+)?/);
  assert.equal(salt.neighbours.length, 5);
  // the neighbours' predictions are out of fold (the cross-validation above), never the model re-predicting its training rows
  assert.match(salt.caption, /“predicted” is out of fold: each compound’s prediction by the fold model of the 5-fold cross-validation .* that did not see it/);
  assert.doesNotMatch(salt.caption, /re-predictions of its own training rows agree/);
});

/** The text of each page of a PDF (pdftotext -raw; execFile, not execFileSync: the server runs in this process). */
async function pdfPages(file: string): Promise<string[]> {
  const pages = (await run$('pdftotext', ['-raw', '-enc', 'UTF-8', file, '-'])).stdout.split('\f').slice(0, -1);
  return pages.map((p, i) => p.replace(new RegExp(`^${i + 1} / ${pages.length}$`, 'm'), ''));
}

/** The document's PDF from the "Also as" links of its page, read as a person reads it: no table header's word broken, no page left nearly empty. */
async function checkPdf(name: string): Promise<string> {
  const documentUrl = page.url();
  // the page's own PDF link, fetched by the browser (Chromium would show it in its viewer, which hides the file)
  const href = await page.getAttribute('nav.formats a:text-is("PDF")', 'href');
  assert.ok(href, `${name}: its page links its PDF`);
  const response = await page.request.get(new URL(href, documentUrl).href, { timeout: 120_000 });
  assert.equal(response.status(), 200);
  assert.match(response.headers()['content-type'] ?? '', /^application\/pdf/);
  const file = join(dir, `${name}.pdf`);
  await writeFile(file, await response.body());
  const pages = await pdfPages(file);
  const words = pages.map((p) => p.split(/\s+/).filter((w) => w));
  words.slice(0, -1).forEach((w, i) => assert.ok(w.length >= 20, `${name}: page ${i + 1} of ${pages.length} holds ${w.length} words: ${w.join(' ')}`));
  // the words of the tables' headers, read from the DocBook the PDF is rendered from
  const docbook = await (await fetch(documentUrl, { headers: { accept: 'application/docbook+xml' } })).text();
  const header = [...docbook.matchAll(/<thead>([\s\S]*?)<\/thead>/g)].flatMap((m) =>
    [...m[1].matchAll(/<entry>([^<]*)<\/entry>/g)].flatMap((e) => e[1].split(/\s+/).filter((w) => w.length > 1 && w.length < 25 && !w.includes('&'))),
  );
  assert.ok(header.length > 0, `${name}: tables with headers`);
  const all = new Set(words.flat());
  const broken = [...new Set(header)].filter((w) => !all.has(w));
  assert.deepEqual(broken, [], `${name}: table-header words not found whole in the PDF`);
  return pages.join('\n');
}

test('a QMRF from the model page and a QPRF from the salt’s prediction, their PDFs read as a reader would', { skip }, async () => {
  await page.goto(model);
  await page.click('text=Make a QMRF report of this model');
  await arriveAt(/^\/reach_report\/qmrf\/\d+$/);
  await shot('qmrf');
  const qmrf = (await checkPdf('qmrf')).replace(/\s+/g, ' ');
  assert.match(qmrf, /6\.6 Pre-processing of data before modelling Structures were standardised to QSAR-ready parents/, 'QMRF 6.6 names the standardisation');
  assert.match(qmrf, /3\.7 Endpoint data quality and variability .*2 structure\(s\) are conflicting duplicates/, 'QMRF 3.7 names the conflicts');
  assert.match(qmrf, /accuracy = 0\.\d+ \(majority-class baseline 0\.\d+, always “(yes|no)”\)/, 'QMRF 6.9: the cross-validation with its baseline');

  await page.goto(saltPrediction);
  await page.click('section.explained >> text=Make a QPRF of this prediction');
  await arriveAt(/^\/reach_report\/qprf\/\d+$/);
  await shot('qprf');
  const qprf = (await checkPdf('qprf')).replace(/\s+/g, ' ');
  assert.match(qprf, /Structure predicted standardised first, as the model's training structures were .*predicted from the QSAR-ready parent CCCCC\(CC\)C\(=O\)O/);
  assert.match(qprf, /Reading probability 0\.\d+, at least 0\.6/);
  assert.match(qprf, /“predicted” is out of fold: each compound’s prediction by the fold model of the 5-fold cross- ?validation/);
  // the QAF's analogue evidence counts out-of-fold agreement, as the page shows it (the acid itself, measured "no", is among them)
  assert.match(qprf, new RegExp(`${agreeing} of 5 predicted correctly out of fold \\(cross-? ?validation`));
});
