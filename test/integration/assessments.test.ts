import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sharedCsv, startTestServer, http, form, errorReport, parseTurtle, valuesOf, OT, type TestServer } from '../helpers.ts';

const exec = promisify(execFile);

/**
 * Read-across assessments (issue 57): made from a category and a RAAF scenario, written by the
 * assessor, final only when every element is scored, revised as versions; every gap-filled
 * value traceable in SPARQL to the measured values and datasets it came from.
 */
let s: TestServer;
after(() => s.stop());

const TERM = 'http://www.opentox.org/echaEndpoints.owl#Acute_toxicity_to_fish_lethality';
const PROV = 'http://www.w3.org/ns/prov#';
const local = (uri: string) => uri.replace(s.base, s.url);
/** The assessment elements of RAAF scenario 6 (a category, same type of effect, the property varies). */
const ELEMENTS = ['AE C.1', 'AE C.2', 'AE G.1', 'AE G.2', 'AE G.3', 'AE E.1', 'AE E.2', 'AE E.3', 'AE E.4', 'AE U.1'];

async function post(path: string, params: Record<string, string | string[]>): Promise<{ status: number; text: string; uri: string }> {
  const r = await http(path.startsWith('http') ? local(path) : `${s.url}${path}`, { method: 'POST', body: form(params), accept: 'text/uri-list' });
  return { status: r.status, text: r.text, uri: r.text.trim() };
}

let category: string;
let target: string;

before(async () => {
  s = await startTestServer();
  const up = async (csv: string) => {
    const r = await http(`${s.url}/dataset?${new URLSearchParams({ endpoint_column: '1', endpoint: TERM })}`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
    assert.equal(r.status, 200, r.text);
  };
  await up(sharedCsv('EPAFHM_log10.csv', 60));
  await up('SMILES,LC50\nCCCCO,0.25\nCCCCCCO,1.1\nCCCCCCCCCO,2.2\n');
  target = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCCCCCCCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  category = (await post('/category', { target, endpoint: TERM, similarity_threshold: '0.3', max_sources: '8' })).uri;
});

const scores = (value: string) => Object.fromEntries(ELEMENTS.map((e) => [`score:${e}`, value]));

test('an assessment from a category: prefilled, written, final only when complete, then unchangeable; a new version keeps the old', async () => {
  const made = await post('/assessment', {
    category,
    scenario: '6',
    title: 'Octanol, fish LC50',
    purpose: 'fill the fish LC50 gap',
    problem_formulation: 'acute fish toxicity for REACH Annex VIII',
    tolerable_uncertainty: 'moderate',
  });
  assert.equal(made.status, 201, made.text);
  const a = made.uri;
  let page = (await http(local(a), { accept: 'text/html' })).text;
  assert.match(page, new RegExp(`Not scored yet: ${ELEMENTS.join(', ')}`));
  assert.match(page, /RAAF scenario 6: Category approach: different compounds have qualitatively similar properties, the property varies regularly/);
  assert.match(page, /What the data say:/);
  assert.match(page, /source\(s\) with Tanimoto similarity to the target/);
  // the profilers' classes and alerts of target and sources
  assert.match(page, /the target is [^;]+; \d+ of \d+ source\(s\) share it\./);
  assert.match(page, /the target carries [^;]+; \d+ of \d+ source\(s\) carry one of its alerts, \d+ an alert it lacks\./);
  // finalising now names what is missing, and writes nothing
  const early = await post(`${a}/final`, {});
  assert.equal(early.status, 400);
  assert.match(early.text, /AE C\.1 is not scored/);
  // the assessor writes it: the trend as the method, every element scored, the conclusion
  const written = await post(a, {
    ...scores('4'),
    [`method:${TERM}`]: 'trend',
    [`rationale:${TERM}`]: 'potency rises with log P along the alcohols',
    'comment:AE G.3': 'a clear trend',
    overall_uncertainty: 'moderate',
    conclusion: 'LC50 predicted from the trend',
  });
  assert.equal(written.status, 200, written.text);
  const quads = parseTurtle((await http(local(a), { accept: 'text/turtle' })).text);
  const [fill] = valuesOf(quads, a, `${OT}gapFill`);
  assert.deepEqual(valuesOf(quads, fill, `${OT}method`), ['trend']);
  const value = valuesOf(quads, fill, `${OT}value`)[0];
  assert.ok(Number.isFinite(Number(value)));
  assert.equal((await post(`${a}/final`, {})).status, 200);
  page = (await http(local(a), { accept: 'text/html' })).text;
  assert.match(page, /Final, version 1\./);
  assert.match(page, /Score: 4 \(acceptable with medium confidence\)\. a clear trend/);
  // a final assessment is not changed; a new version is a draft that keeps the old one
  const locked = await post(a, { conclusion: 'changed' });
  assert.equal(locked.status, 409);
  const next = await post(`${a}/version`, {});
  assert.equal(next.status, 201, next.text);
  assert.notEqual(next.uri, a);
  const v2 = parseTurtle((await http(local(next.uri), { accept: 'text/turtle' })).text);
  assert.deepEqual(valuesOf(v2, next.uri, `${PROV}wasRevisionOf`), [a]);
  assert.deepEqual(valuesOf(v2, next.uri, `${OT}status`), ['draft']);
  assert.deepEqual(valuesOf(v2, next.uri, `${OT}version`), ['2']);
  // its gap filling, run again on the same data, gives the final's numbers
  assert.equal((await post(next.uri, { conclusion: 'the same, again' })).status, 200);
  const again = parseTurtle((await http(local(next.uri), { accept: 'text/turtle' })).text);
  assert.equal(valuesOf(again, valuesOf(again, next.uri, `${OT}gapFill`)[0], `${OT}value`)[0], value);
  const history = (await http(local(next.uri), { accept: 'text/html' })).text;
  assert.ok(history.includes(a) && /this one/.test(history), 'the versions annex lists the first version and this one');
  // the report as PDF, read as a reader would: its sections whole, no sparse page
  const pdf = await http(local(a), { accept: 'application/pdf' });
  assert.equal(pdf.status, 200);
  const file = join(await mkdtemp(join(tmpdir(), 'assessment-')), 'a.pdf');
  await writeFile(file, Buffer.from(await (await fetch(local(a), { headers: { accept: 'application/pdf' } })).arrayBuffer()));
  const text = (await exec('pdftotext', ['-layout', file, '-'])).stdout;
  for (const words of ['Sources of uncertainty', 'AE G.3: Regular pattern of the variation', 'Data matrix', 'Annex B. Versions', 'Sources and the target'])
    assert.ok(text.replace(/\s+/g, ' ').includes(words), words);
  const pages = text.split('\f').filter((p) => p.trim());
  pages.slice(0, -1).forEach((p, i) => assert.ok(p.split(/\s+/).filter(Boolean).length >= 20, `page ${i + 1} holds ${p.trim().slice(0, 80)}`));
});

test('provenance: SPARQL finds the measured values and datasets a gap-filled value rests on; a value taken out is kept, marked, and no longer used', async () => {
  const a = (await post('/assessment', { category, scenario: '5' })).uri;
  const rests = async () => {
    const query = `PREFIX ot: <${OT}> PREFIX prov: <${PROV}>
      SELECT ?compound ?value ?dataset WHERE { GRAPH <${a}> { <${a}> ot:gapFill ?fill . ?fill prov:wasDerivedFrom ?source . ?source ot:compound ?compound ; ot:feature ?feature ; prov:hadPrimarySource ?dataset }
        BIND(IRI(CONCAT(STR(?dataset), "/entries")) AS ?rows) GRAPH ?rows { ?entry ot:compound ?compound ; ?feature ?value } }`;
    const r = await http(`${s.url}/sparql?query=${encodeURIComponent(query)}`, { accept: 'application/sparql-results+json' });
    assert.equal(r.status, 200, r.text);
    return JSON.parse(r.text).results.bindings as { compound: { value: string }; value: { value: string }; dataset: { value: string } }[];
  };
  const before = await rests();
  assert.ok(before.length >= 3, `${before.length} values`);
  assert.ok(before.every((b) => /\/dataset\/\d+$/.test(b.dataset.value)));
  // the same questions, published as the ontology service's predefined queries
  const predefined = parseTurtle((await http(`${s.url}/ontology/queries`, { accept: 'text/turtle' })).text);
  assert.deepEqual(predefined.filter((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/title').length, 3);
  const run = async (name: string, query: Record<string, string>) => {
    const r = await http(`${s.url}/ontology/queries/${name}?${new URLSearchParams(query)}`, { accept: 'application/sparql-results+json' });
    return { status: r.status, rows: r.status === 200 ? JSON.parse(r.text).results.bindings : [], text: r.text };
  };
  assert.equal((await run('gap-fill-sources', { assessment: a })).rows.length, before.length);
  const resting = await run('assessments-resting-on', { dataset: before[0].dataset.value });
  assert.ok(
    resting.rows.some((r: { assessment: { value: string } }) => r.assessment.value === a),
    resting.text.slice(0, 300),
  );
  assert.ok((await run('gap-fill-activity', { assessment: a })).rows.some((r: { used: { value: string } }) => r.used.value.endsWith('/algorithm/genra')));
  assert.equal((await run('no-such-query', { assessment: a })).status, 404);
  assert.equal((await run('gap-fill-sources', {})).status, 400);
  assert.equal((await run('gap-fill-sources', { assessment: 'not an iri>' })).status, 400);
  const out = before[0];
  const removed = await post(a, { remove: `${out.compound.value} ${out.dataset.value}`, remark: 'a re-test replaced this value' });
  assert.equal(removed.status, 200, removed.text);
  const after = await rests();
  assert.equal(after.length, before.length - 1);
  assert.ok(!after.some((b) => b.compound.value === out.compound.value && b.dataset.value === out.dataset.value));
  const page = (await http(local(a), { accept: 'text/html' })).text;
  assert.match(page, /Annex A\. Values taken out of the matrix[\s\S]*a re-test replaced this value/);
  // the assessment's matrix: the value out of its cell, listed in the workbook with its remark
  const matrix = JSON.parse((await http(`${local(a)}/matrix`, { accept: 'application/json' })).text);
  const row = matrix.rows.find((r: { compound: string }) => r.compound === out.compound.value);
  assert.ok(!row || row.sources.flat().every((v: { dataset: string }) => v.dataset !== out.dataset.value), 'the value taken out is in no cell');
  assert.equal(matrix.removed[0].remark, 'a re-test replaced this value');
  const xlsx = await http(`${local(a)}/matrix`, { accept: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' });
  assert.equal(xlsx.status, 200);
  assert.equal(xlsx.text.slice(0, 2), 'PK');
});

test('bad input answers 4xx naming the problem and writes nothing', async () => {
  const count = async () => (await http(`${s.url}/assessment`, { accept: 'text/uri-list' })).text.trim().split(/\r?\n/).filter(Boolean).length;
  const before = await count();
  for (const [params, status, pattern] of [
    [{ category, scenario: '7' }, 400, /scenario: 7 is not a RAAF scenario \(1 to 6\)/],
    [{ category, scenario: 'two' }, 400, /scenario: two is not a RAAF scenario/],
    [{ category: `${s.base}/category/99999`, scenario: '2' }, 404, /category: .* not found/],
    [{ category, scenario: '2', 'score:AE A.1': '6' }, 400, /score:AE A\.1: a score is a whole number from 1 \(not acceptable\) to 5/],
    [{ category, scenario: '2', 'score:AE X.9': '3' }, 400, /AE X\.9 is not an assessment element of this scenario/],
    [{ category, scenario: '2', overall_uncertainty: 'tiny' }, 400, /overall_uncertainty: tiny is none of low, moderate, high/],
    [{ category, scenario: '2', [`method:${TERM}`]: 'guess' }, 400, /is none of read-across, trend, lowest, highest, qsar/],
    [{ category, scenario: '2', 'method:http://example.org/other': 'trend' }, 400, /not an endpoint of the category/],
    [{ category, scenario: '2', remove: `${target}` }, 400, /remove: give/],
  ] as [Record<string, string>, number, RegExp][]) {
    const r = await http(`${s.url}/assessment`, { method: 'POST', body: form(params), accept: 'text/turtle' });
    assert.equal(r.status, status, `${JSON.stringify(params)}: ${r.text}`);
    assert.match((await errorReport(r)).message ?? '', pattern);
  }
  assert.equal(await count(), before, 'nothing written');
});
