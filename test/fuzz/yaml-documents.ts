import fc from 'fast-check';
import { mutated, tokenSoup } from './mutations.ts';

/**
 * YAML datasets for the fuzzer (issue 54): the Ruby services' layout, and documents that expand
 * through anchors and aliases (the billion laughs, its levels put where the reader looks: a
 * value list, the features' metadata, the list of compounds, the entries), that carry tags the
 * reader must refuse, or that nest deeply. Every one answers 2xx, or 4xx and stores nothing.
 */
const VALID = `--- !ruby/object:OpenTox::Dataset
uri: http://localhost/dataset/1
metadata:
  http://purl.org/dc/elements/1.1/title: fuzzed
features:
  LC50:
    http://purl.org/dc/elements/1.1/title: LC50
    http://www.opentox.org/api/1.1#units: mg/L
compounds:
- CCO
- c1ccccc1
- InChI=1S/CH4O/c1-2/h2H,1H3
data_entries:
  CCO:
    LC50: [1.5]
    Class: [toxic]
  c1ccccc1:
    LC50:
    - 2.5
    - 2.75
    Class: !binary bm9udG94aWM=
`;

const TAGS = [
  '!ruby/object:OpenTox::Dataset',
  '!ruby/object:Gem::Installer',
  '!ruby/hash:Hash',
  '!!js/function',
  '!!js/undefined',
  '!!python/object/apply:os.system',
  '!binary',
  '!!binary',
  '!!set',
  '!!omap',
  '!!merge',
  '!!timestamp',
  '!<tag:yaml.org,2002:str>',
  '!',
  '!!float',
];

const TOKENS = [
  '&a ',
  '*a',
  '&b ',
  '*b',
  '<<: ',
  '? ',
  ': ',
  '- ',
  '[',
  ']',
  '{',
  '}',
  ', ',
  '\n',
  '\n  ',
  '\n    ',
  '---\n',
  '...\n',
  '%YAML 1.1\n',
  '"',
  "'",
  '|\n',
  '>\n',
  '#',
  'CCO',
  'LC50',
  '1.5',
  '~',
  ...TAGS.map((t) => `${t} `),
];

type Place = 'values' | 'metadata' | 'compounds' | 'entries';

/** `depth` levels of `fanout` aliases to the level below (a list of lists, or a mapping of mappings), used where `place` says. */
function laughs(depth: number, fanout: number, place: Place, flow: boolean): string {
  const asMap = place === 'metadata' || place === 'entries';
  const level = (items: string[]) => (asMap ? `{${items.map((v, i) => `k${i}: ${v}`).join(', ')}}` : `[${items.join(', ')}]`);
  const lines = [`  l0: &l0 ${level(Array(fanout).fill(asMap ? '[lol]' : 'lol'))}`];
  for (let k = 1; k <= depth; k++) lines.push(`  l${k}: &l${k} ${level(Array(fanout).fill(`*l${k - 1}`))}`);
  const top = `*l${depth}`;
  const use: Record<Place, string> = {
    values: `data_entries:\n  CCO:\n    LC50: ${top}\n`,
    metadata: `features:\n  LC50: ${top}\n  Class: ${top}\n`,
    compounds: `compounds: ${top}\n`,
    entries: `data_entries: ${top}\n`,
  };
  const defined = flow ? `laughs: {${lines.map((l) => l.trim()).join(', ')}}\n` : `laughs:\n${lines.join('\n')}\n`;
  return `--- !ruby/object:OpenTox::Dataset\n${defined}${use[place]}`;
}

/** The valid document with a tag put before one of its values (or on the document). */
function tagged(tag: string, at: number): string {
  const spots = [...VALID.matchAll(/: (?=\S)|^- /gm)].map((m) => m.index + m[0].length);
  if (at % (spots.length + 1) === spots.length) return VALID.replace('!ruby/object:OpenTox::Dataset', tag);
  const spot = spots[at % (spots.length + 1)];
  return `${VALID.slice(0, spot)}${tag} ${VALID.slice(spot)}`;
}

export function yamlDocuments(): fc.Arbitrary<string> {
  return fc.oneof(
    fc
      .tuple(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 2, max: 12 }), fc.constantFrom<Place>('values', 'metadata', 'compounds', 'entries'), fc.boolean())
      .map(([d, f, p, flow]) => laughs(d, f, p, flow)),
    fc.tuple(fc.constantFrom(...TAGS), fc.nat()).map(([tag, at]) => tagged(tag, at)),
    fc
      .constantFrom(10, 40, 1000, 30000)
      .chain((n) => fc.constantFrom(`${'['.repeat(n)}${']'.repeat(n)}`, `${'- '.repeat(n)}x\n`, `data_entries:\n  CCO:\n    LC50: ${'['.repeat(n)}1${']'.repeat(n)}\n`)),
    mutated([VALID]),
    tokenSoup(TOKENS, 60),
  );
}
