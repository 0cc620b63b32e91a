import type * as RDF from '@rdfjs/types';

/**
 * The most recently read small graphs (a compound, a feature, a model's description), kept in
 * memory so that reading the same resource again costs no LevelDB iterator. Bounded by the
 * number of quads held (least recently used graphs leave first), so memory does not grow with
 * history. Every write through the store invalidates the graphs it touches; a read that raced
 * with a write (it began before the write and ends after it) is not cached.
 */
export class GraphCache {
  private readonly graphs = new Map<string, RDF.Quad[]>();
  private held = 0;
  /** Counts invalidations; a read remembers it when it starts. */
  epoch = 0;

  constructor(
    private readonly maxQuads = 200_000,
    private readonly maxGraphQuads = 500,
  ) {}

  get(iri: string): RDF.Quad[] | undefined {
    const quads = this.graphs.get(iri);
    if (!quads) return undefined;
    this.graphs.delete(iri);
    this.graphs.set(iri, quads);
    return quads.slice();
  }

  /** Cache what a read that started at `epoch` found, unless a write came in between. */
  put(iri: string, quads: RDF.Quad[], epoch: number): void {
    if (epoch !== this.epoch || quads.length > this.maxGraphQuads) return;
    this.drop(iri);
    this.graphs.set(iri, quads.slice());
    this.held += weight(quads);
    for (const [oldest, q] of this.graphs) {
      if (this.held <= this.maxQuads) break;
      this.graphs.delete(oldest);
      this.held -= weight(q);
    }
  }

  invalidate(iris: Iterable<string>): void {
    this.epoch++;
    for (const iri of iris) this.drop(iri);
  }

  clear(): void {
    this.epoch++;
    this.graphs.clear();
    this.held = 0;
  }

  private drop(iri: string): void {
    const q = this.graphs.get(iri);
    if (!q) return;
    this.graphs.delete(iri);
    this.held -= weight(q);
  }
}

/** An empty graph (a resource that does not exist) counts as one quad, so that the bound holds. */
const weight = (quads: RDF.Quad[]) => Math.max(1, quads.length);
