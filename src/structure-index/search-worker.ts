import { Chemistry } from '../chemistry/chemistry.ts';
import { FINGERPRINT_WORDS, pickleAt, popcount, words } from './index-segments.ts';
import type { IndexChunk } from './structure-index.ts';

/**
 * Searches over one chunk of the structure index, as pure functions for the worker pool: the
 * chunk's columns are shared memory, so a call carries only the query. Each call stops at its
 * deadline (answering what it found, marked `timedOut`) so that a worker is never held past a
 * search's time limit.
 */

export interface ChunkHits {
  /** Compound ids that match, in slot order. */
  ids: number[];
  /** The slot after the last one read: `chunk.to` when the chunk was read to its end. */
  next: number;
  timedOut: boolean;
  /** Entries the screen let through to a match. */
  candidates: number;
}

/** Slots read between looks at the clock. */
const CLOCK_EVERY = 256;

/** The last pattern's matcher, kept for the next chunk of the same search; dropped when a call with it fails. */
let matcher: { smarts: string; m: ReturnType<Chemistry['substructureMatcher']> } | undefined;

async function matcherFor(smarts: string) {
  if (matcher?.smarts === smarts) return matcher.m;
  matcher?.m.close();
  matcher = undefined;
  const chemistry = await Chemistry.load({ indigo: false });
  matcher = { smarts, m: chemistry.substructureMatcher(smarts) };
  return matcher.m;
}

/**
 * Entries of the chunk that contain the SMARTS pattern: screened by pattern fingerprint, then
 * matched with RDKit; at most `maxHits`. A call that fails leaves no matcher behind: after a
 * crash of RDKit (whose error the pool reads as one: it ends this thread) nothing of it is used.
 */
export async function substructureHits(chunk: IndexChunk, smarts: string, maxHits: number, deadline: number): Promise<ChunkHits> {
  try {
    return screenAndMatch(chunk, await matcherFor(smarts), maxHits, deadline);
  } catch (e) {
    const failed = matcher;
    matcher = undefined;
    try {
      failed?.m.close(); // a no-op once its RDKit was thrown away
    } catch {
      // nothing more of it is used
    }
    throw e;
  }
}

function screenAndMatch(chunk: IndexChunk, m: ReturnType<Chemistry['substructureMatcher']>, maxHits: number, deadline: number): ChunkHits {
  const screen = words(m.screen);
  const needed: number[] = [];
  for (let w = 0; w < FINGERPRINT_WORDS; w++) if (screen[w]) needed.push(w);
  const { ids, pattern } = chunk.segment;
  const hits: number[] = [];
  let candidates = 0;
  for (let slot = chunk.from; slot < chunk.to; slot++) {
    if ((slot - chunk.from) % CLOCK_EVERY === CLOCK_EVERY - 1 && Date.now() > deadline) return { ids: hits, next: slot, timedOut: true, candidates };
    const id = ids[slot];
    if (!id) continue;
    const base = slot * FINGERPRINT_WORDS;
    let passes = true;
    for (const w of needed) {
      // a bit of the query's that the entry lacks (bitwise results are signed: compare with 0)
      if ((screen[w] & ~pattern[base + w]) !== 0) {
        passes = false;
        break;
      }
    }
    if (!passes) continue;
    candidates++;
    if (!m.matchesPickle(pickleAt(chunk.segment, slot))) continue;
    hits.push(id);
    if (hits.length >= maxHits) return { ids: hits, next: slot + 1, timedOut: false, candidates };
  }
  return { ids: hits, next: chunk.to, timedOut: false, candidates };
}

/**
 * Entries with a Tanimoto similarity of at least `threshold` to the query's Morgan fingerprint,
 * best first, at most `top` of them: `[id, similarity]` pairs.
 */
export function similarityHits(chunk: IndexChunk, query: Uint32Array, threshold: number, top: number): [number, number][] {
  let queryBits = 0;
  for (const w of query) queryBits += popcount(w);
  const { ids, morgan, morganBits } = chunk.segment;
  const out: [number, number][] = [];
  for (let slot = chunk.from; slot < chunk.to; slot++) {
    const id = ids[slot];
    if (!id) continue;
    const base = slot * FINGERPRINT_WORDS;
    let both = 0;
    for (let w = 0; w < FINGERPRINT_WORDS; w++) {
      const v = morgan[base + w] & query[w];
      if (v) both += popcount(v);
    }
    const either = queryBits + morganBits[slot] - both;
    const similarity = either ? both / either : 0;
    if (similarity >= threshold) out.push([id, similarity]);
  }
  out.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return out.length > top ? out.slice(0, top) : out;
}
