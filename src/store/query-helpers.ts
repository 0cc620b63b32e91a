import type * as RDF from '@rdfjs/types';
import { sparql, type SparqlText } from './sparql-template.ts';
import { checkIri } from '../rdf/terms.ts';
import { df, RDF_TYPE } from '../rdf/namespaces.ts';
import { sortById } from './id-minter.ts';
import type { QueryOptions, Solution, TripleStore } from './triple-store.ts';
import { allSolutions } from './solution-batches.ts';

/** Run a SELECT template and collect its solutions. */
export async function select(store: TripleStore, query: SparqlText, options?: QueryOptions): Promise<Solution[]> {
  const result = await store.query(query, options);
  if (result.type !== 'bindings') throw new Error('select: not a SELECT query');
  return allSolutions(result.solutions);
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

/** The graphs of many resources, as one list (in the order given). */
export async function readGraphs(store: TripleStore, uris: string[]): Promise<RDF.Quad[]> {
  return (await store.readEachGraph(uris)).flat();
}

/** The `dc:title` of resources (each in its own graph), by URI; those without one are left out. */
export async function titlesOf(store: TripleStore, uris: string[]): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  const wanted = [...new Set(uris.filter((u) => u))];
  const graphs = await store.readEachGraph(wanted);
  wanted.forEach((uri, i) => {
    const title = graphs[i].find((q) => q.subject.value === uri && q.predicate.value === DC_TITLE)?.object.value;
    if (title) titles.set(uri, title);
  });
  return titles;
}

const DC_TITLE = 'http://purl.org/dc/elements/1.1/title';

/** The graph of a resource when it holds `<uri> a <type>`; undefined otherwise. */
export async function readTypedGraph(store: TripleStore, uri: string, type: RDF.NamedNode): Promise<RDF.Quad[] | undefined> {
  const quads = await store.readGraph(uri);
  return quads.some((q) => q.subject.value === uri && q.predicate.equals(RDF_TYPE) && q.object.equals(type)) ? quads : undefined;
}

/**
 * The query "resources of a type" (each in its own graph, as DESIGN.md has it), binding `?r`,
 * optionally only those with given property values (filters whose value is undefined are left
 * out): the builder behind the list queries of the components.
 */
export function resourcesOfType(type: RDF.NamedNode, filters: [RDF.NamedNode, string | undefined][] = [], options: ListOptions = {}): SparqlText {
  const patterns = filters.filter((f): f is [RDF.NamedNode, string] => !!f[1]).map(([p, v]) => sparql`?r ${p} ${df.namedNode(checkIri(v))} .`);
  const parts = options.intermediate === false ? NOT_PART_OF_ANOTHER : sparql``;
  return sparql`SELECT DISTINCT ?r WHERE { GRAPH ?r { ?r a ${type} . ${patterns} ${parts} } }`;
}

/**
 * `dcterms:isPartOf`: a resource a task made on the way to its result (a fold's datasets and
 * model, a supermodel's descriptor dataset) is part of that result (TaskRunner writes it).
 */
export const PART_OF = df.namedNode('http://purl.org/dc/terms/isPartOf');

/**
 * In a group binding `?r`: leaves out what is part of another resource's work. Written as an
 * OPTIONAL and !BOUND, which the store's own evaluator answers (FILTER NOT EXISTS would go to
 * Comunica: test/unit/intermediate-work-queries.test.ts).
 */
export const NOT_PART_OF_ANOTHER = sparql`OPTIONAL { ?r ${PART_OF} ?whole } FILTER(!BOUND(?whole))`;

export interface ListOptions {
  /** false: leave out what was made inside another resource's work (`dcterms:isPartOf` it). */
  intermediate?: boolean;
}

/** The URIs a list query binds to `variable`, ordered by their integer ids. */
export async function selectUris(store: TripleStore, query: SparqlText, variable = 'r'): Promise<string[]> {
  return sortById((await select(store, query)).map((row) => row[variable].value));
}
