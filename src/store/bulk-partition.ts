import type * as RDF from '@rdfjs/types';
import { EmptyIterator, UnionIterator, wrap, type AsyncIterator } from 'asynciterator';
import { df } from '../rdf/namespaces.ts';
import { matchesPattern } from '../rdf/terms.ts';
import { boundTerm } from './graph-pattern-query.ts';
import type { TermName } from './indexes.ts';
import { SUBGRAPH_SUFFIXES } from '../core/uri-scheme.ts';
import { ReadableQuadstore } from './readable-quadstore.ts';

/**
 * Bulk graphs (a dataset's entries: `{uri}/entries`; a model's trained content: `{uri}/content`) hold most of the quads of a store but are
 * read almost only whole. They live in a second quadstore on the same LevelDB with just two
 * indexes, so one value costs two index keys instead of eight:
 * - graph, subject, predicate, object: a whole graph in entry order, one entry's values;
 * - predicate, object, graph, subject: every entry with a given compound or feature value.
 * A pattern no index serves exactly is answered from the index that serves most of its bound
 * terms, and the rest is filtered here.
 */
export const BULK_INDEXES: TermName[][] = [
  ['graph', 'subject', 'predicate', 'object'],
  ['predicate', 'object', 'graph', 'subject'],
];

/** A dataset's rows or a model's content (see core/uri-scheme.ts). */
export function isBulkGraph(iri: string): boolean {
  return iri.endsWith(SUBGRAPH_SUFFIXES.entries) || iri.endsWith(SUBGRAPH_SUFFIXES.content);
}

/** Up to this many graphs, a pattern with only its subject bound is looked up in each; more, and the partition is read. */
const GRAPHS_LOOKED_UP_ONE_BY_ONE = 512;

/** quadstore's separator of the terms in an index key, and a string above every term. */
const KEY_SEPARATOR = '\u0000\u0000';
const KEY_BOUNDARY = '\uDBFF\uDFFF';

interface KeyIterator {
  next(): Promise<string | undefined>;
  seek(target: string): void;
  close(): Promise<void>;
}

/** A quadstore whose index keys carry a 'B' prefix, so it can share a LevelDB with the main one. */
export class BulkQuadstore extends ReadableQuadstore {
  /**
   * Every predicate of the partition (a superset: one whose quads were all removed stays): a
   * pattern with any other predicate has nothing here, and a match over all graphs then opens no
   * iterator on this partition (about a third of a small query's time).
   */
  private predicates?: Set<string>;

  /**
   * Every graph of the partition (a superset, as `predicates`): a pattern with its subject bound
   * and no graph (DESCRIBE, a resource's statements over the union default graph) is looked up
   * graph by graph on the graph-first index instead of scanning the partition.
   */
  private graphs?: Set<string>;

  /** Reads the partition's predicates and graphs off its indexes: one seek per predicate and per graph. */
  async loadPredicates(): Promise<void> {
    this.predicates = await this.firstTerms('predicate');
    this.graphs = await this.firstTerms('graph');
  }

  /** The distinct first terms of the index that starts with `term`: one seek past each. */
  private async firstTerms(term: TermName): Promise<Set<string> | undefined> {
    const index = this.indexes.find((i) => i.terms[0] === term) as { prefix: string } | undefined;
    if (!index) return undefined;
    const found = new Set<string>();
    const db = this.db as unknown as { iterator(options: object): KeyIterator };
    const it = db.iterator({ gt: index.prefix, lt: index.prefix + KEY_BOUNDARY, keys: true, values: false, keyEncoding: 'utf8' });
    try {
      for (let key = await nextKey(it); key !== undefined; key = await nextKey(it)) {
        const end = key.indexOf(KEY_SEPARATOR, index.prefix.length);
        if (end < 0) break;
        const first = key.slice(index.prefix.length, end);
        found.add(first);
        it.seek(index.prefix + first + KEY_SEPARATOR + KEY_BOUNDARY);
      }
    } finally {
      await it.close();
    }
    return found;
  }

  /** Quads about to be written here: their predicates may occur from now on. */
  notePredicates(quads: Iterable<RDF.Quad>): void {
    for (const q of quads) {
      this.predicates?.add(q.predicate.value);
      this.graphs?.add(q.graph.value);
    }
  }

  /** False when no quad of this partition can have the predicate (a named node it has never held). */
  mayHold(predicate?: RDF.Term | null): boolean {
    return !this.predicates || !predicate || predicate.termType !== 'NamedNode' || this.predicates.has(predicate.value);
  }

  override _addIndex(terms: TermName[]): void {
    super._addIndex(terms as any);
    const index = this.indexes[this.indexes.length - 1] as { prefix: string };
    index.prefix = `B${index.prefix}`;
  }

  /** Match any pattern: the best index for its bound terms, the rest filtered. */
  matchAny(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null, options?: { limit?: number }): AsyncIterator<RDF.Quad> {
    const pattern: Partial<Record<TermName, RDF.Term>> = {};
    const given: Record<TermName, RDF.Term | undefined> = { subject: boundTerm(s), predicate: boundTerm(p), object: boundTerm(o), graph: boundTerm(g) };
    let best: TermName[] = [];
    for (const index of BULK_INDEXES) {
      const used: TermName[] = [];
      for (const term of index) {
        const value = given[term];
        if (!value) break;
        used.push(term);
        if (value.termType === 'Literal') break; // a literal must be the last bound term
      }
      if (used.length > best.length) best = used;
    }
    // a subject and no graph: no index starts with it; looked up in each graph (few: one per
    // dataset and model) instead of read whole
    if (best.length === 0 && given.subject && this.graphs && this.graphs.size <= GRAPHS_LOOKED_UP_ONE_BY_ONE) {
      const graphs = [...this.graphs].map((iri) => this.matchAny(s, p, o, df.namedNode(iri), options));
      return graphs.length ? new UnionIterator<RDF.Quad>(graphs, { autoStart: false }) : new EmptyIterator<RDF.Quad>();
    }
    for (const term of best) pattern[term] = given[term];
    const rest = (Object.keys(given) as TermName[]).filter((t) => given[t] && !best.includes(t));
    // a limit holds for the quads of the pattern, so only where the index serves all of it
    const all = wrap<RDF.Quad>(this.match(pattern.subject as any, pattern.predicate as any, pattern.object as any, pattern.graph as any, rest.length ? undefined : options) as any);
    if (!rest.length) return all;
    return all.filter((q) => rest.every((t) => matchesPattern(given[t], q[t])));
  }

  async countAny(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): Promise<number> {
    const bound = [s, p, o, g].filter((t) => t && t.termType !== 'Variable').length;
    const gOnly = g && g.termType !== 'Variable' ? g : undefined;
    try {
      // exact when an index serves the pattern, else the size of the graph (or store) scanned
      return await this.countQuads((s ?? undefined) as any, (p ?? undefined) as any, (o ?? undefined) as any, (g ?? undefined) as any);
    } catch {
      const size = await this.countQuads(undefined, undefined, undefined, gOnly as any);
      return bound > 1 ? Math.ceil(size / 10) : size;
    }
  }
}

/** The next key of an iterator of keys (abstract-level answers `[key]` or the key, by version). */
async function nextKey(it: KeyIterator): Promise<string | undefined> {
  const next = (await it.next()) as unknown;
  return Array.isArray(next) ? (next[0] as string | undefined) : (next as string | undefined);
}
