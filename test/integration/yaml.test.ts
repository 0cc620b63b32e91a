import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument, stringify } from 'yaml';
import { startTestServer, sharedCsv, http, form, errorReport, waitForTask, type TestServer } from '../helpers.ts';

// YAML (issue 54): datasets up and down in the layout of the OpenTox Ruby services, and the
// other resources the interface lists YAML for.

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const DC_TITLE = 'http://purl.org/dc/elements/1.1/title';
const OT_UNITS = 'http://www.opentox.org/api/1.1#units';

async function upload(body: string, contentType: string, path = '/dataset', method = 'POST'): Promise<string> {
  const r = await http(`${s.url}${path}`, { method, body, contentType, accept: 'text/uri-list' });
  assert.equal(r.status, r.status === 202 ? 202 : 200, r.text);
  return r.status === 202 ? waitForTask(s, r.text.trim()) : r.text.trim();
}

/** A YAML answer read as a YAML client reads it (the Ruby class tag is a warning here, never an error). */
function readYaml(text: string): Record<string, any> {
  const doc = parseDocument(text);
  assert.deepEqual(doc.errors, []);
  return doc.toJS({ maxAliasCount: -1 });
}

/** The first `rows` rows of a shared data set with distinct structures, as its CSV and as the Ruby layout's YAML of the same table. */
function tableAsCsvAndYaml(file: string, rows: number): { csv: string; yaml: string; title: string } {
  const [header, ...lines] = sharedCsv(file, rows * 2)
    .trim()
    .split('\n');
  const seen = new Set<string>();
  const kept = lines.filter((l) => !seen.has(l.split(',')[0]) && seen.add(l.split(',')[0])).slice(0, rows);
  const title = header.split(',')[1].trim();
  const value = (cell: string) => {
    const v = cell.trim();
    return v === 'true' || v === 'false' ? v === 'true' : Number(v);
  };
  const doc = {
    uri: 'http://ruby.example/dataset/7',
    metadata: { 'http://www.w3.org/2001/XMLSchema#anyURI': 'http://ruby.example/dataset/7' },
    // a feature named otherwise than by a URI of this service: a new column, titled by its metadata
    features: { activity: { [DC_TITLE]: title } },
    compounds: kept.map((l) => l.split(',')[0]),
    data_entries: Object.fromEntries(kept.map((l) => [l.split(',')[0], { activity: [value(l.split(',')[1])] }])),
  };
  return { csv: `${[header, ...kept].join('\n')}\n`, yaml: `--- !ruby/object:OpenTox::Dataset\n${stringify(doc)}`, title };
}

/** What a dataset holds, as its CSV and ARFF say it (structures, titles, types, values in order). */
async function contentOf(dataset: string): Promise<{ csv: string; arff: string }> {
  const csv = await http(local(dataset), { accept: 'text/csv' });
  const arff = await http(local(dataset), { accept: 'text/arff' });
  return { csv: csv.text, arff: arff.text.replace(/^@relation .*\n/, '') };
}

test('a shared QSAR table and its YAML in the Ruby layout give equal datasets (numeric and nominal)', async () => {
  for (const file of ['EPAFHM_log10.csv', 'hamster_carcinogenicity.csv']) {
    const { csv, yaml } = tableAsCsvAndYaml(file, 25);
    const fromCsv = await contentOf(await upload(csv, 'text/csv'));
    // the Ruby services' own media type, as their clients send it
    const fromYaml = await contentOf(await upload(yaml, 'application/x-yaml'));
    assert.equal(fromYaml.csv, fromCsv.csv, file);
    assert.equal(fromYaml.arff, fromCsv.arff, file);
    assert.match(fromYaml.arff, file.startsWith('EPAFHM') ? /@attribute '-log10\(LC50_mmol\)' numeric/ : /@attribute 'Hamster Carcinogenicity' \{('true','false'|'false','true')\}/);
  }
});

const TABLE = 'SMILES,LC50 [mg/L],Class,Note\nCCO,1.5,toxic,first\nc1ccccc1,2.25,nontoxic,\nOc1ccccc1,7,nontoxic,"quoted, with: colon"\nCC(=O)O,,toxic,#not a comment\n';

test('a dataset in YAML is the Ruby layout, streamed; uploaded again it is an equal dataset', async () => {
  const dataset = await upload(TABLE, 'text/csv');
  const r = await http(local(dataset), { accept: 'text/x-yaml' });
  assert.equal(r.status, 200);
  assert.equal(r.type, 'text/x-yaml');
  assert.match(r.text, /^--- !ruby\/object:OpenTox::Dataset\n/);
  const doc = readYaml(r.text);
  assert.deepEqual(Object.keys(doc), ['uri', 'metadata', 'features', 'compounds', 'data_entries']);
  assert.equal(doc.uri, dataset);
  assert.equal(doc.metadata['http://www.w3.org/2001/XMLSchema#anyURI'], dataset);
  assert.deepEqual(doc.metadata['http://www.w3.org/1999/02/22-rdf-syntax-ns#type'], ['http://www.opentox.org/api/1.1#Dataset']);
  const features = Object.keys(doc.features);
  assert.deepEqual(
    features.map((f) => doc.features[f][DC_TITLE]),
    ['LC50', 'Class', 'Note'],
  );
  assert.equal(doc.features[features[0]][OT_UNITS], 'mg/L');
  assert.ok(doc.features[features[0]]['http://www.w3.org/1999/02/22-rdf-syntax-ns#type'].includes('http://www.opentox.org/api/1.1#NumericFeature'));
  assert.equal(doc.compounds.length, 4);
  const [ethanol, benzene, phenol, acid] = doc.compounds;
  // numbers are numbers, text is text; a missing value is no entry
  assert.deepEqual(doc.data_entries[ethanol], { [features[0]]: [1.5], [features[1]]: ['toxic'], [features[2]]: ['first'] });
  assert.deepEqual(doc.data_entries[benzene], { [features[0]]: [2.25], [features[1]]: ['nontoxic'] });
  assert.deepEqual(doc.data_entries[phenol][features[2]], ['quoted, with: colon']);
  assert.deepEqual(doc.data_entries[acid], { [features[1]]: ['toxic'], [features[2]]: ['#not a comment'] });

  // uploaded again (raw, and as a multipart file named .yaml): the same compounds, features and values
  const again = await upload(r.text, 'text/x-yaml');
  assert.notEqual(again, dataset);
  assert.deepEqual(await contentOf(again), await contentOf(dataset));
  const features2 = (await http(`${local(again)}/features`, { accept: 'text/uri-list' })).text;
  assert.equal(features2, (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text, 'features of this service are reused, as from RDF');
  const body = new FormData();
  body.append('file', new Blob([r.text]), 'copy.yaml');
  const multipart = await http(`${s.url}/dataset`, { method: 'POST', body, accept: 'text/uri-list' });
  assert.equal(multipart.status, 200, multipart.text);
  assert.deepEqual(await contentOf(multipart.text.trim()), await contentOf(dataset));
});

test('a row of 600 columns is written a piece at a time and read back whole', async () => {
  const header = Array.from({ length: 600 }, (_, j) => `d${j}`);
  const row = (i: number) => [i ? 'c1ccccc1' : 'CCO', ...header.map((_, j) => String(i * 1000 + j + 0.5))].join(',');
  const dataset = await upload(`SMILES,${header.join(',')}\n${row(0)}\n${row(1)}\n`, 'text/csv');
  const text = (await http(local(dataset), { accept: 'text/x-yaml' })).text;
  const doc = readYaml(text);
  assert.equal(Object.keys(doc.data_entries[doc.compounds[1]]).length, 600);
  assert.deepEqual(doc.data_entries[doc.compounds[1]][Object.keys(doc.features)[599]], [1599.5]);
  assert.deepEqual(await contentOf(await upload(text, 'text/x-yaml')), await contentOf(dataset));
});

test('replicates: a compound in several rows has lists of values, and its lists come back as rows', async () => {
  const dataset = await upload('SMILES,LC50\nCCO,1\nCCO,2\nc1ccccc1,3\n', 'text/csv');
  const text = (await http(local(dataset), { accept: 'text/x-yaml' })).text;
  const doc = readYaml(text);
  assert.equal(doc.compounds.length, 2);
  assert.deepEqual(Object.values(doc.data_entries[doc.compounds[0]]), [[1, 2]]);
  const again = await upload(text, 'text/x-yaml');
  assert.equal((await contentOf(again)).csv, (await contentOf(dataset)).csv);
  // the warnings say why there are more rows than compounds
  const meta = readYaml((await http(local(again), { accept: 'text/x-yaml' })).text).metadata;
  assert.match(JSON.stringify(meta), /several values of a feature: a row for each value/);
});

test("compounds by SMILES, InChI, the Ruby compound services' InChI URIs; other URIs are skipped with a warning; a title; PUT merges", async () => {
  const yaml = `--- !ruby/object:OpenTox::Dataset
metadata:
  ${DC_TITLE}: From Ruby
compounds:
- http://ruby.example/compound/InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3
- InChI=1S/C6H6/c1-2-4-6-5-3-1/h1-6H
- http://elsewhere.example/compound/42
data_entries:
  http://ruby.example/compound/InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3:
    http://ruby.example/dataset/1/feature/LC50: [1.5]
  InChI=1S/C6H6/c1-2-4-6-5-3-1/h1-6H:
    http://ruby.example/dataset/1/feature/LC50: [2.5]
  CC(=O)O:
    http://ruby.example/dataset/1/feature/LC50: [3.5]
`;
  const dataset = await upload(yaml, 'text/x-yaml');
  const doc = readYaml((await http(local(dataset), { accept: 'text/x-yaml' })).text);
  assert.equal(doc.metadata[DC_TITLE], 'From Ruby');
  assert.equal(doc.compounds.length, 3);
  // a feature named by URI is that feature, as in an RDF upload
  assert.deepEqual(Object.keys(doc.features), ['http://ruby.example/dataset/1/feature/LC50']);
  assert.deepEqual(
    doc.compounds.map((c: string) => doc.data_entries[c]['http://ruby.example/dataset/1/feature/LC50'][0]),
    [1.5, 2.5, 3.5],
  );
  assert.match(JSON.stringify(doc.metadata), /http:\/\/elsewhere\.example\/compound\/42 is not a compound of this service/);
  const smiles = (await http(local(dataset), { accept: 'text/csv' })).text
    .split('\r\n')
    .slice(1, 4)
    .map((l) => l.split(',')[0]);
  assert.deepEqual(smiles, ['CCO', 'c1ccccc1', 'CC(=O)O']);
  // PUT: rows from YAML merged into the dataset
  await upload(`data_entries:\n  CCCC:\n    http://ruby.example/dataset/1/feature/LC50: [4.5]\n`, 'text/x-yaml', local(dataset).slice(s.url.length), 'PUT');
  assert.equal(readYaml((await http(local(dataset), { accept: 'text/x-yaml' })).text).compounds.length, 4);
  // a feature named otherwise than by URI: titled by its dc:title (the first of several), with its units
  const named = await upload(`features:\n  act:\n    ${DC_TITLE}: [Activity, Aktivität]\n    ${OT_UNITS}: mg/L\ndata_entries:\n  CCO: {act: [1]}\n`, 'text/x-yaml');
  assert.match((await http(local(named), { accept: 'text/csv' })).text, /^SMILES,Activity\r\nCCO,1\r\n$/);
  assert.equal(Object.values(readYaml((await http(local(named), { accept: 'text/x-yaml' })).text).features as Record<string, any>[])[0][OT_UNITS], 'mg/L');
  // the upload's preview reads YAML as it stores it
  const preview = await http(`${s.url}/dataset/preview`, { method: 'POST', body: yaml, contentType: 'text/x-yaml', accept: 'application/json' });
  assert.equal(preview.status, 200, preview.text);
  assert.equal(JSON.parse(preview.text).total, 4);
});

test("Accept: application/x-yaml (the Ruby services' type) answers the same YAML", async () => {
  const dataset = await upload(TABLE, 'text/csv');
  const ruby = await http(local(dataset), { accept: 'application/x-yaml' });
  assert.equal(ruby.status, 200);
  assert.equal(ruby.type, 'application/x-yaml');
  assert.equal(ruby.text, (await http(local(dataset), { accept: 'text/x-yaml' })).text);
  assert.equal((await http(`${s.url}/algorithm/mlr`, { accept: 'application/x-yaml' })).type, 'application/x-yaml');
  // and the API's description says an upload may be YAML
  const api = JSON.parse((await http(`${s.url}/openapi.json`, { accept: 'application/json' })).text);
  for (const type of ['text/x-yaml', 'application/x-yaml']) assert.ok(type in api.paths['/dataset'].post.requestBody.content, type);
});

/** POST a form; follow the task when the answer is 202. */
async function run(url: string, params: Record<string, string>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  if (r.status === 200) return r.text.trim();
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

test('the algorithm, a model, a validation and a report answer YAML that holds their fields', async () => {
  const rows = Array.from({ length: 12 }, (_, i) => `${'C'.repeat(i + 1)}O,${i + 1},${(i * 7) % 5},${2 * (i + 1) + ((i * 7) % 5) + 0.5}`);
  const dataset = await upload(`SMILES,x1,x2,y\n${rows.join('\n')}\n`, 'text/csv');
  const features = (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split(/\r?\n/);
  const target = features[2];
  const model = await run(`${s.base}/algorithm/mlr`, { dataset_uri: dataset, prediction_feature: target });
  const validation = await run(`${s.base}/validation/test_set_validation`, { model_uri: model, test_dataset_uri: dataset, prediction_feature: target });
  const report = await run(`${s.base}/report/validation`, { validation_uris: validation });
  const yamlOf = async (uri: string) => {
    const r = await http(local(uri), { accept: 'text/x-yaml' });
    assert.equal(r.status, 200, `${uri}: ${r.text}`);
    assert.equal(r.type, 'text/x-yaml');
    return readYaml(r.text);
  };
  const algorithm = await yamlOf(`${s.base}/algorithm/mlr`);
  assert.match(JSON.stringify(algorithm), /Regression/);
  assert.ok(JSON.stringify(algorithm).includes(`${s.base}/algorithm/mlr`));
  const m = await yamlOf(model);
  assert.ok(JSON.stringify(m).includes(target), 'the model names its dependent variable');
  assert.ok(JSON.stringify(m).includes(features[0]), 'and its independent variables');
  const v = await yamlOf(validation);
  assert.ok(JSON.stringify(v).includes(model));
  assert.match(JSON.stringify(v), /rootMeanSquaredError|r[Ss]quare/);
  const rep = await yamlOf(report);
  assert.equal(rep.reportType, 'validation');
  assert.ok(JSON.stringify(rep).includes(validation));
});

/** Refused, with an error report, and nothing stored (no dataset, no compound). */
async function refused(body: string | Uint8Array, status: number, message: RegExp, contentType = 'text/x-yaml'): Promise<void> {
  const before = [(await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text, (await http(`${s.url}/compound`, { accept: 'text/uri-list' })).text];
  const r = await http(`${s.url}/dataset`, { method: 'POST', body: body as never, contentType, accept: 'text/uri-list' });
  assert.equal(r.status, status, r.text);
  const report = await errorReport(r);
  assert.equal(Number(report.status), status);
  assert.match(report.message ?? '', message);
  const after = [(await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text, (await http(`${s.url}/compound`, { accept: 'text/uri-list' })).text];
  assert.deepEqual(after, before, 'nothing is stored');
}

/** The billion laughs: `depth` levels of nine aliases each to the level below, used where `use` says. */
function laughs(depth: number, use: (top: string) => string, asMap = false): string {
  const level = (item: string) => (asMap ? `{${Array.from({ length: 9 }, (_, i) => `k${i}: ${item}`).join(', ')}}` : `[${Array(9).fill(item).join(', ')}]`);
  const lines = [`  l0: &l0 ${level(asMap ? '[lol]' : 'lol')}`];
  for (let k = 1; k <= depth; k++) lines.push(`  l${k}: &l${k} ${level(`*l${k - 1}`)}`);
  return `--- !ruby/object:OpenTox::Dataset\nlaughs:\n${lines.join('\n')}\n${use(`*l${depth}`)}`;
}

test('hostile YAML answers 400 (413 when too large) with an error report and stores nothing', async () => {
  // billion laughs: 9^9 values behind a few hundred bytes, where the reader looks (it follows an alias only as deep as the layout goes)
  await refused(
    laughs(9, (top) => `data_entries: ${top}\n`, true),
    400,
    /a value is a list or a mapping/,
  );
  await refused(
    laughs(9, (top) => `compounds: ${top}\n`),
    400,
    /not a name, a number or a URI/,
  );
  await refused(
    laughs(9, (top) => `data_entries:\n  CCO:\n    f: ${top}\n`),
    400,
    /a value is a list or a mapping/,
  );
  // aliases the layout does follow: 3,000 compounds each with the same 3,000 features (9 million values in 80 kB)
  const features = `{${Array.from({ length: 3000 }, (_, i) => `f${i}: [1]`).join(', ')}}`;
  const wide = `--- !ruby/object:OpenTox::Dataset\nm: &m ${features}\ndata_entries:\n${Array.from({ length: 3000 }, (_, i) => `  c${i}: *m`).join('\n')}\n`;
  await refused(wide, 400, /stands for more than 6000000 values \(its aliases expanded\)/);
  // and a list of values many times over: the rows it makes are counted as a table's
  const many = `--- !ruby/object:OpenTox::Dataset\nv: &v [${Array(2000).fill('1').join(', ')}]\ndata_entries:\n${Array.from({ length: 2000 }, (_, i) => `  c${i}: {f: *v}`).join('\n')}\n`;
  await refused(many, 400, /more than 2000000 cells/);
  // what the parser would hold hundreds of bytes each of: tokens, aliases
  await refused(`compounds: [${'C,'.repeat(1_200_000)}C]\n`, 400, /more than 1000000 tokens/);
  await refused(`v: &v 1\ncompounds: [${'*v,'.repeat(150_000)}*v]\n`, 400, /more than 100000 aliases/);
  // tags that would make objects in other readers are never resolved
  await refused('--- !ruby/object:Gem::Installer\ni: x\n', 400, /the tag !ruby\/object:Gem::Installer/);
  await refused('data_entries:\n  CCO:\n    f: !!js/function "function () { return 1 }"\n', 400, /the tag tag:yaml\.org,2002:js\/function/);
  await refused('data_entries:\n  CCO: !ruby/object:OpenTox::Dataset\n    f: [1]\n', 400, /the tag !ruby\/object:OpenTox::Dataset/);
  await refused('data_entries:\n  CCO:\n    f: [!!python/object/apply:os.system ["true"]]\n', 400, /the tag tag:yaml\.org,2002:python/);
  // deep nesting, a document that is not a mapping, several documents, broken YAML, an alias without its anchor
  await refused(`data_entries:\n  CCO:\n    f: ${'['.repeat(100000)}1${']'.repeat(100000)}\n`, 400, /nests deeper than 32 levels/);
  await refused(`${'- '.repeat(5000)}x\n`, 400, /nests deeper than 32 levels/);
  await refused('- CCO\n- c1ccccc1\n', 400, /is not a mapping/);
  await refused('just text\n', 400, /is not a mapping/);
  await refused('a: 1\n---\nb: 2\n', 400, /holds 2 documents/);
  await refused('data_entries: {CCO: [1\n', 400, /cannot be read: line \d+, column \d+/);
  await refused('data_entries: *nowhere\n', 400, /alias \*nowhere has no anchor/);
  await refused('data_entries:\n  CCO: {f: [1]}\n  CCO: {f: [2]}\n', 400, /compound CCO twice/);
  await refused('data_entries:\n  CCO:\n    f: [{a: 1}]\n', 400, /a value is a list or a mapping/);
  await refused(new Uint8Array([0x64, 0x3a, 0x20, 0xff, 0xfe, 0x0a]), 400, /not UTF-8/);
  await refused(`data_entries:\n  CCO:\n    f: ["${'x'.repeat(100_001)}"]\n`, 400, /holds 100001 characters; a cell may hold at most 100000/);
  await refused('data_entries:\n  CCO:\n    f: ["a\\u0001b"]\n', 400, /character/);
  await refused('metadata: {}\ncompounds: []\n', 400, /no rows/);
  await refused(`data_entries:\n${'  CCO: {}\n'.repeat(1)}${'#'.repeat(9 * 1024 * 1024)}\n`, 413, /at most 8 MiB/);
});

test("with access control on: a YAML upload is its uploader's; another user gets 403 for its YAML and cannot PUT YAML into it", async () => {
  const a = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  try {
    const token = async (username: string, password: string) => /^token\.id=(\S+)$/m.exec((await http(`${a.url}/auth/authenticate`, { method: 'POST', body: form({ username, password }) })).text)![1];
    const admin = await token('admin', 'admin-secret-1');
    for (const name of ['alice', 'bob'])
      assert.equal((await http(`${a.url}/auth/user`, { method: 'POST', body: form({ username: name, password: `${name}-password` }), headers: { subjectid: admin } })).status, 200);
    const [alice, bob] = [await token('alice', 'alice-password'), await token('bob', 'bob-password')];
    const yaml = 'data_entries:\n  CCO:\n    LC50: [1.5]\n';
    assert.equal((await http(`${a.url}/dataset`, { method: 'POST', body: yaml, contentType: 'text/x-yaml' })).status, 401);
    const created = await http(`${a.url}/dataset`, { method: 'POST', body: yaml, contentType: 'text/x-yaml', accept: 'text/uri-list', headers: { subjectid: alice } });
    assert.equal(created.status, 200, created.text);
    const dataset = created.text.trim().replace(a.base, a.url);
    const own = await http(dataset, { accept: 'application/x-yaml', headers: { subjectid: alice } });
    assert.equal(own.status, 200);
    assert.deepEqual(Object.values(readYaml(own.text).data_entries), [{ [Object.keys(readYaml(own.text).features)[0]]: [1.5] }]);
    assert.equal((await http(dataset, { accept: 'text/x-yaml', headers: { subjectid: bob } })).status, 403);
    assert.equal((await http(dataset, { method: 'PUT', body: 'data_entries:\n  CCC:\n    LC50: [2]\n', contentType: 'text/x-yaml', headers: { subjectid: bob } })).status, 403);
    assert.equal(readYaml((await http(dataset, { accept: 'text/x-yaml', headers: { subjectid: alice } })).text).compounds.length, 1);
  } finally {
    await a.stop();
  }
});
