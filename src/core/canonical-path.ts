import { badRequest } from './errors.ts';

/**
 * The one spelling of a path of this server, which every decision about a request is taken on
 * (routing, access control, quotas, the representation cache, logs) and every URI we mint has:
 *
 * - each segment percent-decoded and encoded again as the URI scheme encodes ids
 *   (`encodeURIComponent`): `%31` is `1`, `%7e` is `~`, `%2f` is `%2F`;
 * - no empty segments: repeated slashes and a trailing slash are dropped (`/dataset//1/` is
 *   `/dataset/1`; the root stays `/`);
 * - `.` and `..` segments resolved, percent-encoded ones too (`/x/%2e%2e/dataset/1` is
 *   `/dataset/1`); `..` never climbs above the root.
 *
 * Letter case is kept: paths are case-sensitive (`/DATASET/1` is not `/dataset/1`, and no route
 * answers it). A segment that is not well-formed percent-encoding (`%zz`, `%c3` alone) is a 400.
 */
export function canonicalPath(path: string): string {
  if (isCanonicalPath(path)) return path;
  const out: string[] = [];
  for (const raw of path.split('/')) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      throw badRequest(`the path ${path.slice(0, 200)} is not well-formed: ${raw.slice(0, 60)} is not a percent-encoded UTF-8 segment`);
    }
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      out.pop();
      continue;
    }
    out.push(encodeURIComponent(segment));
  }
  return `/${out.join('/')}`;
}

/** Characters a canonical segment keeps as they are (what `encodeURIComponent` leaves alone). */
const PLAIN_SEGMENTS = /^(\/[A-Za-z0-9\-_.!~*'()]+)*\/?$/;

/**
 * Most paths are canonical already: segments of plain characters, none of them empty, `.` or
 * `..`, and no trailing slash (but the root). Checked without splitting.
 */
export function isCanonicalPath(path: string): boolean {
  if (path === '/') return true;
  if (!PLAIN_SEGMENTS.test(path) || path.endsWith('/')) return false;
  return !/\/\.\.?(?=\/|$)/.test(path);
}
