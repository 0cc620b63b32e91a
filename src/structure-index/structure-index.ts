import type { IndexEntry } from './index-entry.ts';
import { append, hasRoom, newSegment, pickleAt, SEGMENT_SLOTS, FINGERPRINT_WORDS, type Segment } from './index-segments.ts';

/** A range of slots of one segment: what one worker call screens. */
export interface IndexChunk {
  segment: Segment;
  /** The segment's number and the slot range in it. */
  index: number;
  from: number;
  to: number;
}

/**
 * Every compound of the store, for searches (see index-segments.ts for the shared columns that
 * the workers read). The main thread keeps the exact look-ups: InChIKey, and names and synonyms
 * lower-cased (with a sorted list of them for prefix search, sorted again when first asked after
 * a change). Slots are in the order compounds were indexed: at start that is id order (the
 * records are read in key order), and a search answers in slot order.
 */
export class StructureIndex {
  readonly segments: Segment[] = [];
  /** The compound's slot, as segment * SEGMENT_SLOTS + slot. */
  private readonly slotOf = new Map<number, number>();
  private readonly byKey = new Map<string, number>();
  private readonly keyOf = new Map<number, string>();
  private readonly namesOf = new Map<number, string[]>();
  private readonly byName = new Map<string, Set<number>>();
  private sortedNames?: string[];
  /** Grows with every change: a search's cursor is valid for one generation (structure-search.ts). */
  generation = 0;

  get size(): number {
    return this.slotOf.size;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  /**
   * Add or update a compound's entry. The same compound with the same InChIKey keeps its slot
   * (its names may change); another structure under its id takes a new slot.
   */
  put(entry: IndexEntry): void {
    this.generation++;
    if (this.keyOf.get(entry.id) !== entry.inchiKey) {
      this.remove(entry.id);
      let segment = this.segments.at(-1);
      if (!segment || !hasRoom(segment, entry)) this.segments.push((segment = newSegment()));
      const slot = append(segment, entry);
      this.slotOf.set(entry.id, (this.segments.length - 1) * SEGMENT_SLOTS + slot);
      this.keyOf.set(entry.id, entry.inchiKey);
      this.byKey.set(entry.inchiKey, entry.id);
    }
    this.setNames(entry.id, entry.names);
  }

  remove(id: number): void {
    const at = this.slotOf.get(id);
    if (at === undefined) return;
    this.generation++;
    const segment = this.segments[Math.floor(at / SEGMENT_SLOTS)];
    Atomics.store(segment.ids, at % SEGMENT_SLOTS, 0);
    this.slotOf.delete(id);
    const key = this.keyOf.get(id)!;
    this.keyOf.delete(id);
    if (this.byKey.get(key) === id) this.byKey.delete(key);
    this.setNames(id, []);
  }

  /** The indexed parts of a compound's entry (names aside), to write it again with other names. */
  searchable(id: number): Omit<IndexEntry, 'names'> | undefined {
    const at = this.slotOf.get(id);
    if (at === undefined) return undefined;
    const segment = this.segments[Math.floor(at / SEGMENT_SLOTS)];
    const slot = at % SEGMENT_SLOTS;
    const bytes = (column: Uint32Array) => new Uint8Array(column.slice(slot * FINGERPRINT_WORDS, (slot + 1) * FINGERPRINT_WORDS).buffer);
    return { id, inchiKey: this.keyOf.get(id)!, morgan: bytes(segment.morgan), pattern: bytes(segment.pattern), pickle: pickleAt(segment, slot).slice() };
  }

  /** A compound's Morgan fingerprint (radius 2, 2048 bits) as the index holds it: 64 words, a copy (undefined: not indexed). */
  morgan(id: number): Uint32Array | undefined {
    const at = this.slotOf.get(id);
    if (at === undefined) return undefined;
    const slot = at % SEGMENT_SLOTS;
    return this.segments[Math.floor(at / SEGMENT_SLOTS)].morgan.slice(slot * FINGERPRINT_WORDS, (slot + 1) * FINGERPRINT_WORDS);
  }

  idForKey(inchiKey: string): number | undefined {
    return this.byKey.get(inchiKey);
  }

  /** Compounds with this name or synonym, compared case-insensitively. */
  idsForName(name: string): number[] {
    return [...(this.byName.get(fold(name)) ?? [])];
  }

  /** Compounds with a name or synonym that starts with `prefix` (case-insensitively), at most `limit`, by name. */
  idsWithNamePrefix(prefix: string, limit: number): number[] {
    const p = fold(prefix);
    if (!p) return [];
    this.sortedNames ??= [...this.byName.keys()].sort();
    const names = this.sortedNames;
    let lo = 0;
    let hi = names.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (names[mid] < p) lo = mid + 1;
      else hi = mid;
    }
    const found = new Set<number>();
    for (let i = lo; i < names.length && names[i].startsWith(p) && found.size < limit; i++) for (const id of this.byName.get(names[i]) ?? []) found.add(id);
    return [...found].slice(0, limit);
  }

  /** Every compound in slot order (a pattern that any structure matches). */
  *allIds(): Generator<number> {
    for (const s of this.segments) {
      const used = Atomics.load(s.used, 0);
      for (let i = 0; i < used; i++) if (s.ids[i]) yield s.ids[i];
    }
  }

  /** The slots from a position (segment * SEGMENT_SLOTS + slot) to the end, in chunks of at most `size`. */
  chunksFrom(position: number, size: number): IndexChunk[] {
    const out: IndexChunk[] = [];
    const first = Math.floor(position / SEGMENT_SLOTS);
    for (let index = first; index < this.segments.length; index++) {
      const segment = this.segments[index];
      const used = Atomics.load(segment.used, 0);
      for (let from = index === first ? position % SEGMENT_SLOTS : 0; from < used; from += size) out.push({ segment, index, from, to: Math.min(used, from + size) });
    }
    return out;
  }

  private setNames(id: number, names: string[]): void {
    const before = this.namesOf.get(id) ?? [];
    const after = [...new Set(names.map(fold).filter(Boolean))];
    if (before.length === after.length && before.every((n, i) => n === after[i])) return;
    for (const n of before) {
      const ids = this.byName.get(n);
      ids?.delete(id);
      if (ids?.size === 0) this.byName.delete(n);
    }
    for (const n of after) {
      let ids = this.byName.get(n);
      if (!ids) this.byName.set(n, (ids = new Set()));
      ids.add(id);
    }
    if (after.length) this.namesOf.set(id, after);
    else this.namesOf.delete(id);
    this.sortedNames = undefined;
  }
}

/** Names are compared case-insensitively, white space trimmed. */
function fold(name: string): string {
  return name.trim().toLowerCase();
}
