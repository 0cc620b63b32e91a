import { badRequest, HttpError } from '../core/errors.ts';
import type { Chemistry } from '../chemistry/chemistry.ts';
import { WorkerCrash, type WorkerPool } from '../task/worker-pool.ts';
import { SEGMENT_SLOTS, words } from './index-segments.ts';
import type { ChunkHits } from './search-worker.ts';
import type { IndexChunk, StructureIndex } from './structure-index.ts';

const WORKER_MODULE = new URL('./search-worker.ts', import.meta.url).href;
/** Slots one worker call screens for a substructure: small enough that the threads share a search evenly (a chunk is a few ms to screen, more where many entries match). */
const SUBSTRUCTURE_CHUNK = 1024;
/** Searches whose cursors are kept, for the next page (structure-search.ts). */
const CURSORS_KEPT = 16;
/** A worker not back this long after the search's time limit is ended (a match that hangs). */
const GRACE_MS = 5_000;

export interface SearchPage {
  ids: number[];
  /** Are there hits after this page? */
  more: boolean;
}

export interface SimilarityHit {
  id: number;
  similarity: number;
}

/** Where a substructure search stands: the hits so far, in slot order, and the slot to read next. */
interface Cursor {
  generation: number;
  hits: number[];
  position: number;
  done: boolean;
  /** Requests for the same pattern read on one after the other. */
  turn: Promise<unknown>;
}

/**
 * Substructure and similarity search over the structure index, on the worker pool: the index is
 * cut into chunks that the pool's threads screen and match side by side, so the main thread only
 * hands out chunks and merges. A substructure search reads only as far as the requested page
 * needs; its cursor is kept for the next page (while the index is unchanged). Past its time limit
 * a search answers 503 QueryTimeout, as SPARQL does, and its workers are free again.
 */
export class StructureSearch {
  private readonly cursors = new Map<string, Cursor>();
  private readonly index: StructureIndex;
  private readonly workers: WorkerPool;
  private readonly chemistry: Chemistry;
  private readonly limits: { timeoutMs: number; parallel: number };
  constructor(index: StructureIndex, workers: WorkerPool, chemistry: Chemistry, limits: { timeoutMs: number; parallel: number }) {
    this.index = index;
    this.workers = workers;
    this.chemistry = chemistry;
    this.limits = limits;
  }

  /**
   * The compounds that contain a SMARTS pattern, hits `offset` to `offset + limit` in index order.
   * `what` names the pattern in errors ("parameter smarts"): one beyond structure-limits.ts, or
   * not SMARTS, is refused (400) here, before any worker reads it.
   */
  async substructure(smarts: string, offset: number, limit: number, what = 'SMARTS pattern'): Promise<SearchPage> {
    const pattern = smarts.trim();
    await this.chemistry.ready();
    // a pattern that every structure matches is answered from the index (400 for a bad pattern)
    if (this.chemistry.matchesEveryAtom(pattern, what)) return pageOf(this.everyId(offset + limit + 1), offset, limit);
    const cursor = this.cursorFor(pattern);
    const run = cursor.turn.then(() => this.readOn(cursor, pattern, offset, limit, what));
    cursor.turn = run.catch(() => undefined);
    return run;
  }

  /**
   * Read on from the cursor until the page is full or the index is read: chunks go to the pool
   * a few ahead of the one whose result is taken next (results are taken in index order), so a
   * thread that finishes its chunk starts another at once.
   */
  private async readOn(cursor: Cursor, pattern: string, offset: number, limit: number, what: string): Promise<SearchPage> {
    const needed = offset + limit + 1;
    const deadline = Date.now() + this.limits.timeoutMs;
    const signal = AbortSignal.timeout(this.limits.timeoutMs + GRACE_MS);
    const chunks = cursor.done ? [] : this.index.chunksFrom(cursor.position, SUBSTRUCTURE_CHUNK);
    const ahead = 2 * this.limits.parallel;
    const inFlight: { chunk: IndexChunk; result: Promise<ChunkHits> }[] = [];
    let launched = 0;
    const launch = () => {
      while (inFlight.length < ahead && launched < chunks.length && cursor.hits.length < needed) {
        const chunk = chunks[launched++];
        // at most the hits still needed: a chunk that finds them stops there
        const result = this.workers.run<ChunkHits>(WORKER_MODULE, 'substructureHits', [chunk, pattern, needed - cursor.hits.length, deadline], signal);
        result.catch(() => undefined); // taken in order below; one not taken must not go unhandled
        inFlight.push({ chunk, result });
      }
    };
    launch();
    let stoppedEarly = false;
    while (inFlight.length && cursor.hits.length < needed) {
      const { chunk, result } = inFlight.shift()!;
      const r = await result.catch((e) => {
        throw signal.aborted ? timeout(this.limits.timeoutMs) : e instanceof WorkerCrash ? unmatchable(what, e) : e;
      });
      cursor.hits.push(...r.ids);
      cursor.position = chunk.index * SEGMENT_SLOTS + r.next;
      // what was read stays with the cursor: the same search asked again goes on from there
      if (r.timedOut) throw timeout(this.limits.timeoutMs);
      // stopped at its hit limit: the chunks after it are read again next time
      if (r.next < chunk.to) {
        stoppedEarly = true;
        break;
      }
      launch();
    }
    if (!stoppedEarly && launched === chunks.length && inFlight.length === 0) cursor.done = true;
    return pageOf(cursor.hits, offset, limit);
  }

  /**
   * Compounds whose Morgan fingerprint (radius 2, 2048 bits) has a Tanimoto similarity of at
   * least `threshold` to the query's (SMILES or a molfile), best first, at most `top`. `what`
   * names the query in errors ("parameter similarity").
   */
  async similar(query: string, threshold: number, top: number, what = 'structure'): Promise<SimilarityHit[]> {
    await this.chemistry.ready();
    // a molfile's first lines are significant, white space included
    const probe = words(this.chemistry.morgan(query.includes('\n') ? query : query.trim(), 2, 2048, what));
    const signal = AbortSignal.timeout(this.limits.timeoutMs);
    const parts = await Promise.all(
      this.index.chunksFrom(0, SEGMENT_SLOTS).map((c) =>
        this.workers.run<[number, number][]>(WORKER_MODULE, 'similarityHits', [c, probe, threshold, top], signal).catch((e) => {
          throw signal.aborted ? timeout(this.limits.timeoutMs) : e;
        }),
      ),
    );
    return parts
      .flat()
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, top)
      .map(([id, similarity]) => ({ id, similarity }));
  }

  /** The first `count` compounds of the index, in its order. */
  private everyId(count: number): number[] {
    const ids: number[] = [];
    for (const id of this.index.allIds()) {
      if (ids.length >= count) break;
      ids.push(id);
    }
    return ids;
  }

  private cursorFor(pattern: string): Cursor {
    const kept = this.cursors.get(pattern);
    this.cursors.delete(pattern);
    const cursor = kept && kept.generation === this.index.generation ? kept : { generation: this.index.generation, hits: [], position: 0, done: false, turn: Promise.resolve() };
    // most recently used last; the oldest goes
    this.cursors.set(pattern, cursor);
    if (this.cursors.size > CURSORS_KEPT) this.cursors.delete(this.cursors.keys().next().value!);
    return cursor;
  }
}

/** A page of the hits read (a search reads one hit past the page, or to the end: `more` is certain). */
function pageOf(hits: number[], offset: number, limit: number): SearchPage {
  return { ids: hits.slice(offset, offset + limit), more: hits.length > offset + limit };
}

/**
 * A pattern whose match crashed a search thread (the pool has replaced the thread): the pattern is
 * to blame, 400. Its measure is within structure-limits.ts, or it would not have been matched.
 */
function unmatchable(what: string, crash: WorkerCrash): HttpError {
  return badRequest(`the ${what} could not be matched: the chemistry toolkit failed on it (${crash.message.slice(0, 300)}); the search thread has been replaced`);
}

function timeout(ms: number): HttpError {
  return new HttpError(503, 'QueryTimeout', `the structure search did not finish within ${ms} ms; ask for a smaller page or a more specific pattern`);
}
