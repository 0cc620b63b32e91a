import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import jstat from 'jstat';
import { sharedCsv, startTestServer, http, form, parseTurtle, errorReport, OT, waitForTask, valuesOf, type TestServer } from '../helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/** Every `step`th structure of the Kazius mutagenicity set (../shared/data). */
async function kazius(step = 100): Promise<string> {
  const csv = sharedCsv('kazius.csv', 1000, step);
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  return up.text.trim();
}

async function mine(params: Record<string, string>): Promise<string> {
  const r = await http(`${s.url}/algorithm/frequent-substructures`, { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

test('frequent substructures: fragments held by at least minSup of the structures, each an ot:Substructure whose SMARTS finds exactly the structures valued 1', async () => {
  const dataset = await kazius();
  const mined = await mine({ dataset_uri: dataset, minSup: '0.3', maxBonds: '3' });
  const rows = parseCsv((await http(local(mined), { accept: 'text/csv' })).text) as string[][];
  const features = (await http(`${local(mined)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const fragments = features.slice(1); // after Mutagenicity
  assert.ok(fragments.length >= 5, `${fragments.length} fragments`);
  const compounds = (await http(`${local(mined)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  for (const [k, f] of fragments.slice(0, 6).entries()) {
    const graph = parseTurtle((await http(local(f), { accept: 'text/turtle' })).text);
    assert.ok(valuesOf(graph, f, RDF_TYPE).includes(`${OT}Substructure`));
    const [smarts] = valuesOf(graph, f, `${OT}smarts`);
    assert.equal(rows[0][k + 2], smarts, 'the feature is titled by its SMARTS');
    const column = rows.slice(1).map((r) => r[k + 2]);
    assert.ok(column.filter((v) => v === '1').length / column.length >= 0.3, `${smarts} has support ≥ minSup`);
    // the server's own substructure search (RDKit) agrees with every value
    const found = new Set((await http(`${s.url}/compound?smarts=${encodeURIComponent(smarts)}`, { accept: 'text/uri-list' })).text.trim().split('\r\n'));
    const holders = compounds.filter((c) => found.has(c)).sort();
    const valuedOne = rows
      .slice(1)
      .map((r, i) => (r[k + 2] === '1' ? compounds[i] : ''))
      .filter((c) => c)
      .sort();
    assert.deepEqual(holders, valuedOne, smarts);
  }
  const few = await mine({ dataset_uri: dataset, minSup: '0.3', maxBonds: '3', maxFragments: '5' });
  assert.equal((await http(`${local(few)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n').length, 1 + 5);
});

test('pattern mining in the catalogue; bad parameters answer 400 naming them', async () => {
  const algorithm = parseTurtle((await http(`${s.url}/algorithm/frequent-substructures`, { accept: 'text/turtle' })).text);
  assert.ok(valuesOf(algorithm, `${s.base}/algorithm/frequent-substructures`, RDF_TYPE).includes('http://www.opentox.org/algorithmTypes.owl#PatternMining'));
  const dataset = await kazius();
  const unknown = await http(`${s.url}/algorithm/frequent-substructures`, {
    method: 'POST',
    body: form({ dataset_uri: `${dataset}?feature_uris[]=${encodeURIComponent(`${s.base}/feature/999999`)}` }),
    accept: 'text/turtle',
  });
  assert.equal(unknown.status, 400, 'a selected feature the dataset lacks');
  for (const [name, value] of [
    ['minSup', '0'],
    ['minSup', '1.5'],
    ['maxBonds', '9'],
  ]) {
    const r = await http(`${s.url}/algorithm/frequent-substructures`, { method: 'POST', body: form({ dataset_uri: dataset, [name]: value }), accept: 'text/turtle' });
    assert.equal(r.status, 400);
    assert.match((await errorReport(r)).message ?? '', new RegExp(name));
  }
});

/** Pearson's chi-square p-value of a 2 × 2 table (one degree of freedom), computed here from the columns. */
function chiSquarePValue(fragment: string[], classes: string[]): number {
  const labels = [...new Set(classes)];
  const n = classes.length;
  const held = fragment.filter((v) => v === '1').length;
  let chi2 = 0;
  for (const label of labels) {
    const inClass = classes.filter((c) => c === label).length;
    const both = classes.filter((c, i) => c === label && fragment[i] === '1').length;
    for (const [observed, rowTotal] of [
      [both, held],
      [inClass - both, n - held],
    ]) {
      const expected = (rowTotal * inClass) / n;
      chi2 += (observed - expected) ** 2 / expected;
    }
  }
  return 1 - jstat.jStat.chisquare.cdf(chi2, labels.length - 1);
}

test('supervised mining keeps exactly the frequent fragments whose occurrence depends on the class (chi-square p < pValue), the most significant first', async () => {
  const dataset = await kazius(20);
  const classFeature = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim();
  const all = await mine({ dataset_uri: dataset, minSup: '0.1', maxBonds: '3', maxFragments: '1000' });
  const allRows = parseCsv((await http(local(all), { accept: 'text/csv' })).text) as string[][];
  const significant = new Map<string, number>();
  for (let k = 2; k < allRows[0].length; k++) {
    const p = chiSquarePValue(
      allRows.slice(1).map((r) => r[k]),
      allRows.slice(1).map((r) => r[1]),
    );
    if (p < 0.01) significant.set(allRows[0][k], p);
  }
  assert.ok(significant.size >= 2 && significant.size < allRows[0].length - 2, `${significant.size} of ${allRows[0].length - 2} fragments associated`);

  const supervised = await mine({ dataset_uri: dataset, minSup: '0.1', maxBonds: '3', maxFragments: '1000', prediction_feature: classFeature, pValue: '0.01' });
  const rows = parseCsv((await http(local(supervised), { accept: 'text/csv' })).text) as string[][];
  const kept = rows[0].slice(2);
  assert.deepEqual([...kept].sort(), [...significant.keys()].sort());
  const pValues = kept.map((f) => significant.get(f)!);
  assert.deepEqual(
    pValues,
    [...pValues].sort((a, b) => a - b),
    'the most significant first',
  );
  const features = (await http(`${local(supervised)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const first = parseTurtle((await http(local(features[1]), { accept: 'text/turtle' })).text);
  assert.match(valuesOf(first, features[1], 'http://purl.org/dc/elements/1.1/description')[0], /chi-square p = .* most often in class (mutagenic|non-mutagenic)/);

  const numeric = await http(`${s.url}/algorithm/frequent-substructures`, {
    method: 'POST',
    body: form({ dataset_uri: dataset, prediction_feature: `${s.base}/feature/999999` }),
    accept: 'text/turtle',
  });
  assert.equal(numeric.status, 400);
  assert.match((await errorReport(numeric)).message ?? '', /prediction_feature/);
});

test('a model trained on mined fragments calculates them for new structures: posting the same SMILES bare gives the same predictions', async () => {
  const dataset = await kazius();
  const classFeature = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim();
  const mined = await mine({ dataset_uri: dataset, minSup: '0.1', maxBonds: '4', maxFragments: '40' });
  const trained = await http(`${s.url}/algorithm/naive-bayes`, { method: 'POST', body: form({ dataset_uri: mined, prediction_feature: classFeature }), accept: 'text/uri-list' });
  assert.equal(trained.status, 202, trained.text);
  const model = await waitForTask(s, trained.text.trim());
  const predict = async (datasetUri: string) => {
    const r = await http(local(model), { method: 'POST', body: form({ dataset_uri: datasetUri }), accept: 'text/uri-list' });
    assert.ok(r.status === 200 || r.status === 202, r.text);
    const result = r.status === 202 ? await waitForTask(s, r.text.trim()) : r.text.trim();
    return (parseCsv((await http(local(result), { accept: 'text/csv' })).text) as string[][]).slice(1).map((row) => row.slice(1).join(','));
  };
  const bare = await http(`${s.url}/dataset`, {
    method: 'POST',
    body: sharedCsv('kazius.csv', 1000, 100)
      .replace(/,[a-z-]+$/gm, '')
      .replace('SMILES,Mutagenicity', 'SMILES'),
    contentType: 'text/csv',
    accept: 'text/uri-list',
  });
  assert.equal(bare.status, 200, bare.text);
  const fromFragments = await predict(mined);
  assert.ok(fromFragments.length > 40, `${fromFragments.length} rows`);
  assert.ok(
    fromFragments.every((p) => /^(mutagenic|non-mutagenic),/.test(p)),
    fromFragments[0],
  );
  assert.deepEqual(await predict(bare.text.trim()), fromFragments);
});
