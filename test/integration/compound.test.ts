import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, http, form, parseRdfXml, parseTurtle, errorReport, featureTurtle, OT, type TestServer } from '../helpers.ts';
import { ETHANOL_3D } from '../fixtures.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--body-limit', '300000']);
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const post = (body: string, type: string, accept = 'text/uri-list') => http(`${s.url}/compound`, { method: 'POST', body, contentType: type, accept });
const uris = (text: string) => text.split(/\r?\n/).filter(Boolean);

test('known identifiers hold, and the same structure always answers the same URI', async () => {
  const [a] = uris((await post('CC(=O)CC(C)C#N', 'chemical/x-daylight-smiles')).text);
  assert.equal((await http(local(a), { accept: 'chemical/x-inchi' })).text.trim(), 'InChI=1S/C6H9NO/c1-5(4-7)3-6(2)8/h5H,3H2,1-2H3');
  const [b] = uris((await post('F[B-](F)(F)F.[Na+]', 'chemical/x-daylight-smiles')).text);
  assert.equal((await http(local(b), { accept: 'chemical/x-inchi' })).text.trim(), 'InChI=1S/BF4.Na/c2-1(3,4)5;/q-1;+1');
  const phenol = uris((await post('C1=CC=CC=C1O\nOc1ccccc1', 'chemical/x-daylight-smiles')).text);
  assert.equal(phenol.length, 2);
  assert.equal(phenol[0], phenol[1]);
  assert.deepEqual(uris((await post('InChI=1S/C6H6O/c7-6-4-2-1-3-5-6/h1-5,7H', 'chemical/x-inchi')).text), [phenol[0]]);
});

test('posting InChI gives benzene in every format, each with its exact Content-Type', async () => {
  const r = await post('InChI=1S/C6H6/c1-2-4-6-5-3-1/h1-6H', 'chemical/x-inchi');
  assert.equal(r.status, 200);
  const uri = local(uris(r.text)[0]);
  const expect: Record<string, (body: string) => void> = {
    'chemical/x-daylight-smiles': (t) => assert.equal(t.trim(), 'c1ccccc1'),
    'chemical/x-inchi': (t) => assert.equal(t.trim(), 'InChI=1S/C6H6/c1-2-4-6-5-3-1/h1-6H'),
    'chemical/x-inchi-key': (t) => assert.equal(t.trim(), 'UHOVQNZJYSORNB-UHFFFAOYSA-N'),
    'chemical/x-mdl-molfile': (t) => assert.match(t, /V2000[\s\S]*M {2}END/),
    'chemical/x-mdl-sdfile': (t) => assert.match(t, /M {2}END[\s\S]*> <InChIKey>\nUHOVQNZJYSORNB-UHFFFAOYSA-N[\s\S]*\$\$\$\$/),
    'chemical/x-cml': (t) => assert.match(t, /<atom id="a5" elementType="C"/),
    'image/svg+xml': (t) => assert.match(t, /<svg[\s\S]*<\/svg>/),
    'text/plain': () => undefined,
    'text/html': (t) => {
      assert.match(t, /UHOVQNZJYSORNB-UHFFFAOYSA-N/);
      // the depiction is an image (a data: URI), which the page policy allows; inline SVG styles it would not
      assert.match(t, /<img src="data:image\/svg\+xml;base64,/);
      assert.match(Buffer.from(/data:image\/svg\+xml;base64,([^"]+)/.exec(t)![1], 'base64').toString(), /<svg/);
    },
    'text/turtle': (t) => assert.ok(parseTurtle(t).some((q) => q.predicate.value === `${OT}inchiKey` && q.object.value === 'UHOVQNZJYSORNB-UHFFFAOYSA-N')),
    // type, SMILES, InChI, InChIKey; no molfile for a structure given without coordinates (laid out when asked for)
    'application/n-triples': (t) => assert.deepEqual(new Set(parseTurtle(t).map((q) => q.predicate.value.split('#')[1])), new Set(['type', 'smiles', 'inchi', 'inchiKey'])),
  };
  for (const [type, check] of Object.entries(expect)) {
    const got = await http(uri, { accept: type });
    assert.equal(got.status, 200, type);
    assert.equal(got.type, type);
    check(got.text);
  }
  const xml = await http(uri, { accept: 'application/rdf+xml' });
  assert.equal(xml.type, 'application/rdf+xml');
  assert.ok((await parseRdfXml(xml.text)).some((q) => q.object.value === `${OT}Compound`));
  // the default is SMILES
  assert.equal((await http(uri)).type, 'chemical/x-daylight-smiles');
  const png = await fetch(uri, { headers: { Accept: 'image/png' } });
  assert.equal(png.headers.get('content-type'), 'image/png');
  assert.deepEqual([...new Uint8Array(await png.arrayBuffer()).slice(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  assert.match((await http(`${uri}?molfile=v3000`, { accept: 'chemical/x-mdl-molfile' })).text, /V3000/);
  const bad = await http(uri, { accept: 'chemical/x-unknown' });
  assert.equal(bad.status, 400);
  assert.equal((await errorReport(bad)).code, 'NotAcceptable');
});

test('molfile, SDF (several records, several URIs), CML and RDF bodies are accepted', async () => {
  const molfile = (
    await http(
      `${s.url}/compound/${uris((await post('CCN', 'chemical/x-daylight-smiles')).text)[0]
        .split('/')
        .pop()}`,
      { accept: 'chemical/x-mdl-molfile' },
    )
  ).text;
  const fromMol = uris((await post(molfile, 'chemical/x-mdl-molfile')).text);
  assert.equal(fromMol.length, 1);
  const benzeneMol = (await http(local(uris((await post('c1ccccc1', 'chemical/x-daylight-smiles')).text)[0]), { accept: 'chemical/x-mdl-molfile' })).text;
  const sdf = `${molfile.trimEnd()}\n> <name>\nethylamine\n\n$$$$\n${benzeneMol.trimEnd()}\n$$$$\n`;
  const fromSdf = uris((await post(sdf, 'chemical/x-mdl-sdfile')).text);
  assert.deepEqual(fromSdf, [fromMol[0], uris((await post('c1ccccc1', 'chemical/x-daylight-smiles')).text)[0]]);
  const cml = (await http(local(fromMol[0]), { accept: 'chemical/x-cml' })).text;
  assert.deepEqual(uris((await post(cml, 'chemical/x-cml')).text), fromMol);
  const turtle = `@prefix ot: <${OT}> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
    [] a ot:Compound ; ot:smiles "CCCl" ; rdfs:label "chloroethane", "ethyl chloride" ; owl:sameAs <http://example.org/chem/75-00-3> .`;
  const [fromRdf] = uris((await post(turtle, 'text/turtle')).text);
  assert.equal((await http(local(fromRdf), { accept: 'text/plain' })).text, 'chloroethane\nethyl chloride\n');
  const bySameAs = await http(`${s.url}/compound?sameas=${encodeURIComponent('http://example.org/chem/75-00-3')}`, { accept: 'text/uri-list' });
  assert.deepEqual(uris(bySameAs.text), [fromRdf]);
});

test('search by SMILES, InChI, InChIKey and name; substructure; ranked similarity', async () => {
  const [phenol] = uris((await post('Oc1ccccc1 phenol', 'chemical/x-daylight-smiles')).text);
  const [cresol] = uris((await post('Cc1ccccc1O o-cresol', 'chemical/x-daylight-smiles')).text);
  const [hexane] = uris((await post('CCCCCC hexane', 'chemical/x-daylight-smiles')).text);
  const find = async (q: string) => uris((await http(`${s.url}/compound?${q}`, { accept: 'text/uri-list' })).text);
  assert.deepEqual(await find(`search=${encodeURIComponent('C1=CC=CC=C1O')}`), [phenol]);
  assert.deepEqual(await find(`search=${encodeURIComponent('InChI=1S/C6H6O/c7-6-4-2-1-3-5-6/h1-5,7H')}`), [phenol]);
  assert.deepEqual(await find('search=ISWSIDIOOBJBQZ-UHFFFAOYSA-N'), [phenol]);
  assert.deepEqual(await find('search=PHENOL'), [phenol]);
  assert.deepEqual(await find('search=o-cresol'), [cresol]);
  const withRing = await find(`smarts=${encodeURIComponent('c1ccccc1[OX2H]')}`);
  assert.ok(withRing.includes(phenol) && withRing.includes(cresol) && !withRing.includes(hexane));
  const similar = await http(`${s.url}/compound?similarity=${encodeURIComponent('Oc1ccccc1')}&threshold=0.3`, { accept: 'text/csv' });
  const rows = similar.text
    .trim()
    .split('\r\n')
    .slice(1)
    .map((l) => l.split(','));
  assert.equal(rows[0][0], phenol);
  assert.equal(Number(rows[0][1]), 1);
  assert.ok(rows.some(([u]) => u === cresol));
  assert.ok(!rows.some(([u]) => u === hexane));
  for (let i = 1; i < rows.length; i++) assert.ok(Number(rows[i - 1][1]) >= Number(rows[i][1]), 'ranked');
  const none = await http(`${s.url}/compound?search=no-such-name`, { accept: 'text/turtle' });
  assert.equal(none.status, 404);
  assert.equal((await http(`${s.url}/compound?smarts=${encodeURIComponent('[[[')}`, { accept: 'text/turtle' })).status, 400);
  assert.equal((await http(`${s.url}/compound?similarity=CCO&threshold=7`, { accept: 'text/turtle' })).status, 400);
});

test('feature values of a compound: POST answers the compound URI with the feature, GET/PUT/DELETE', async () => {
  const [c] = uris((await post('CCO ethanol', 'chemical/x-daylight-smiles')).text);
  const f = (await http(`${s.url}/feature`, { method: 'POST', body: featureTurtle('LC50'), contentType: 'text/turtle' })).text.trim();
  const set = await http(`${local(c)}/feature`, { method: 'POST', body: form({ feature_uri: f, value: '1.25' }), accept: 'text/uri-list' });
  assert.equal(set.status, 200, set.text);
  assert.equal(set.text.trim(), `${c}?feature_uris[]=${encodeURIComponent(f)}`);
  const withValues = await http(`${local(c)}?feature_uris[]=${encodeURIComponent(f)}`, { accept: 'text/turtle' });
  const quads = parseTurtle(withValues.text);
  assert.ok(quads.some((q) => q.predicate.value === `${OT}value` && q.object.value === '1.25' && (q.object as any).datatype.value.endsWith('#double')));
  assert.ok(quads.some((q) => q.predicate.value === `${OT}feature` && q.object.value === f));
  const sdf = await http(`${local(c)}?feature_uris[]=${encodeURIComponent(f)}`, { accept: 'chemical/x-mdl-sdfile' });
  assert.match(sdf.text, /> <LC50>\n1\.25\n/);
  assert.deepEqual(uris((await http(`${local(c)}/feature`, { accept: 'text/uri-list' })).text), [f]);
  await http(`${local(c)}/feature`, { method: 'PUT', body: form({ feature_uri: f, value: '2.5' }) });
  assert.match((await http(`${local(c)}?feature_uris=${encodeURIComponent(f)}`, { accept: 'text/turtle' })).text, /"2\.5"/);
  const notNumber = await http(`${local(c)}/feature`, { method: 'POST', body: form({ feature_uri: f, value: 'toxic' }), accept: 'text/turtle' });
  assert.equal(notNumber.status, 400);
  assert.equal((await http(`${local(c)}/feature`, { method: 'POST', body: form({ value: '1' }), accept: 'text/turtle' })).status, 400);
  assert.equal((await http(`${local(c)}/feature`, { method: 'POST', body: form({ feature_uri: `${s.base}/feature/9999`, value: '1' }), accept: 'text/turtle' })).status, 400);
  assert.equal((await http(`${local(c)}/feature?feature_uris[]=${encodeURIComponent(f)}`, { method: 'DELETE' })).status, 200);
  assert.equal(uris((await http(`${local(c)}/feature`, { accept: 'text/uri-list' })).text).length, 0);
});

test('conformers: posted as 3D molfile/SDF, listed, read, replaced, deleted; a different structure is refused', async () => {
  const [c] = uris((await post('CCO', 'chemical/x-daylight-smiles')).text);
  const k1 = await http(`${local(c)}/conformer`, { method: 'POST', body: ETHANOL_3D, contentType: 'chemical/x-mdl-molfile', accept: 'text/uri-list' });
  assert.equal(k1.status, 200, k1.text);
  const [conf] = uris(k1.text);
  assert.match(conf, new RegExp(`^${c}/conformer/\\d+$`));
  const two = await http(`${local(c)}/conformer`, {
    method: 'POST',
    body: `${ETHANOL_3D}$$$$\n${ETHANOL_3D.replace('-0.0273', ' 0.5273')}$$$$\n`,
    contentType: 'chemical/x-mdl-sdfile',
    accept: 'text/uri-list',
  });
  assert.equal(uris(two.text).length, 2);
  assert.equal(uris((await http(`${local(c)}/conformer/`, { accept: 'text/uri-list' })).text).length, 3);
  const mol = await http(local(conf), { accept: 'chemical/x-mdl-molfile' });
  assert.match(mol.text, /-0\.0273/);
  assert.equal((await http(local(conf), { accept: 'chemical/x-inchi' })).text.trim(), 'InChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3');
  assert.equal((await http(local(conf), { accept: 'image/svg+xml' })).type, 'image/svg+xml');
  // per-conformer feature values
  const f = (await http(`${s.url}/feature`, { method: 'POST', body: featureTurtle('energy'), contentType: 'text/turtle' })).text.trim();
  assert.equal((await http(`${local(conf)}/feature`, { method: 'POST', body: form({ feature_uri: f, value: '-3.5' }) })).status, 200);
  assert.match((await http(`${local(conf)}?feature_uris[]=${encodeURIComponent(f)}`, { accept: 'text/turtle' })).text, /"-3\.5"/);
  // replace
  assert.equal((await http(local(conf), { method: 'PUT', body: ETHANOL_3D.replace('1.4311', '1.5311'), contentType: 'chemical/x-mdl-molfile' })).status, 200);
  assert.match((await http(local(conf), { accept: 'chemical/x-mdl-molfile' })).text, /1\.5311/);
  // refused: another structure, or no 3D coordinates
  const wrong = await http(`${local(c)}/conformer`, { method: 'POST', body: ETHANOL_3D.replace(' O ', ' N '), contentType: 'chemical/x-mdl-molfile', accept: 'text/turtle' });
  assert.equal(wrong.status, 400);
  assert.match((await errorReport(wrong)).message ?? '', /not that of the compound/);
  const flat = await http(`${local(c)}/conformer`, {
    method: 'POST',
    body: ETHANOL_3D.replace(/ (-?\d\.\d{4}) C/g, '    0.0000 C').replace(/ -0\.4731 O/, '    0.0000 O'),
    contentType: 'chemical/x-mdl-molfile',
    accept: 'text/turtle',
  });
  assert.equal(flat.status, 400);
  // delete one, then all
  assert.equal((await http(local(conf), { method: 'DELETE' })).status, 200);
  assert.equal((await http(local(conf), { accept: 'text/turtle' })).status, 404);
  assert.equal(uris((await http(`${local(c)}/conformer`, { accept: 'text/uri-list' })).text).length, 2);
  assert.equal((await http(`${local(c)}/conformer/`, { method: 'DELETE' })).status, 200);
  assert.equal(uris((await http(`${local(c)}/conformer`, { accept: 'text/uri-list' })).text).length, 0);
});

test('PUT keeps the structure and updates names; DELETE removes values and conformers, and a re-post gets the same URI', async () => {
  const [c] = uris((await post('CCCO', 'chemical/x-daylight-smiles')).text);
  assert.equal((await http(local(c), { method: 'PUT', body: 'OCCC propanol', contentType: 'chemical/x-daylight-smiles' })).status, 200);
  assert.equal((await http(local(c), { accept: 'text/plain' })).text, 'propanol\n');
  const other = await http(local(c), { method: 'PUT', body: 'CCCCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/turtle' });
  assert.equal(other.status, 400);
  const f = (await http(`${s.url}/feature`, { method: 'POST', body: featureTurtle('bp'), contentType: 'text/turtle' })).text.trim();
  await http(`${local(c)}/feature`, { method: 'POST', body: form({ feature_uri: f, value: '97' }) });
  assert.equal((await http(local(c), { method: 'DELETE' })).status, 200);
  assert.equal((await http(local(c), { accept: 'text/turtle' })).status, 404);
  assert.equal((await http(`${local(c)}/feature`, { accept: 'text/uri-list' })).status, 404);
  assert.equal((await http(local(c), { method: 'DELETE' })).status, 404);
  const [again] = uris((await post('CCCO', 'chemical/x-daylight-smiles')).text);
  assert.equal(again, c);
  assert.equal(uris((await http(`${local(c)}/feature`, { accept: 'text/uri-list' })).text).length, 0, 'old values stay deleted');
});

test('bad structures answer 400 saying what and where, and nothing is stored', async () => {
  const before = (await http(`${s.url}/compound`, { accept: 'text/uri-list' })).text;
  const cases: [string, string, RegExp][] = [
    ['C1CC', 'chemical/x-daylight-smiles', /cannot be parsed/],
    ['', 'chemical/x-daylight-smiles', /empty/],
    ['CCO\nC(C', 'chemical/x-daylight-smiles', /line 2/],
    ['InChI=1S/garbage', 'chemical/x-inchi', /InChI on line 1 cannot be read/],
    ['not an inchi', 'chemical/x-inchi', /not an InChI/],
    ['hello', 'chemical/x-mdl-molfile', /not a molfile/],
    [`${ETHANOL_3D}$$$$\nbroken\n\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0 0.0 0.0 Xx  0  0\nM  END\n$$$$\n`, 'chemical/x-mdl-sdfile', /SDF record 2/],
    ['<cml><nothing/></cml>', 'chemical/x-cml', /cannot be read/],
    [Array(1100).fill('C').join('.'), 'chemical/x-daylight-smiles', /1100 atoms/],
    ['CCO', 'application/json', /not a structure type/],
    ['@prefix ot: <http://www.opentox.org/api/1.1#> . [] a ot:Compound .', 'text/turtle', /no ot:molfile/],
  ];
  for (const [body, type, message] of cases) {
    const r = await post(body, type, 'text/turtle');
    assert.equal(r.status, 400, `${type} ${body.slice(0, 30)}: ${r.text}`);
    assert.match((await errorReport(r)).message ?? '', message);
  }
  const huge = await post('C'.repeat(400_000), 'chemical/x-daylight-smiles', 'text/turtle');
  assert.equal(huge.status, 413);
  assert.equal((await http(`${s.url}/compound`, { accept: 'text/uri-list' })).text, before);
  assert.equal((await http(`${s.url}/compound/999999`, { accept: 'text/turtle' })).status, 404);
});

test('compounds posted as RDF are checked against their SHACL shape: each violation is a 400 naming it', async () => {
  const ttl = (body: string) => `@prefix ot: <http://www.opentox.org/api/1.1#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n${body}`;
  const post = (body: string) => http(`${s.url}/compound`, { method: 'POST', body: ttl(body), contentType: 'text/turtle', accept: 'application/json' });
  for (const [body, message] of [
    ['[] a ot:Compound ; ot:inchi "CCO" .', /starting with "InChI="/],
    ['[] a ot:Compound ; ot:smiles "CCO", "CCCO" .', /at most one ot:smiles/],
    ['[] a ot:Compound ; ot:smiles "CCO" ; owl:sameAs "CHEBI:16236" .', /owl:sameAs of a compound must be a URI/],
  ] as const) {
    const r = await post(body);
    assert.equal(r.status, 400, r.text);
    assert.match(JSON.parse(r.text).message, message);
  }
  assert.equal((await post('[] a ot:Compound ; ot:smiles "CCO" ; owl:sameAs <http://purl.obolibrary.org/obo/CHEBI_16236> .')).status, 200);
});
