import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedCsv, startTestServer, http, form, errorReport, waitForTask, parseTurtle, valuesOf, OT, type TestServer } from '../helpers.ts';

/**
 * Analogue search for read-across (issue 56): GET /compound/{id}/analogues ranks the compounds
 * with measured values of an endpoint by Tanimoto similarity to the target, pools the datasets of
 * an ontology term, names each value's source, and leaves out what algorithms made.
 */
let s: TestServer;
after(() => s.stop());

const OTEE = 'http://www.opentox.org/echaEndpoints.owl#';
const TERM = `${OTEE}Acute_toxicity_to_fish_lethality`;
const local = (uri: string) => uri.replace(s.base, s.url);

async function upload(csv: string, query = ''): Promise<string> {
  const r = await http(`${s.url}/dataset${query}`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(r.status, 200, r.text);
  return r.text.trim();
}

async function run(url: string, params: Record<string, string>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.ok(r.status === 200 || r.status === 202, `${url}: ${r.status} ${r.text}`);
  return r.status === 202 ? waitForTask(s, r.text.trim()) : r.text.trim();
}

const features = async (dataset: string) => (await http(`${local(dataset)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');

/** compound → set Morgan bits (radius 2, 2048: the structure index's), as the server calculates them. */
async function morgan(dataset: string): Promise<Map<string, Set<string>>> {
  const before = new Set(await features(dataset));
  const described = await run(`${s.base}/algorithm/morgan-fingerprint`, { dataset_uri: dataset, radius: '2', nBits: '2048' });
  const [fp] = (await features(described)).filter((f) => !before.has(f));
  const quads = parseTurtle((await http(local(described), { accept: 'text/turtle' })).text);
  const out = new Map<string, Set<string>>();
  for (const e of valuesOf(quads, described, `${OT}dataEntry`)) {
    const compound = valuesOf(quads, e, `${OT}compound`)[0];
    const node = valuesOf(quads, e, `${OT}values`).find((v) => valuesOf(quads, v, `${OT}feature`)[0] === fp);
    out.set(compound, new Set((node ? valuesOf(quads, node, `${OT}value`)[0] : '').split(/\s+/).filter(Boolean)));
  }
  return out;
}

function tanimoto(a: Set<string>, b: Set<string>): number {
  let both = 0;
  for (const v of a) if (b.has(v)) both++;
  const either = a.size + b.size - both;
  return either ? both / either : 0;
}

interface Found {
  target: string;
  targetValues: { value: string; dataset: string }[];
  candidates: number;
  analogues: { compound: string; smiles: string; similarity: number; values: { value: string; feature: string; dataset: string }[] }[];
}

async function analogues(target: string, query: Record<string, string>): Promise<{ status: number; found: Found; text: string }> {
  const r = await http(`${local(target)}/analogues?${new URLSearchParams(query)}`, { accept: 'application/json' });
  return { status: r.status, found: r.status === 200 ? JSON.parse(r.text) : undefined, text: r.text };
}

let fish: string;
let more: string;
let target: string;

before(async () => {
  s = await startTestServer();
  // two datasets of one endpoint (the ontology term given at upload); they share 1-butanol
  fish = await upload(sharedCsv('EPAFHM_log10.csv', 60), `?${new URLSearchParams({ endpoint_column: '1', endpoint: TERM })}`);
  more = await upload('SMILES,LC50\nCCCCO,0.25\nCCCCCCO,1.1\nCCCCCCCCCO,2.2\nOCCO,-1.5\n', `?${new URLSearchParams({ endpoint_column: '1', endpoint: TERM })}`);
  target = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
});

test('the analogues of a target for an ontology term: the datasets pooled, ranked by Tanimoto as a brute-force scan ranks them, each value with its source', async () => {
  // a dataset an algorithm made holds copies of the values: not a source
  const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: fish, descriptors: 'tpsa' });
  const { status, found, text } = await analogues(target, { endpoint: TERM, k: '8' });
  assert.equal(status, 200, text);
  assert.equal(found.analogues.length, 8);
  // the reference: every compound of both datasets (the target aside), by similarity, then compound id
  const bits = new Map([...(await morgan(fish)), ...(await morgan(more))]);
  const [targetBits] = [...(await morgan(await upload('SMILES\nCCCCCCCCO\n'))).values()];
  const byId = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });
  const expected = [...bits]
    .filter(([c]) => c !== target)
    .map(([c, b]) => ({ c, s: tanimoto(targetBits, b) }))
    .sort((a, b) => b.s - a.s || byId(a.c, b.c))
    .slice(0, 8);
  assert.deepEqual(
    found.analogues.map((a) => a.compound),
    expected.map((e) => e.c),
  );
  found.analogues.forEach((a, i) => assert.ok(Math.abs(a.similarity - expected[i].s) < 1e-12, `${a.compound}: ${a.similarity} against ${expected[i].s}`));
  assert.equal(found.candidates, bits.size - (bits.has(target) ? 1 : 0));
  // 1-butanol is in both datasets: both values, each with its dataset; the algorithm's copy is no source
  const butanol = found.analogues.find((a) => a.smiles === 'CCCCO');
  assert.ok(butanol, found.analogues.map((a) => a.smiles).join(' '));
  assert.deepEqual(butanol.values.map((v) => v.dataset).sort(), [fish, more].sort());
  assert.ok(butanol.values.some((v) => v.dataset === more && Number(v.value) === 0.25));
  for (const a of found.analogues) assert.ok(!a.values.some((v) => v.dataset === described), 'no value from a dataset an algorithm made');
  // the target's own data: none (a data gap)
  assert.deepEqual(found.targetValues, []);
});

test('a feature as the endpoint: its own dataset only; a substructure filter keeps the ranking’s order; CSV, HTML and URI list', async () => {
  const [feature] = await features(more);
  const { found } = await analogues(target, { endpoint: feature, k: '10' });
  assert.ok(found.analogues.every((a) => a.values.every((v) => v.dataset === more)));
  assert.equal(found.analogues.length, 4);
  const all = (await analogues(target, { endpoint: TERM, k: '100' })).found.analogues.map((a) => a.compound);
  const alcohols = (await analogues(target, { endpoint: TERM, k: '100', smarts: '[CX4][OX2H]' })).found.analogues;
  assert.ok(alcohols.length >= 4 && alcohols.length < all.length, `${alcohols.length} of ${all.length}`);
  assert.deepEqual(
    alcohols.map((a) => a.compound),
    all.filter((c) => alcohols.some((a) => a.compound === c)),
  );
  assert.ok(alcohols.every((a) => /O/.test(a.smiles)));
  const csv = await http(`${local(target)}/analogues?${new URLSearchParams({ endpoint: feature })}`, { accept: 'text/csv' });
  assert.equal(csv.text.split('\r\n')[0], 'compound,SMILES,similarity,value,feature,dataset');
  assert.equal(csv.text.trim().split('\r\n').length, 5);
  const html = await http(`${local(target)}/analogues?${new URLSearchParams({ endpoint: feature })}`, { accept: 'text/html' });
  assert.match(html.text, /a data gap/);
  const list = await http(`${local(target)}/analogues?${new URLSearchParams({ endpoint: feature, k: '2' })}`, { accept: 'text/uri-list' });
  assert.equal(list.text.trim().split('\r\n').length, 2);
});

test('a descriptor range: only analogues whose log P is within ±0.5 of the target’s, in the ranking’s order', async () => {
  const logP = new Map<string, number>();
  for (const dataset of [fish, more, await upload('SMILES\nCCCCCCCCO\n')]) {
    const described = await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: dataset, descriptors: 'CrippenClogP' });
    const quads = parseTurtle((await http(local(described), { accept: 'text/turtle' })).text);
    // the calculated column comes last
    const feature = (await features(described)).at(-1);
    for (const e of valuesOf(quads, described, `${OT}dataEntry`)) {
      const node = valuesOf(quads, e, `${OT}values`).find((v) => valuesOf(quads, v, `${OT}feature`)[0] === feature);
      if (node) logP.set(valuesOf(quads, e, `${OT}compound`)[0], Number(valuesOf(quads, node, `${OT}value`)[0]));
    }
  }
  const all = (await analogues(target, { endpoint: TERM, k: '100' })).found.analogues.map((a) => a.compound);
  const near = (await analogues(target, { endpoint: TERM, k: '100', descriptor_range: 'CrippenClogP:0.5' })).found.analogues.map((a) => a.compound);
  const t = logP.get(target)!;
  assert.ok(Number.isFinite(t));
  assert.deepEqual(
    near,
    all.filter((c) => Math.abs(logP.get(c)! - t) <= 0.5),
  );
  assert.ok(near.length > 0 && near.length < all.length, `${near.length} of ${all.length}`);
});

test('a profile filter: only analogues whose profile carries a Verhaar class, in the ranking’s order', async () => {
  const CLASS1 = 'http://www.opentox.org/profilers/verhaar#Class1';
  // a search writes nothing, not even the profiles it made: one that finds none is refused (404), and the store is as it was
  const profiles = async () => {
    const q = `SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?p <http://www.opentox.org/profilers.owl#ofCompound> ?c } }`;
    return Number(JSON.parse((await http(`${s.url}/sparql?query=${encodeURIComponent(q)}`, { accept: 'application/sparql-results+json' })).text).results.bindings[0].n.value);
  };
  const before = await profiles();
  assert.equal((await analogues(target, { endpoint: TERM, k: '5', profile: 'http://www.opentox.org/profilers/verhaar#NoSuchClass' })).status, 404);
  assert.equal(await profiles(), before);
  const all = (await analogues(target, { endpoint: TERM, k: '100' })).found.analogues.map((a) => a.compound);
  const inert = (await analogues(target, { endpoint: TERM, k: '100', profile: CLASS1 })).found.analogues.map((a) => a.compound);
  assert.ok(inert.length > 0 && inert.length < all.length, `${inert.length} of ${all.length}`);
  const carries = async (c: string) => {
    const p = JSON.parse((await http(`${local(c)}/profile`, { accept: 'application/json' })).text);
    return JSON.stringify(p).includes(CLASS1);
  };
  const expected: string[] = [];
  for (const c of all) if (await carries(c)) expected.push(c);
  assert.deepEqual(inert, expected);
  // k counts the analogues that carry it
  assert.deepEqual(
    (await analogues(target, { endpoint: TERM, k: '2', profile: CLASS1 })).found.analogues.map((a) => a.compound),
    expected.slice(0, 2),
  );
});

test('bad requests answer 4xx with the reason', async () => {
  const [feature] = await features(more);
  for (const [query, status, pattern] of [
    [{ endpoint: `${OTEE}No_such_endpoint` }, 404, /neither a feature here nor an ontology term/],
    [{ endpoint: `${s.base}/feature/999999` }, 404, /neither a feature here/],
    [{ endpoint: feature, k: '0' }, 400, /k must be a whole number/],
    [{ endpoint: feature, threshold: '1.5' }, 400, /threshold must be a number between 0 and 1/],
    [{ endpoint: feature, smarts: 'C(((' }, 400, /smarts/],
    // (1-nonanol's Morgan bits are 1-octanol's: similarity 1)
    [{ endpoint: feature, threshold: '0.99', smarts: '[#7]' }, 404, /no analogue: none of the 4 compounds with measured values has similarity ≥ 0.99 and the substructure \[#7\]/],
    [{}, 400, /endpoint/],
    [{ endpoint: feature, descriptor_range: 'NoSuchDescriptor:1' }, 400, /descriptor_range: NoSuchDescriptor:1 is not name:delta/],
    [{ endpoint: feature, descriptor_range: 'CrippenClogP:-1' }, 400, /descriptor_range/],
    [{ endpoint: feature, profile: 'not an iri' }, 400, /profile: not is not the IRI of a profiler's rule or class/],
  ] as [Record<string, string>, number, RegExp][]) {
    const r = await http(`${local(target)}/analogues?${new URLSearchParams(query)}`, { accept: 'text/turtle' });
    assert.equal(r.status, status, `${JSON.stringify(query)}: ${r.text}`);
    assert.match((await errorReport(r)).message ?? '', pattern);
  }
  const unknown = await http(`${s.url}/compound/999999/analogues?${new URLSearchParams({ endpoint: feature })}`, { accept: 'application/json' });
  assert.equal(unknown.status, 404);
});
