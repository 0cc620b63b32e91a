import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import { startTestServer, http, form, parseTurtle, errorReport, OT, waitForTask, valuesOf, type TestServer } from '../helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const OTA = 'http://www.opentox.org/algorithmTypes.owl#';

/**
 * Ten structures of the fathead minnow set (../shared/data) with their LC50, a second column
 * missing on three rows, and two structures repeated: one with another LC50, one with the same values.
 */
function untidy(): string {
  const rows = readFileSync(new URL('../../../shared/data/EPAFHM_log10.csv', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .slice(1, 11)
    .map((l) => l.split(','));
  const lines = rows.map(([smiles, y], i) => `${smiles},${y},${i < 3 ? '' : i * 10}`);
  lines.push(`${rows[5][0]},${Number(rows[5][1]) + 1},50`, `${rows[6][0]},${rows[6][1]},60`);
  return `SMILES,LC50,other\n${lines.join('\n')}\n`;
}

async function run(url: string, params: Record<string, string>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

const table = async (dataset: string) => parseCsv((await http(local(dataset), { accept: 'text/csv' })).text) as string[][];

let dataset: string;
test('missing values: the filtering model removes rows that lack a value, or drops a feature missing too often', async () => {
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: untidy(), contentType: 'text/csv', accept: 'text/uri-list' });
  dataset = up.text.trim();
  const model = await run(`${s.url}/algorithm/dc-missing-values`, { dataset_uri: dataset });
  const description = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(description, model, `${OT}algorithm`), [`${s.base}/algorithm/dc-missing-values`]);
  assert.deepEqual(valuesOf(description, model, `${OT}predictedVariables`), [], 'a filtering model makes no features');
  const cleaned = await table(await run(model, { dataset_uri: dataset }));
  assert.equal(cleaned.length - 1, 12 - 3, 'the three rows without "other" are gone');
  assert.ok(cleaned.slice(1).every((r) => r[2] !== ''));
  assert.equal((await table(dataset)).length - 1, 12, 'the source dataset is untouched');

  const lenient = await run(`${s.url}/algorithm/dc-missing-values`, { dataset_uri: dataset, maxMissing: '0.2' });
  const kept = await table(await run(lenient, { dataset_uri: dataset }));
  assert.deepEqual(kept[0], ['SMILES', 'LC50'], '"other" is missing in 3 of 12 rows (25%): dropped');
  assert.equal(kept.length - 1, 12);
});

test('duplicate structures: merged by mean, the first row kept, or dropped when their rows disagree', async () => {
  const merged = await table(await run(await run(`${s.url}/algorithm/dc-duplicates`, { dataset_uri: dataset, keep: 'mean' }), { dataset_uri: dataset }));
  assert.equal(merged.length - 1, 10, 'one row per structure');
  const original = (await table(dataset)).slice(1);
  const lc50 = (rows: string[][], i: number) => rows.filter((r) => r[0] === original[i][0]).map((r) => Number(r[1]));
  assert.ok(Math.abs(lc50(merged, 5)[0] - (lc50(original, 5)[0] + lc50(original, 5)[1]) / 2) < 1e-9, 'the mean of the two LC50 values');
  const first = await table(await run(await run(`${s.url}/algorithm/dc-duplicates`, { dataset_uri: dataset, keep: 'first' }), { dataset_uri: dataset }));
  assert.equal(first.length - 1, 10);
  assert.deepEqual(lc50(first, 5), [lc50(original, 5)[0]]);
  const strict = await table(await run(await run(`${s.url}/algorithm/dc-duplicates`, { dataset_uri: dataset, keep: 'conflicts' }), { dataset_uri: dataset }));
  assert.equal(strict.length - 1, 9, 'the structure whose rows disagree on LC50 is dropped; the one whose rows agree is kept once');
  assert.ok(!strict.some((r) => r[0] === original[5][0]));
  assert.equal(strict.filter((r) => r[0] === original[6][0]).length, 1);
  // a dataset reference that chooses features: the cleaned copy holds those only
  const lc50Feature = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  const chosen = await table(
    await run(await run(`${s.url}/algorithm/dc-duplicates`, { dataset_uri: dataset, keep: 'first' }), { dataset_uri: `${dataset}?feature_uris[]=${encodeURIComponent(lc50Feature)}` }),
  );
  assert.deepEqual(chosen[0], ['SMILES', 'LC50']);
  assert.equal(chosen.length - 1, 10);
});

test('data cleanup in the catalogue; bad parameters answer 400 naming them; a filtering model takes no compound_uri and is not validated', async () => {
  const algorithm = parseTurtle((await http(`${s.url}/algorithm/dc-duplicates`, { accept: 'text/turtle' })).text);
  assert.ok(valuesOf(algorithm, `${s.base}/algorithm/dc-duplicates`, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type').includes(`${OTA}DataCleanup`));
  const bad = await http(`${s.url}/algorithm/dc-duplicates`, { method: 'POST', body: form({ dataset_uri: dataset, keep: 'all' }), accept: 'text/turtle' });
  assert.equal(bad.status, 400);
  assert.match((await errorReport(bad)).message ?? '', /\bkeep\b/);
  const range = await http(`${s.url}/algorithm/dc-missing-values`, { method: 'POST', body: form({ dataset_uri: dataset, maxMissing: '2' }), accept: 'text/turtle' });
  assert.equal(range.status, 400);
  assert.match((await errorReport(range)).message ?? '', /maxMissing/);
  const model = await run(`${s.url}/algorithm/dc-duplicates`, { dataset_uri: dataset });
  const compound = (await http(`${local(dataset)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  const one = await http(local(model), { method: 'POST', body: form({ compound_uri: compound }), accept: 'text/turtle' });
  assert.equal(one.status, 400);
  const validation = await http(`${s.url}/validation/test_set_validation`, { method: 'POST', body: form({ model_uri: model, test_dataset_uri: dataset }), accept: 'text/turtle' });
  assert.equal(validation.status, 400);
});
