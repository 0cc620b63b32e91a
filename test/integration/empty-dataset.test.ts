import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, http, form, errorReport, parseTurtle, parseRdfXml, resourceLists, valuesOf, OT, TTL_PREFIXES, type TestServer } from '../helpers.ts';
import { ShapeValidator } from '../../src/shacl/shape-validator.ts';

// An empty dataset (issue 54): POST /dataset with no body, or with metadata only, makes a dataset
// without rows, as the OpenTox Ruby services did; it is filled by PUT later.

const DC = 'http://purl.org/dc/elements/1.1/';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
let s: TestServer;
let shapes: ShapeValidator;
before(async () => {
  s = await startTestServer();
  shapes = await ShapeValidator.load(new URL('../../shapes', import.meta.url).pathname);
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);

async function created(init: RequestInit & { contentType?: string }): Promise<string> {
  const r = await http(`${s.url}/dataset`, { method: 'POST', accept: 'text/uri-list', ...init });
  assert.equal(r.status, 200, r.text);
  const uri = r.text.trim();
  assert.match(uri, new RegExp(`^${s.base}/dataset/\\d+$`));
  assert.equal(r.headers.get('location'), uri);
  return uri;
}

test('POST /dataset with no body makes an empty dataset, valid in every representation', async () => {
  const uri = await created({});
  const ttl = await http(local(uri), { accept: 'text/turtle' });
  assert.equal(ttl.status, 200, ttl.text);
  const quads = parseTurtle(ttl.text, uri);
  assert.ok(quads.some((q) => q.subject.value === uri && q.object.value === `${OT}Dataset`));
  assert.ok(!quads.some((q) => q.predicate.value === `${OT}dataEntry`), 'no entries');
  assert.deepEqual(await shapes.check(quads), [], 'it satisfies shapes/dataset.ttl');
  const xml = await http(local(uri), { accept: 'application/rdf+xml' });
  assert.equal(xml.status, 200);
  assert.ok((await parseRdfXml(xml.text)).some((q) => q.subject.value === uri && q.object.value === `${OT}Dataset`));

  // tables: a header and no row
  const csv = await http(local(uri), { accept: 'text/csv' });
  assert.equal(csv.status, 200, csv.text);
  const lines = csv.text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter(Boolean);
  assert.equal(lines.length, 1, `only a header: ${JSON.stringify(csv.text)}`);
  const arff = await http(local(uri), { accept: 'text/arff' });
  assert.equal(arff.status, 200, arff.text);
  assert.match(arff.text, /@relation/i);
  assert.match(arff.text, /@data\s*$/i);
  for (const type of ['chemical/x-mdl-sdfile', 'application/json', 'text/x-yaml', XLSX, 'text/html']) {
    const r = await http(local(uri), { accept: type });
    assert.equal(r.status, 200, `${type}: ${r.text.slice(0, 300)}`);
    assert.equal(r.type, type);
  }
  const json = JSON.parse((await http(local(uri), { accept: 'application/json' })).text);
  assert.ok(JSON.stringify(json).length > 2, 'a JSON document');

  // its metadata, its (empty) compounds and features, and its entry in the list
  assert.equal((await http(`${local(uri)}/metadata`, { accept: 'text/turtle' })).status, 200);
  for (const part of ['compounds', 'features']) {
    const r = await http(`${local(uri)}/${part}`, { accept: 'text/uri-list' });
    assert.equal(r.status, 200);
    assert.equal(r.text.trim(), '', `no ${part}`);
  }
  assert.ok((await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text.split(/\r?\n/).includes(uri));
  const list = parseTurtle((await http(`${s.url}/dataset`, { accept: 'text/turtle' })).text);
  assert.ok(
    list.some((q) => q.subject.value === uri && q.object.value === `${OT}Dataset`),
    'the list describes it',
  );
});

test('metadata only, as form fields or as RDF of a dataset without entries, makes an empty dataset with that metadata', async () => {
  const fromForm = await created({ body: form({ title: 'to be filled', description: 'measured next week', license: 'http://creativecommons.org/licenses/by/4.0/' }) });
  let quads = parseTurtle((await http(local(fromForm), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(quads, fromForm, `${DC}title`), ['to be filled']);
  assert.deepEqual(valuesOf(quads, fromForm, `${DC}description`), ['measured next week']);
  assert.deepEqual(valuesOf(quads, fromForm, 'http://purl.org/dc/terms/license'), ['http://creativecommons.org/licenses/by/4.0/']);

  const fromRdf = await created({ body: `${TTL_PREFIXES}[] a ot:Dataset ; dc:title "from RDF" ; dc:creator "a client" .`, contentType: 'text/turtle' });
  quads = parseTurtle((await http(local(fromRdf), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(quads, fromRdf, `${DC}title`), ['from RDF']);
  assert.deepEqual(valuesOf(quads, fromRdf, `${DC}creator`), ['a client']);
  assert.ok(!quads.some((q) => q.predicate.value === `${OT}dataEntry`));
  // `<>` is the dataset too; what only the server writes (its entries, columns) is not taken from the body
  const relative = await created({ body: `${TTL_PREFIXES}<> dc:title "relative" ; ot:rowsOf <http://elsewhere.example/dataset/1> .`, contentType: 'text/turtle' });
  quads = parseTurtle((await http(local(relative), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(quads, relative, `${DC}title`), ['relative']);
  assert.deepEqual(valuesOf(quads, relative, `${OT}rowsOf`), []);
});

test('an empty dataset is filled by PUT: with a CSV, then with RDF', async () => {
  const uri = await created({ body: form({ title: 'filled later' }) });
  const put = await http(local(uri), { method: 'PUT', body: 'SMILES,LC50\nCCO,1.5\nc1ccccc1,2.5\n', contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(put.status, 200, put.text);
  let csv = (await http(local(uri), { accept: 'text/csv' })).text.trim().split(/\r?\n/);
  assert.equal(csv.length, 3, csv.join('\n'));
  assert.match(csv[0], /LC50/);
  const title = valuesOf(parseTurtle((await http(local(uri), { accept: 'text/turtle' })).text), uri, `${DC}title`);
  assert.deepEqual(title, ['filled later'], 'its metadata kept');

  // RDF entries naming compounds of this service
  const compounds = (await http(`${local(uri)}/compounds`, { accept: 'text/uri-list' })).text.trim().split(/\r?\n/);
  const feature = (await http(`${local(uri)}/features`, { accept: 'text/uri-list' })).text.trim();
  const other = await created({});
  const rdf = `${TTL_PREFIXES}[] a ot:Dataset ; ot:dataEntry [ a ot:DataEntry ; ot:compound <${compounds[0]}> ; ot:values [ a ot:FeatureValue ; ot:feature <${feature}> ; ot:value 7.5 ] ] .`;
  const filled = await http(local(other), { method: 'PUT', body: rdf, contentType: 'text/turtle', accept: 'text/uri-list' });
  assert.equal(filled.status, 200, filled.text);
  csv = (await http(local(other), { accept: 'text/csv' })).text.trim().split(/\r?\n/);
  assert.equal(csv.length, 2, csv.join('\n'));
  assert.match(csv[1], /7\.5/);
});

test('bad input answers 4xx with an error report and writes nothing', async () => {
  const before = await resourceLists(s);
  const refused: [string, RequestInit & { contentType?: string }, RegExp][] = [
    ['a selection without its dataset', { body: form({ compound_uris: `${s.base}/compound/1`, title: 'x' }) }, /missing required parameter dataset_uri/],
    ['a title over the cell limit', { body: form({ title: 'x'.repeat(100_001) }) }, /a cell may hold at most 100000/],
    ['a licence that is no IRI', { body: form({ license: 'http://a b' }) }, /not a valid absolute IRI/],
    ['two titles in RDF', { body: `${TTL_PREFIXES}[] a ot:Dataset ; dc:title "a", "b" .`, contentType: 'text/turtle' }, /at most one dc:title/],
    ['RDF that does not parse', { body: `${TTL_PREFIXES}[] a ot:Dataset ; dc:title "a`, contentType: 'text/turtle' }, /./],
    ['RDF of no dataset and no entries', { body: `${TTL_PREFIXES}<http://x.example/f> a ot:Feature .`, contentType: 'text/turtle' }, /no ot:dataEntry/],
    ['an empty CSV file', { body: '', contentType: 'text/csv' }, /empty/],
    // (bytes: fetch sends a string as text/plain, which is N-Triples)
    ['a table of no type', { body: new TextEncoder().encode('SMILES\nCCO\n') }, /cannot read a dataset/],
    ['a table as text/plain', { body: 'SMILES\nCCO\n', contentType: 'text/plain' }, /not valid|cannot read a dataset/],
  ];
  for (const [what, init, message] of refused) {
    const r = await http(`${s.url}/dataset`, { method: 'POST', accept: 'text/turtle', ...init });
    assert.ok(r.status >= 400 && r.status < 500, `${what}: ${r.status} ${r.text.slice(0, 300)}`);
    assert.match((await errorReport(r)).message ?? '', message, what);
  }
  assert.equal(await resourceLists(s), before, 'nothing was written');
});
