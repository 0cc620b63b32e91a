import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as RDF from '@rdfjs/types';
import { QuadstoreTripleStore } from '../../src/store/quadstore-triple-store.ts';
import { graphPatternQuery } from '../../src/store/graph-pattern-query.ts';
import { parsedQuery } from '../../src/store/parsed-query.ts';
import { termKey } from '../../src/rdf/terms.ts';
import { df } from '../../src/rdf/namespaces.ts';
import type { GraphScope, QueryResult, Solution } from '../../src/store/triple-store.ts';
import { sortSolutions } from '../../src/store/solution-order.ts';
import { sameParse, templateParse } from '../../src/store/compiled-template.ts';
import { sparql } from '../../src/store/sparql-template.ts';

// The differential test of the store's own evaluator of basic graph patterns inside GRAPH: every
// generated query is answered by it (store.query) and by Comunica over the same store (the option
// `engine: 'comunica'`), and the answers must be the same multisets (and in the same order of
// ORDER BY's keys). Comunica's reference runs with a scope that leaves the unnamed default graph
// out: over this store Comunica binds `GRAPH ?g` to the default graph too, where SPARQL 1.1 (and
// the evaluator) has it range over named graphs only.

let dir: string;
let store: QuadstoreTripleStore;
const X = 'http://x.test/';
const ALL: GraphScope = { allows: () => true, includesDefaultGraph: false };
const COMUNICA = { scope: ALL, engine: 'comunica' } as const;

/** A seeded generator: the same queries on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const iris = Array.from({ length: 6 }, (_, i) => df.namedNode(`${X}r/${i}`));
const predicates = Array.from({ length: 3 }, (_, i) => df.namedNode(`${X}p/${i}`));
const literals = [df.literal('a'), df.literal('a', 'en'), df.literal('1', df.namedNode('http://www.w3.org/2001/XMLSchema#integer')), df.literal('b')];
const graphs = [...iris.slice(0, 4), df.namedNode(`${X}r/0/entries`), df.namedNode(`${X}r/1/entries`)];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toxgraph-gpq-'));
  store = await QuadstoreTripleStore.open(dir);
  const rnd = random(7);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const content: Record<string, RDF.Quad[]> = {};
  for (const g of graphs) {
    const quads = new Map<string, RDF.Quad>();
    for (let i = 0; i < 25; i++) {
      const quad = df.quad(pick(iris), pick(predicates), rnd() < 0.5 ? pick(iris) : pick(literals));
      quads.set(`${termKey(quad.subject)} ${termKey(quad.predicate)} ${termKey(quad.object)}`, quad);
    }
    content[g.value] = [...quads.values()];
  }
  // the same triples in the default graph too: GRAPH must not see them
  content['urn:toxgraph:default-graph'] = content[graphs[0].value].slice(0, 10);
  await store.replaceGraphs(content);
});

after(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function rows(result: QueryResult): Promise<string[]> {
  const out: string[] = [];
  if (result.type === 'bindings') {
    for await (const s of result.solutions)
      out.push(
        Object.keys(s)
          .sort()
          .map((k) => `${k}=${termKey(s[k])}`)
          .join(' '),
      );
  } else if (result.type === 'quads') {
    for await (const q of result.quads) out.push(`${termKey(q.subject)} ${termKey(q.predicate)} ${termKey(q.object)} ${q.graph.termType}`);
  } else out.push(String(result.value));
  return out.sort();
}

/** Generated queries of the evaluator's shape: 1-3 patterns in GRAPH ?g or a named graph, SELECT (*, variables, DISTINCT, COUNT) or CONSTRUCT, LIMIT/OFFSET. */
function queries(n: number): string[] {
  const rnd = random(42);
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const vars = ['?a', '?b', '?c'];
  const term = (t: RDF.Term) =>
    t.termType === 'NamedNode'
      ? `<${t.value}>`
      : t.termType === 'Literal'
        ? `"${t.value}"${t.language ? `@${t.language}` : t.datatype.value.endsWith('#string') ? '' : `^^<${t.datatype.value}>`}`
        : '';
  const out: string[] = [];
  while (out.length < n) {
    const graph = rnd() < 0.6 ? '?g' : term(pick(graphs));
    const patterns = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
      const s = rnd() < 0.75 ? pick([...vars, ...(graph === '?g' ? ['?g'] : [])]) : term(pick(iris));
      const p = rnd() < 0.4 ? pick(['?p', '?a']) : term(pick(predicates));
      const o = rnd() < 0.6 ? pick(vars) : term(rnd() < 0.5 ? pick(iris) : pick(literals));
      return `${s} ${p} ${o} .`;
    });
    const where = `WHERE { GRAPH ${graph} { ${patterns.join(' ')} } }`;
    const used = [...new Set(`${graph} ${patterns.join(' ')}`.match(/\?[a-z]+/g) ?? [])];
    if (used.length === 0) continue;
    const form = rnd();
    if (form < 0.15) {
      const v = pick(used);
      out.push(`CONSTRUCT { ${v === '?p' ? '?a' : v} <${X}made> ${pick(used)} . <${X}fixed> <${X}from> ${v} } ${where}`);
    } else if (form < 0.3) out.push(`SELECT (COUNT(${pick(['*', 'DISTINCT *', pick(used), `DISTINCT ${pick(used)}`])}) AS ?n) ${where}`);
    else if (form < 0.5) out.push(`SELECT * ${where}`);
    else out.push(`SELECT ${rnd() < 0.5 ? 'DISTINCT ' : ''}${used.filter(() => rnd() < 0.7).join(' ') || used[0]} ${where}`);
  }
  return out;
}

test('the evaluator takes exactly the shapes it answers', () => {
  const g = `GRAPH ?g { ?s <${X}p> ?o }`;
  for (const text of [
    `SELECT ?s WHERE { ${g} }`,
    `SELECT DISTINCT * WHERE { ${g} } LIMIT 3 OFFSET 1`,
    `SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ${g} }`,
    `CONSTRUCT { ?s ?o ?g } WHERE { ${g} }`,
    `SELECT ?s WHERE { ${g} } ORDER BY ?s DESC(?o) LIMIT 2`,
    `ASK { ${g} }`,
  ])
    assert.ok(graphPatternQuery(parsedQuery(text)), text);
  for (const text of [
    `SELECT ?s WHERE { ?s <${X}p> ?o }`, // outside GRAPH: the union default graph is the engine's
    `SELECT ?s WHERE { ${g} FILTER(?o = 1) }`,
    `SELECT ?s WHERE { ${g} } ORDER BY STR(?s)`,
    `SELECT (COUNT(*) AS ?n) WHERE { ${g} } ORDER BY ?n`,
    `CONSTRUCT { ?s ?o ?g } WHERE { ${g} } ORDER BY ?s`,
    `SELECT ?s WHERE { GRAPH ?g { ?s <${X}p> ?o OPTIONAL { ?o <${X}q> ?x } } }`,
    `SELECT ?s WHERE { GRAPH ?g { ?s <${X}p>+ ?o } }`,
    `SELECT ?s WHERE { GRAPH ?g { ?s <${X}p> [] } }`,
    `SELECT ?s WHERE { VALUES ?s { <${X}a> } ${g} }`,
    `SELECT (COUNT(*) AS ?n) WHERE { ${g} } GROUP BY ?s`,
    `SELECT (STR(?s) AS ?t) WHERE { ${g} }`,
    `SELECT ?s FROM <${X}g> WHERE { ${g} }`,
    `SELECT ?s WHERE { ${g} GRAPH ?h { ?s ?p ?o } }`,
    'not sparql',
  ])
    assert.equal(graphPatternQuery(parsedQuery(text)), undefined, text);
});

test('differential: 400 generated queries answer the same on the evaluator and on Comunica', async () => {
  let nonEmpty = 0;
  for (const text of queries(400)) {
    assert.ok(graphPatternQuery(parsedQuery(text)), `not taken by the evaluator: ${text}`);
    const ours = await rows(await store.query(text));
    // SPARQL leaves out the triples a template cannot make (a literal subject); Comunica makes them
    const theirs = (await rows(await store.query(text, COMUNICA))).filter((row) => !row.startsWith('"'));
    assert.deepEqual(ours, theirs, text);
    if (ours.length && ours[0] !== 'n="0"^^<http://www.w3.org/2001/XMLSchema#integer>') nonEmpty++;
  }
  assert.ok(nonEmpty > 150, `only ${nonEmpty} of 400 queries had answers: the generated data and queries test too little`);
});

test('differential: ASK of the same patterns answers as on Comunica', async () => {
  const answers = new Set<string>();
  for (const text of queries(200)) {
    const ask = `ASK ${text.slice(text.indexOf('WHERE'))}`;
    assert.ok(graphPatternQuery(parsedQuery(ask)), `not taken by the evaluator: ${ask}`);
    const ours = await rows(await store.query(ask));
    assert.deepEqual(ours, await rows(await store.query(ask, COMUNICA)), ask);
    answers.add(ours[0]);
  }
  assert.deepEqual([...answers].sort(), ['false', 'true'], 'both answers occur');
});

test('differential: LIMIT and OFFSET take that many of the same answers', async () => {
  for (const text of queries(120).filter((q) => q.startsWith('SELECT') && !q.includes('COUNT'))) {
    const all = await rows(await store.query(text, COMUNICA));
    for (const [limit, offset] of [
      [2, 0],
      [3, 2],
      [0, 0],
      [100, 1],
    ]) {
      const page = await rows(await store.query(`${text} LIMIT ${limit} OFFSET ${offset}`));
      assert.equal(page.length, Math.max(0, Math.min(limit, all.length - offset)), `${text} LIMIT ${limit} OFFSET ${offset}`);
      // every answer of a page is one of the answers, as often at most
      const left = [...all];
      for (const row of page) {
        const at = left.indexOf(row);
        assert.ok(at >= 0, `${text} LIMIT ${limit} OFFSET ${offset}: ${row} is not an answer`);
        left.splice(at, 1);
      }
    }
  }
});

/** A result's solutions in the order given. */
async function solutions(result: QueryResult): Promise<Solution[]> {
  assert.equal(result.type, 'bindings');
  const out: Solution[] = [];
  if (result.type === 'bindings') for await (const s of result.solutions) out.push(s);
  return out;
}

const rowOf = (s: Solution) =>
  Object.keys(s)
    .sort()
    .map((k) => `${k}=${termKey(s[k])}`)
    .join(' ');

test('differential: ORDER BY gives the same answers in the same order of its keys', async () => {
  const rnd = random(9);
  let sortedHere = 0;
  for (const text of queries(300).filter((q) => q.startsWith('SELECT') && !q.includes('COUNT'))) {
    const used = [...new Set(text.slice(text.indexOf('WHERE')).match(/\?[a-z]+/g) ?? [])];
    const keys = used.filter(() => rnd() < 0.5).slice(0, 2);
    if (keys.length === 0) keys.push(used[0]);
    const order = keys.map((k) => (rnd() < 0.5 ? `DESC(${k})` : k)).join(' ');
    const page = rnd() < 0.5 ? ` LIMIT ${1 + Math.floor(rnd() * 4)} OFFSET ${Math.floor(rnd() * 3)}` : '';
    const ordered = `${text} ORDER BY ${order}${page}`;
    assert.ok(graphPatternQuery(parsedQuery(ordered)), `not taken by the evaluator: ${ordered}`);
    // in the scope of the reference: keys this evaluator leaves to Comunica go there with it
    const ours = await solutions(await store.query(ordered, { scope: ALL }));
    const theirs = await solutions(await store.query(ordered, COMUNICA));
    const keyOf = (s: Solution) => keys.map((k) => (s[k.slice(1)] ? termKey(s[k.slice(1)]) : '')).join(' ');
    if (page) {
      // a page of a sort with ties may hold any of the tied answers: the keys must agree
      assert.deepEqual(ours.map(keyOf), theirs.map(keyOf), ordered);
    } else {
      assert.deepEqual(ours.map(keyOf), theirs.map(keyOf), ordered);
      assert.deepEqual(ours.map(rowOf).sort(), theirs.map(rowOf).sort(), ordered);
    }
    const all = await solutions(await store.query(`SELECT * ${text.slice(text.indexOf('WHERE'))}`, COMUNICA));
    if (
      sortSolutions(
        all,
        keys.map((k) => ({ variable: k.slice(1), descending: false })),
      )
    )
      sortedHere++;
  }
  assert.ok(sortedHere > 40, `only ${sortedHere} queries were sorted by the evaluator: the test tests too little of it`);
});

test('differential: a scope hides the graphs it does not allow, on the evaluator as on Comunica', async () => {
  const allowed = new Set<string>([graphs[0].value, graphs[2].value, graphs[4].value]);
  const scope: GraphScope = { allows: (g) => allowed.has(g), includesDefaultGraph: false };
  let differs = 0;
  for (const text of queries(150)) {
    const ours = await rows(await store.query(text, { scope }));
    const theirs = (await rows(await store.query(text, { scope, engine: 'comunica' }))).filter((row) => !row.startsWith('"'));
    assert.deepEqual(ours, theirs, text);
    if (ours.join() !== (await rows(await store.query(text))).join()) differs++;
  }
  assert.ok(differs > 30, `the scope changed only ${differs} answers: the test tests too little`);
  // outside GRAPH: the union of the allowed graphs and, when the scope includes it, the unnamed default graph
  for (const includesDefaultGraph of [true, false]) {
    const withDefault: GraphScope = { allows: (g) => allowed.has(g), includesDefaultGraph };
    const text = `SELECT ?s ?o WHERE { ?s <${X}p/1> ?o }`;
    assert.deepEqual(await rows(await store.query(text, { scope: withDefault })), await rows(await store.query(text, { scope: withDefault, engine: 'comunica' })), `${text} ${includesDefaultGraph}`);
  }
});

test('compiled templates: bound into the call site parse, the same parse and answers as their text; values stay values', async () => {
  const graphOf = (g: RDF.NamedNode) => sparql`SELECT ?s ?o WHERE { GRAPH ${g} { ?s ${predicates[0]} ?o } }`;
  const first = graphOf(graphs[0]);
  const second = graphOf(graphs[1]);
  assert.ok(first.slots && second.slots && first.slots.strings === second.slots.strings, 'one call site, one compiled parse');
  for (const q of [first, second]) {
    assert.ok(sameParse(templateParse(q), parsedQuery(q.text)), q.text);
    assert.deepEqual(await rows(await store.query(q)), await rows(await store.query(q.text, COMUNICA)), q.text);
  }
  // a literal that looks like SPARQL is a literal
  const hostile = df.literal('a" } } ; DROP ALL ; SELECT * WHERE { ?x ?y "');
  const byValue = (v: RDF.Literal) => sparql`SELECT ?s WHERE { GRAPH ?g { ?s ?p ${v} } }`;
  assert.ok(sameParse(templateParse(byValue(hostile)), parsedQuery(byValue(hostile).text)));
  assert.deepEqual(await rows(await store.query(byValue(hostile))), []);
  assert.ok((await rows(await store.query(byValue(literals[0])))).length > 0);
  // an IRI that would end the IRI early is refused before anything runs
  assert.throws(() => byValue(df.namedNode(`${X}a> } } ; DROP ALL ; #`) as never), /not a valid absolute IRI/);
  // a slot where SPARQL takes no variable: no compiled parse, the text is parsed
  const data = (s: RDF.NamedNode) => sparql`INSERT DATA { GRAPH ${s} { ${s} ${predicates[0]} "x" } }`;
  assert.equal(templateParse(data(iris[0])), undefined);
  // lists and nested templates are written as text
  assert.equal(sparql`SELECT ?s WHERE { VALUES ?s { ${iris} } }`.slots, undefined);
});

test('differential: CONSTRUCT of a graph (its template its pattern) answers its quads as triples, paged as solutions', async () => {
  let answered = 0;
  for (const g of graphs) {
    for (const pattern of ['?s ?p ?o', `?s <${predicates[1].value}> ?o`, `<${iris[2].value}> ?p ?o`, `?s ?p <${iris[3].value}>`]) {
      for (const page of ['', ' LIMIT 3', ' LIMIT 2 OFFSET 4']) {
        const text = `CONSTRUCT { ${pattern} } WHERE { GRAPH <${g.value}> { ${pattern} } }${page}`;
        const ours = await rows(await store.query(text));
        const theirs = await rows(await store.query(text, COMUNICA));
        if (page) assert.equal(ours.length, theirs.length, text);
        else assert.deepEqual(ours, theirs, text);
        if (ours.length) answered++;
      }
    }
  }
  assert.ok(answered > 30, `only ${answered} had answers`);
});
