import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { sharedCsv, startTestServer, type TestServer } from '../helpers.js';

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

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

/** After a form: wait for the page it leads to (`expected`), through the task pages when the work runs as a task (their progress reloads the page until the result). */
async function arriveAt(expected: RegExp): Promise<void> {
  await page.waitForURL((url) => expected.test(url.pathname), { timeout: 120_000 });
}

test('upload a CSV from the datasets page and land on the new dataset', { skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM} (Debian package chromium; .ci/run installs it)` }, async () => {
  await page.goto(`${s.url}/`);
  await shot('home');
  await page.click('nav.site >> text=Datasets');
  const file = join(tmpdir(), 'fathead-minnow.csv');
  writeFileSync(file, sharedCsv('EPAFHM_log10.csv', 40));
  await page.setInputFiles('input[type=file][name=file]', file);
  await page.fill('input[name=title]', 'Fathead minnow LC50 (40 structures)');
  await page.click('form.upload button[type=submit]');
  await arriveAt(/^\/dataset\/\d+$/);
  assert.match((await page.textContent('h1')) ?? '', /Fathead minnow LC50/);
  await shot('dataset');
});
