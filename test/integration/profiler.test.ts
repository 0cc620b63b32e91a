import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, http, errorReport, parseTurtle, valuesOf, OT, type TestServer } from '../helpers.ts';
import { df } from '../../src/rdf/namespaces.ts';

/**
 * Compound profiles (issue 56): GET /compound/{id}/profile answers the functional groups, the
 * Benigni–Bossa alerts and the Verhaar class of a compound in RDF, JSON and HTML, computed on the
 * worker pool and kept in the graph {compound}/profile, where SPARQL finds compounds by alert; the
 * rule sets themselves are published (/ontology).
 */
let s: TestServer;
after(() => s.stop());

const TGP = 'http://www.opentox.org/profilers.owl#';
const BB = 'http://www.opentox.org/profilers/benigni-bossa#';
const VH = 'http://www.opentox.org/profilers/verhaar#';
const local = (uri: string) => uri.replace(s.base, s.url);

async function compound(smiles: string): Promise<string> {
  const r = await http(`${s.url}/compound`, { method: 'POST', body: smiles, contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' });
  assert.equal(r.status, 200, r.text);
  return r.text.trim();
}

async function select(path: string, query: string): Promise<Record<string, { value: string }>[]> {
  const r = await http(`${s.url}${path}?query=${encodeURIComponent(query)}`, { accept: 'application/sparql-results+json' });
  assert.equal(r.status, 200, r.text);
  return JSON.parse(r.text).results.bindings;
}

let nitrobenzene: string;
let ethanol: string;

before(async () => {
  s = await startTestServer();
  nitrobenzene = await compound('O=[N+]([O-])c1ccccc1');
  ethanol = await compound('CCO');
});

test('a profile as JSON: per profiler the rules that match with SMARTS and citation; Verhaar’s class with the rule that decided it', async () => {
  const r = await http(`${local(nitrobenzene)}/profile`, { accept: 'application/json' });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers.get('content-type')?.split(';')[0], 'application/json');
  const p = JSON.parse(r.text);
  assert.equal(p.compound, nitrobenzene);
  const bb = p.profilers.find((x: { profiler: string }) => x.profiler === `${BB}BenigniBossa`);
  assert.deepEqual(
    bb.matched.map((m: { identifier: string }) => m.identifier),
    ['SA_27'],
  );
  assert.equal(bb.matched[0].label, 'Nitro aromatic');
  assert.ok(bb.matched[0].smarts.length);
  assert.match(bb.matched[0].citation, /Benigni.*Bossa.*EUR 23241 EN/);
  assert.equal(bb.matched[0].categoryLabel, 'Genotoxic carcinogenicity alert');
  const fg = p.profilers.find((x: { profiler: string }) => x.profiler.endsWith('#FunctionalGroups'));
  assert.ok(fg.matched.some((m: { label: string }) => m.label === 'Nitro'));
  assert.match(fg.citation, /Ertl/);
  const ethanolProfile = JSON.parse((await http(`${local(ethanol)}/profile`, { accept: 'application/json' })).text);
  const vh = ethanolProfile.profilers.find((x: { profiler: string }) => x.profiler === `${VH}Verhaar`);
  assert.equal(vh.category, `${VH}Class1`);
  assert.match(vh.categoryLabel, /Class 1/);
  assert.equal(vh.decidedBy.rule, `${VH}inert`);
  assert.match(vh.citation, /Verhaar.*Chemosphere/);
});

test('a profile in RDF and HTML, stored in {compound}/profile where SPARQL finds the compounds that carry an alert', async () => {
  const ttl = await http(`${local(nitrobenzene)}/profile`, { accept: 'text/turtle' });
  assert.equal(ttl.status, 200, ttl.text);
  assert.match(ttl.headers.get('content-type') ?? '', /^text\/turtle\b/);
  const quads = parseTurtle(ttl.text);
  assert.deepEqual(
    valuesOf(quads, nitrobenzene, `${TGP}matchedRule`).filter((r) => r.startsWith(BB)),
    [`${BB}SA_27`],
  );
  assert.ok(valuesOf(quads, `${BB}SA_27`, `${TGP}smarts`).length, 'the rule’s SMARTS');
  for (const type of ['application/rdf+xml', 'application/n-triples', 'application/ld+json']) {
    const r = await http(`${local(nitrobenzene)}/profile`, { accept: type });
    assert.equal(r.status, 200, type);
    assert.equal(r.headers.get('content-type')?.split(';')[0], type);
    assert.match(r.text, /SA_27/, type);
  }
  const html = await http(`${local(nitrobenzene)}/profile`, { accept: 'text/html' });
  assert.equal(html.status, 200);
  assert.match(html.text, /Nitro aromatic/);
  // each rule links to its page, which says what the rule set says of it
  const link = `/ontology/term?iri=${encodeURIComponent(`${BB}SA_27`)}`;
  assert.ok(html.text.includes(`href="${link}"`), 'a link to the rule’s page');
  const rule = await http(`${s.url}${link}`, { accept: 'text/turtle' });
  assert.equal(rule.status, 200, rule.text);
  assert.ok(valuesOf(parseTurtle(rule.text), `${BB}SA_27`, `${TGP}smarts`).length);
  // no Verhaar rule applies to nitrobenzene: the scheme's last rule decides
  assert.match(html.text, /Class 5: not classifiable<\/strong>, decided by rule 99/);
  // the store holds it: SPARQL over the compounds' profile graphs
  assert.equal((await http(`${local(ethanol)}/profile`, { accept: 'text/turtle' })).status, 200);
  const carriers = await select('/sparql', `SELECT ?c WHERE { GRAPH ?g { ?p <${TGP}ofCompound> ?c . ?c <${TGP}matchedRule> <${BB}SA_27> } }`);
  assert.deepEqual(
    carriers.map((b) => b.c.value),
    [nitrobenzene],
  );
  const graphs = await select('/sparql', `SELECT ?g WHERE { GRAPH ?g { ?p <${TGP}ofCompound> ?c . ?c <${TGP}assignedCategory> <${VH}Class1> } }`);
  assert.deepEqual(
    graphs.map((b) => b.g.value),
    [`${ethanol}/profile`],
  );
  // a deleted compound takes its profile with it: SPARQL no longer finds it by its alerts
  assert.equal((await http(local(nitrobenzene), { method: 'DELETE' })).status, 200);
  assert.deepEqual(await select('/sparql', `SELECT ?c WHERE { GRAPH ?g { ?p <${TGP}ofCompound> ?c . ?c <${TGP}matchedRule> <${BB}SA_27> } }`), []);
});

test('the rule sets are published: /ontology answers an alert’s SMARTS and its source', async () => {
  const rows = await select(
    '/ontology',
    `SELECT ?smarts ?citation WHERE { <${BB}SA_27> <${TGP}smarts> ?smarts ; <http://purl.org/dc/terms/source> ?src . ?src <http://purl.org/dc/terms/bibliographicCitation> ?citation }`,
  );
  assert.ok(rows.length >= 1);
  assert.match(rows[0].citation.value, /Toxtree/);
  const order = await select('/ontology', `SELECT ?r ?o WHERE { <${VH}Verhaar> <${TGP}hasRule> ?r . ?r <${TGP}ruleOrder> ?o } ORDER BY ?o`);
  assert.ok(order.length >= 10);
  assert.equal(order.at(-1)!.r.value, `${VH}notClassifiable`);
});

test('a stored profile is served while current; one of another profiler version is computed again', async () => {
  const graph = `${ethanol}/profile`;
  const url = `${local(ethanol)}/profile`;
  const bbResult = `${graph}#BenigniBossa`;
  const claims = async () => (await select('/sparql', `SELECT ?c WHERE { GRAPH ?g { ?p <${TGP}ofCompound> ?c . ?c <${TGP}matchedRule> <${BB}SA_1> } }`)).length;
  const bbMatched = async () =>
    JSON.parse((await http(url, { accept: 'application/json' })).text)
      .profilers.find((x: { profiler: string }) => x.profiler === `${BB}BenigniBossa`)
      .matched.map((m: { identifier: string }) => m.identifier);
  await http(url, { accept: 'application/json' });
  // the stored profile made to claim an alert ethanol does not have (written into the store
  // directly: the graph store keeps the server's own graphs from clients)
  const stored = await s.services.store.readGraph(graph);
  const claim = parseTurtle(`<${bbResult}> <${TGP}matchedRule> <${BB}SA_1> . <${ethanol}> <${TGP}matchedRule> <${BB}SA_1> .`);
  await s.services.store.replaceGraphs({ [graph]: [...stored, ...claim] });
  // the same structure and versions: the stored profile is what is served
  assert.deepEqual(await bbMatched(), ['SA_1']);
  // the claim made by version 0 of the Benigni–Bossa profiler: computed again and replaced
  const older = stored.map((q) => (q.subject.value === bbResult && q.predicate.value === `${TGP}profilerVersion` ? df.quad(q.subject, q.predicate, df.literal('0'), q.graph) : q));
  assert.ok(older.some((q) => q.object.value === '0'));
  await s.services.store.replaceGraphs({ [graph]: [...older, ...claim] });
  assert.equal(await claims(), 1);
  assert.deepEqual(await bbMatched(), []);
  assert.equal(await claims(), 0);
});

test('404 for an unknown compound; an error report for a compound without a structure', async () => {
  const missing = await http(`${s.url}/compound/987654/profile`, { accept: 'text/turtle' });
  assert.equal(missing.status, 404);
  assert.equal((await errorReport(missing)).code, 'NotFound');
  // a compound graph without a structure, written into the store directly (no interface makes one)
  const bare = `${s.base}/compound/987655`;
  await s.services.store.replaceGraphs({ [bare]: parseTurtle(`<${bare}> a <${OT}Compound> ; <http://purl.org/dc/elements/1.1/title> "no structure" .`) });
  const none = await http(`${local(bare)}/profile`, { accept: 'text/turtle' });
  assert.equal(none.status, 400, none.text);
  const report = await errorReport(none);
  assert.equal(report.code, 'InvalidInput');
  assert.match(report.message ?? '', /has no structure to profile/);
});
