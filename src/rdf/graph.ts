import type * as RDF from '@rdfjs/types';
import { df } from './namespaces.ts';

/** Put every quad into one named graph. */
export function intoGraph(quads: Iterable<RDF.Quad>, graph: RDF.Quad_Graph): RDF.Quad[] {
  const out: RDF.Quad[] = [];
  for (const q of quads) out.push(df.quad(q.subject, q.predicate, q.object, graph));
  return out;
}

/** Rename one term wherever it occurs (used to give a posted node its minted URI). */
export function renameTerm(quads: RDF.Quad[], from: RDF.Term, to: RDF.NamedNode | RDF.BlankNode): RDF.Quad[] {
  const swap = <T extends RDF.Term>(t: T): T => (t.equals(from) ? (to as unknown as T) : t);
  return quads.map((q) => df.quad(swap(q.subject), q.predicate, swap(q.object), q.graph));
}

/**
 * Replace blank nodes by stable IRIs under the resource URI (`{uri}#node-1`), as DESIGN.md asks
 * for inner nodes. Labels are numbered in order of first appearance, so the result is stable.
 */
export function skolemize(quads: RDF.Quad[], resourceUri: string, prefix = 'node'): RDF.Quad[] {
  const names = new Map<string, RDF.NamedNode>();
  const name = <T extends RDF.Term>(t: T): T => {
    if (t.termType !== 'BlankNode') return t;
    let n = names.get(t.value);
    if (!n) {
      n = df.namedNode(`${resourceUri}#${prefix}-${names.size + 1}`);
      names.set(t.value, n);
    }
    return n as unknown as T;
  };
  return quads.map((q) => df.quad(name(q.subject), q.predicate, name(q.object), q.graph));
}
