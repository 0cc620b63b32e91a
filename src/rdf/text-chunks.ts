import type * as RDF from '@rdfjs/types';
import { inflateRawSync, deflateRawSync } from 'node:zlib';
import { df, literal, xsd } from './namespaces.ts';

/**
 * Long text (a model's trained state, a report's DocBook) stored as numbered literals:
 * `{uri}#content-0000001 {predicate} "…"`, one per chunk of at most `CHUNK_CHARS` characters.
 *
 * Chunks are small because a literal is part of the store's index keys, and LevelDB keeps the
 * first and last key of every table file in memory for as long as the file exists: with chunks
 * of 256k characters a store kept about 10 MiB more per cross-validation of random forests, for good.
 */
const CHUNK_CHARS = 4096;

/** `text` in pieces of at most `size` characters (one more where a surrogate pair would be cut). */
export function contentChunks(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + size);
    // never between the two halves of a surrogate pair: each literal must be valid text
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    chunks.push(text.slice(i, end));
    i = end;
  }
  return chunks;
}

/** The quads that hold `text` under `uri`. */
export function textChunkQuads(uri: string, predicate: RDF.NamedNode, text: string): RDF.Quad[] {
  return contentChunks(text, CHUNK_CHARS).map((chunk, k) => df.quad(df.namedNode(`${uri}#content-${String(k + 1).padStart(7, '0')}`), predicate, literal(chunk)));
}

/**
 * The quads that hold `text` deflated (raw DEFLATE, fastest level) as base64 chunks typed
 * `xsd:base64Binary`: for text that is read whole by the server and nowhere else (a model's
 * trained state, its JSON trees base64 themselves: a forest classifier's is about 4.5 times
 * smaller, so is everything its write costs).
 */
export function deflatedChunkQuads(uri: string, predicate: RDF.NamedNode, text: string): RDF.Quad[] {
  const packed = deflateRawSync(text, { level: 1 }).toString('base64');
  return contentChunks(packed, CHUNK_CHARS).map((chunk, k) => df.quad(df.namedNode(`${uri}#content-${String(k + 1).padStart(7, '0')}`), predicate, literal(chunk, xsd('base64Binary'))));
}

/** The most text deflated chunks may inflate to (they may have been rewritten through SPARQL). */
const MAX_INFLATED_BYTES = 1024 * 1024 * 1024;

/** The text again, from its chunk quads in any order (inflated when they are deflatedChunkQuads'). */
export function textOfChunks(quads: RDF.Quad[]): string {
  const sorted = [...quads].sort((a, b) => chunkNumber(a) - chunkNumber(b));
  const joined = sorted.map((q) => q.object.value).join('');
  const first = sorted[0]?.object;
  if (first?.termType !== 'Literal' || !first.datatype.equals(xsd('base64Binary'))) return joined;
  return inflateRawSync(Buffer.from(joined, 'base64'), { maxOutputLength: MAX_INFLATED_BYTES }).toString('utf8');
}

/** The position of a chunk (`…#content-0000042`); models stored before 2026-11 used six digits. */
function chunkNumber(q: RDF.Quad): number {
  return Number(q.subject.value.slice(q.subject.value.lastIndexOf('-') + 1));
}
