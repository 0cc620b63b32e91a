import type * as RDF from '@rdfjs/types';
import { termKey } from '../rdf/terms.ts';
import { copyQuad } from './graph-cache.ts';

/** Quads held at most over all reads kept. */
const MOST_QUADS = 20_000;
/** Reads remembered as asked for. */
const MOST_ASKED = 4096;

/**
 * The quads of recent limited reads outside one graph (a LIMIT's first few quads of a pattern,
 * such as `SELECT ?s { ?s ?p ?o } LIMIT 10`, the first query a SPARQL client sends) and of reads
 * of one subject in every graph (DESCRIBE), kept until the next write: every write empties it (the store's write count, see writeCount, moved on), and
 * a read that began before a write is not kept, nor one asked for only once since. Bounded by
 * the quads held (the least recently used reads leave first); terms are copies, not slices of
 * LevelDB's keys.
 */
export class FirstQuadsCache {
  private readonly reads = new Map<string, RDF.Quad[]>();
  /** Reads asked for and not held since the last write, with how often (a read is kept when asked again: copying its terms costs more than a read asked once). */
  private readonly asked = new Map<string, number>();
  private held = 0;
  private writes = -1;
  private readonly most: number;
  constructor(most = MOST_QUADS) {
    this.most = most;
  }

  /** The key of a read: of at most `limit` quads, or `all` of them. */
  static key(limit: number | 'all', terms: (RDF.Term | undefined)[]): string {
    return `${limit}${terms.map((t) => ` ${t ? termKey(t) : '?'}`).join('')}`;
  }

  /** The quads a read of `key` gave, while the store's write count is still `writes`. */
  get(key: string, writes: number): RDF.Quad[] | undefined {
    if (writes !== this.writes) {
      this.reads.clear();
      this.asked.clear();
      this.held = 0;
      this.writes = writes;
    }
    const quads = this.reads.get(key);
    if (!quads) {
      this.asked.set(key, (this.asked.get(key) ?? 0) + 1);
      if (this.asked.size > MOST_ASKED) this.asked.delete(this.asked.keys().next().value as string);
      return undefined;
    }
    // marked as recently used only when the oldest may soon leave (moving an entry to the end
    // makes the map copy its table every few reads)
    if (this.held > this.most / 2) {
      this.reads.delete(key);
      this.reads.set(key, quads);
    }
    return quads;
  }

  /** Keeps what a read that began at write count `writes` found, unless a write came in between. */
  put(key: string, quads: RDF.Quad[], writes: number): void {
    if (writes !== this.writes || quads.length > this.most / 4 || this.reads.has(key) || (this.asked.get(key) ?? 0) < 2) return;
    this.asked.delete(key);
    this.reads.set(key, quads.map(copyQuad));
    this.held += quads.length;
    for (const [oldest, kept] of this.reads) {
      if (this.held <= this.most) break;
      this.reads.delete(oldest);
      this.held -= kept.length;
    }
  }
}
