import type * as RDF from '@rdfjs/types';
import { EmptyIterator, type AsyncIterator } from 'asynciterator';
import type { QuadFinder, QuadStream } from './graph-pattern-query.ts';
import type { GraphScope } from './triple-store.ts';

/**
 * Whether a scope allows a quad's graph (the unnamed default graph when the scope includes it),
 * asking the scope once per graph: made per query, so what it remembers goes with the query.
 */
export function scopeTest(scope: GraphScope): (q: RDF.Quad) => boolean {
  const allowed = new Map<string, boolean>();
  return (q) => {
    if (q.graph.termType !== 'NamedNode') return scope.includesDefaultGraph;
    let yes = allowed.get(q.graph.value);
    if (yes === undefined) allowed.set(q.graph.value, (yes = scope.allows(q.graph.value)));
    return yes;
  };
}

/** The quads a finder gives that a scope allows. */
export function scopedFinder(find: QuadFinder, scope: GraphScope, allows = scopeTest(scope)): QuadFinder {
  return (s, p, o, g, limit) => {
    if (g?.termType === 'NamedNode' && !scope.allows(g.value)) return new EmptyIterator<RDF.Quad>() as unknown as QuadStream;
    const quads = find(s, p, o, g, limit);
    // one graph, allowed
    if (quads instanceof Promise && g?.termType === 'NamedNode') return quads;
    // a list (of every graph, from the predicate cache) or a stream
    if (quads instanceof Promise) return quads.then((list) => list.filter(allows));
    return (quads as unknown as AsyncIterator<RDF.Quad>).filter(allows) as unknown as QuadStream;
  };
}
