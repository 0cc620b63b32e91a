import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { sharedCsv, startTestServer, http, form, errorReport, parseTurtle, valuesOf, waitForTask, OT, type TestServer } from '../helpers.ts';

/**
 * Categories for read-across (issue 56): POST /category around a target, members with roles and
 * reasons, subcategories, hand-added members, and the data matrix in every format.
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

async function compound(smiles: string): Promise<string> {
  return (await http(`${s.url}/compound`, { method: 'POST', body: smiles, contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
}

async function category(params: Record<string, string | string[]>): Promise<string> {
  const r = await http(`${s.url}/category`, { method: 'POST', body: form(params), accept: 'text/uri-list' });
  assert.equal(r.status, 201, r.text);
  return r.text.trim();
}

interface Member {
  compound: string;
  role: string;
  similarity?: number;
  reason: string;
}

/** A category's members and the compounds left out, from its Turtle. */
async function read(uri: string): Promise<{ members: Member[]; excluded: Member[] }> {
  const quads = parseTurtle((await http(local(uri), { accept: 'text/turtle' })).text);
  const node = (n: string): Member => ({
    compound: valuesOf(quads, n, `${OT}compound`)[0],
    role: valuesOf(quads, n, `${OT}role`)[0],
    similarity: valuesOf(quads, n, `${OT}similarity`).map(Number)[0],
    reason: valuesOf(quads, n, `${OT}reason`)[0],
  });
  return { members: valuesOf(quads, uri, `${OT}member`).map(node), excluded: valuesOf(quads, uri, `${OT}excluded`).map(node) };
}

let fish: string;
let target: string;

before(async () => {
  s = await startTestServer();
  fish = await upload(sharedCsv('EPAFHM_log10.csv', 60), `?${new URLSearchParams({ endpoint_column: '1', endpoint: TERM })}`);
  await upload('SMILES,LC50\nCCCCO,0.25\nCCCCCCO,1.1\nCCCCCCCCCO,2.2\nOCCO,-1.5\n', `?${new URLSearchParams({ endpoint_column: '1', endpoint: TERM })}`);
  target = await compound('CCCCCCCCO');
});

test('a category around a target: its sources are the analogue search’s, members have roles, the nearest left out say why', async () => {
  const uri = await category({ target, endpoint: TERM, similarity_threshold: '0.3', max_sources: '5' });
  assert.match(uri, /\/category\/\d+$/);
  const { members, excluded } = await read(uri);
  assert.deepEqual(
    members.filter((m) => m.role === 'target').map((m) => m.compound),
    [target],
  );
  const sources = members.filter((m) => m.role === 'source');
  const analogues = JSON.parse((await http(`${local(target)}/analogues?${new URLSearchParams({ endpoint: TERM, k: '5', threshold: '0.3' })}`, { accept: 'application/json' })).text);
  assert.deepEqual(sources.map((m) => m.compound).sort(), analogues.analogues.map((a: { compound: string }) => a.compound).sort());
  for (const m of sources) assert.match(m.reason, /^similarity [\d.]+ ≥ 0.3; measured in \d dataset\(s\)$/);
  assert.ok(excluded.length > 0);
  for (const m of excluded) assert.match(m.reason, /^similarity [\d.]+ < 0.3$|^beyond the 5 most similar sources of /);
  assert.ok(excluded.some((m) => /beyond the 5 most similar/.test(m.reason)));
  // listed, and gone once deleted
  assert.ok((await http(`${s.url}/category`, { accept: 'text/uri-list' })).text.includes(uri));
  assert.equal((await http(local(uri), { method: 'DELETE' })).status, 200);
  assert.equal((await http(local(uri), { accept: 'text/turtle' })).status, 404);
});

test('a subcategory draws on its parent’s members; a substructure and members added by hand', async () => {
  const parent = await category({ target, endpoint: TERM, similarity_threshold: '0.2', max_sources: '20' });
  const child = await category({ target, endpoint: TERM, similarity_threshold: '0.2', max_sources: '20', parent, smarts: '[CX4][OX2H]' });
  const p = await read(parent);
  const c = await read(child);
  const inParent = new Set(p.members.map((m) => m.compound));
  assert.ok(c.members.every((m) => inParent.has(m.compound)));
  assert.ok(c.members.length < p.members.length, `${c.members.length} of ${p.members.length}`);
  assert.ok(c.excluded.some((m) => m.reason === 'lacks the substructure [CX4][OX2H]'));
  assert.ok(c.excluded.some((m) => /^not a member of the parent category /.test(m.reason)));
  assert.equal((await http(`${s.url}/category?${new URLSearchParams({ parent })}`, { accept: 'text/uri-list' })).text.trim(), child);
  const page = await http(local(parent), { accept: 'text/html' });
  assert.ok(page.text.includes(new URL(child).pathname), 'the parent’s page lists its subcategory');
  const ranged = await read(await category({ target, endpoint: TERM, similarity_threshold: '0.2', max_sources: '20', descriptor_range: 'CrippenClogP:0.5' }));
  assert.ok(ranged.members.length < p.members.length);
  assert.ok(
    ranged.excluded.some((m) => /^CrippenClogP -?[\d.]+ is not within ±0.5 of the target's [\d.]+$/.test(m.reason)),
    ranged.excluded.map((m) => m.reason).join(' | '),
  );
  assert.ok(ranged.members.filter((m) => m.role === 'source').every((m) => /CrippenClogP within ±0.5 of the target's/.test(m.reason)));
  const CLASS1 = 'http://www.opentox.org/profilers/verhaar#Class1';
  const profiled = await read(await category({ target, endpoint: TERM, similarity_threshold: '0.2', max_sources: '20', profile: CLASS1 }));
  assert.ok(
    profiled.excluded.some((m) => m.reason === `its profile lacks ${CLASS1}`),
    profiled.excluded.map((m) => m.reason).join(' | '),
  );
  assert.ok(profiled.members.filter((m) => m.role === 'source').every((m) => m.reason.includes(`carries ${CLASS1}`)));
  const benzene = await compound('c1ccccc1');
  const withMember = await read(await category({ target, endpoint: TERM, similarity_threshold: '0.5', member: benzene }));
  assert.deepEqual(
    withMember.members.filter((m) => m.role === 'member').map((m) => [m.compound, m.reason]),
    [[benzene, 'added by hand']],
  );
});

test('the data matrix: members × the endpoint, log P and molecular weight; several values collapsed by the stated rule; CSV, XLSX, JSON, RDF, HTML', async () => {
  const uri = await category({ target, endpoint: TERM, similarity_threshold: '0.4', max_sources: '10' });
  const matrix = (collapse: string, accept: string) => http(`${local(uri)}/matrix?collapse=${collapse}`, { accept });
  const [header, ...rows] = parseCsv((await matrix('all', 'text/csv')).text) as string[][];
  assert.deepEqual(header.slice(0, 4), ['compound', 'SMILES', 'role', 'similarity']);
  assert.equal(header[4], 'Acute toxicity to fish lethality', 'an ontology term’s column is titled by its name');
  assert.deepEqual(header.slice(5), ['log P (Wildman–Crippen)', 'molecular weight (g/mol)']);
  const { members } = await read(uri);
  assert.equal(rows.length, members.length);
  assert.equal(rows[0][0], target, 'the target first');
  assert.equal(rows[0][4], '', 'the target has no measured value: the gap');
  assert.ok(Math.abs(Number(rows[0][6]) - 130.23) < 0.05, `octanol's molecular weight: ${rows[0][6]}`);
  assert.ok(Math.abs(Number(rows[0][5]) - 2.34) < 0.05, `octanol's log P: ${rows[0][5]}`);
  // 1-butanol is in both datasets: both values under "all", their mean under "mean"
  const butanol = rows.find((r) => r[1] === 'CCCCO');
  assert.ok(butanol, rows.map((r) => r[1]).join(' '));
  const both = butanol[4].split('; ').map(Number);
  assert.equal(both.length, 2);
  const [, ...meanRows] = parseCsv((await matrix('mean', 'text/csv')).text) as string[][];
  assert.ok(Math.abs(Number(meanRows.find((r) => r[1] === 'CCCCO')![4]) - (both[0] + both[1]) / 2) < 1e-9);
  const [, ...maxRows] = parseCsv((await matrix('max', 'text/csv')).text) as string[][];
  assert.equal(Number(maxRows.find((r) => r[1] === 'CCCCO')![4]), Math.max(...both));
  const xlsx = await http(`${local(uri)}/matrix`, { accept: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
  assert.equal(xlsx.status, 200);
  assert.equal(xlsx.text.slice(0, 2), 'PK');
  const json = JSON.parse((await matrix('median', 'application/json')).text);
  assert.equal(json.collapse, 'median');
  assert.equal(json.rows.length, rows.length);
  const rdf = parseTurtle((await matrix('all', 'text/turtle')).text);
  assert.equal(valuesOf(rdf, `${uri}/matrix`, `${OT}dataEntry`).length, rows.length);
  assert.match((await matrix('all', 'text/html')).text, /Several values of one compound: <strong>all<\/strong>/);
});

test('gap filling side by side: read-across, a trend on log P with its prediction interval, the worst case, a QSAR model, consistency — each as the matrix’s numbers give it', async () => {
  // a QSAR model of the endpoint: a read-across of the fish data
  const fishFeature = (await http(`${local(fish)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[0];
  const trained = await http(`${s.url}/algorithm/genra`, { method: 'POST', body: form({ dataset_uri: fish, prediction_feature: fishFeature, k: '5' }), accept: 'text/uri-list' });
  const model = trained.status === 202 ? await waitForTask(s, trained.text.trim()) : trained.text.trim();
  const uri = await category({ target, endpoint: TERM, similarity_threshold: '0.3', max_sources: '12' });
  const filled = JSON.parse((await http(`${local(uri)}/gap-filling`, { accept: 'application/json' })).text);
  const [e] = filled.endpoints;
  assert.equal(e.kind, 'numeric');
  // the reference: the matrix's mean values and log P, the category's similarities
  const [header, ...rows] = parseCsv((await http(`${local(uri)}/matrix?collapse=mean`, { accept: 'text/csv' })).text) as string[][];
  const sources = rows.filter((r) => r[2] === 'source').map((r) => ({ s: Number(r[3]), y: Number(r[4]), x: Number(r[header.indexOf('log P (Wildman–Crippen)')]) }));
  assert.equal(e.sources.length, sources.length);
  const value = sources.reduce((t, r) => t + r.s * r.y, 0) / sources.reduce((t, r) => t + r.s, 0);
  assert.ok(Math.abs(e.readAcross.value - value) < 1e-9, `${e.readAcross.value} against ${value}`);
  const n = sources.length;
  const mx = sources.reduce((t, r) => t + r.x, 0) / n;
  const my = sources.reduce((t, r) => t + r.y, 0) / n;
  const sxx = sources.reduce((t, r) => t + (r.x - mx) ** 2, 0);
  const slope = sources.reduce((t, r) => t + (r.x - mx) * (r.y - my), 0) / sxx;
  assert.equal(e.trend.n, n);
  assert.ok(Math.abs(e.trend.slope - slope) < 1e-9, `slope ${e.trend.slope} against ${slope}`);
  assert.ok(Math.abs(e.trend.intercept - (my - slope * mx)) < 1e-9);
  const at = Number(rows[0][header.indexOf('log P (Wildman–Crippen)')]);
  assert.ok(Math.abs(e.trend.at - at) < 1e-9);
  assert.ok(e.trend.interval[0] < e.trend.value && e.trend.value < e.trend.interval[1]);
  assert.ok(e.trend.pSlope > 0 && e.trend.pSlope < 1);
  assert.equal(e.worstCase.lowest.value, Math.min(...sources.map((r) => r.y)));
  assert.equal(e.worstCase.highest.value, Math.max(...sources.map((r) => r.y)));
  const qsar = e.qsar.find((q: { model: string }) => q.model === model);
  assert.ok(qsar && Number.isFinite(Number(qsar.value)), JSON.stringify(e.qsar));
  assert.match(e.consistency.text, /the sources' standard deviation is [\d.]+ against [\d.]+ over all \d+ values of the endpoint: they (agree|do not agree)/);
  const page = await http(`${local(uri)}/gap-filling`, { accept: 'text/html' });
  assert.match(page.text, /read-across \(GenRA\)<\/th><th>trend<\/th><th>worst case<\/th><th>QSAR<\/th>/);
  const bad = await http(`${local(uri)}/gap-filling?descriptor=TPSA`, { accept: 'text/turtle' });
  assert.equal(bad.status, 400);
  assert.match((await errorReport(bad)).message ?? '', /descriptor: TPSA is none of CrippenClogP, amw/);
});

test('bad requests answer 4xx with the reason', async () => {
  const post = (params: Record<string, string>) => http(`${s.url}/category`, { method: 'POST', body: form(params), accept: 'text/turtle' });
  for (const [params, status, pattern] of [
    [{ endpoint: TERM }, 400, /target/],
    [{ target }, 400, /endpoint/],
    [{ target, endpoint: TERM, similarity_threshold: '2' }, 400, /similarity_threshold must be a number from 0 to 1/],
    [{ target, endpoint: TERM, max_sources: '0' }, 400, /max_sources must be a whole number/],
    [{ target, endpoint: TERM, parent: `${s.base}/category/99999` }, 404, /parent: category/],
    [{ target, endpoint: `${OTEE}Nothing_like_it` }, 404, /neither a feature here nor an ontology term/],
    [{ target: `${s.base}/compound/99999`, endpoint: TERM }, 404, /compound .* not found/],
    [{ target, endpoint: TERM, member: `${s.base}/compound/99999` }, 400, /member: .* is not a compound with a structure/],
  ] as [Record<string, string>, number, RegExp][]) {
    const r = await post(params);
    assert.equal(r.status, status, `${JSON.stringify(params)}: ${r.text}`);
    assert.match((await errorReport(r)).message ?? '', pattern);
  }
  const uri = await category({ target, endpoint: TERM });
  const r = await http(`${local(uri)}/matrix?collapse=mode`, { accept: 'text/turtle' });
  assert.equal(r.status, 400);
  assert.match((await errorReport(r)).message ?? '', /collapse: mode is none of all, mean, median, min, max/);
});
