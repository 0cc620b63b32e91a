import type * as RDF from '@rdfjs/types';
import { df } from '../rdf/namespaces.ts';
import type { Solution } from './triple-store.ts';

type Position = RDF.Term | RDF.Variable;

/**
 * A SELECT whose whole WHERE clause is one triple pattern, in one `GRAPH` or none, with plain
 * variables projected and no other modifier than DISTINCT: what most named templates of the
 * components are. The store answers these with one index match instead of a Comunica plan
 * (which costs about 2 ms to set up, more than the match itself).
 */
export interface SinglePattern {
  variables: string[];
  distinct: boolean;
  subject: Position;
  predicate: Position;
  object: Position;
  /** A term or variable for `GRAPH`; undefined when the pattern is outside any GRAPH (every graph). */
  graph?: Position;
}

/** `parsed`: the query as sparqljs parses it (parsed-query.ts; null when it does not parse). */
export function singlePattern(parsed: any): SinglePattern | undefined {
  if (parsed?.type !== 'query' || parsed.queryType !== 'SELECT' || parsed.where?.length !== 1) return undefined;
  if (parsed.from || parsed.values || parsed.group || parsed.having || parsed.order || parsed.limit !== undefined || parsed.offset !== undefined || parsed.reduced) return undefined;
  let block = parsed.where[0];
  const graphName = block.type === 'graph' ? block.name : undefined;
  let graph: Position | undefined;
  if (block.type === 'graph') {
    if (block.patterns.length !== 1) return undefined;
    graph = term(block.name);
    block = block.patterns[0];
  }
  if (block.type !== 'bgp' || block.triples.length !== 1) return undefined;
  const [t] = block.triples;
  if (t.predicate.type === 'path') return undefined;
  const positions = [t.subject, t.predicate, t.object, ...(graphName ? [graphName] : [])];
  if (positions.some((p) => p.termType === 'BlankNode' || p.termType === 'Quad')) return undefined;
  const inPattern = new Set(positions.filter((p) => p.termType === 'Variable').map((p) => p.value));
  let variables: string[];
  if (parsed.variables.length === 1 && parsed.variables[0].termType === 'Wildcard') variables = [...inPattern];
  else if (parsed.variables.every((v: any) => v.termType === 'Variable' && inPattern.has(v.value))) variables = parsed.variables.map((v: any) => v.value);
  else return undefined;
  return { variables, distinct: !!parsed.distinct, subject: term(t.subject), predicate: term(t.predicate), object: term(t.object), graph };
}

function term(t: any): Position {
  return t.termType === 'Variable' ? df.variable(t.value) : (df.fromTerm(t) as RDF.Term);
}

/** The bound terms of a pattern, for an index match (variables become undefined). */
export function boundTerms(p: SinglePattern): [RDF.Term | undefined, RDF.Term | undefined, RDF.Term | undefined, RDF.Term | undefined] {
  const bound = (x?: Position) => (x && x.termType !== 'Variable' ? x : undefined);
  return [bound(p.subject), bound(p.predicate), bound(p.object), bound(p.graph)];
}

/** The solution a quad gives the pattern, or undefined when a repeated variable disagrees (or, inside GRAPH, the quad is in the default graph). */
export function solutionOf(p: SinglePattern, q: RDF.Quad): Solution | undefined {
  if (p.graph && q.graph.termType === 'DefaultGraph') return undefined;
  const all: Solution = {};
  const pairs: [Position | undefined, RDF.Term][] = [
    [p.subject, q.subject],
    [p.predicate, q.predicate],
    [p.object, q.object],
    [p.graph, q.graph],
  ];
  for (const [position, value] of pairs) {
    if (position?.termType !== 'Variable') continue;
    const seen = all[position.value];
    if (seen && !seen.equals(value)) return undefined;
    all[position.value] = value;
  }
  const out: Solution = {};
  for (const v of p.variables) out[v] = all[v];
  return out;
}
