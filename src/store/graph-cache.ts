import type * as RDF from '@rdfjs/types';
import { DataFactory } from 'n3';

const { namedNode, blankNode, literal, quad, defaultGraph } = DataFactory;

/**
 * An n3 literal whose parts are read from its id once: n3's own parse the id on every read of
 * value, language or datatype (and make a new datatype term each time), which a cached literal,
 * read by every query that meets it, would pay again and again. Still an n3 literal (its own
 * properties shadow the getters): equality with other n3 terms is by id.
 */
function keptLiteral(value: string, language: string, datatype: RDF.NamedNode): RDF.Literal {
  const kept = language ? literal(value, language) : literal(value, datatype);
  return Object.defineProperties(kept, { value: { value }, language: { value: language }, datatype: { value: datatype }, datatypeString: { value: datatype.value } });
}

/**
 * The most recently read small graphs (a compound, a feature, a model's description), kept in
 * memory so that reading the same resource again costs no LevelDB iterator. Bounded by the
 * characters held (least recently used graphs leave first; a graph larger than a fraction of the
 * budget, such as a model's content, is never held), so memory does not grow with history.
 * Every write through the store invalidates the graphs it touches; a read that raced with a
 * write (it began before the write and ends after it) is not cached.
 *
 * Terms read from LevelDB are slices of the whole key they were read from (V8 keeps the parent
 * string alive), so a cached graph holds copies of its terms, not the terms it was given.
 */
export class GraphCache {
  private readonly graphs = new Map<string, { quads: RDF.Quad[]; weight: number }>();
  private held = 0;
  /** Counts invalidations; a read remembers it when it starts. */
  epoch = 0;

  /** Characters of term values held in all, plus a fixed charge per quad. */
  private readonly budget: number;
  private readonly maxGraphShare: number;
  constructor(budget = 16_000_000, maxGraphShare = 1 / 64) {
    this.budget = budget;
    this.maxGraphShare = maxGraphShare;
  }

  get(iri: string): RDF.Quad[] | undefined {
    const entry = this.graphs.get(iri);
    if (!entry) return undefined;
    this.graphs.delete(iri);
    this.graphs.set(iri, entry);
    return entry.quads.slice();
  }

  /** Cache what a read that started at `epoch` found, unless a write came in between. */
  put(iri: string, quads: RDF.Quad[], epoch: number): void {
    if (epoch !== this.epoch) return;
    const weight = weightOf(quads, this.budget * this.maxGraphShare);
    if (weight === undefined) return;
    this.drop(iri);
    this.graphs.set(iri, { quads: quads.map(copyQuad), weight });
    this.held += weight;
    for (const [oldest, entry] of this.graphs) {
      if (this.held <= this.budget) break;
      this.graphs.delete(oldest);
      this.held -= entry.weight;
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

  /** Characters held now (for tests and metrics). */
  get size(): number {
    return this.held;
  }

  private drop(iri: string): void {
    const entry = this.graphs.get(iri);
    if (!entry) return;
    this.graphs.delete(iri);
    this.held -= entry.weight;
  }
}

/** Charge per quad for the objects themselves; an empty graph (no such resource) costs one quad. */
const QUAD_CHARGE = 64;

/** The weight of a graph, or undefined when it is over `limit`. */
function weightOf(quads: RDF.Quad[], limit: number): number | undefined {
  let weight = QUAD_CHARGE;
  for (const q of quads) {
    weight += QUAD_CHARGE + q.subject.value.length + q.predicate.value.length + q.object.value.length + q.graph.value.length;
    if (q.object.termType === 'Literal') weight += q.object.datatype.value.length + q.object.language.length;
    if (weight > limit) return undefined;
  }
  return weight;
}

/** A string that does not share memory with the string it was sliced from. */
const flat = (s: string): string => (s.length < 13 ? s : Buffer.from(s, 'utf8').toString('utf8'));

export function copyTerm<T extends RDF.Term>(t: T): T {
  switch (t.termType) {
    case 'NamedNode':
      return namedNode(flat(t.value)) as unknown as T;
    case 'BlankNode':
      return blankNode(flat(t.value)) as unknown as T;
    case 'Literal': {
      const { language, datatype } = t as RDF.Literal;
      // a direction (rdf:dirLangString) is n3's to keep
      if ((t as { direction?: string }).direction) return literal(flat(t.value), { language, direction: (t as any).direction } as never) as unknown as T;
      return keptLiteral(flat(t.value), language, namedNode(flat(datatype.value))) as unknown as T;
    }
    case 'DefaultGraph':
      return defaultGraph() as unknown as T;
    default:
      return t;
  }
}

export const copyQuad = (q: RDF.Quad): RDF.Quad =>
  quad(copyTerm(q.subject) as RDF.Quad_Subject, copyTerm(q.predicate) as RDF.Quad_Predicate, copyTerm(q.object) as RDF.Quad_Object, copyTerm(q.graph) as RDF.Quad_Graph);
