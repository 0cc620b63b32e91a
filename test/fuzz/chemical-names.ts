import fc from 'fast-check';
import { HOSTILE_TOKENS, mutated, tokenSoup } from './mutations.ts';
import type { FuzzRequest, FuzzTarget } from './fuzz-targets.ts';

/**
 * Chemical names for the fuzzer (issue 54): `POST /compound` as text/plain (names, one a line,
 * parsed by the server's OPSIN process) and a table whose only structure is a name column. Names
 * of 100 kB, names holding control characters (which would split a name in two on OPSIN's side),
 * line separators and lone surrogates, mutated systematic names and soups of their parts. Every
 * one answers 2xx, or 4xx and stores nothing; none leaves the OPSIN process out of step (the
 * fuzz run's later requests would get other names' structures).
 */
const NAMES = ['benzene', '2-methylpropan-1-ol', 'ethanoic acid', 'N,N-dimethylformamide', '(2S)-2-aminopropanoic acid', '1,3,5-trinitrobenzene', 'caffeine', 'sodium chloride', 'β-D-glucopyranose'];
const NAME_PARTS = [
  'meth',
  'eth',
  'prop',
  'but',
  'pent',
  'hex',
  'an',
  'ane',
  'ene',
  'yne',
  'yl',
  'ol',
  'one',
  'oic acid',
  'amine',
  'benz',
  'cyclo',
  'di',
  'tri',
  'N',
  '-',
  ',',
  '(',
  ')',
  '[',
  ']',
  '1',
  '2',
  '3',
  "'",
  ' ',
  'S',
  'R',
  'E',
  'Z',
];
/** Characters no name may hold: every C0 control, DEL, the C1 controls (NEL among them), the Unicode line separators, lone surrogates. */
const BREAKING = [...Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)), '\u007f', '\u0085', '\u009f', '\u2028', '\u2029', '\uD800', '\uDC00'];
const HUNDRED_KB = 100 * 1024;

/** A name of 100 kB: one letter repeated, or a real name repeated, with a line break or not. */
const hugeName: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom('a', 'methyl', ...NAMES), fc.constantFrom('', '\n', '\nbenzene\n'))
  .map(([unit, after]) => `${unit.repeat(Math.ceil(HUNDRED_KB / unit.length)).slice(0, HUNDRED_KB)}${after}`);

/** A real name with a character that must never reach OPSIN put somewhere inside it. */
const brokenName: fc.Arbitrary<string> = fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom(...BREAKING), fc.nat()).map(([name, c, at]) => {
  const i = at % (name.length + 1);
  return `${name.slice(0, i)}${c}${name.slice(i)}`;
});

const names: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: hugeName, weight: 1 },
  { arbitrary: brokenName, weight: 2 },
  { arbitrary: mutated(NAMES), weight: 4 },
  { arbitrary: tokenSoup([...NAME_PARTS, ...HOSTILE_TOKENS], 40), weight: 2 },
);

/** Bodies of one to four names, one a line. */
const bodies: fc.Arbitrary<string> = fc.array(names, { minLength: 1, maxLength: 4 }).map((lines) => lines.join('\n'));

export function chemicalNameTargets(): FuzzTarget[] {
  return [
    { name: 'chemical names (compound, text/plain)', input: bodies.map((body): FuzzRequest => ({ method: 'POST', path: '/compound', contentType: 'text/plain', body })) },
    {
      name: 'chemical names (dataset, a Name column only)',
      input: fc
        .array(names, { minLength: 1, maxLength: 3 })
        .map((rows): FuzzRequest => ({ method: 'POST', path: '/dataset', contentType: 'text/csv', body: `Name,LC50\n${rows.map((r, i) => `"${r.replace(/"/g, '""')}",${i}`).join('\n')}\n` })),
    },
  ];
}
