import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import { syntheticCsv } from '../fixtures.ts';
import { startTestServer, http, form, parseRdfXml, parseTurtle, errorReport, OT, waitForTask as waitForTaskOf, type TestServer } from '../helpers.ts';

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
  assert.ok(meta.some((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/title' && q.object.value === 'small-set.csv'));
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
    ['name,value\nx,1\n', 'text/csv', /no structure column/],
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
