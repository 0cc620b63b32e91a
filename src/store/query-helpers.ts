import type * as RDF from '@rdfjs/types';
import type { SparqlText } from './sparql-template.js';
import type { QueryOptions, Solution, TripleStore } from './triple-store.js';

/** Run a SELECT template and collect its solutions. */
export async function select(store: TripleStore, query: SparqlText, options?: QueryOptions): Promise<Solution[]> {
  const result = await store.query(query, options);
  if (result.type !== 'bindings') throw new Error('select: not a SELECT query');
  const out: Solution[] = [];
  for await (const s of result.solutions) out.push(s);
  return out;
}

/** Run a CONSTRUCT/DESCRIBE template and collect its quads. */
export async function construct(store: TripleStore, query: SparqlText, options?: QueryOptions): Promise<RDF.Quad[]> {
  const result = await store.query(query, options);
  if (result.type !== 'quads') throw new Error('construct: not a CONSTRUCT or DESCRIBE query');
  const out: RDF.Quad[] = [];
  for await (const q of result.quads) out.push(q);
  return out;
}

export async function ask(store: TripleStore, query: SparqlText, options?: QueryOptions): Promise<boolean> {
  const result = await store.query(query, options);
  if (result.type !== 'boolean') throw new Error('ask: not an ASK query');
  return result.value;
}
