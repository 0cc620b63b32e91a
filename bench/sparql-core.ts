import type * as RDF from '@rdfjs/types';
import oxigraph from 'oxigraph';
import { df, ot, rdf } from '../src/rdf/namespaces.ts';
import { QuadstoreTripleStore } from '../src/store/quadstore-triple-store.ts';
import { construct, select } from '../src/store/query-helpers.ts';
import { sparql } from '../src/store/sparql-template.ts';
import type { GraphScope } from '../src/store/triple-store.ts';
import { fmt, median, now, tempDir, type Row } from './util.ts';

const RESOURCES = 5000;
const RUNS = 1000;
const WARMUP = 100;
const BASE = 'http://bench.test/compound/';
const OT = 'http://www.opentox.org/api/1.1#';
const DC = 'http://purl.org/dc/elements/1.1/';
/** A scope that allows every named graph (Comunica's `GRAPH ?g` would see the default graph too). */
const EVERY_NAMED_GRAPH: GraphScope = { allows: () => true, includesDefaultGraph: false };

/** Resource i: 9 triples in its own named graph (the graph IRI is the resource URI). */
function resourceQuads(i: number): RDF.Quad[] {
  const s = df.namedNode(`${BASE}${i}`);
  const g = s;
  const lit = (v: string) => df.literal(v);
  return [
    df.quad(s, rdf('type'), ot('Compound'), g),
    df.quad(s, df.namedNode(`${DC}title`), lit(`compound ${i}`), g),
    df.quad(s, df.namedNode(`${DC}identifier`), lit(`CID${i}`), g),
    df.quad(s, ot('smiles'), lit(`${'C'.repeat((i % 20) + 1)}O`), g),
    df.quad(s, ot('inchi'), lit(`InChI=1S/C${i}`), g),
    df.quad(s, ot('inchikey'), lit(`KEY${String(i).padStart(10, '0')}`), g),
    df.quad(s, df.namedNode('http://www.w3.org/2002/07/owl#sameAs'), df.namedNode(`http://example.org/chem/${i}`), g),
    df.quad(s, df.namedNode(`${DC}creator`), lit('bench'), g),
    df.quad(s, df.namedNode('http://purl.org/dc/terms/created'), df.literal('2026-11-25T00:00:00Z', df.namedNode('http://www.w3.org/2001/XMLSchema#dateTime')), g),
  ];
}

/** The named template of the case "one resource's graph". */
const resourceTemplate = (g: RDF.NamedNode) => sparql`CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ${g} { ?s ?p ?o } }`;

/** Median microseconds of `run` over RUNS calls after WARMUP; `run` answers the number of results, checked against `expected`. */
async function time(run: () => Promise<number> | number, expected: number): Promise<number> {
  for (let i = 0; i < WARMUP; i++) {
    const n = await run();
    if (n !== expected) throw new Error(`expected ${expected} results, got ${n}`);
  }
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = now();
    await run();
    samples.push((now() - t) * 1000);
  }
  return median(samples);
}

/**
 * The cost of the design's core, per query (issue 33): the same two small queries through the
 * store seam (`TripleStore.query`: Comunica over quadstore), as quadstore's own `get` of the same
 * quads (the baseline), and on Oxigraph in memory, in one process on the same 45,000 quads
 * (5,000 resources of 9 triples, one named graph each). Medians of 1,000 runs after 100.
 */
export async function benchSparqlCore(): Promise<Row[]> {
  const tmp = await tempDir('toxgraph-bench-sparql-core-');
  const store = await QuadstoreTripleStore.open(tmp.dir);
  const oxi = new oxigraph.Store();
  const bench = `sparql core: ${RESOURCES} resources of 9 triples in their own graphs; median µs per query of ${RUNS}`;
  const rows: Row[] = [];
  try {
    const graphs: Record<string, RDF.Quad[]> = {};
    for (let i = 1; i <= RESOURCES; i++) {
      const quads = resourceQuads(i);
      graphs[`${BASE}${i}`] = quads;
      for (const q of quads) oxi.add(q as never);
    }
    await store.createGraphs(graphs);
    const one = `${BASE}1234`;

    const selectText = `SELECT ?s WHERE { GRAPH ?g { ?s a <${OT}Compound> } } LIMIT 10`;
    const constructText = `CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <${one}> { ?s ?p ?o } }`;
    /** Answers of store.query, counted; with `comunica` the store is made to leave the query to Comunica. */
    const seam = (text: string, comunica: boolean) => async () => {
      const options = comunica ? { scope: EVERY_NAMED_GRAPH, engine: 'comunica' as const } : {};
      return (text.startsWith('CONSTRUCT') ? await construct(store, text as never, options) : await select(store, text as never, options)).length;
    };
    const cases = [
      {
        baseline: 'quadstore get: ?s a ot:Compound, limit 10',
        get: async () => (await store.quadstore.get({ predicate: rdf('type') as never, object: ot('Compound') as never }, { limit: 10 })).items.length,
        query: selectText,
        expected: 10,
      },
      {
        baseline: 'quadstore get: the quads of one graph',
        get: async () => (await store.quadstore.get({ graph: df.namedNode(one) as never })).items.length,
        query: constructText,
        expected: 9,
      },
    ];
    for (const c of cases) {
      const get = await time(c.get, c.expected);
      const oxigraphMs = await time(() => (oxi.query(c.query) as unknown[]).length, c.expected);
      const ours = await time(seam(c.query, false), c.expected);
      const comunica = await time(seam(c.query, true), c.expected);
      const against = (x: number) => `${fmt(x / get, 2)}x (${fmt(x / oxigraphMs, 1)}x Oxigraph)`;
      rows.push({ bench, measure: `${c.baseline} (baseline)`, value: `${fmt(get, 0)} µs`, ratio: '1.00x' });
      rows.push({ bench, measure: `Oxigraph in memory: ${c.query.replace(`<${OT}Compound>`, 'ot:Compound')}`, value: `${fmt(oxigraphMs, 0)} µs`, ratio: `${fmt(oxigraphMs / get, 2)}x` });
      rows.push({ bench, measure: '  the same through the store seam (store.query: its evaluator of graph patterns)', value: `${fmt(ours, 0)} µs`, ratio: against(ours) });
      rows.push({ bench, measure: '  the same through Comunica over the store (what the seam used before)', value: `${fmt(comunica, 0)} µs`, ratio: against(comunica) });
    }
    // a named template's read of one resource, a different one each run: bound into the compiled
    // parse of its call site, never parsed (the parses kept by text would not hold 5,000 texts)
    let k = 0;
    const nextUri = () => `${BASE}${1 + (k++ % RESOURCES)}`;
    const getAny = await time(async () => (await store.quadstore.get({ graph: df.namedNode(nextUri()) as never })).items.length, 9);
    const template = await time(async () => (await construct(store, resourceTemplate(df.namedNode(nextUri())))).length, 9);
    const templateBench = `${bench}; a different resource each run`;
    rows.push({ bench: templateBench, measure: 'quadstore get: the quads of one graph (baseline)', value: `${fmt(getAny, 0)} µs`, ratio: '1.00x' });
    rows.push({ bench: templateBench, measure: '  named template: CONSTRUCT of that graph, its IRI bound (store.query)', value: `${fmt(template, 0)} µs`, ratio: `${fmt(template / getAny, 2)}x` });
    const readGraph = await time(async () => (await store.readGraph(one)).length, 9);
    rows.push({ bench, measure: 'store.readGraph of that graph (what components use instead; from its graph cache)', value: `${fmt(readGraph, 1)} µs` });
  } finally {
    await store.close();
    await tmp.remove();
  }
  return rows;
}
