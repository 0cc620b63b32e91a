import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { sharedCsv, startTestServer, type TestServer } from '../helpers.ts';

/**
 * The web workbench in a real browser (Debian's Chromium, headless, driven by playwright-core):
 * what a toxicologist does without reading the interface spec. Screenshots of the main pages go
 * to test-output/screenshots (look at them when a page changes).
 */
const CHROMIUM = process.env.TOXGRAPH_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = new URL('../../test-output/screenshots/', import.meta.url).pathname;

let s: TestServer;
let browser: Browser;
let page: Page;

before(async () => {
  s = await startTestServer();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  mkdirSync(SHOTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  await s?.stop();
});

/** Where the README's walkthrough pictures go when they are made again (`TOXGRAPH_DOC_SHOTS=docs/screenshots npm run test:browser`). */
const DOC_SHOTS = process.env.TOXGRAPH_DOC_SHOTS;
const WALKTHROUGH = new Set(['upload-preview', 'model', 'prediction', 'crossvalidation']);

const shot = async (name: string) => {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  if (DOC_SHOTS && WALKTHROUGH.has(name)) await page.screenshot({ path: join(DOC_SHOTS, `${name}.png`) });
};

/** Pages the walk passed (their paths), for the accessibility check. */
const passed = new Set<string>();

/**
 * What every page the walk passes must hold to: each "Also as" link answers 200 in the type it
 * names, and no number is shown longer than its display precision (4 significant digits; the
 * full value is on hover and in the downloads).
 */
async function checkPage(): Promise<void> {
  const url = new URL(page.url());
  passed.add(url.pathname + url.search);
  const links = await page.$$eval('nav.formats a', (as) => as.map((a) => [a.getAttribute('href') ?? '', a.getAttribute('type') ?? '']));
  for (const [href, type] of links) {
    const res = await fetch(new URL(href, url), { redirect: 'manual' });
    await res.arrayBuffer();
    assert.equal(res.status, 200, `${url.pathname}: its ${type} link ${href}`);
    assert.ok((res.headers.get('content-type') ?? '').startsWith(type), `${url.pathname}: ${href} answers ${res.headers.get('content-type')}, not ${type}`);
  }
  // every text shown, each on its own (cells side by side must not run together), code and scripts aside
  const text = await page.$eval('main', (main) => {
    const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => (n.parentElement?.closest('code, pre, textarea, script, style') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
    });
    const parts: string[] = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) parts.push(n.textContent ?? '');
    return parts.join(' ');
  });
  const long = [...text.matchAll(/(?<![\d:.\w])-?\d+\.\d+(?![\d.\w])/g)].map((m) => m[0]).filter((n) => n.replace(/^-?0*\.?0*/, '').replace('.', '').length > 4);
  assert.deepEqual(long, [], `${url.pathname}: numbers longer than their display precision`);
}

/** After a form: wait for the page it leads to (`expected`), through the task pages when the work runs as a task (their progress reloads the page until the result). */
async function arriveAt(expected: RegExp): Promise<void> {
  try {
    await page.waitForURL((url) => expected.test(url.pathname), { timeout: 120_000 });
  } catch (e) {
    await shot('failed-arrival');
    throw new Error(`not at ${expected} but at ${page.url()}: ${(await page.textContent('main').catch(() => ''))?.slice(0, 500)}`, { cause: e });
  }
}

test('upload a CSV from the datasets page and land on the new dataset', { skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM} (Debian package chromium; .ci/run installs it)` }, async () => {
  await page.goto(`${s.url}/`);
  await shot('home');
  await page.click('nav.site >> text=Datasets');
  const file = join(tmpdir(), 'fathead-minnow.csv');
  writeFileSync(file, sharedCsv('EPAFHM_log10.csv', 40));
  await page.setInputFiles('input[type=file][name=file]', file);
  await page.fill('input[name=title]', 'Fathead minnow LC50 (40 structures)');
  await page.click('form.upload button[type=submit] >> nth=0');
  // the preview: what was read, before anything is stored
  await arriveAt(/^\/dataset\/preview\/[\w-]+$/);
  assert.match((await page.textContent('main')) ?? '', /Nothing is stored yet/);
  await page.selectOption('select[name=endpoint_column]', { index: 1 });
  await page.fill('input[name=species]', 'Pimephales promelas');
  await checkPage();
  await shot('upload-preview');
  await page.click('form.upload-preview button:has-text("Store the dataset")');
  await arriveAt(/^\/dataset\/\d+$/);
  assert.match((await page.textContent('h1')) ?? '', /Fathead minnow LC50/);
  await shot('dataset');
});

test('calculate descriptors, train a model, predict a drawn structure, validate on a split, cross-validate and open the report, all from the pages', {
  skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`,
}, async () => {
  // on the dataset page of the first test
  assert.match(new URL(page.url()).pathname, /^\/dataset\/\d+$/);
  await page.click('nav.actions >> text=Calculate descriptors');
  await page.fill('input[name=descriptors]', 'tpsa,exactmw,CrippenClogP,NumHBD');
  await shot('algorithm-descriptors');
  await page.click('form.run button[type=submit]');
  await arriveAt(/^\/dataset\/\d+$/);
  assert.match((await page.textContent('table.dataset thead')) ?? '', /CrippenClogP/);

  await checkPage();
  const dataset = page.url();

  await page.click('nav.actions >> text=Train a model');
  await page.click('text=Random forest regression');
  await page.selectOption('select[name=prediction_feature]', { label: '-log10(LC50_mmol)' });
  assert.equal(await page.inputValue('select[name=applicability_domain]'), 'auto', 'an applicability domain by default');
  await page.fill('input[name=numTrees]', '30');
  await page.click('form.run button[type=submit]');
  await arriveAt(/^\/model\/\d+$/);
  const model = page.url();
  await checkPage();
  await shot('model');

  // the structure drawn in the editor (OpenChemLib's): a bond, a second bond from its end, and that end made an oxygen
  await page.click('form.predict details.draw summary');
  const canvases = page.locator('form.predict .structure-editor canvas');
  await canvases.nth(1).waitFor({ timeout: 20_000 });
  const drawing = (await canvases.nth(1).boundingBox())!;
  const tools = (await canvases.nth(0).boundingBox())!;
  const drag = async (x1: number, y1: number, x2: number, y2: number) => {
    await page.mouse.move(drawing.x + x1, drawing.y + y1);
    await page.mouse.down();
    await page.mouse.move(drawing.x + x2, drawing.y + y2, { steps: 5 });
    await page.mouse.up();
  };
  await drag(200, 150, 260, 150);
  await drag(260, 150, 310, 180);
  await page.mouse.click(tools.x + tools.width / 4, tools.y + (tools.height * 13.5) / 17); // the toolbar's "O" (2 columns, 17 rows)
  await page.mouse.click(drawing.x + 310, drawing.y + 180);
  await page.waitForFunction(() => (document.querySelector('form.predict input[name=smiles]') as HTMLInputElement).value === 'CCO');
  await shot('structure-editor');
  await page.click('form.predict button[type=submit]');
  await arriveAt(/^\/dataset\/\d+$/);
  await page.waitForSelector('table.dataset tbody tr');
  const cells = (await page.locator('table.dataset tbody tr >> nth=0 >> td').allTextContents()).map((c) => c.trim());
  assert.ok(cells.includes('CCO'), `the drawn structure in the row: ${cells}`);
  assert.ok(
    cells.some((c) => /^-?\d+(\.\d+)?$/.test(c)),
    'a predicted value',
  );
  // the prediction explained: the domain's verdict and the most similar training structures
  assert.match((await page.textContent('section.explained')) ?? '', /Applicability domain\s*(inside|outside)/);
  assert.equal(await page.locator('section.explained table.neighbours tbody tr').count(), 5);
  await checkPage();
  await shot('prediction');

  // a whole dataset from the model page: a task, then the predictions, narrowed to the rows inside the domain
  await page.goto(model);
  await page.selectOption('form.run select[name=dataset_uri] >> nth=0', dataset.replace(s.url, s.base));
  await page.click('text=Predict every structure');
  await arriveAt(/^\/dataset\/\d+$/);
  await page.waitForSelector('nav.choices');
  await page.click('nav.choices a:has-text("true")');
  await page.waitForSelector('nav.choices strong');
  assert.match((await page.textContent('nav.choices')) ?? '', /all rows/);
  await checkPage();
  await shot('batch-predictions');

  await page.goto(model);
  await page.click('text=Validate the recipe on a split of the training data');
  await arriveAt(/^\/validation\/\d+$/);
  assert.match((await page.textContent('h1')) ?? '', /^Training\/test split validation of Random forest regression/);
  await checkPage();
  await shot('validation');

  await page.goto(model);
  await page.fill('input[name=num_folds]', '5');
  await page.click('text=Cross-validate this recipe');
  await arriveAt(/^\/crossvalidation\/\d+$/);
  assert.match((await page.textContent('h1')) ?? '', /^5-fold cross-validation of Random forest regression on /);
  assert.equal(await page.locator('h2:has-text("Per fold") + table tbody tr').count(), 5);
  const crossvalidation = page.url();
  await checkPage();
  await shot('crossvalidation');
  // its folds' datasets and models are out of the lists, and come back with the switch
  for (const path of ['/dataset', '/model']) {
    await page.goto(`${s.url}${path}`);
    const shown = await page.locator('ul.members li').count();
    await page.click('p.switch a');
    assert.ok((await page.locator('ul.members li').count()) >= shown + 5, `${path}: the folds' work is listed only when asked for`);
  }
  await page.goto(crossvalidation);
  await page.click('text=Make a report of this cross-validation');
  await arriveAt(/^\/report\/crossvalidation\/\d+$/);
  assert.match((await page.textContent('main')) ?? '', /Pooled statistics/);
  assert.ok(await page.isVisible('figure img'), 'the plots are shown');
  await shot('report');
});

test('the SPARQL page: an editor (YASGUI) that runs a query and shows the results as a table', { skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}` }, async () => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${s.url}/sparql`);
  await page.waitForSelector('.yasqe .CodeMirror', { timeout: 20_000 });
  await page.click('.yasqe_queryButton');
  await page.waitForSelector('.yasr table tbody tr', { timeout: 20_000 });
  const cells = await page.textContent('.yasr table tbody');
  assert.match(cells ?? '', /LC50|tpsa/, 'feature titles found by the example query');
  await shot('sparql');
  // the page talks to this server only (YASGUI's autocompletion from other sites is off), and its policy blocks nothing YASGUI needs
  assert.deepEqual(
    errors.filter((e) => /connect-src|script-src|style-src/.test(e)),
    [],
  );
});

test('the API page: Swagger UI over /openapi.json, linked from every page', { skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}` }, async () => {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${s.url}/`);
  await page.click('nav.site >> text=API');
  // Swagger UI draws the operations as the page is scrolled: the first ones are drawn, and it has read every path
  await page.waitForSelector('.opblock', { timeout: 20_000 });
  assert.match((await page.textContent('.info .title')) ?? '', /ToxGraph/);
  const paths = await page.evaluate(() => (window as unknown as { ui: { specSelectors: { paths(): { size: number } } } }).ui.specSelectors.paths().size);
  assert.ok(paths > 80, `${paths} paths read`);
  await shot('api');
  assert.deepEqual(
    errors.filter((e) => /script-src|connect-src/.test(e)),
    [],
  );
});

test('structure search from the compounds page: a grid of depictions, each leading to its compound and the datasets that hold it', {
  skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`,
}, async () => {
  await page.goto(`${s.url}/compound`);
  await page.selectOption('select[name=kind]', 'similarity');
  await page.fill('form.search input[name=q]', 'CCCCCO');
  await page.fill('form.search input[name=threshold]', '0.3');
  await page.click('form.search button[type=submit]');
  await page.waitForSelector('div.grid figure.compound img');
  assert.ok((await page.locator('div.grid figure.compound').count()) >= 2);
  await shot('compound-search');
  await page.click('div.grid figure.compound figcaption a >> nth=0');
  await page.waitForSelector('h2:has-text("Datasets that hold it")');
  await shot('compound');
});

test('pages are readable on a phone: nothing wider than the screen on the home and dataset pages', { skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}` }, async () => {
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  try {
    for (const [path, name] of [
      ['/', 'phone-home'],
      ['/dataset', 'phone-datasets'],
      ['/algorithm/mlr', 'phone-algorithm'],
    ]) {
      await phone.goto(`${s.url}${path}`);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 1, `${path} is ${overflow}px wider than the screen`);
      await phone.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    }
  } finally {
    await phone.close();
  }
});

test('accessibility: the main pages have no WCAG 2 A/AA violations that axe-core finds', { skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}` }, async () => {
  // axe is injected as a script, which the pages' policy forbids: this context alone bypasses it. The SPARQL
  // page is checked with a query's results shown (YASGUI's editor and results table).
  const context = await browser.newContext({ bypassCSP: true });
  const axePage = await context.newPage();
  const axe = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
  const found: string[] = [];
  try {
    const dataset = (await (await fetch(`${s.url}/dataset`, { headers: { accept: 'text/uri-list' } })).text()).trim().split('\r\n')[0];
    const model = (await (await fetch(`${s.url}/model`, { headers: { accept: 'text/uri-list' } })).text()).trim().split('\r\n')[0];
    const report = (await (await fetch(`${s.url}/report/crossvalidation`, { headers: { accept: 'text/uri-list' } })).text()).trim().split('\r\n')[0];
    // and every page the walk passed (the preview, a prediction explained, a cross-validation…)
    const walked = [...passed].map((path) => `${s.base}${path}`);
    for (const uri of [...new Set([`${s.base}/`, `${s.base}/dataset`, dataset, `${s.base}/algorithm/mlr`, model, report, `${s.base}/compound`, `${s.base}/sparql`, ...walked])]) {
      await axePage.goto(uri.replace(s.base, s.url));
      if (uri.endsWith('/sparql')) {
        await axePage.click('.yasqe_queryButton', { timeout: 20_000 });
        await axePage.waitForSelector('.yasr table tbody tr', { timeout: 20_000 });
      }
      await axePage.addScriptTag({ path: axe });
      const violations = await axePage.evaluate(async () => {
        const result = await (window as unknown as { axe: { run(o: object): Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }).axe.run({ runOnly: ['wcag2a', 'wcag2aa'] });
        return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
      });
      if (violations.length) found.push(`${uri.replace(s.base, '')}: ${violations.join(', ')}`);
    }
  } finally {
    await context.close();
  }
  assert.deepEqual(found, []);
});
