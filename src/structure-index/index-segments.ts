import { FINGERPRINT_BYTES, type IndexEntry } from './index-entry.ts';

/** Compounds per segment. */
export const SEGMENT_SLOTS = 16_384;
/** Pickle bytes per segment (about 300 per drug-like compound); a full segment starts the next. */
const SEGMENT_PICKLE_BYTES = SEGMENT_SLOTS * 512;
const WORDS = FINGERPRINT_BYTES / 4;

/**
 * A block of the structure index in shared memory (SharedArrayBuffer): the worker threads that
 * screen and match read it where it is, nothing is copied per search. Column by column:
 * - `ids`: the compound's number per slot, 0 for a free or removed slot;
 * - `morgan`, `pattern`: 64 32-bit words per slot; `morganBits`: the Morgan bits set;
 * - `pickleEnds`, `pickles`: the RDKit pickles one after another, slot i's ending at pickleEnds[i].
 * Slots are only appended (a removal clears the id), so a search that reads slots below `used`
 * while the main thread appends reads complete entries.
 */
export interface Segment {
  ids: Int32Array;
  morgan: Uint32Array;
  morganBits: Uint16Array;
  pattern: Uint32Array;
  pickleEnds: Uint32Array;
  pickles: Uint8Array;
  /** Slots written (a shared one-element array, so workers see it grow). */
  used: Int32Array;
}

function shared<T>(make: new (b: SharedArrayBuffer) => T, bytes: number): T {
  return new make(new SharedArrayBuffer(bytes));
}

export function newSegment(): Segment {
  return {
    ids: shared(Int32Array, SEGMENT_SLOTS * 4),
    morgan: shared(Uint32Array, SEGMENT_SLOTS * FINGERPRINT_BYTES),
    morganBits: shared(Uint16Array, SEGMENT_SLOTS * 2),
    pattern: shared(Uint32Array, SEGMENT_SLOTS * FINGERPRINT_BYTES),
    pickleEnds: shared(Uint32Array, SEGMENT_SLOTS * 4),
    pickles: shared(Uint8Array, SEGMENT_PICKLE_BYTES),
    used: shared(Int32Array, 4),
  };
}

/** Does the segment have room for one more entry? */
export function hasRoom(s: Segment, entry: IndexEntry): boolean {
  const used = s.used[0];
  const bytes = used ? s.pickleEnds[used - 1] : 0;
  return used < SEGMENT_SLOTS && bytes + entry.pickle.length <= s.pickles.length;
}

/** Append an entry; answers its slot. */
export function append(s: Segment, entry: IndexEntry): number {
  const slot = s.used[0];
  const start = slot ? s.pickleEnds[slot - 1] : 0;
  s.pickles.set(entry.pickle, start);
  s.pickleEnds[slot] = start + entry.pickle.length;
  const morgan = words(entry.morgan);
  s.morgan.set(morgan, slot * WORDS);
  s.pattern.set(words(entry.pattern), slot * WORDS);
  let bits = 0;
  for (const w of morgan) bits += popcount(w);
  s.morganBits[slot] = bits;
  s.ids[slot] = entry.id;
  // the id last: a reader that sees the slot used sees it whole
  Atomics.store(s.used, 0, slot + 1);
  return slot;
}

export function pickleAt(s: Segment, slot: number): Uint8Array {
  return s.pickles.subarray(slot ? s.pickleEnds[slot - 1] : 0, s.pickleEnds[slot]);
}

/** The 2048 bits as 32-bit words (little-endian bytes, as RDKit packs them). */
export function words(bytes: Uint8Array): Uint32Array {
  const out = new Uint32Array(WORDS);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

export function popcount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}

export const FINGERPRINT_WORDS = WORDS;
