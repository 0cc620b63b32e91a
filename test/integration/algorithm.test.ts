import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { startTestServer, http, form, checkRdfXml, parseTurtle, errorReport, OT, waitForTask, valuesOf, resourceLists, type TestServer } from '../helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const DC = 'http://purl.org/dc/elements/1.1/';
const OTA = 'http://www.opentox.org/algorithmTypes.owl#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const csvRows = (text: string) => parseCsv(text) as string[][];

async function upload(csv: string): Promise<string> {
  const r = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(r.status, 200, r.text);
  return r.text.trim();
}

async function invoke(id: string, params: Record<string, string>): Promise<string> {
  const r = await http(`${s.url}/algorithm/${id}`, { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

const PHENOLS = 'SMILES,LC50\nOc1ccccc1,1.2\nCCO,0.3\nc1ccccc1,0.9\nClc1ccccc1O,1.8\n';

test('catalogue: every algorithm listed, described with types, parameters and typed defaults', async () => {
  const list = await http(`${s.url}/algorithm`, { accept: 'text/uri-list' });
  assert.equal(list.status, 200);
  const uris = list.text.trim().split('\r\n');
  for (const id of ['rdkit-descriptors', 'morgan-fingerprint', 'maccs-keys']) assert.ok(uris.includes(`${s.base}/algorithm/${id}`), id);
  assert.ok(uris.length >= 3 + 11, `descriptor algorithms and learners: ${uris.length}`);

  const uri = `${s.base}/algorithm/morgan-fingerprint`;
  const r = await http(local(uri));
  assert.equal(r.type, 'application/rdf+xml');
  const quads = await checkRdfXml(r.text);
  const types = valuesOf(quads, uri, RDF_TYPE);
  assert.ok(types.includes(`${OT}Algorithm`) && types.includes(`${OTA}DescriptorCalculation`) && types.includes(`${OTA}Fingerprints`), types.join());
  assert.equal(valuesOf(quads, uri, `${DC}title`).length, 1);
  assert.equal(valuesOf(quads, uri, `${DC}creator`).length, 1);
  assert.match(valuesOf(quads, uri, `${DC}date`)[0], /^\d{4}-\d\d-\d\dT/);
  const params = valuesOf(quads, uri, `${OT}parameters`);
  const byName = new Map(params.map((p) => [valuesOf(quads, p, `${DC}title`)[0], p]));
  assert.deepEqual([...byName.keys()].sort(), ['dataset_uri', 'nBits', 'radius', 'useChirality']);
  assert.equal(valuesOf(quads, byName.get('dataset_uri')!, `${OT}paramScope`)[0], 'mandatory');
  assert.equal(valuesOf(quads, byName.get('nBits')!, `${OT}paramScope`)[0], 'optional');
  const nBits = quads.find((q) => q.subject.value === byName.get('nBits') && q.predicate.value === `${OT}paramValue`)!.object;
  assert.equal(nBits.value, '2048');
  assert.equal((nBits as any).datatype.value, 'http://www.w3.org/2001/XMLSchema#int');

  // plain JSON for REST clients
  const json = JSON.parse((await http(local(uri), { accept: 'application/json' })).text);
  assert.equal(json.uri, uri);
  assert.ok(json.type.includes(`${OTA}Fingerprints`));
  assert.deepEqual(
    json.parameters.find((p: { title: string }) => p.title === 'nBits'),
    { type: [`${OT}Parameter`], title: 'nBits', description: json.parameters.find((p: { title: string }) => p.title === 'nBits').description, paramScope: 'optional', paramValue: 2048 },
  );
  assert.equal((await http(local(uri), { accept: 'text/x-yaml' })).type, 'text/x-yaml');

  // every learner is Supervised plus Regression or Classification (read-across, of either task, both), with prediction_feature mandatory
  for (const u of uris.filter((x) => !/descriptors|fingerprint|maccs|superalgorithm|frequent-substructures|standardise-structures|onnx-import|\/algorithm\/(ad|fs|dc)-/.test(x))) {
    const q = parseTurtle((await http(local(u), { accept: 'text/turtle' })).text);
    const t = valuesOf(q, u, RDF_TYPE);
    assert.ok(t.includes(`${OTA}Supervised`), u);
    const both = u.endsWith('/algorithm/genra');
    assert.ok(both ? t.includes(`${OTA}Regression`) && t.includes(`${OTA}Classification`) : t.includes(`${OTA}Regression`) !== t.includes(`${OTA}Classification`), `${u}: ${t.join()}`);
    const names = valuesOf(q, u, `${OT}parameters`).map((p) => valuesOf(q, p, `${DC}title`)[0]);
    assert.ok(names.includes('prediction_feature') && names.includes('dataset_uri'), u);
  }

  // the catalogue is in the store: SPARQL sees it
  const sparql = await http(`${s.url}/sparql?query=${encodeURIComponent(`SELECT (COUNT(DISTINCT ?a) AS ?n) WHERE { ?a a <${OT}Algorithm> }`)}`, { accept: 'application/sparql-results+json' });
  assert.equal(Number(JSON.parse(sparql.text).results.bindings[0].n.value), uris.length);
});

test('sameas filter, unknown algorithm and unsupported representation', async () => {
  const none = await http(`${s.url}/algorithm?sameas=${encodeURIComponent('http://example.org/none')}`, { accept: 'text/uri-list' });
  assert.equal(none.status, 404);
  assert.equal((await http(`${s.url}/algorithm/no-such-algorithm`)).status, 404);
  const post = await http(`${s.url}/algorithm/no-such-algorithm`, { method: 'POST', body: form({ dataset_uri: `${s.base}/dataset/1` }) });
  assert.equal(post.status, 404);
  assert.equal((await http(`${s.url}/algorithm/maccs-keys`, { accept: 'image/png' })).status, 400);
  const html = await http(`${s.url}/algorithm/rdkit-descriptors`, { accept: 'text/html' });
  assert.equal(html.status, 200);
  assert.match(html.text, /RDKit molecular descriptors/);
});

test('RDKit descriptors: a new dataset with the 43 descriptors, features from an algorithm instance, values right', async () => {
  const dataset = await upload(PHENOLS);
  const result = await invoke('rdkit-descriptors', { dataset_uri: dataset });
  assert.notEqual(result, dataset);
  const rows = csvRows((await http(local(result), { accept: 'text/csv' })).text);
  assert.equal(rows[0].length, 2 + 43);
  assert.deepEqual(
    rows.slice(1, 4).map((r) => r[0]),
    ['Oc1ccccc1', 'CCO', 'c1ccccc1'],
  );
  assert.equal(rows.length, 5);
  const col = (name: string) => rows[0].indexOf(name);
  assert.equal(Number(rows[1][col('tpsa')]), 20.23); // phenol
  assert.equal(Number(rows[1][col('NumHBD')]), 1);
  assert.equal(Number(rows[2][col('NumHeavyAtoms')]), 3); // ethanol
  assert.equal(rows[1][col('LC50')], '1.2', 'the input columns are kept');

  const features = (await http(`${local(result)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const tpsa = features[col('tpsa') - 1];
  const f = parseTurtle((await http(local(tpsa), { accept: 'text/turtle' })).text);
  assert.ok(valuesOf(f, tpsa, RDF_TYPE).includes(`${OT}NumericFeature`));
  assert.deepEqual(valuesOf(f, tpsa, 'http://www.w3.org/2002/07/owl#sameAs'), ['http://www.blueobelisk.org/ontologies/chemoinformatics-algorithms/#tpsa']);
  assert.equal(valuesOf(f, tpsa, `${OT}units`)[0], 'Å²');
  const instance = valuesOf(f, tpsa, `${OT}hasSource`)[0];
  assert.match(instance, new RegExp(`^${s.base}/algorithm/rdkit-descriptors/[0-9a-f]{12}$`));
  const inst = parseTurtle((await http(local(instance), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(inst, instance, `${OT}instanceOf`), [`${s.base}/algorithm/rdkit-descriptors`]);
  const p = valuesOf(inst, instance, `${OT}parameters`).find((x) => valuesOf(inst, x, `${DC}title`)[0] === 'descriptors')!;
  assert.equal(valuesOf(inst, p, `${OT}paramValue`)[0], 'all');

  // the same parameter values give the same instance and the same features
  const again = await invoke('rdkit-descriptors', { dataset_uri: await upload('SMILES\nCCN\n') });
  const againFeatures = (await http(`${local(again)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  assert.deepEqual(againFeatures, features.slice(1));
});

test('fingerprints: Morgan with chosen length and MACCS keys as set-bit lists; a subset of descriptors into result_dataset', async () => {
  const dataset = await upload(PHENOLS);
  const morgan = await invoke('morgan-fingerprint', { dataset_uri: dataset, nBits: '1024', radius: '2' });
  const rows = csvRows((await http(local(morgan), { accept: 'text/csv' })).text);
  assert.equal(rows[0][2], 'Morgan fingerprint r2 1024 bits');
  for (const r of rows.slice(1)) {
    const bits = r[2].split(' ').map(Number);
    assert.ok(bits.length > 0 && bits.every((b) => Number.isInteger(b) && b >= 0 && b < 1024), r[2]);
  }
  const fp = (await http(`${local(morgan)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[1];
  const fq = parseTurtle((await http(local(fp), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(fq, fp, `${OT}fingerprintBits`), ['1024']);

  const maccs = await invoke('maccs-keys', { dataset_uri: dataset });
  const m = csvRows((await http(local(maccs), { accept: 'text/csv' })).text);
  assert.ok(m.slice(1).every((r) => r[2].split(' ').every((b) => Number(b) > 0 && Number(b) < 167)));

  // result_dataset: the existing dataset gets the new columns, nothing else is made
  const target = await upload(PHENOLS);
  const out = await invoke('rdkit-descriptors', { dataset_uri: dataset, result_dataset: target, descriptors: 'tpsa,CrippenClogP' });
  assert.equal(out, target);
  const t = csvRows((await http(local(target), { accept: 'text/csv' })).text);
  assert.deepEqual(t[0], ['SMILES', 'LC50', 'tpsa', 'CrippenClogP']);
  assert.equal(Number(t[1][2]), 20.23);
});

test('parameter errors answer 400 naming the parameter; unknown datasets 404; hostile input is refused cleanly', async () => {
  const dataset = await upload(PHENOLS);
  const post = (id: string, p: Record<string, string>) => http(`${s.url}/algorithm/${id}`, { method: 'POST', body: form(p), accept: 'text/turtle' });
  const cases: [string, Record<string, string>, number, RegExp][] = [
    ['rdkit-descriptors', {}, 400, /dataset_uri/],
    ['morgan-fingerprint', { dataset_uri: dataset, radius: '9' }, 400, /radius.*between 1 and 6/],
    ['morgan-fingerprint', { dataset_uri: dataset, nBits: 'many' }, 400, /nBits/],
    ['morgan-fingerprint', { dataset_uri: dataset, useChirality: 'maybe' }, 400, /useChirality/],
    ['rdkit-descriptors', { dataset_uri: dataset, descriptors: 'tpsa,nonsense' }, 400, /descriptors.*nonsense/],
    ['rdkit-descriptors', { dataset_uri: `${s.base}/dataset/99999` }, 404, /dataset/],
    ['rdkit-descriptors', { dataset_uri: dataset, result_dataset: dataset, dataset_service: `${s.base}/dataset` }, 400, /result_dataset or dataset_service/],
    ['rdkit-descriptors', { dataset_uri: dataset, dataset_service: 'file:///etc/dataset' }, 400, /only http and https/],
    ['rdkit-descriptors', { dataset_uri: `${dataset}?feature_uris[]=${s.base}/feature/99999` }, 400, /not in dataset/],
    ['rdkit-descriptors', { dataset_uri: `${s.base}/dataset/1> } ; DROP ALL ; #` }, 404, /not found/],
  ];
  const before = await resourceLists(s);
  for (const [id, p, status, message] of cases) {
    const r = await post(id, p);
    assert.equal(r.status, status, `${JSON.stringify(p)}: ${r.text}`);
    const report = await errorReport(r);
    assert.match(report.message ?? '', message, JSON.stringify(p));
  }
  assert.equal(await resourceLists(s), before, 'refused requests write nothing');
  // the store is intact after the injection attempt
  assert.equal((await http(local(dataset), { accept: 'text/csv' })).status, 200);
});

test('the catalogue page lists each algorithm once, learners by what they predict; with a dataset chosen, learners for an endpoint it lacks are left out', async () => {
  const page = (await http(`${s.url}/algorithm`, { accept: 'text/html' })).text;
  assert.equal((page.match(/href="\/algorithm\/random-forest-regression"/g) ?? []).length, 1);
  assert.doesNotMatch(page, /<ul class="members">/);
  assert.match(page, /<h2>Learning a numeric endpoint \(regression\)<\/h2>/);
  const dataset = await upload('SMILES,LC50\nCCO,1.5\nCCCO,2.5\n');
  const chosen = (await http(`${s.url}/algorithm?dataset_uri=${encodeURIComponent(dataset)}`, { accept: 'text/html' })).text;
  assert.match(chosen, /<h2>Learning classes \(classification\)<\/h2><p>Not for this dataset: it has no class column of its own\.<\/p>/);
  assert.ok(chosen.includes(`/algorithm/random-forest-regression?dataset_uri=${encodeURIComponent(dataset)}`));
  assert.ok(!chosen.includes('/algorithm/random-forest-classification?'));
});
