import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as RDF from '@rdfjs/types';
import { curate, STRUCTURE_STANDARDISATION, type RowOutcome } from '../../src/algorithm/structure-standardisation.ts';
import { STANDARDISATION_RULES } from '../../src/chemistry/standardisation.ts';
import { literal } from '../../src/rdf/namespaces.ts';

const F = { original: 'f:original', parent: 'f:parent', rules: 'f:rules', flags: 'f:flags' };
const row = (compound: string, values: Record<string, string>) => ({ compound, values: new Map<string, RDF.Literal>(Object.entries(values).map(([f, v]) => [f, literal(v)])) });
const ok = (compound: string, parent: string, rules: string[] = [], flags: ('mixture' | 'metal' | 'inorganic')[] = []): RowOutcome => ({
  ok: true,
  compound,
  parent,
  original: `${parent}.x`,
  rules,
  flags,
});

test('rows sharing a parent: named in one warning with every value that disagrees, every row kept', () => {
  const rows = [row('c:1', { y: '1', z: 'a' }), row('c:2', { y: '2', z: 'a' }), row('c:3', { y: '1', z: 'b' }), row('c:4', { y: '5' })];
  const outcomes = [ok('p:1', 'CCO', ['strip-salts']), ok('p:1', 'CCO'), ok('p:1', 'CCO'), ok('c:4', 'CCN')];
  const out = curate({ rows, outcomes, kept: ['y', 'z'], features: F, titles: new Map([['y', 'LC50']]) });
  assert.deepEqual(
    out.rows.map((r) => r.compound),
    ['p:1', 'p:1', 'p:1', 'c:4'],
  );
  assert.deepEqual(out.warnings, ['rows 1, 2 and 3 have the same parent structure (p:1, CCO), every row kept; their values of LC50 (1, 2) and z (a, b) disagree']);
  const first = new Map(out.rows[0].values.map(([f, v]) => [f, v.value]));
  assert.deepEqual(Object.fromEntries(first), { y: '1', z: 'a', 'f:original': 'CCO.x', 'f:parent': 'CCO', 'f:rules': 'strip-salts' });
  assert.match(out.summary, /^4 row\(s\): 3 got another compound as their parent, 1 kept their compound.*, 0 not standardised.*; 1 parent structure\(s\) shared/);
});

test('a row that cannot be standardised keeps its compound, flagged unparseable and warned of in row order', () => {
  const rows = [row('c:1', { y: '1' }), row('c:2', { y: '1' }), row('c:3', {})];
  const outcomes: RowOutcome[] = [{ ok: false, original: 'C1CC', error: 'bad ring' }, ok('p:9', 'CC', [], ['mixture', 'metal']), ok('p:9', 'CC')];
  const out = curate({ rows, outcomes, kept: ['y'], features: F, titles: new Map() });
  assert.equal(out.rows[0].compound, 'c:1');
  assert.deepEqual(
    out.rows[0].values.map(([f, v]) => [f, v.value]),
    [
      ['y', '1'],
      ['f:original', 'C1CC'],
      ['f:flags', 'unparseable'],
    ],
  );
  assert.deepEqual(out.rows[1].values.find(([f]) => f === 'f:flags')?.[1].value, 'mixture, metal');
  assert.deepEqual(out.warnings, [
    'row 1: the structure of c:1 cannot be standardised (bad ring); the row keeps its compound, flagged unparseable',
    'rows 2 and 3 have the same parent structure (p:9, CC), every row kept; their values agree',
  ]);
});

test('rows of one source compound are not reported again (the upload said so); a long list is cut at 20', () => {
  const same = curate({ rows: [row('c:1', { y: '1' }), row('c:1', { y: '2' })], outcomes: [ok('c:1', 'CC'), ok('c:1', 'CC')], kept: ['y'], features: F, titles: new Map() });
  assert.deepEqual(same.warnings, []);
  const many = Array.from({ length: 25 }, (_, i) => row(`c:${i}`, { y: String(i) }));
  const out = curate({ rows: many, outcomes: many.map(() => ok('p:1', 'CC')), kept: ['y'], features: F, titles: new Map() });
  assert.equal(out.warnings.length, 1);
  assert.match(out.warnings[0], /^rows 1, 2, .*, 20 and 5 more have the same parent structure/);
  assert.match(out.warnings[0], /\(0, 1, .*, 19 and 5 more\)$/);
});

test('the catalogue entry names every rule and takes the options of the module', () => {
  for (const r of STANDARDISATION_RULES) assert.ok(STRUCTURE_STANDARDISATION.description.includes(r.name), r.name);
  assert.deepEqual(
    STRUCTURE_STANDARDISATION.parameters.map((p) => [p.name, p.default, p.choices]),
    [
      ['stereo', 'keep', ['keep', 'remove']],
      ['isotopes', 'keep', ['keep', 'remove']],
      ['hydrogens', 'implicit', ['implicit', 'explicit']],
    ],
  );
});
