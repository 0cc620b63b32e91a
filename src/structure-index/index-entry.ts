import type { Searchable } from '../chemistry/chemistry.ts';

/**
 * One compound in the structure index: what exact, substructure and similarity searches read,
 * kept as a store record (triple-store.ts's RecordWrites) beside the compound's graph and
 * written in the same batch.
 */
export interface IndexEntry extends Searchable {
  /** The compound's number: its URI is `{base}/compound/{id}`. */
  id: number;
  inchiKey: string;
  /** Names and synonyms (CAS numbers among them), as posted. */
  names: string[];
}

/** Records of the index start with this; the rest of the key is the id, zero-padded (key order is id order). */
export const ENTRY_PREFIX = 'structure/';
/** Written once every compound of the store has its entry (see StructureIndex.open). */
export const COMPLETE_KEY = 'structure-index/complete';

const ID_DIGITS = 12;
const VERSION = 1;
const KEY_BYTES = 27;
export const FINGERPRINT_BYTES = 256;

export function entryKey(id: number): string {
  return ENTRY_PREFIX + String(id).padStart(ID_DIGITS, '0');
}

export function idOfKey(key: string): number {
  return Number(key.slice(ENTRY_PREFIX.length));
}

const utf8 = new TextEncoder();
const utf8In = new TextDecoder();

/**
 * An entry as bytes: version, InChIKey (27 ASCII bytes), Morgan and pattern fingerprints (256
 * bytes each), the RDKit pickle (u32 length first), then the names (u16 count, each u16 length
 * and UTF-8). The id is the record's key.
 */
export function encodeEntry(e: IndexEntry): Uint8Array {
  if (e.morgan.length !== FINGERPRINT_BYTES || e.pattern.length !== FINGERPRINT_BYTES) throw new Error('an index entry takes 2048-bit fingerprints');
  const names = e.names.slice(0, 0xffff).map((n) => utf8.encode(n).subarray(0, 0xffff));
  const size = 1 + KEY_BYTES + 2 * FINGERPRINT_BYTES + 4 + e.pickle.length + 2 + names.reduce((n, b) => n + 2 + b.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  out[at++] = VERSION;
  utf8.encodeInto(e.inchiKey.padEnd(KEY_BYTES).slice(0, KEY_BYTES), out.subarray(at, at + KEY_BYTES));
  at += KEY_BYTES;
  out.set(e.morgan, at);
  at += FINGERPRINT_BYTES;
  out.set(e.pattern, at);
  at += FINGERPRINT_BYTES;
  view.setUint32(at, e.pickle.length);
  at += 4;
  out.set(e.pickle, at);
  at += e.pickle.length;
  view.setUint16(at, names.length);
  at += 2;
  for (const n of names) {
    view.setUint16(at, n.length);
    out.set(n, at + 2);
    at += 2 + n.length;
  }
  return out;
}

/** The entry of a record; undefined for bytes of another version or cut short. */
export function decodeEntry(id: number, bytes: Uint8Array): IndexEntry | undefined {
  if (bytes[0] !== VERSION || bytes.length < 1 + KEY_BYTES + 2 * FINGERPRINT_BYTES + 6) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 1;
  const inchiKey = utf8In.decode(bytes.subarray(at, at + KEY_BYTES)).trimEnd();
  at += KEY_BYTES;
  const morgan = bytes.subarray(at, at + FINGERPRINT_BYTES);
  at += FINGERPRINT_BYTES;
  const pattern = bytes.subarray(at, at + FINGERPRINT_BYTES);
  at += FINGERPRINT_BYTES;
  const pickleLength = view.getUint32(at);
  at += 4;
  if (at + pickleLength + 2 > bytes.length) return undefined;
  const pickle = bytes.subarray(at, at + pickleLength);
  at += pickleLength;
  const count = view.getUint16(at);
  at += 2;
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = view.getUint16(at);
    if (at + 2 + n > bytes.length) return undefined;
    names.push(utf8In.decode(bytes.subarray(at + 2, at + 2 + n)));
    at += 2 + n;
  }
  return { id, inchiKey, morgan, pattern, pickle, names };
}
