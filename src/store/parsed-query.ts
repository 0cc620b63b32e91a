import { Parser } from 'sparqljs';

/** Parsed queries kept (the store sees the same template texts again and again). */
const KEPT = 512;
/** Longer texts (a VALUES list of thousands of IRIs) are parsed each time: they seldom repeat. */
const KEPT_TEXT_LENGTH = 4096;
const kept = new Map<string, object | null>();

/**
 * A query text parsed by sparqljs (null when it does not parse), for the store's own evaluators
 * to recognise the shapes they answer. The most recent parses are kept, so a template run again
 * with the same bound terms is not parsed again; callers must not change what they are given.
 */
export function parsedQuery(text: string, baseIri?: string): any {
  const key = `${baseIri ?? ''}\n${text}`;
  const hit = kept.get(key);
  if (hit !== undefined) {
    // marked as recently used only when the oldest may soon leave: moving an entry to the end
    // makes the map copy its table every few requests
    if (kept.size > KEPT / 2) {
      kept.delete(key);
      kept.set(key, hit);
    }
    return hit;
  }
  let parsed: object | null;
  try {
    parsed = new Parser({ baseIRI: baseIri }).parse(text);
  } catch {
    parsed = null; // the query engine reports the error in its own words
  }
  if (text.length <= KEPT_TEXT_LENGTH) {
    kept.set(key, parsed);
    if (kept.size > KEPT) kept.delete(kept.keys().next().value as string);
  }
  return parsed;
}
