import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { deflateRawSync } from 'node:zlib';
import { syntheticCsv, zipArchive } from '../fixtures.ts';
import { startTestServer, sharedCsv, http, form, parseRdfXml, parseTurtle, errorReport, OT, waitForTask as waitForTaskOf, type TestServer } from '../helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--dataset-task-bytes', '20000']);
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const upload = (body: string | FormData, type?: string, query = '') => http(`${s.url}/dataset${query}`, { method: 'POST', body, contentType: type, accept: 'text/uri-list' });
const csvRows = (text: string) => parseCsv(text, { relax_column_count: true }) as string[][];
const shared = (f: string) => readFileSync(`../shared/data/${f}`, 'utf8');

const waitForTask = (taskUri: string) => waitForTaskOf(s, taskUri);

const SMALL =
  'SMILES,LC50,Class,Note\nCCO,1.5,toxic,first\nc1ccccc1,2.25,nontoxic,\n,3,toxic,empty structure\nC1CC,4,toxic,bad smiles\nCCO,n/a,toxic,duplicate\nOc1ccccc1,7,nontoxic,"quoted, with comma"\n';

test('CSV upload: features typed from the columns, warnings with row numbers, CSV round trip in order', async () => {
  const r = await upload(SMALL, 'text/csv', '?title=small');
  assert.equal(r.status, 200, r.text);
  const uri = r.text.trim();
  assert.match(uri, new RegExp(`^${s.base}/dataset/\\d+$`));
  const meta = parseTurtle((await http(`${local(uri)}/metadata`, { accept: 'text/turtle' })).text);
  const warnings = meta.filter((q) => q.predicate.value === `${OT}warning`).map((q) => q.object.value);
  assert.ok(
    warnings.some((w) => /^row 4: empty structure/.test(w)),
    warnings.join('\n'),
  );
  assert.ok(warnings.some((w) => /^row 5: .*cannot be parsed/.test(w)));
  assert.ok(warnings.some((w) => /^row 6: "n\/a" is not a number \(column LC50\)/.test(w)));
  assert.ok(warnings.some((w) => /^row 6: same compound as row 2/.test(w)));
  assert.ok(meta.some((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/title' && q.object.value === 'small'));

  const features = (await http(`${local(uri)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  assert.equal(features.length, 3);
  const types = await Promise.all(
    features.map(async (f) =>
      parseTurtle((await http(local(f), { accept: 'text/turtle' })).text)
        .filter((q) => q.predicate.value.endsWith('#type'))
        .map((q) => q.object.value),
    ),
  );
  assert.ok(types[0].includes(`${OT}NumericFeature`));
  assert.ok(types[1].includes(`${OT}NominalFeature`));
  assert.ok(types[2].includes(`${OT}NominalFeature`) || types[2].includes(`${OT}StringFeature`));

  const csv = await http(local(uri), { accept: 'text/csv' });
  assert.equal(csv.type, 'text/csv');
  const rows = csvRows(csv.text);
  assert.deepEqual(rows[0], ['SMILES', 'LC50', 'Class', 'Note']);
  assert.deepEqual(
    rows.slice(1).map((r) => r[0]),
    ['CCO', 'c1ccccc1', 'CCO', 'Oc1ccccc1'],
  );
  assert.deepEqual(rows[1], ['CCO', '1.5', 'toxic', 'first']);
  assert.deepEqual(rows[3], ['CCO', '', 'toxic', 'duplicate']);
  assert.deepEqual(rows[4], ['Oc1ccccc1', '7', 'nontoxic', 'quoted, with comma']);
  // CSV out → CSV in → CSV out is the same table
  const again = (await upload(csv.text, 'text/csv')).text.trim();
  assert.equal((await http(local(again), { accept: 'text/csv' })).text, csv.text);
});

test('every representation has its exact Content-Type; subsets and paging', async () => {
  const uri = local((await upload(SMALL, 'text/csv')).text.trim());
  for (const t of [
    'application/rdf+xml',
    'text/turtle',
    'application/n-triples',
    'application/ld+json',
    'text/n3',
    'text/csv',
    'text/arff',
    'chemical/x-mdl-sdfile',
    'application/json',
    'text/x-yaml',
    'text/html',
  ]) {
    const r = await http(uri, { accept: t });
    assert.equal(r.status, 200, t);
    assert.equal(r.type, t);
  }
  const json = JSON.parse((await http(uri, { accept: 'application/json' })).text);
  assert.equal(json.entries.length, 4);
  assert.equal(json.features.length, 3);
  const xml = await parseRdfXml((await http(uri, { accept: 'application/rdf+xml' })).text);
  const entries = xml.filter((q) => q.predicate.value === `${OT}dataEntry`);
  assert.equal(entries.length, 4);
  assert.ok(xml.some((q) => q.predicate.value === `${OT}value` && q.object.value === '2.25' && (q.object as any).datatype.value.endsWith('#double')));
  assert.match(
    (await http(uri, { accept: 'text/arff' })).text,
    /@attribute 'LC50' numeric\n@attribute 'Class' \{('toxic','nontoxic'|'nontoxic','toxic')\}[\s\S]*@data\n'CCO',1\.5,'toxic','first'\n'c1ccccc1',2\.25,'nontoxic',\?\n/,
  );
  assert.match((await http(uri, { accept: 'chemical/x-mdl-sdfile' })).text, /> <LC50>\n1\.5\n[\s\S]*\$\$\$\$/);
  const features = (await http(`${uri}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const compounds = (await http(`${uri}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  assert.equal(compounds.length, 3);
  const sub = csvRows((await http(`${uri}?feature_uris[]=${encodeURIComponent(features[0])}&compound_uris=${encodeURIComponent(compounds[1])}`, { accept: 'text/csv' })).text);
  assert.deepEqual(sub, [
    ['SMILES', 'LC50'],
    ['c1ccccc1', '2.25'],
  ]);
  const page = csvRows((await http(`${uri}?page=1&pagesize=2`, { accept: 'text/csv' })).text);
  assert.deepEqual(
    page.slice(1).map((r) => r[0]),
    ['CCO', 'Oc1ccccc1'],
  );
  assert.equal((await http(`${uri}?pagesize=0`, { accept: 'text/csv' })).status, 400);
  assert.equal((await http(uri, { accept: 'image/png' })).status, 400);
  assert.ok((await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text.includes(uri.replace(s.url, s.base)));
});

test('RDF out → RDF in gives an equal dataset', async () => {
  const uri = local((await upload(SMALL, 'text/csv')).text.trim());
  const rdf = await http(uri, { accept: 'application/rdf+xml' });
  const back = await upload(rdf.text, 'application/rdf+xml');
  assert.equal(back.status, 200, back.text);
  const a = csvRows((await http(uri, { accept: 'text/csv' })).text);
  const b = csvRows((await http(local(back.text.trim()), { accept: 'text/csv' })).text);
  assert.deepEqual(b, a);
  const ttl = await http(uri, { accept: 'text/turtle' });
  const back2 = await upload(ttl.text, 'text/turtle');
  assert.deepEqual(csvRows((await http(local(back2.text.trim()), { accept: 'text/csv' })).text), a);
});

test('multipart upload with metadata, SDF and ARFF bodies, associated features', async () => {
  const fd = new FormData();
  fd.append('file', new Blob([SMALL], { type: 'text/csv' }), 'small-set.csv');
  fd.append('license', 'http://creativecommons.org/licenses/by/4.0/');
  const r = await upload(fd);
  assert.equal(r.status, 200, r.text);
  const uri = local(r.text.trim());
  const meta = parseTurtle((await http(`${uri}/metadata`, { accept: 'text/turtle' })).text);
  assert.ok(meta.some((q) => q.predicate.value === 'http://purl.org/dc/terms/license' && q.object.value === 'http://creativecommons.org/licenses/by/4.0/'));
  assert.ok(meta.some((q) => q.predicate.value === `${OT}hasSource` && q.object.value === 'small-set.csv'));
  assert.ok(
    meta.some((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/title' && q.object.value === 'small-set'),
    'titled without the file extension',
  );
  // the same columns matched to the first dataset's features by name
  const fd2 = new FormData();
  fd2.append('file', new Blob(['SMILES,LC50\nCCCO,9\n'], { type: 'text/csv' }), 'more.csv');
  fd2.append('associated_features', `${uri.replace(s.url, s.base)}/feature`);
  fd2.append('matcher', 'name');
  const r2 = await upload(fd2);
  const f1 = (await http(`${uri}/features`, { accept: 'text/uri-list' })).text.split('\r\n')[0];
  assert.equal((await http(`${local(r2.text.trim())}/features`, { accept: 'text/uri-list' })).text.trim(), f1);
  // SDF: each SD field a feature
  const sdf = (await http(uri, { accept: 'chemical/x-mdl-sdfile' })).text;
  const fromSdf = await upload(sdf, 'chemical/x-mdl-sdfile');
  assert.equal(fromSdf.status, 200, fromSdf.text);
  const sdfCsv = csvRows((await http(local(fromSdf.text.trim()), { accept: 'text/csv' })).text);
  assert.deepEqual(sdfCsv[0], ['SMILES', 'Compound', 'LC50', 'Class', 'Note']);
  assert.equal(sdfCsv.length, 5);
  // ARFF out → ARFF in
  const arff = (await http(uri, { accept: 'text/arff' })).text;
  const fromArff = await upload(arff, 'text/arff');
  assert.equal(fromArff.status, 200, fromArff.text);
  assert.deepEqual(csvRows((await http(local(fromArff.text.trim()), { accept: 'text/csv' })).text), csvRows((await http(uri, { accept: 'text/csv' })).text));
});

test('a new dataset from a subset, PUT merges, metadata PUT, DELETE of a part and of the whole', async () => {
  const uri = local((await upload(SMALL, 'text/csv')).text.trim());
  const features = (await http(`${uri}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const compounds = (await http(`${uri}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const sub = await http(`${s.url}/dataset`, {
    method: 'POST',
    body: form({ dataset_uri: uri.replace(s.url, s.base), 'feature_uris[]': features[0], 'compound_uris[]': [compounds[0], compounds[2]] }),
    accept: 'text/uri-list',
  });
  assert.equal(sub.status, 200, sub.text);
  assert.deepEqual(csvRows((await http(local(sub.text.trim()), { accept: 'text/csv' })).text), [
    ['SMILES', 'LC50'],
    ['CCO', '1.5'],
    ['CCO', ''],
    ['Oc1ccccc1', '7'],
  ]);
  // PUT: overwrite an existing compound/feature pair, add a new column and a new compound
  const put = await http(uri, { method: 'PUT', body: 'SMILES,LC50,BCF\nc1ccccc1,3.5,10\nCCCCCC,,20\n', contentType: 'text/csv' });
  assert.equal(put.status, 200, put.text);
  const merged = csvRows((await http(uri, { accept: 'text/csv' })).text);
  assert.deepEqual(merged[0], ['SMILES', 'LC50', 'Class', 'Note', 'BCF']);
  assert.deepEqual(merged[2], ['c1ccccc1', '3.5', 'nontoxic', '', '10']);
  assert.deepEqual(merged[5], ['CCCCCC', '', '', '', '20']);
  assert.equal((await http(`${uri}/metadata`, { method: 'PUT', body: form({ title: 'renamed' }) })).status, 200);
  assert.match((await http(`${uri}/metadata`, { accept: 'text/turtle' })).text, /dc:title "renamed"/);
  assert.equal((await http(`${uri}/metadata`, { method: 'PUT', body: '<x> <y> <z> .', contentType: 'text/turtle' })).status, 400);
  // RDF metadata cannot say what only the server does: which rows of another dataset this one shows, its entries, when its rows were written
  const other = (await upload(SMALL, 'text/csv')).text.trim();
  const before = (await http(uri, { accept: 'text/csv' })).text;
  const claim = `@prefix ot: <${OT}>. @prefix dcterms: <http://purl.org/dc/terms/>. <${uri.replace(s.url, s.base)}> ot:rowsOf <${other}>; ot:selectedRows "1-3"; ot:dataEntry <${other}#entry-00000001>; dcterms:modified "2001-01-01T00:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime>; <http://example.org/note> "kept" .`;
  assert.equal((await http(`${uri}/metadata`, { method: 'PUT', body: claim, contentType: 'text/turtle' })).status, 200);
  const claimed = (await http(`${uri}/metadata`, { accept: 'text/turtle' })).text;
  assert.doesNotMatch(claimed, /rowsOf|selectedRows|2001-01-01/);
  assert.match(claimed, /"kept"/, 'other annotations are kept');
  assert.equal((await http(uri, { accept: 'text/csv' })).text, before, 'its rows are its own');
  // DELETE a column and a compound
  assert.equal((await http(`${uri}?feature_uris[]=${encodeURIComponent(features[2])}&compound_uris[]=${encodeURIComponent(compounds[1])}`, { method: 'DELETE' })).status, 200);
  const after = csvRows((await http(uri, { accept: 'text/csv' })).text);
  assert.deepEqual(after[0], ['SMILES', 'LC50', 'Class', 'BCF']);
  assert.deepEqual(
    after.slice(1).map((r) => r[0]),
    ['CCO', 'CCO', 'Oc1ccccc1', 'CCCCCC'],
  );
  assert.equal((await http(uri, { method: 'DELETE' })).status, 200);
  assert.equal((await http(uri, { accept: 'text/csv' })).status, 404);
  assert.equal((await http(uri, { method: 'DELETE' })).status, 404);
});

test('PUT merging another dataset keeps the selection its dataset_uri carries (?feature_uris[]=…)', async () => {
  const target = local((await upload('SMILES,A\nCCO,1\n', 'text/csv')).text.trim());
  const other = local((await upload('SMILES,X,Y\nCCO,2,3\nCCCC,4,5\n', 'text/csv')).text.trim());
  const [x] = (await http(`${other}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const ref = `${other.replace(s.url, s.base)}?feature_uris[]=${encodeURIComponent(x)}`;
  const put = await http(target, { method: 'PUT', body: form({ dataset_uri: ref }) });
  assert.equal(put.status, 200, put.text);
  assert.deepEqual(csvRows((await http(target, { accept: 'text/csv' })).text), [
    ['SMILES', 'A', 'X'],
    ['CCO', '1', '2'],
    ['CCCC', '', '4'],
  ]);
});

test('values are queryable with SPARQL, and compound URIs and conformers may be used in a dataset', async () => {
  const uri = (await upload(SMALL, 'text/csv')).text.trim();
  const lc50 = (await http(`${local(uri)}/features`, { accept: 'text/uri-list' })).text.split('\r\n')[0];
  const q = `PREFIX ot: <${OT}> SELECT ?compound ?value WHERE { <${uri}> ot:dataEntry ?e . ?e ot:compound ?compound ; <${lc50}> ?value } ORDER BY ?value`;
  const r = await http(`${s.url}/sparql`, { method: 'POST', body: form({ query: q }), accept: 'application/sparql-results+json' });
  assert.deepEqual(
    JSON.parse(r.text).results.bindings.map((b: any) => b.value.value),
    ['1.5', '2.25', '7'],
  );
  // a property path across the bulk partition (regression: it once stalled until the time limit)
  const path = `SELECT DISTINCT ?x WHERE { <${uri}> (<${OT}dataEntry>/<${OT}compound>)+ ?x }`;
  const p = await http(`${s.url}/sparql`, { method: 'POST', body: form({ query: path }), accept: 'application/sparql-results+json' });
  assert.equal(p.status, 200, p.text);
  assert.equal(JSON.parse(p.text).results.bindings.length, 3);
  const compound = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCO', contentType: 'chemical/x-daylight-smiles' })).text.trim();
  // the compound's representation includes the value a dataset holds for it
  const withValue = await http(`${local(compound)}?feature_uris[]=${encodeURIComponent(lc50)}`, { accept: 'text/turtle' });
  assert.ok(
    parseTurtle(withValue.text).some((q) => q.predicate.value === `${OT}value` && q.object.value === '1.5'),
    withValue.text,
  );
  const byUri = await upload(`Compound,x\n${compound},1\nhttp://elsewhere.example/compound/1,2\n`, 'text/csv');
  assert.equal(byUri.status, 200);
  assert.match((await http(`${local(byUri.text.trim())}/metadata`, { accept: 'text/turtle' })).text, /row 3: http:\/\/elsewhere\.example\/compound\/1 is not a compound of this service/);
});

test('a file that is not a dataset answers 400 and stores nothing; large uploads run as tasks', async () => {
  const before = (await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text;
  for (const [body, type, message] of [
    ['label,value\nx,1\n', 'text/csv', /no structure column/],
    // a name column and no structure column: read by name (compound-names.test.ts), here a name nothing knows
    ['name,value\nfrobnicated unobtainium,1\n', 'text/csv', /no row has a usable structure/],
    ['SMILES,value\n,1\nC1CC,2\n', 'text/csv', /no row has a usable structure/],
    ['', 'text/csv', /empty/],
    ['not an sdf', 'chemical/x-mdl-sdfile', /no row|no record|not a molfile/],
    ['@relation x\n', 'text/arff', /no @attribute or @data/],
    ['{ broken', 'text/turtle', /not valid/],
    ['hello', 'image/png', /cannot read a dataset/],
  ] as const) {
    const r = await upload(body, type);
    assert.equal(r.status, 400, `${type}: ${r.text}`);
    assert.match((await errorReport({ ...r, type: 'application/rdf+xml' })).message ?? '', message);
  }
  assert.equal((await http(`${s.url}/dataset`, { method: 'POST', body: form({ dataset_uri: `${s.base}/dataset/999999` }), accept: 'text/turtle' })).status, 404);
  assert.equal((await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text, before);

  // the EPAFHM file is over the task threshold of this server: 202 and a task with real progress
  const big = await upload(shared('EPAFHM_log10.csv'), 'text/csv');
  assert.equal(big.status, 202, big.text);
  const result = await waitForTask(big.text.trim());
  const rows = csvRows((await http(local(result), { accept: 'text/csv' })).text);
  assert.equal(rows.length, 581);
  assert.deepEqual(rows[0], ['SMILES', '-log10(LC50_mmol)']);
});

test('a table of thousands of rows is stored a chunk at a time: every row in order, warnings across chunks', async () => {
  const lines = syntheticCsv(2600).trim().split('\n');
  const cells = (line: number) => lines[line - 1].split(',');
  lines[1500 - 1] = ['C1CC', ...cells(1500).slice(1)].join(','); // unreadable, in the second chunk
  lines[2400 - 1] = [cells(4)[0], ...cells(2400).slice(1)].join(','); // the structure of row 4, in the third chunk
  lines[1002 - 1] = [cells(1002)[0], 'n/a', ...cells(1002).slice(2)].join(',');
  const r = await upload(`${lines.join('\n')}\n`, 'text/csv');
  const uri = r.status === 202 ? await waitForTask(r.text.trim()) : r.text.trim();
  const warnings = parseTurtle((await http(`${local(uri)}/metadata`, { accept: 'text/turtle' })).text)
    .filter((q) => q.predicate.value === `${OT}warning`)
    .map((q) => q.object.value);
  assert.ok(
    warnings.some((w) => /^row 1500: .*cannot be parsed.*row skipped$/.test(w)),
    warnings.join('\n'),
  );
  assert.ok(
    warnings.some((w) => /^row 2400: same compound as row 4 /.test(w)),
    warnings.join('\n'),
  );
  assert.ok(
    warnings.some((w) => /^row 1002: "n\/a" is not a number \(column logP_estimate\)/.test(w)),
    warnings.join('\n'),
  );
  const lineOf = (w: string) => Number(/^row (\d+)/.exec(w)?.[1]);
  assert.deepEqual(
    warnings.map(lineOf),
    [...warnings.map(lineOf)].sort((a, b) => a - b),
    'warnings in row order',
  );
  const out = csvRows((await http(local(uri), { accept: 'text/csv' })).text);
  const skipped = warnings.filter((w) => /row skipped$/.test(w)).length;
  assert.equal(out.length - 1, 2600 - skipped);
  // the rows keep the order of the file: compare the numeric column, row by row
  const expected = lines
    .slice(1)
    .filter((_, k) => !warnings.some((w) => lineOf(w) === k + 2 && /row skipped$/.test(w)))
    .map((l) => l.split(',')[1]);
  const at = out[0].indexOf('logP_estimate');
  assert.ok(at > 0, out[0].join(','));
  out.slice(1).forEach((row, k) => assert.equal(row[at] === '' ? 'n/a' : String(Number(row[at])), expected[k] === 'n/a' ? 'n/a' : String(Number(expected[k])), `row ${k}`));
});

test('the shared QSAR files keep every row RDKit can parse', async () => {
  for (const [file, expected] of [
    ['hamster_carcinogenicity.csv', 85],
    ['blood-brain-barrier.csv', 415],
  ] as const) {
    const r = await upload(shared(file), 'text/csv');
    const uri = r.status === 202 ? await waitForTask(r.text.trim()) : r.text.trim();
    const rows = csvRows((await http(local(uri), { accept: 'text/csv' })).text).length - 1;
    const warnings = parseTurtle((await http(`${local(uri)}/metadata`, { accept: 'text/turtle' })).text).filter((q) => q.predicate.value === `${OT}warning` && /skipped/.test(q.object.value)).length;
    assert.equal(rows + warnings, expected, file);
  }
});

test('rows left by an upload that never wrote its metadata are removed at the next start', async () => {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { df, ot } = await import('../../src/rdf/namespaces.ts');
  const dir = await mkdtemp(join(tmpdir(), 'toxgraph-orphan-'));
  try {
    const first = await startTestServer(['--base-url', 'http://toxgraph.test'], dir);
    const ds = 'http://toxgraph.test/dataset/77';
    const g = df.namedNode(`${ds}/entries`);
    await first.services.store.bulkLoad([df.quad(df.namedNode(ds), ot('dataEntry'), df.namedNode(`${ds}#entry-00000001`), g)]);
    assert.equal(await first.services.store.hasGraph(`${ds}/entries`), true);
    await first.stop();
    const second = await startTestServer(['--base-url', 'http://toxgraph.test'], dir);
    try {
      for (let i = 0; i < 50 && (await second.services.store.hasGraph(`${ds}/entries`)); i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(await second.services.store.hasGraph(`${ds}/entries`), false);
    } finally {
      await second.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('RDF datasets and dataset metadata are checked against their SHACL shapes: a violation is a 400 naming it, and nothing is stored', async () => {
  const prefixes = `@prefix ot: <${OT}> . @prefix dc: <http://purl.org/dc/elements/1.1/> .\n`;
  const compound = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCO', contentType: 'chemical/x-daylight-smiles' })).text.trim();
  const feature = `${s.base}/feature/shape-test`;
  const before = (await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text;
  const bad = `${prefixes}<urn:d> a ot:Dataset ; ot:dataEntry [ a ot:DataEntry ; ot:compound <${compound}> ; ot:values [ a ot:FeatureValue ; ot:feature <${feature}> ; ot:value <urn:not-a-literal> ] ] .`;
  const r = await upload(bad, 'text/turtle');
  assert.equal(r.status, 400, r.text);
  assert.match((await errorReport(r)).message ?? '', /exactly one ot:value, a literal/);
  assert.equal((await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text, before, 'a refused upload stored something');
  const good = await upload(bad.replace('<urn:not-a-literal>', '"1.5"'), 'text/turtle');
  assert.equal(good.status, 200, good.text);
  const uri = local(good.text.trim());
  const twoTitles = await http(`${uri}/metadata`, { method: 'PUT', body: `${prefixes}<${good.text.trim()}> dc:title "a", "b" .`, contentType: 'text/turtle' });
  assert.equal(twoTitles.status, 400, twoTitles.text);
  assert.match((await errorReport(twoTitles)).message ?? '', /at most one dc:title/);
});

/** Text as Windows-1252 bytes (what Excel writes on a Western European Windows machine). */
function windows1252(text: string): Uint8Array {
  const high: Record<string, number> = { '€': 0x80, '–': 0x96, '—': 0x97, '“': 0x93, '”': 0x94, '‘': 0x91, '’': 0x92 };
  return Uint8Array.from([...text].map((c) => high[c] ?? (c.charCodeAt(0) < 0x100 ? c.charCodeAt(0) : 0x3f)));
}

/** Text as UTF-16 LE with its byte-order mark (Excel's "Unicode text"). */
function utf16le(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(`\uFEFF${text}`, 'utf16le'));
}

test('CSV dialects: Excel-on-Windows (; decimal commas, Windows-1252) and UTF-16 TSV give exactly the values of the original CSV', async () => {
  const title = 'LC50 – µmol/L at 20 °C (“log”)';
  const [, ...rows] = csvRows(sharedCsv('EPAFHM_log10.csv', 40));
  const table = [['STRUCTURE_SMILES', title], ...rows];
  const decimalComma = table.map((r, i) => (i ? [r[0], r[1].replace('.', ',')] : r));
  const variants: { name: string; body: string | Uint8Array; type: string; query?: string; guessed: RegExp[] }[] = [
    { name: 'UTF-8 CSV', body: `${table.map((r) => r.join(',')).join('\n')}\n`, type: 'text/csv', guessed: [] },
    {
      name: 'Excel CSV',
      body: windows1252(`${decimalComma.map((r) => r.join(';')).join('\r\n')}\r\n`),
      type: 'text/csv',
      guessed: [/read as Windows-1252/, /separated by semicolons/, /decimal comma/],
    },
    { name: 'UTF-16 TSV', body: utf16le(`${table.map((r) => r.join('\t')).join('\r\n')}\r\n`), type: 'text/tab-separated-values', guessed: [/read as UTF-16 LE/] },
    { name: 'UTF-16 as text/csv', body: utf16le(`${table.map((r) => r.join('\t')).join('\r\n')}\r\n`), type: 'text/csv', guessed: [/UTF-16 LE/, /separated by tabs/] },
    { name: 'told, not guessed', body: windows1252(decimalComma.map((r) => r.join(';')).join('\n')), type: 'text/csv', query: '?encoding=windows-1252&delimiter=%3B&decimal=%2C', guessed: [] },
  ];
  const answers: string[] = [];
  for (const v of variants) {
    const r = await http(`${s.url}/dataset${v.query ?? ''}`, { method: 'POST', body: v.body as never, contentType: v.type, accept: 'text/uri-list' });
    assert.equal(r.status, 200, `${v.name}: ${r.text}`);
    const uri = r.text.trim();
    answers.push((await http(local(uri), { accept: 'text/csv' })).text);
    const warnings = parseTurtle((await http(`${local(uri)}/metadata`, { accept: 'text/turtle' })).text)
      .filter((q) => q.predicate.value === `${OT}warning`)
      .map((q) => q.object.value);
    for (const re of v.guessed)
      assert.ok(
        warnings.some((w) => re.test(w)),
        `${v.name}: ${re} in ${warnings.join(' | ')}`,
      );
    if (!v.guessed.length) assert.deepEqual(warnings, [], v.name);
  }
  const [first, ...others] = answers;
  assert.ok(first.includes(title), first.slice(0, 200));
  assert.equal(csvRows(first).length, rows.length + 1);
  for (const [i, other] of others.entries()) assert.equal(other, first, variants[i + 1].name);
});

test('CSV dialects: what cannot be decoded or is not a dialect answers 400 naming it', async () => {
  const latin = windows1252('SMILES;LC50 µg\nCCO;1,5\n');
  const told = await http(`${s.url}/dataset?encoding=utf-8`, { method: 'POST', body: latin as never, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(told.status, 400);
  assert.match((await errorReport(told)).message ?? '', /cannot be decoded as UTF-8/);
  for (const [query, message] of [
    ['?encoding=ebcdic', /encoding: unknown encoding "ebcdic"/],
    ['?delimiter=x', /delimiter: "x" is not a column separator/],
    ['?decimal=%3B&delimiter=%3B', /decimal: ";" is not a decimal mark/],
    ['?decimal=%2C&delimiter=%2C', /decimal comma needs another column separator/],
  ] as const) {
    const r = await http(`${s.url}/dataset${query}`, { method: 'POST', body: 'SMILES,LC50\nCCO,1.5\n', contentType: 'text/csv', accept: 'text/uri-list' });
    assert.equal(r.status, 400, query);
    assert.match((await errorReport(r)).message ?? '', message, query);
  }
});

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A workbook of these sheets (rows of plain values, or cells exceljs writes as given: formulas, dates). */
async function workbook(sheets: Record<string, unknown[][]>, merge?: string): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = book.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
    if (merge && name === Object.keys(sheets)[0]) sheet.mergeCells(merge);
  }
  return new Uint8Array(await book.xlsx.writeBuffer());
}

/** POST a file; an answer that is a task is followed to its result (or its error, as the reply). */
async function postFile(body: Uint8Array, type: string, query = '') {
  const r = await http(`${s.url}/dataset${query}`, { method: 'POST', body: body as never, contentType: type, accept: 'text/uri-list' });
  if (r.status !== 202) return r;
  const task = local(r.text.trim());
  for (;;) {
    const t = await http(task, { accept: 'text/uri-list' });
    if (t.status !== 202) return t.status === 200 ? t : http(task, { accept: 'text/turtle' }).then((e) => ({ ...e, status: t.status }));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('XLSX: a shared data set as a workbook gives exactly the values of its CSV, and a downloaded workbook uploads as the same dataset', async () => {
  const csv = sharedCsv('EPAFHM_log10.csv', 60);
  const [header, ...rows] = csvRows(csv);
  const fromCsv = (await upload(csv, 'text/csv')).text.trim();
  const asCsv = (await http(local(fromCsv), { accept: 'text/csv' })).text;
  // numbers as numbers, a trailing empty row and a sheet after the first
  const book = await workbook({ data: [header, ...rows.map(([smiles, v]) => [smiles, Number(v)]), []], notes: [['not read']] });
  const r = await postFile(book, XLSX);
  assert.equal(r.status, 200, r.text);
  assert.equal((await http(local(r.text.trim()), { accept: 'text/csv' })).text, asCsv);
  // out as a workbook and in again
  const out = await fetch(local(fromCsv), { headers: { accept: XLSX } });
  assert.equal(out.headers.get('content-type'), XLSX);
  const bytes = new Uint8Array(await out.arrayBuffer());
  const again = await postFile(bytes, XLSX);
  assert.equal(again.status, 200, again.text);
  assert.equal((await http(local(again.text.trim()), { accept: 'text/csv' })).text, asCsv);
  // the second sheet says what the dataset and its columns are
  const read = new ExcelJS.Workbook();
  await read.xlsx.load(Buffer.from(bytes) as never);
  assert.deepEqual(
    read.worksheets.map((w) => w.name),
    ['rows', 'metadata'],
  );
  const meta = read.getWorksheet('metadata')!;
  assert.equal(meta.getCell('A1').value, 'dataset');
  assert.equal(meta.getCell('B1').value, fromCsv);
  const columns: unknown[][] = [];
  meta.eachRow((row) => columns.push((row.values as unknown[]).slice(1)));
  assert.ok(
    columns.some((c) => c[0] === header[1] && c[2] === 'numeric' && String(c[1]).startsWith(`${s.base}/feature/`)),
    JSON.stringify(columns),
  );
  // a title that ends in brackets (from an ARFF file, which has no units) stays a title: the metadata sheet says so
  const arff = await upload("@relation r\n@attribute SMILES string\n@attribute 'Data [a]' numeric\n@data\n'CCO',1\n'CCN',2\n", 'text/arff');
  const arffOut = new Uint8Array(await (await fetch(local(arff.text.trim()), { headers: { accept: XLSX } })).arrayBuffer());
  const arffAgain = parseTurtle((await http(local((await postFile(arffOut, XLSX)).text.trim()), { accept: 'text/turtle' })).text);
  const titles = arffAgain.filter((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/title').map((q) => q.object.value);
  assert.ok(titles.includes('Data [a]'), titles.join(' | '));
  assert.equal(arffAgain.filter((q) => q.predicate.value === `${OT}units` && q.object.value === 'a').length, 0);
});

test('XLSX: formulas as their results, dates as xsd:date, merged header cells, the sheet= parameter, and what is not a workbook', async () => {
  const book = await workbook(
    {
      first: [
        ['SMILES', 'LC50 [mg/L]', 'Tested', 'Dose', ''],
        ['CCO', 1.5, new Date(Date.UTC(2024, 2, 5)), 10, null],
        ['c1ccccc1', { formula: 'B2*2', result: 3 }, new Date(Date.UTC(2024, 2, 6)), 20],
      ],
      second: [
        ['SMILES', 'Class'],
        ['CCO', 'toxic'],
        ['CCN', 'nontoxic'],
      ],
    },
    'C1:D1',
  );
  const r = await postFile(book, XLSX);
  assert.equal(r.status, 200, r.text);
  const uri = r.text.trim();
  const rdf = parseTurtle((await http(local(uri), { accept: 'text/turtle' })).text);
  const values = rdf.filter((q) => q.predicate.value === `${OT}value`).map((q) => `${q.object.value}^^${(q.object as { datatype?: { value: string } }).datatype?.value.split('#')[1]}`);
  assert.ok(values.includes('3^^double'), values.join(' '));
  assert.ok(values.includes('2024-03-05^^date'), values.join(' '));
  const titles = rdf.filter((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/title').map((q) => q.object.value);
  // the merged header cell spans two columns: both keep its title, made unique
  assert.ok(titles.includes('Tested') && titles.includes('Tested (2)'), titles.join(' | '));
  const warnings = parseTurtle((await http(`${local(uri)}/metadata`, { accept: 'text/turtle' })).text)
    .filter((q) => q.predicate.value === `${OT}warning`)
    .map((q) => q.object.value);
  assert.ok(
    warnings.some((w) => /the first sheet \(first\) of 2 was read/.test(w)),
    warnings.join(' | '),
  );
  const second = await postFile(book, XLSX, '?sheet=second');
  assert.equal(second.status, 200, second.text);
  assert.match((await http(local(second.text.trim()), { accept: 'text/csv' })).text, /^SMILES,Class\r\n/);
  const missing = await postFile(book, XLSX, '?sheet=third');
  assert.equal(missing.status, 400);
  assert.match((await errorReport(missing)).message ?? '', /no sheet "third" \(it has "first", "second"\)/);
  const notZip = await postFile(new TextEncoder().encode('SMILES,LC50\nCCO,1\n'), XLSX);
  assert.equal(notZip.status, 400);
  assert.match((await errorReport(notZip)).message ?? '', /not an Excel workbook/);
});

/** A zip archive of one entry (stored, or deflated from `inflated`) whose central directory says it unpacks to `declared` bytes. */
function zipDeclaring(declared: number, inflated?: Buffer): Uint8Array {
  const name = Buffer.from('xl/worksheets/sheet1.xml');
  const data = inflated ? deflateRawSync(inflated) : Buffer.from('<worksheet/>');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(inflated ? 8 : 0, 8);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(declared, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(inflated ? 8 : 0, 10);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(declared, 24);
  central.writeUInt16LE(name.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + name.length, 12);
  end.writeUInt32LE(30 + name.length + data.length, 16);
  return new Uint8Array(Buffer.concat([local, name, data, central, name, end]));
}

test('XLSX: a workbook that would unpack beyond the limit is refused before it is opened (413), and nothing is stored', async () => {
  const before = (await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text;
  const bomb = await postFile(zipDeclaring(0xf0000000), XLSX);
  assert.equal(bomb.status, 413, bomb.text);
  assert.match((await errorReport(bomb)).message ?? '', /unpacks to more than/);
  const small = await postFile(zipDeclaring(12), XLSX);
  assert.equal(small.status, 400, small.text);
  // a directory that lies: 12 bytes declared, 70 MiB of XML inside (70 KiB compressed)
  const lying = await postFile(zipDeclaring(12, Buffer.alloc(70 * 1024 * 1024, 0x20)), XLSX);
  assert.equal(lying.status, 413, lying.text);
  assert.match((await errorReport(lying)).message ?? '', /unpacks to more than 64 MiB/);
  assert.equal((await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text, before);
});

/** A minimal workbook of one sheet: a SMILES and an LC50 column, `rows` rows (inline strings, as some exporters write). */
function workbookOfRows(rows: number): Uint8Array {
  const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const cells = (r: number, a: string, b: string) =>
    `<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>${a}</t></is></c><c r="B${r}"${r === 1 ? ' t="inlineStr"' : ''}>${r === 1 ? `<is><t>${b}</t></is>` : `<v>${b}</v>`}</c></row>`;
  const chains = ['C', 'CC', 'CCC', 'CCCC', 'CCCCC', 'CCCCCC', 'CCCCCCC', 'CCCCCCCC'];
  const body = [cells(1, 'SMILES', 'LC50')];
  for (let r = 2; r <= rows + 1; r++) body.push(cells(r, `${chains[r % 8]}O`, String((r % 97) / 10)));
  return zipArchive([
    [
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    ],
    [
      '_rels/.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    ['xl/workbook.xml', `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${ns}" xmlns:r="${rel}"><sheets><sheet name="rows" sheetId="1" r:id="rId1"/></sheets></workbook>`],
    [
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ],
    ['xl/worksheets/sheet1.xml', `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${ns}"><sheetData>${body.join('')}</sheetData></worksheet>`],
  ]);
}

test('XLSX: a sheet of 10^6 rows (a few MiB zipped) is refused with 413 naming the limit, and nothing is stored; the same workbook of 300 rows is read', async () => {
  const small = await postFile(workbookOfRows(300), XLSX);
  assert.equal(small.status, 200, small.text);
  const rows = (await http(local(small.text.trim()), { accept: 'text/csv' })).text.trim().split('\r\n');
  assert.equal(rows.length, 301);
  assert.equal(rows[2], 'CCCCO,0.3');
  const before = (await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text;
  const million = workbookOfRows(1_000_000);
  const r = await postFile(million, XLSX);
  assert.equal(r.status, 413, r.text);
  assert.match((await errorReport(r)).message ?? '', /unpacks to more than 64 MiB/);
  assert.equal((await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text, before);
});

test("column roles by header: names and CAS RNs name the compound, units in headers become the features' units, a molfile column is a structure", async () => {
  const csv =
    'Name,CAS RN,SMILES,LC50 [mg/L],logP (-),Activity (active)\n1-octanol,111-87-5,CCCCCCCCO,1.5,3.0,yes\nisobutanol,78-83-1,CC(C)CO,2.25,0.8,no\nnot a CAS,78-83-2,CC(C)(C)O,7,0.35,no\nno CAS,n/a,CCCCCO,8,1.5,no\n';
  const r = await upload(csv, 'text/csv');
  assert.equal(r.status, 200, r.text);
  const uri = r.text.trim();
  const rdf = parseTurtle((await http(local(uri), { accept: 'text/turtle' })).text);
  const featureOf = (title: string) => rdf.find((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/title' && q.object.value === title)?.subject.value;
  const unitsOf = (title: string) => rdf.find((q) => q.subject.value === featureOf(title) && q.predicate.value === `${OT}units`)?.object.value;
  assert.equal(unitsOf('LC50'), 'mg/L');
  assert.equal(unitsOf('logP'), '-');
  // a word in parentheses is part of the title, not units
  assert.ok(featureOf('Activity (active)'), 'Activity (active) keeps its title');
  // the CAS RN and the name find the compound; a number whose check digit fails is reported, the row kept
  for (const id of ['111-87-5', '1-octanol', '78-83-1']) {
    const found = await http(`${s.url}/compound?search=${encodeURIComponent(id)}`, { accept: 'text/uri-list' });
    assert.equal(found.status, 200, `${id}: ${found.text}`);
    assert.equal(found.text.trim().split(/\r?\n/).length, 1, id);
  }
  assert.equal((await http(`${s.url}/compound?search=78-83-2`, { accept: 'text/uri-list' })).status, 404);
  const warnings = parseTurtle((await http(`${local(uri)}/metadata`, { accept: 'text/turtle' })).text)
    .filter((q) => q.predicate.value === `${OT}warning`)
    .map((q) => q.object.value);
  assert.ok(
    warnings.some((w) => /^row 4: "78-83-2" is not a CAS RN/.test(w)),
    warnings.join(' | '),
  );
  // a CAS column saying it has none is no CAS RN that fails
  assert.ok(!warnings.some((w) => /^row 5:/.test(w)), warnings.join(' | '));
  // downloaded as a workbook, the units are in the headers again, so it uploads as the same dataset
  const out = new Uint8Array(await (await fetch(local(uri), { headers: { accept: XLSX } })).arrayBuffer());
  const read = new ExcelJS.Workbook();
  await read.xlsx.load(Buffer.from(out) as never);
  assert.deepEqual((read.worksheets[0].getRow(1).values as unknown[]).slice(1, 7), ['SMILES', 'Name', 'CAS RN', 'LC50 [mg/L]', 'logP [-]', 'Activity (active)']);
  const again = parseTurtle((await http(local((await postFile(out, XLSX)).text.trim()), { accept: 'text/turtle' })).text);
  assert.deepEqual(
    ['LC50', 'logP'].map((t) => again.find((q) => q.subject.value === again.find((x) => x.object.value === t)?.subject.value && q.predicate.value === `${OT}units`)?.object.value),
    ['mg/L', '-'],
  );
  // issue 55 items 8, 9: a qualified SMILES header is the structure; line breaks and NBSP in headers fold to one space in titles, CSV and ARFF
  const broken = await upload('"Structure (SMILES)","Tox\nclass\u00a0(rat)","LC50\r\n[mg/L]"\nCCO,yes,1.5\nCCN,no,2\n', 'text/csv');
  assert.equal(broken.status, 200, broken.text);
  assert.match((await http(local(broken.text.trim()), { accept: 'text/csv' })).text, /^SMILES,Tox class \(rat\),LC50\r\n/);
  const arff = (await http(local(broken.text.trim()), { accept: 'text/arff' })).text;
  assert.deepEqual(
    arff.split('\n').filter((l) => l.startsWith('@attribute')),
    ['@attribute SMILES string', "@attribute 'Tox class (rat)' {'no','yes'}", "@attribute 'LC50' numeric"],
  );
  // a molfile column (a quoted, multi-line cell) is a structure column
  const ethane =
    '\n  test\n\n  2  1  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n    1.5000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n  1  2  1  0  0  0  0\nM  END';
  const mol = await upload(`Molfile,Activity\n"${ethane}",3\n`, 'text/csv');
  assert.equal(mol.status, 200, mol.text);
  assert.match((await http(local(mol.text.trim()), { accept: 'text/csv' })).text, /^SMILES,Activity\r\nCC,3\r\n$/);
});

test('the upload preview: how the file was read, its columns and first rows, the rows it would skip; nothing stored until its form stores it with the corrections and the endpoint described', async () => {
  const before = (await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text;
  const csv = 'Name;CAS RN;SMILES;LC50 (µg/L);logP;Comment\nPrüfsubstanz A;111-87-5;CCCCCCCCO;2,5;3,0;Fa. Müller – Charge 7\nB;78-83-1;CC(C)CO;12,75;0,8;x\nC;;not a smiles;4;1;y\nD;;CCCCO;3;0,9;z\n';
  const fd = new FormData();
  fd.append('file', new Blob([windows1252(csv) as BlobPart], { type: 'text/csv' }), 'daphnia.csv');
  fd.append('title', 'Daphnia LC50');
  const r = await http(`${s.url}/dataset/preview`, { method: 'POST', body: fd, accept: 'application/json' });
  assert.equal(r.status, 200, r.text);
  const p = JSON.parse(r.text);
  assert.ok(p.notes.some((n: string) => /Windows-1252/.test(n)) && p.notes.some((n: string) => /semicolon/.test(n)) && p.notes.some((n: string) => /decimal comma/.test(n)), JSON.stringify(p.notes));
  assert.equal(p.total, 4);
  const column = (title: string) => p.columns.find((c: { title: string }) => c.title === title);
  assert.equal(column('LC50').units, 'µg/L');
  assert.equal(column('LC50').kind, 'numeric');
  assert.equal(column('Name').role, 'name');
  assert.equal(column('CAS RN').role, 'CAS RN');
  assert.equal(column('Comment').kind, 'nominal');
  assert.deepEqual(
    p.rows.map((row: { smiles: string }) => row.smiles),
    ['CCCCCCCCO', 'CC(C)CO', 'CCCCO'],
  );
  assert.equal(p.rows[0].cells[column('LC50').n - 1], '2.5', 'the decimal comma read');
  assert.equal(p.rows[0].cells[column('Name').n - 1], 'Prüfsubstanz A');
  assert.equal(p.skipped.length, 1);
  assert.match(p.skipped[0], /^row 4: .*skipped$/);
  assert.equal((await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text, before, 'nothing stored');

  // a browser's form goes on to the preview's page: the settings to correct, the columns, the endpoint's description, one form
  const posted = await http(`${s.url}/dataset/preview`, { method: 'POST', body: form({ pending: p.pending }), accept: 'text/html' });
  assert.equal(posted.status, 303);
  assert.equal(posted.headers.get('location'), `/dataset/preview/${p.pending}`);
  const page = await http(`${s.url}/dataset/preview/${p.pending}`, { accept: 'text/html' });
  assert.equal(page.status, 200);
  assert.ok(page.text.includes('value="Daphnia LC50"'), 'the title given with the file');
  for (const part of [
    'name="encoding"',
    'name="delimiter"',
    'name="decimal"',
    `name="units_${column('LC50').n}" value="µg/L"`,
    'name="ignore_column"',
    'name="endpoint_column"',
    'list="endpoint-terms"',
    'name="species"',
    'name="guideline"',
    'Store the dataset',
    'formaction="/dataset/preview"',
  ])
    assert.ok(page.text.includes(part), part);
  assert.match(page.text, /<option value="http:\/\/www\.opentox\.org\/echaEndpoints\.owl#[^"]+">[^<]+<\/option>/);
  // read again, told otherwise: with a decimal point, 2,5 is no number
  const reread = await http(`${s.url}/dataset/preview`, { method: 'POST', body: form({ pending: p.pending, decimal: '.' }), accept: 'application/json' });
  assert.equal(reread.status, 200, reread.text);
  const again = JSON.parse(reread.text);
  assert.equal(again.pending, p.pending, 'the same file, read again');
  assert.notEqual(again.columns.find((c: { title: string }) => c.title === 'LC50').kind, 'numeric');
  // a comma separator finds no structure column: the preview says so, and how to choose it (issue 55 item 8)
  const wrong = await http(`${s.url}/dataset/preview`, { method: 'POST', body: form({ pending: p.pending, delimiter: ',' }), accept: 'application/json' });
  assert.equal(wrong.status, 200, wrong.text);
  assert.match(JSON.parse(wrong.text).notes.join('\n'), /no column is headed as a structure .*structure_column=/);

  // stored with corrections: Comment left out, the units corrected, the endpoint described
  const stored = await http(`${s.url}/dataset`, {
    method: 'POST',
    body: form({
      pending: again.pending,
      // as the page's form sends it: "as found" is an empty value
      encoding: '',
      delimiter: '',
      sheet: '',
      decimal: ',',
      ignore_column: String(column('Comment').n),
      [`units_${column('logP').n}`]: '-',
      endpoint_column: String(column('LC50').n),
      endpoint: 'http://www.opentox.org/echaEndpoints.owl#Acute_toxicity_to_daphnia',
      species: 'Daphnia magna',
      guideline: 'OECD TG 202',
      title: 'Daphnia LC50 (checked)',
    }),
    accept: 'text/uri-list',
  });
  assert.ok(stored.status === 200 || stored.status === 202, stored.text);
  const uri = stored.status === 202 ? await waitForTask(local(stored.text.trim())) : stored.text.trim();
  const rows = parseCsv((await http(local(uri), { accept: 'text/csv' })).text) as string[][];
  assert.deepEqual(rows[0], ['SMILES', 'Name', 'CAS RN', 'LC50', 'logP']);
  assert.equal(rows.length, 4, 'three rows, one skipped');
  const rdf = parseTurtle((await http(local(uri), { accept: 'text/turtle' })).text);
  const featureOf = (title: string) => rdf.find((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/title' && q.object.value === title)!.subject.value;
  const about = (f: string, p: string) => rdf.filter((q) => q.subject.value === f && q.predicate.value === p).map((q) => q.object.value);
  const lc50 = featureOf('LC50');
  assert.deepEqual(about(lc50, 'http://www.w3.org/2002/07/owl#sameAs'), ['http://www.opentox.org/echaEndpoints.owl#Acute_toxicity_to_daphnia']);
  assert.deepEqual(about(lc50, `${OT}species`), ['Daphnia magna']);
  assert.deepEqual(about(lc50, `${OT}testGuideline`), ['OECD TG 202']);
  assert.deepEqual(about(lc50, `${OT}units`), ['µg/L']);
  assert.deepEqual(about(featureOf('logP'), `${OT}units`), ['-']);
  // stored once: the file no longer waits
  const twice = await http(`${s.url}/dataset`, { method: 'POST', body: form({ pending: again.pending }), accept: 'text/turtle' });
  assert.equal(twice.status, 404);
  assert.match((await errorReport(twice)).message ?? '', /no longer waiting/);
  const bad = await http(`${s.url}/dataset/preview`, { method: 'POST', body: form({ pending: 'no-such' }), accept: 'text/turtle' });
  assert.equal(bad.status, 404);
  assert.equal((await http(`${s.url}/dataset/preview/${again.pending}`, { accept: 'text/turtle' })).status, 404);
});
