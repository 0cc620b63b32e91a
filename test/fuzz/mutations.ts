import fc from 'fast-check';

/**
 * Inputs that stress parsers: quoting and escapes, control characters, encodings, numbers out of
 * range, markup, entity declarations, injection attempts and addresses the server must not fetch.
 */
export const HOSTILE_TOKENS = [
  '"',
  "'",
  '<',
  '>',
  '&',
  '\\',
  '\u0000',
  '\u0007',
  '\uFFFD',
  '\uFEFF',
  '\u202E',
  '𝔘',
  'é',
  '\r\n',
  '\n\n',
  '\t',
  ',',
  ';',
  '|',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '%',
  '#',
  '@',
  '$$$$',
  '?',
  '1e309',
  '-1e309',
  'NaN',
  'Infinity',
  '-0',
  '9'.repeat(400),
  '0x1F',
  '',
  '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>',
  '&e;',
  '<![CDATA[',
  ']]>',
  '<script>alert(1)</script>',
  '> } ; DROP ALL ; INSERT DATA { <urn:a> <urn:b> <urn:c> } #',
  '" . <urn:x> <urn:y> "',
  '"""',
  "'''",
  '^^<',
  '@en-',
  '_:b0',
  'a ',
  '"@context": "http://127.0.0.1:1/context"',
  'http://169.254.169.254/latest/meta-data',
  'file:///etc/passwd',
  'SERVICE <http://127.0.0.1:1/sparql>',
  'M  END',
  'V2000',
  'V3000',
  '@attribute',
  '@data',
  '@relation',
  'InChI=1S/',
  '[Na+]',
  '%10',
  'c1ccccc1',
  '[2H]',
  '/',
  '=',
  '#N',
];

type Edit = { op: 'delete' | 'insert' | 'replace' | 'duplicate' | 'truncate' | 'swapLines'; at: number; len: number; text: string };

const editArb: fc.Arbitrary<Edit> = fc.record({
  op: fc.constantFrom('delete', 'insert', 'replace', 'duplicate', 'truncate', 'swapLines'),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  len: fc.integer({ min: 1, max: 40 }),
  text: fc.oneof(fc.constantFrom(...HOSTILE_TOKENS), fc.string({ maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 4 })),
});

function applyEdit(s: string, e: Edit): string {
  const at = Math.floor(e.at * (s.length + 1));
  switch (e.op) {
    case 'delete':
      return s.slice(0, at) + s.slice(at + e.len);
    case 'insert':
      return s.slice(0, at) + e.text + s.slice(at);
    case 'replace':
      return s.slice(0, at) + e.text + s.slice(at + e.len);
    case 'duplicate':
      return s.slice(0, at + e.len) + s.slice(at, at + e.len) + s.slice(at + e.len);
    case 'truncate':
      return s.slice(0, at);
    case 'swapLines': {
      const lines = s.split('\n');
      const i = Math.floor(e.at * lines.length);
      const j = (i + e.len) % lines.length;
      [lines[i], lines[j]] = [lines[j], lines[i]];
      return lines.join('\n');
    }
  }
}

/** A valid document with up to five random edits: most mutants are almost right, which is where parsers break. */
export function mutated(seeds: string[]): fc.Arbitrary<string> {
  return fc.tuple(fc.constantFrom(...seeds), fc.array(editArb, { maxLength: 5 })).map(([seed, edits]) => edits.reduce(applyEdit, seed));
}

/** Random text over an alphabet of the format's own tokens. */
export function tokenSoup(tokens: string[], maxLength = 30): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...tokens), { maxLength }).map((t) => t.join(''));
}
