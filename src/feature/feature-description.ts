import type * as RDF from '@rdfjs/types';
import { df, ot, rdf, literal } from '../rdf/namespaces.ts';
import { renameTerm, skolemize, intoGraph } from '../rdf/graph.ts';
import { badRequest } from '../core/errors.ts';

export const FEATURE_TYPES = ['Feature', 'NumericFeature', 'NominalFeature', 'StringFeature', 'Substructure'].map((t) => ot(t));

/**
 * Turn a posted feature description into the quads stored under `uri`: the one node typed
 * as a feature becomes `uri`, its blank nodes get IRIs under it, statements about other
 * resources are dropped, and `rdf:type ot:Feature` and `ot:units` are always present.
 */
export function featureFromBody(quads: RDF.Quad[], uri: string): RDF.Quad[] {
  const candidates = new Map<string, RDF.Quad_Subject>();
  for (const q of quads) {
    if (q.predicate.equals(rdf('type')) && FEATURE_TYPES.some((t) => t.equals(q.object))) candidates.set(`${q.subject.termType}:${q.subject.value}`, q.subject);
  }
  if (candidates.size === 0) throw badRequest('the body describes no feature: give a node rdf:type ot:Feature (or ot:NumericFeature, ot:NominalFeature, ot:StringFeature, ot:Substructure)');
  if (candidates.size > 1) throw badRequest(`the body describes ${candidates.size} features; send one feature per request`);
  const node = [...candidates.values()][0];
  const self = df.namedNode(uri);
  const renamed = renameTerm(quads, node, self);
  const kept = reachable(renamed, self);
  const out = skolemize(kept, uri);
  if (!out.some((q) => q.subject.equals(self) && q.predicate.equals(rdf('type')) && q.object.equals(ot('Feature')))) out.push(df.quad(self, rdf('type'), ot('Feature')));
  if (!out.some((q) => q.subject.equals(self) && q.predicate.equals(ot('units')))) out.push(df.quad(self, ot('units'), literal('')));
  return intoGraph(out, df.defaultGraph());
}

/** The statements about `root` and about blank nodes reachable from it. */
function reachable(quads: RDF.Quad[], root: RDF.NamedNode): RDF.Quad[] {
  const seen = new Set<string>([`NamedNode:${root.value}`]);
  const out: RDF.Quad[] = [];
  let frontier: RDF.Term[] = [root];
  while (frontier.length) {
    const next: RDF.Term[] = [];
    for (const q of quads) {
      if (!frontier.some((f) => f.equals(q.subject))) continue;
      out.push(q);
      const key = `${q.object.termType}:${q.object.value}`;
      if (q.object.termType === 'BlankNode' && !seen.has(key)) {
        seen.add(key);
        next.push(q.object);
      }
    }
    frontier = next;
  }
  return out;
}
