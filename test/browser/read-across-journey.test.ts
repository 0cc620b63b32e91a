import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { sharedCsv, startTestServer, type TestServer } from '../helpers.ts';

/**
 * A read-across done in the browser by pages alone (issue 57): a table whose target lacks data
 * uploaded (the endpoint's ontology term given in the preview), the target's page, its analogues,
 * a category, the gap filled side by side, an assessment written and made final, and its PDF.
 */
const CHROMIUM = process.env.TOXGRAPH_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = new URL('../../test-output/screenshots/', import.meta.url).pathname;
const TERM = 'http://www.opentox.org/echaEndpoints.owl#Acute_toxicity_to_fish_lethality';
const skip = !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM}`;

let s: TestServer;
let browser: Browser;
let page: Page;
let target: string;
/** Pages the walk passed, for the accessibility check. */
const passed = new Set<string>();

before(async () => {
  s = await startTestServer();
  if (skip) return;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  mkdirSync(SHOTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  await s?.stop();
});

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `read-across-${name}.png`), fullPage: true });

async function arriveAt(expected: RegExp): Promise<void> {
  try {
    await page.waitForURL((url) => expected.test(url.pathname), { timeout: 120_000 });
    passed.add(new URL(page.url()).pathname + new URL(page.url()).search);
  } catch (e) {
    await shot('failed-arrival');
    throw new Error(`not at ${expected} but at ${page.url()}: ${(await page.textContent('main').catch(() => ''))?.slice(0, 500)}`, { cause: e });
  }
}

test('by pages alone: a table whose target lacks data uploaded, its analogues, a category, the gap filled side by side, an assessment written, made final, and its PDF', { skip }, async () => {
  // the person's own table: fish LC50 values, and 1-octanol without one (the data gap)
  const file = join(tmpdir(), 'fish-with-a-gap.csv');
  writeFileSync(file, `${sharedCsv('EPAFHM_log10.csv', 60).trim()}\nCCCCCCCCO,\n`);
  await page.goto(`${s.url}/dataset`);
  await page.setInputFiles('input[type=file][name=file]', file);
  await page.fill('input[name=title]', 'Fish LC50, octanol missing');
  await page.click('form.upload button[type=submit] >> nth=0');
  await arriveAt(/^\/dataset\/preview\/[\w-]+$/);
  await page.selectOption('select[name=endpoint_column]', { index: 1 });
  await page.fill('input[name=endpoint]', TERM);
  await page.click('form.upload-preview button:has-text("Store the dataset")');
  await arriveAt(/^\/dataset\/\d+$/);
  // the target: found by its structure from the compounds page
  await page.goto(`${s.url}/compound?search=CCCCCCCCO`);
  await page.click('a[href^="/compound/"] >> nth=0');
  await arriveAt(/^\/compound\/\d+$/);
  target = `${s.base}${new URL(page.url()).pathname}`;
  // its dataset's endpoint is offered, by its ontology term
  await page.selectOption('select[name=endpoint]', TERM);
  await page.fill('input[name=threshold]', '0.2');
  await page.click('form.run button:has-text("Find analogues with data")');
  await arriveAt(/^\/compound\/\d+\/analogues$/);
  const analogues = await page.$$eval('table tbody tr', (rows) => rows.length);
  assert.ok(analogues >= 3 && analogues <= 10, `${analogues} analogues listed`);
  await shot('analogues');

  await page.click('form.run button:has-text("Make the category")');
  await arriveAt(/^\/category\/\d+$/);
  assert.match((await page.textContent('main')) ?? '', /Members \(\d+\)/);
  await shot('category');
  const category = page.url();

  await page.click('text=The data gap filled side by side');
  await arriveAt(/^\/category\/\d+\/gap-filling$/);
  assert.match((await page.textContent('main')) ?? '', /read-across \(GenRA\)[\s\S]*trend[\s\S]*worst case[\s\S]*QSAR/);
  await shot('gap-filling');

  await page.goto(category);
  await page.selectOption('select[name=scenario]', '6');
  await page.fill('input[name=title]', 'Octanol: fish LC50 by read-across');
  await page.click('form.run button:has-text("Start the assessment")');
  await arriveAt(/^\/assessment\/\d+$/);
  assert.match((await page.textContent('main')) ?? '', /Draft, version 1\. Not scored yet: AE C\.1/);
  await shot('assessment-draft');

  // the assessor writes it: the trend, every element scored, the grade and the conclusion
  await page.selectOption(`select[name="method:${TERM}"]`, 'trend');
  await page.fill(`input[name="rationale:${TERM}"]`, 'potency rises with log P along the alcohols');
  for (const select of await page.$$('select[name^="score:"]')) await select.selectOption('4');
  await page.selectOption('select[name=overall_uncertainty]', 'moderate');
  await page.fill('textarea[name=conclusion]', 'The fish LC50 of octanol is read from the trend of its category.');
  await page.click('button:has-text("Save")');
  await arriveAt(/^\/assessment\/\d+$/);
  const saved = (await page.textContent('main')) ?? '';
  assert.match(saved, /Every element is scored/);
  assert.match(saved, /potency rises with log P along the alcohols/);

  await page.click('button:has-text("Make it final")');
  await arriveAt(/^\/assessment\/\d+$/);
  assert.match((await page.textContent('main')) ?? '', /Final, version 1\./);
  assert.ok(await page.isVisible('button:has-text("Make a new version to change it")'));
  await shot('assessment-final');

  // its PDF, from the page's own link
  const pdfLink = await page.getAttribute('nav.formats a[type="application/pdf"]', 'href');
  assert.ok(pdfLink, 'the page links its PDF');
  const pdf = await page.request.get(new URL(pdfLink, page.url()).href);
  assert.equal(pdf.status(), 200);
  assert.equal((await pdf.body()).subarray(0, 4).toString(), '%PDF');
});

test('accessibility: the read-across pages have no WCAG 2 A/AA violations that axe-core finds', { skip }, async () => {
  // axe is injected as a script, which the pages' policy forbids: this context alone bypasses it
  const context = await browser.newContext({ bypassCSP: true });
  const axePage = await context.newPage();
  const axe = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
  const found: string[] = [];
  try {
    assert.ok(passed.size >= 4, [...passed].join(' '));
    for (const path of [new URL(target).pathname, ...passed]) {
      await axePage.goto(`${s.url}${path}`);
      await axePage.addScriptTag({ path: axe });
      const violations = await axePage.evaluate(async () => {
        const result = await (window as unknown as { axe: { run(o: object): Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }).axe.run({ runOnly: ['wcag2a', 'wcag2aa'] });
        return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
      });
      if (violations.length) found.push(`${path}: ${violations.join(', ')}`);
    }
  } finally {
    await context.close();
  }
  assert.deepEqual(found, []);
});
