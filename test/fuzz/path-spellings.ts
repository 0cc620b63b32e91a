import fc from 'fast-check';

/**
 * Other spellings of a request path, for the property that every decision about a request is
 * taken on the path that is served (issue 52): percent-encoded characters (either case of hex),
 * repeated and trailing slashes, `.` and `..` segments (percent-encoded too), and letters in
 * another case. Requests must be sent as written (node:http, not fetch, which would resolve
 * dot segments itself).
 */
export interface Spelling {
  path: string;
  /** A letter's case was changed: the spelling names another path, which no route answers. */
  caseChanged: boolean;
}

type Change = { kind: 'encode' | 'encodeLower' | 'upper' | 'double' | 'dot' | 'dotEncoded' | 'up' | 'upEncoded'; at: number };

const change: fc.Arbitrary<Change> = fc.record({
  kind: fc.constantFrom('encode', 'encodeLower', 'upper', 'double', 'dot', 'dotEncoded', 'up', 'upEncoded'),
  at: fc.nat(),
});

/** Spellings of `path` (canonical, starting with `/`): one to four changes, and sometimes a trailing slash. */
export function spellingsOf(path: string): fc.Arbitrary<Spelling> {
  return fc.tuple(fc.array(change, { minLength: 1, maxLength: 4 }), fc.boolean()).map(([changes, trailing]) => {
    let p = path;
    let caseChanged = false;
    for (const c of changes) {
      // positions of the characters after the first slash, and of the slashes (segment boundaries)
      const slashes = [...p].flatMap((ch, i) => (ch === '/' ? [i] : []));
      const slash = slashes[c.at % slashes.length];
      const chars = [...p].flatMap((ch, i) => (ch !== '/' && ch !== '%' ? [i] : []));
      if (!chars.length && !['double', 'dot', 'dotEncoded', 'up', 'upEncoded'].includes(c.kind)) continue;
      const at = chars[c.at % chars.length];
      switch (c.kind) {
        case 'encode':
        case 'encodeLower': {
          if (p.slice(Math.max(0, at - 2), at + 1).includes('%')) break; // inside an escape already
          const hex = p.charCodeAt(at).toString(16).padStart(2, '0');
          p = `${p.slice(0, at)}%${c.kind === 'encode' ? hex.toUpperCase() : hex.toLowerCase()}${p.slice(at + 1)}`;
          break;
        }
        case 'upper': {
          if (/%[0-9A-Fa-f]?$/.test(p.slice(Math.max(0, at - 2), at))) break; // a hex digit of an escape
          const upper = p[at] === p[at].toUpperCase() ? p[at].toLowerCase() : p[at].toUpperCase();
          if (upper !== p[at]) caseChanged = true;
          p = `${p.slice(0, at)}${upper}${p.slice(at + 1)}`;
          break;
        }
        case 'double':
          p = `${p.slice(0, slash)}/${p.slice(slash)}`;
          break;
        case 'dot':
          p = `${p.slice(0, slash)}/.${p.slice(slash)}`;
          break;
        case 'dotEncoded':
          p = `${p.slice(0, slash)}/%2e${p.slice(slash)}`;
          break;
        case 'up':
          p = `${p.slice(0, slash)}/elsewhere/..${p.slice(slash)}`;
          break;
        case 'upEncoded':
          p = `${p.slice(0, slash)}/elsewhere/%2E%2e${p.slice(slash)}`;
          break;
      }
    }
    if (trailing && p !== '/') p = `${p}/`;
    return { path: p, caseChanged };
  });
}
