import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { sharedCsv, startTestServer, http, form, parseTurtle, errorReport, OT, waitForTask, valuesOf, type TestServer } from './helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/** Every 100th structure of the Kazius mutagenicity set (../shared/data). */
async function kazius(): Promise<string> {
  const csv = sharedCsv('kazius.csv', 100, 100);
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
