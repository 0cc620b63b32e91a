import type * as RDF from '@rdfjs/types';
import { wrap, EmptyIterator, TransformIterator, type AsyncIterator } from 'asynciterator';
import { df } from '../rdf/namespaces.ts';
import { DEFAULT_GRAPH_IRI, type GraphScope } from './triple-store.ts';

type T = RDF.Term | null | undefined;

/** The store underneath: match and an estimated count (for join planning). */
export interface QuadSource {
  match(s?: T, p?: T, o?: T, g?: T): AsyncIterator<RDF.Quad>;
  countQuads(s?: T, p?: T, o?: T, g?: T): Promise<number>;
}

/**
 * The RDF/JS source that Comunica queries. It
 * - maps the IRI `urn:toxgraph:default-graph` to the store's unnamed default graph (so FROM and
 *   the protocol's default-graph-uri can name it), and
 * - hides every quad of a graph outside the caller's scope, whatever the pattern asks for,
 *   so GRAPH ?g, FROM, property paths and DESCRIBE cannot reach it.
 */
function patternKey(...terms: (RDF.Term | null | undefined)[]): string {
  return terms.map((t) => (t && t.termType !== 'Variable' ? `${t.termType}:${t.value}:${(t as RDF.Literal).datatype?.value ?? ''}:${(t as RDF.Literal).language ?? ''}` : '_')).join(' ');
}

export class ScopedSource {
  private readonly open = new Set<AsyncIterator<RDF.Quad>>();

  private readonly source: QuadSource;
  private readonly scope?: GraphScope;
  private readonly signal?: AbortSignal;
  constructor(source: QuadSource, scope?: GraphScope, signal?: AbortSignal) {
    this.source = source;
    this.scope = scope;
    this.signal = signal;
    // Aborting a query (time limit) closes every store iterator it opened, so the engine stops
    // reading and no LevelDB iterator is left open.
    signal?.addEventListener(
      'abort',
      () => {
        for (const it of this.open) it.destroy(); // silently: the caller has already given up on the results
        this.open.clear();
      },
      { once: true },
    );
  }

  private readonly counts = new Map<string, Promise<number>>();

  match(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): AsyncIterator<RDF.Quad> {
    if (this.signal?.aborted) return new EmptyIterator();
    // Comunica asks for a pattern's count after opening its stream, and a count that arrives
    // after the stream has ended can stall the query for good (seen here whenever counting
    // took longer than one read of the store). So the stream starts only once the count is
    // known: it can never end first.
    const count = this.countQuads(s, p, o, g);
    const it = new TransformIterator<RDF.Quad>(
      count.then(
        () => this.scopedMatch(s, p, o, g),
        () => this.scopedMatch(s, p, o, g),
      ),
      { autoStart: false },
    );
    if (this.signal) {
      this.open.add(it);
      it.on('end', () => this.open.delete(it));
    }
    return it;
  }

  private scopedMatch(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): AsyncIterator<RDF.Quad> {
    if (g && g.termType === 'NamedNode' && g.value === DEFAULT_GRAPH_IRI) {
      if (this.scope && !this.scope.includesDefaultGraph) return new EmptyIterator();
      return wrap<RDF.Quad>(this.source.match(s, p, o, df.defaultGraph())).map((q) => df.quad(q.subject, q.predicate, q.object, df.namedNode(DEFAULT_GRAPH_IRI)));
    }
    if (this.scope && g && g.termType === 'NamedNode' && !this.scope.allows(g.value)) return new EmptyIterator();
    if (this.scope && g && g.termType === 'DefaultGraph' && !this.scope.includesDefaultGraph) return new EmptyIterator();
    const all = wrap<RDF.Quad>(this.source.match(s, p, o, g));
    const scope = this.scope;
    if (!scope) return all;
    return all.filter((q) => (q.graph.termType === 'DefaultGraph' ? scope.includesDefaultGraph : scope.allows(q.graph.value)));
  }

  /** An estimate for join planning, read off the indexes; one computation per pattern and query. */
  countQuads(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): Promise<number> {
    const key = patternKey(s, p, o, g);
    let count = this.counts.get(key);
    if (!count) {
      const graph = g && g.termType === 'NamedNode' && g.value === DEFAULT_GRAPH_IRI ? df.defaultGraph() : g;
      count = this.source.countQuads(s, p, o, graph);
      this.counts.set(key, count);
    }
    return count;
  }
}
