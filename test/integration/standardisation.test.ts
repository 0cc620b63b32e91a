import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { startTestServer, http, form, parseTurtle, errorReport, OT, waitForTask, valuesOf, type TestServer } from '../helpers.ts';

let s: TestServer;
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const OTA = 'http://www.opentox.org/algorithmTypes.owl#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const DC = 'http://purl.org/dc/elements/1.1/';

/** Rows as uploaded: a structure, its LC50, and what the standardisation should make of it. */
const ROWS: { smiles: string; lc50: string; parent?: string; compound?: string; rules: string; flags: string }[] = [
  { smiles: '[Na+].[O-]C(=O)c1ccccc1', lc50: '1.5', parent: 'O=C(O)c1ccccc1', rules: 'strip-salts, neutralise', flags: '' },
  { smiles: 'OC(=O)c1ccccc1', lc50: '2.0', parent: 'O=C(O)c1ccccc1', rules: '', flags: '' },
  { smiles: 'CN(C)CCOC(c1ccccc1)c1ccccc1.Cl', lc50: '3.1', parent: 'CN(C)CCOC(c1ccccc1)c1ccccc1', rules: 'strip-salts', flags: '' },
  // RDKit already charge-separates the nitro group as the upload reads it: no rule left to apply
  { smiles: 'CC(=O)Nc1ccc(cc1)N(=O)=O', lc50: '2.2', parent: 'CC(=O)Nc1ccc([N+](=O)[O-])cc1', rules: '', flags: '' },
  // the standard InChI takes the two tautomers for one compound: the parent is the row's own
  // compound (SMILES Oc1ccccn1), and the standardised structure column says which tautomer the rules chose
  { smiles: 'Oc1ccccn1', lc50: '0.5', parent: 'O=c1cccc[nH]1', compound: 'Oc1ccccn1', rules: 'lactim-to-lactam', flags: '' },
  { smiles: 'CN(C)CCOC(c1ccccc1)c1ccccc1', lc50: '3.1', parent: 'CN(C)CCOC(c1ccccc1)c1ccccc1', rules: '', flags: '' },
  { smiles: 'CCCCO.NC(=O)c1ccccc1', lc50: '1.0', parent: 'NC(=O)c1ccccc1', rules: 'largest-fragment', flags: 'mixture' },
  { smiles: '[Cu+2].[O-]S(=O)(=O)[O-]', lc50: '0.1', parent: '[Cu+2]', rules: 'strip-salts', flags: 'metal, inorganic' },
  { smiles: 'CCCCCCCCCC', lc50: '4.0', parent: undefined, rules: '', flags: 'unparseable' },
];

async function run(url: string, params: Record<string, string>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

const table = async (dataset: string) => parseCsv((await http(local(dataset), { accept: 'text/csv' })).text) as string[][];
const warningsOf = async (dataset: string) => valuesOf(parseTurtle((await http(`${local(dataset)}/metadata`, { accept: 'text/turtle' })).text), dataset, `${OT}warning`);

let source: string;
let sourceTable: string[][];
let sourceWarnings: string[];
before(async () => {
  s = await startTestServer();
  const csv = `SMILES,LC50\n${ROWS.map((r) => `${r.smiles},${r.lc50}`).join('\n')}\n`;
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  source = up.text.trim();
  // the last row's compound is deleted: its structure is gone, the row stays
  const decane = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCCCC', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  assert.ok((await http(`${local(source)}/compounds`, { accept: 'text/uri-list' })).text.includes(decane));
  assert.equal((await http(local(decane), { method: 'DELETE' })).status, 200);
  sourceTable = await table(source);
  sourceWarnings = await warningsOf(source);
});

let result: string;
test('the standardisation answers a new dataset of parents with curation columns; the source is untouched', async () => {
  result = await run(`${s.url}/algorithm/standardise-structures`, { dataset_uri: source });
  assert.notEqual(result, source);
  const out = await table(result);
  assert.deepEqual(out[0], ['SMILES', 'LC50', 'original structure', 'standardised structure', 'standardisation rules', 'standardisation flags']);
  assert.equal(out.length - 1, ROWS.length, 'every row is kept');
  ROWS.forEach((r, i) => {
    const [smiles, lc50, original, parent, rules, flags] = out[i + 1];
    assert.equal(Number(lc50), Number(r.lc50), `row ${i + 1}: its values kept`);
    assert.equal(rules, r.rules, `row ${i + 1}: rules`);
    assert.equal(flags, r.flags, `row ${i + 1}: flags`);
    if (r.parent) {
      assert.equal(smiles, r.compound ?? r.parent, `row ${i + 1}: the parent is the row's compound`);
      assert.equal(parent, r.parent, `row ${i + 1}: the standardised structure`);
      assert.equal(original, sourceTable[i + 1][0], `row ${i + 1}: the original structure is the source row's`);
    } else {
      assert.equal(parent, '', 'no parent for a structure that cannot be standardised');
    }
  });

  const warnings = await warningsOf(result);
  const benzoic = out[1][0];
  assert.ok(
    warnings.some((w) => /^rows 1 and 2 have the same parent structure \(.*O=C\(O\)c1ccccc1\), every row kept; their values of LC50 disagree \(1\.5, 2(\.0)?\)$/.test(w)),
    `the sodium salt and the acid: ${JSON.stringify(warnings)}`,
  );
  assert.ok(
    warnings.some((w) => /^rows 3 and 6 have the same parent structure \(.*, CN\(C\)CCOC\(c1ccccc1\)c1ccccc1\), every row kept; their values agree$/.test(w)),
    'the hydrochloride and the free base share a parent, their values agree',
  );
  assert.ok(warnings.some((w) => /^row 9: the structure of .* cannot be standardised .*flagged unparseable$/.test(w)));
  assert.equal(warnings.length, 3);
  assert.equal(out.filter((r) => r[0] === benzoic).length, 2, 'duplicates are never merged');

  const meta = parseTurtle((await http(`${local(result)}/metadata`, { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(meta, result, `${OT}hasSource`), [`${s.base}/algorithm/standardise-structures`]);
  assert.deepEqual(valuesOf(meta, result, `${DC}source`), [source]);
  assert.match(valuesOf(meta, result, `${DC}description`)[0], /stereo keep, isotopes keep, hydrogens implicit/);
  // the parents are compounds of this service
  const parentCompounds = (await http(`${local(result)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const benzoicAcid = parseTurtle((await http(local(parentCompounds[0]), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(benzoicAcid, parentCompounds[0], `${OT}smiles`), ['O=C(O)c1ccccc1']);
  // the curation columns are features made by the algorithm
  const features = (await http(`${local(result)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const flags = parseTurtle((await http(local(features[4]), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(flags, features[4], `${DC}title`), ['standardisation flags']);
  assert.deepEqual(valuesOf(flags, features[4], `${OT}hasSource`), [`${s.base}/algorithm/standardise-structures`]);

  assert.deepEqual(await table(source), sourceTable, 'the source dataset is untouched');
  assert.deepEqual(await warningsOf(source), sourceWarnings, 'and its warnings too');
});

test('the curation report: per row the original, the parent, the rules and flags; counts per rule and flag; rows sharing a parent', async () => {
  const report = async (query: string) => {
    const r = await http(`${local(result)}/curation?${query}`, { accept: 'application/json' });
    assert.equal(r.status, 200, r.text);
    return JSON.parse(r.text);
  };
  // by default the rows a rule changed or flagged
  const changed = await report('');
  const expected = ROWS.map((r, i) => ({ ...r, row: i + 1 })).filter((r) => r.rules || r.flags);
  assert.deepEqual(
    changed.entries.map((e: { row: number; rules: string[]; flags: string[] }) => [e.row, e.rules.join(', '), e.flags.join(', ')]),
    expected.map((r) => [r.row, r.rules, r.flags]),
  );
  assert.equal(changed.rows, ROWS.length);
  assert.equal(changed.changed, expected.length);
  assert.equal(changed.unparseable, 1);
  const count = (list: { name: string; rows: number }[], name: string) => list.find((x) => x.name === name)?.rows;
  assert.equal(count(changed.rules, 'strip-salts'), 3);
  assert.equal(count(changed.rules, 'neutralise'), 1);
  assert.equal(count(changed.rules, 'enol-to-keto'), 0, 'every rule is listed, fired or not');
  assert.equal(count(changed.flags, 'mixture'), 1);
  assert.equal(changed.sharedParents.length, 2);
  assert.equal(changed.entries[0].original, sourceTable[1][0]);
  assert.equal(changed.entries[0].parent, 'O=C(O)c1ccccc1');

  // selections: every row, one rule, one flag, a page
  assert.equal((await report('show=all')).matching, ROWS.length);
  assert.deepEqual(
    (await report('show=all&rule=strip-salts')).entries.map((e: { row: number }) => e.row),
    [1, 3, 8],
  );
  assert.deepEqual(
    (await report('flag=metal')).entries.map((e: { row: number }) => e.row),
    [8],
  );
  assert.deepEqual(
    (await report('show=unparseable')).entries.map((e: { row: number }) => e.row),
    [9],
  );
  const second = await report('pagesize=2&page=1');
  assert.deepEqual(
    second.entries.map((e: { row: number }) => e.row),
    [5, 7],
  );
  assert.equal(second.matching, expected.length);

  // for people: the originals drawn, the parents linked, the counts linked to their rows; linked from the dataset's page
  const page = await http(`${local(result)}/curation`, { accept: 'text/html' });
  assert.equal(page.status, 200);
  assert.equal((page.text.match(/<img src="data:image\/svg\+xml;base64,/g) ?? []).length, expected.length - 1, 'every original drawn but the unparseable one');
  assert.match(page.text, /href="[^"]*\/curation\?show=all&amp;rule=strip-salts&amp;page=0&amp;pagesize=50">3<\/a>/);
  assert.match(page.text, /rows 1 and 2 have the same parent structure/);
  assert.match((await http(local(result), { accept: 'text/html' })).text, /href="[^"]*\/curation">Curation report<\/a>/);

  // a dataset without curation columns has none; what does not fit is 400
  const none = await http(`${local(source)}/curation`, { accept: 'text/turtle' });
  assert.equal(none.status, 404);
  assert.match((await errorReport(none)).message ?? '', /no curation columns/);
  for (const query of ['rule=no-such-rule', 'flag=shiny', 'show=everything', 'page=-1', 'pagesize=x']) {
    const bad = await http(`${local(result)}/curation?${query}`, { accept: 'application/json' });
    assert.equal(bad.status, 400, query);
  }
  // the columns say what they are in the ontology's terms
  const features = (await http(`${local(result)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const original = parseTurtle((await http(local(features[1]), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(original, features[1], 'http://www.w3.org/2002/07/owl#sameAs'), [`${OTA}OriginalStructure`]);
});

test('options: stereo and isotopes removed, hydrogens written explicitly', async () => {
  const csv = 'SMILES,y\nC[C@H](N)c1ccccc1,1\n[2H]C([2H])([2H])Oc1ccccc1,2\n';
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  const dataset = up.text.trim();
  const kept = await table(await run(`${s.url}/algorithm/standardise-structures`, { dataset_uri: dataset }));
  assert.equal(kept[1][0], 'C[C@H](N)c1ccccc1', 'stereo kept by default');
  assert.equal(kept[2][0], '[2H]C([2H])([2H])Oc1ccccc1', 'isotopes kept by default');
  const removed = await table(await run(`${s.url}/algorithm/standardise-structures`, { dataset_uri: dataset, stereo: 'remove', isotopes: 'remove', hydrogens: 'explicit' }));
  assert.equal(removed[1][0], 'CC(N)c1ccccc1');
  assert.equal(removed[2][0], 'COc1ccccc1');
  assert.match(removed[1][4], /remove-stereo/);
  assert.match(removed[2][4], /remove-isotopes/);
  assert.match(removed[1][3], /\[H\]/, 'the standardised structure written with its hydrogens');
});

test('the catalogue entry: types, parameters, rules; bad parameters answer 400', async () => {
  const uri = `${s.base}/algorithm/standardise-structures`;
  const algorithm = parseTurtle((await http(`${s.url}/algorithm/standardise-structures`, { accept: 'text/turtle' })).text);
  const types = valuesOf(algorithm, uri, RDF_TYPE);
  assert.ok(types.includes(`${OTA}DataCleanup`));
  assert.ok(types.includes(`${OTA}StructureStandardisation`));
  const parameters = valuesOf(algorithm, uri, `${OT}parameters`).flatMap((p) => valuesOf(algorithm, p, `${DC}title`));
  assert.deepEqual(parameters.sort(), ['dataset_uri', 'hydrogens', 'isotopes', 'stereo']);
  const description = valuesOf(algorithm, uri, `${DC}description`)[0];
  for (const rule of ['strip-salts', 'neutralise', 'lactim-to-lactam', 'nitro']) assert.ok(description.includes(rule), rule);
  // the type in the ontology
  const term = parseTurtle((await http(`${s.url}/ontology/term?iri=${encodeURIComponent(`${OTA}StructureStandardisation`)}`, { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(term, `${OTA}StructureStandardisation`, 'http://www.w3.org/2000/01/rdf-schema#subClassOf'), [`${OTA}DataCleanup`]);

  // for people: a form with the three options, and a group of its own in the catalogue
  const page = await http(`${s.url}/algorithm/standardise-structures`, { accept: 'text/html' });
  assert.equal(page.status, 200);
  for (const name of ['stereo', 'isotopes', 'hydrogens']) assert.match(page.text, new RegExp(`<select name="${name}">`));
  assert.match((await http(`${s.url}/algorithm`, { accept: 'text/html' })).text, /Structure standardisation/);

  for (const [name, value] of [
    ['stereo', 'drop'],
    ['isotopes', 'strip'],
    ['hydrogens', 'none'],
  ]) {
    const bad = await http(`${s.url}/algorithm/standardise-structures`, { method: 'POST', body: form({ dataset_uri: source, [name]: value }), accept: 'text/turtle' });
    assert.equal(bad.status, 400, name);
    assert.match((await errorReport(bad)).message ?? '', new RegExp(`\\b${name}\\b`));
  }
  const into = await http(`${s.url}/algorithm/standardise-structures`, { method: 'POST', body: form({ dataset_uri: source, result_dataset: source }), accept: 'text/turtle' });
  assert.equal(into.status, 400);
  const missing = await http(`${s.url}/algorithm/standardise-structures`, { method: 'POST', body: form({ dataset_uri: `${s.base}/dataset/999999` }), accept: 'text/turtle' });
  assert.equal(missing.status, 404);
});
