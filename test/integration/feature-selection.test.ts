import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { sharedCsv, startTestServer, http, form, parseTurtle, errorReport, OT, waitForTask, valuesOf, type TestServer } from '../helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const OTA = 'http://www.opentox.org/algorithmTypes.owl#';

async function described(csv: string): Promise<{ dataset: string; rows: string[][]; features: string[] }> {
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  const task = await http(`${s.url}/algorithm/rdkit-descriptors`, { method: 'POST', body: form({ dataset_uri: up.text.trim() }), accept: 'text/uri-list' });
  const dataset = await waitForTask(s, task.text.trim());
  const rows = parseCsv((await http(local(dataset), { accept: 'text/csv' })).text) as string[][];
  const features = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  return { dataset, rows, features };
}

async function select(id: string, params: Record<string, string>): Promise<string[]> {
  const r = await http(`${s.url}/algorithm/${id}`, { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.equal(r.status, 200, r.text);
  return r.text.trim() ? r.text.trim().split('\r\n') : [];
}

function pearson(a: number[], b: number[]): number {
  const mean = (v: number[]) => v.reduce((x, y) => x + y, 0) / v.length;
  const [ma, mb] = [mean(a), mean(b)];
  const cov = a.reduce((sum, x, i) => sum + (x - ma) * (b[i] - mb), 0);
  const va = a.reduce((sum, x) => sum + (x - ma) ** 2, 0);
  const vb = b.reduce((sum, x) => sum + (x - mb) ** 2, 0);
  return cov / Math.sqrt(va * vb);
}

test('supervised selection by correlation: numToSelect features, the best first, as a direct computation ranks them; usable for training', async () => {
  const { dataset, rows, features } = await described(sharedCsv('EPAFHM_log10.csv', 60));
  const targetAt = rows[0].indexOf('-log10(LC50_mmol)');
  const target = features[targetAt - 1];
  const picked = await select('fs-correlation', { dataset_uri: dataset, prediction_feature: target, numToSelect: '5' });
  assert.equal(picked.length, 5);
  assert.ok(!picked.includes(target));
  const y = rows.slice(1).map((r) => Number(r[targetAt]));
  const scores = features
    .map((f, i) => ({
      f,
      title: rows[0][i + 1],
      r: Math.abs(
        pearson(
          rows.slice(1).map((row) => Number(row[i + 1])),
          y,
        ),
      ),
    }))
    .filter((x) => x.f !== target && Number.isFinite(x.r))
    .sort((a, b) => b.r - a.r);
  assert.deepEqual(
    picked,
    scores.slice(0, 5).map((x) => x.f),
  );

  const mi = await select('fs-mutual-information', { dataset_uri: dataset, prediction_feature: target, numToSelect: '3' });
  assert.equal(mi.length, 3);
  assert.ok(mi.every((f) => features.includes(f) && f !== target));

  // the selection as a dataset reference trains a model on exactly those features
  const ref = `${dataset}?${[...picked, target].map((f) => `feature_uris[]=${encodeURIComponent(f)}`).join('&')}`;
  const task = await http(`${s.url}/algorithm/mlr`, { method: 'POST', body: form({ dataset_uri: ref, prediction_feature: target }), accept: 'text/uri-list' });
  const model = await waitForTask(s, task.text.trim());
  const description = parseTurtle((await http(local(model), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(description, model, `${OT}independentVariables`).sort(), [...picked].sort());
});

test('unsupervised selection drops near-constant and inter-correlated features; mutual information ranks against a nominal target', async () => {
  const { dataset, rows, features } = await described(sharedCsv('kazius.csv', 60, 60));
  const targetAt = rows[0].indexOf('Mutagenicity');
  const kept = await select('fs-variance-correlation', { dataset_uri: dataset, maxCorrelation: '0.9', maxFrequency: '0.95' });
  assert.ok(kept.length > 3 && kept.length < features.length - 1, `${kept.length} of ${features.length}`);
  const column = (f: string) => rows.slice(1).map((r) => Number(r[features.indexOf(f) + 1]));
  for (const [i, a] of kept.entries()) {
    const values = column(a);
    const top = Math.max(...[...new Set(values)].map((v) => values.filter((x) => x === v).length));
    assert.ok(top / values.length < 0.95, `${a} is not near-constant`);
    for (const b of kept.slice(i + 1)) assert.ok(Math.abs(pearson(values, column(b))) <= 0.9, `${a} and ${b} are not correlated beyond 0.9`);
  }
  assert.ok(!(kept.includes(features[rows[0].indexOf('exactmw') - 1]) && kept.includes(features[rows[0].indexOf('amw') - 1])), 'of two molecular weights one goes');
  assert.equal((await select('fs-variance-correlation', { dataset_uri: dataset, numToSelect: '4' })).length, 4);
  const ranked = await select('fs-mutual-information', { dataset_uri: dataset, prediction_feature: features[targetAt - 1], numToSelect: '4' });
  assert.equal(ranked.length, 4);
  // two classes: a correlation with the class index ranks as well
  assert.equal((await select('fs-correlation', { dataset_uri: dataset, prediction_feature: features[targetAt - 1], numToSelect: '3' })).length, 3);
});

test('feature selection in the catalogue; missing target, bad numToSelect and datasets without numeric features answer 400', async () => {
  const algorithm = parseTurtle((await http(`${s.url}/algorithm/fs-correlation`, { accept: 'text/turtle' })).text);
  assert.ok(valuesOf(algorithm, `${s.base}/algorithm/fs-correlation`, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type').includes(`${OTA}FeatureSelection`));
  const { dataset } = await described(sharedCsv('EPAFHM_log10.csv', 20));
  const noTarget = await http(`${s.url}/algorithm/fs-correlation`, { method: 'POST', body: form({ dataset_uri: dataset }), accept: 'text/turtle' });
  assert.equal(noTarget.status, 400);
  assert.match((await errorReport(noTarget)).message ?? '', /prediction_feature/);
  const bad = await http(`${s.url}/algorithm/fs-variance-correlation`, { method: 'POST', body: form({ dataset_uri: dataset, numToSelect: '-1' }), accept: 'text/turtle' });
  assert.equal(bad.status, 400);
  assert.match((await errorReport(bad)).message ?? '', /numToSelect/);
  const three = await described('SMILES,x,class\nCCO,1,a\nCCCO,2,b\nCCCCO,3,c\nCCCCCO,4,a\n');
  const threeClasses = await http(`${s.url}/algorithm/fs-correlation`, { method: 'POST', body: form({ dataset_uri: three.dataset, prediction_feature: three.features[1] }), accept: 'text/turtle' });
  assert.equal(threeClasses.status, 400);
  assert.match((await errorReport(threeClasses)).message ?? '', /3 classes/);
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,name\nCCO,ethanol\nCCCO,propanol\n', contentType: 'text/csv', accept: 'text/uri-list' });
  const strings = await http(`${s.url}/algorithm/fs-variance-correlation`, { method: 'POST', body: form({ dataset_uri: up.text.trim() }), accept: 'text/turtle' });
  assert.equal(strings.status, 400);
  assert.match((await errorReport(strings)).message ?? '', /no numeric features/);
});
