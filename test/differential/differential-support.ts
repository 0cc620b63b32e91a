import type * as RDF from '@rdfjs/types';
import { termKey } from '../../src/rdf/terms.ts';
import type { QueryResult, Solution } from '../../src/store/triple-store.ts';
import { SolutionBatches } from '../../src/store/solution-batches.ts';

// What the differential tests of the store's evaluators share: a seeded generator, terms written
// as SPARQL, and answers written as sortable rows.

/** A seeded generator: the same queries on every run. */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function picker(rnd: () => number): <T>(xs: readonly T[]) => T {
  return (xs) => xs[Math.floor(rnd() * xs.length)];
}

/** A term as SPARQL writes it. */
export function sparqlTerm(t: RDF.Term): string {
  if (t.termType === 'NamedNode') return `<${t.value}>`;
  if (t.termType === 'BlankNode') return `_:${t.value}`;
  if (t.termType !== 'Literal') throw new Error(`no SPARQL for ${t.termType}`);
  const l = t as RDF.Literal;
  const text = JSON.stringify(l.value);
  return l.language ? `${text}@${l.language}` : l.datatype.value.endsWith('#string') ? text : `${text}^^<${l.datatype.value}>`;
}

/**
 * A term's key, a blank node's label without the prefix the query engine gives the blank nodes
 * of a source (`bc_0_`): the store answers them as they are.
 */
export function keyOf(t: RDF.Term | undefined): string {
  if (!t) return '';
  return t.termType === 'BlankNode' ? `_:${t.value.replace(/^bc_\d+_/, '')}` : termKey(t);
}

export function rowOf(s: Solution): string {
  return Object.keys(s)
    .sort()
    .map((k) => `${k}=${keyOf(s[k])}`)
    .join(' ');
}

/** The answers as rows in the order given: solutions, triples or the boolean. */
export async function rowsInOrder(result: QueryResult): Promise<string[]> {
  const out: string[] = [];
  if (result.type === 'bindings') for await (const s of result.solutions) out.push(rowOf(s));
  else if (result.type === 'quads') for await (const q of result.quads) out.push(`${keyOf(q.subject)} ${keyOf(q.predicate)} ${keyOf(q.object)} ${q.graph.termType}`);
  else out.push(String(result.value));
  return out;
}

/** The answers as a sorted list of rows (a multiset). */
export async function rows(result: QueryResult): Promise<string[]> {
  return (await rowsInOrder(result)).sort();
}

/** The solutions in the order given. */
export async function solutions(result: QueryResult): Promise<Solution[]> {
  const out: Solution[] = [];
  if (result.type === 'bindings') for await (const s of result.solutions) out.push(s);
  return out;
}

/** Whether the store answered with its own evaluator (an async generator, or its solutions in batches) rather than the query engine's streams. */
export function answeredByStore(result: QueryResult): boolean {
  const stream = result.type === 'bindings' ? result.solutions : result.type === 'quads' ? result.quads : undefined;
  return stream instanceof SolutionBatches || Object.prototype.toString.call(stream) === '[object AsyncGenerator]';
}
