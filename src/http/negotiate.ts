import { notAcceptable } from '../core/errors.ts';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/** Clients send few distinct Accept headers: their parsed ranges are kept (bounded). */
const parsedAccept = new Map<string, MediaRange[]>();
const PARSED_ACCEPT_LIMIT = 256;

function parseAccept(header: string): MediaRange[] {
  let ranges = parsedAccept.get(header);
  if (!ranges) {
    if (parsedAccept.size >= PARSED_ACCEPT_LIMIT || header.length > 1000) parsedAccept.clear();
    ranges = readAccept(header);
    if (header.length <= 1000) parsedAccept.set(header, ranges);
  }
  return ranges;
}

function readAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range, ...params] = part.trim().split(';');
    const [type, subtype] = range.trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split('=');
      if (k?.trim().toLowerCase() === 'q') {
        const n = Number(v);
        q = Number.isFinite(n) ? Math.min(Math.max(n, 0), 1) : 0;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The q-value the Accept header gives one concrete media type (most specific range wins). */
function qualityOf(mediaType: string, ranges: readonly MediaRange[]): number {
  const slash = mediaType.indexOf('/');
  const type = mediaType.slice(0, slash);
  const subtype = mediaType.slice(slash + 1);
  let best = -1;
  let quality = 0;
  for (const r of ranges) {
    const specificity = r.type === type && r.subtype === subtype ? 3 : r.type === type && r.subtype === '*' ? 2 : r.type === '*' && r.subtype === '*' ? 1 : 0;
    if (specificity > best && specificity > 0) {
      best = specificity;
      quality = r.q;
    }
  }
  return quality;
}

/**
 * Pick the offered media type the client prefers (by q-value, then by the order of `offered`,
 * which is the server's preference). No Accept header means the first offered type.
 * Answers undefined when nothing offered is acceptable.
 */
export function negotiate(accept: string | undefined, offered: readonly string[]): string | undefined {
  if (!accept?.trim()) return offered[0];
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return offered[0];
  let chosen: string | undefined;
  let chosenQ = 0;
  for (const t of offered) {
    const q = qualityOf(t, ranges);
    if (q > chosenQ) {
      chosen = t;
      chosenQ = q;
    }
  }
  return chosen;
}

export function negotiateOrFail(accept: string | undefined, offered: readonly string[]): string {
  const chosen = negotiate(accept, offered);
  if (!chosen) throw notAcceptable(`cannot answer in any type the Accept header allows (${accept}); available: ${offered.join(', ')}`);
  return chosen;
}
