import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCasNumber, layoutOf, structureKindOf, titleAndUnits } from '../../src/dataset/column-roles.ts';

test('units in headers: brackets always, parentheses only when they read as units', () => {
  const cases: [string, string, string | undefined][] = [
    ['LC50 [mg/L]', 'LC50', 'mg/L'],
    ['logP (-)', 'logP', '-'],
    ['MW (g/mol)', 'MW', 'g/mol'],
    ['pIC50 (M)', 'pIC50', 'M'],
    ['Conc (µM)', 'Conc', 'µM'],
    ['Conc (uM)', 'Conc', 'uM'],
    ['LD50 (mg/kg/d)', 'LD50', 'mg/kg/d'],
    ['Duration (days)', 'Duration', 'days'],
    ['VP (mmHg)', 'VP', 'mmHg'],
    ['TPSA (Å²)', 'TPSA', 'Å²'],
    ['Activity (%)', 'Activity', '%'],
    ['-log10(LC50_mmol)', '-log10(LC50_mmol)', undefined],
    ['Activity (active)', 'Activity (active)', undefined],
    ['Name (IUPAC)', 'Name (IUPAC)', undefined],
    ['Dose (1/2)', 'Dose (1/2)', undefined],
    // an Excel header with Alt+Enter, tabs, NBSP and line separators: one line, one space each
    ['LC50\n[mg/L]', 'LC50', 'mg/L'],
    ['Carcinogenic\r\n(rat)\t\u00a0class', 'Carcinogenic (rat) class', undefined],
    ['Lab\u2028ID\u2029 no.\u000b\u000c', 'Lab ID no.', undefined],
  ];
  for (const [header, title, units] of cases) assert.deepEqual(titleAndUnits(header), units === undefined ? { title } : { title, units }, header);
});

test('CAS RNs by their check digit', () => {
  for (const cas of ['50-00-0', '64-17-5', '71-43-2', '7732-18-5', '9002-84-0']) assert.equal(isCasNumber(cas), true, cas);
  for (const bad of ['50-00-1', '12-34-5', '64175', '64-17-5a', '']) assert.equal(isCasNumber(bad), false, bad);
});

test('structure, name and CAS columns by header; SMILES before a molfile or a column headed mol', () => {
  assert.deepEqual(layoutOf(['Name', 'CAS RN', 'SMILES', 'LC50']), { structureAt: 2, kind: 'smiles', nameAt: 0, casAt: 1, featureAt: [0, 1, 3] });
  assert.equal(layoutOf(['mol', 'SMILES', 'x']).kind, 'smiles');
  // SMILES and InChI headers with qualifying words
  for (const h of ['Structure (SMILES)', 'Canonical SMILES', 'smiles_std', 'QSAR-ready SMILES', 'SMILES (canonical)']) assert.equal(layoutOf(['ID', h]).kind, 'smiles', h);
  for (const h of ['InChI string', 'Standard InChI', 'InChI (std)']) assert.equal(layoutOf(['ID', h]).kind, 'inchi', h);
  // an InChIKey or a SMILES count is no structure
  assert.throws(() => layoutOf(['InChIKey', 'x']), /no structure column/);
  assert.throws(() => layoutOf(['SMILES length', 'x']), /no structure column/);
  assert.deepEqual(layoutOf(['Molfile', 'x']), { structureAt: 0, kind: 'molfile', nameAt: undefined, casAt: undefined, featureAt: [1] });
  assert.throws(() => layoutOf(['a', 'b']), /no structure column/);
  // no structure but a name column: the names are read as structures, and stay a column
  assert.deepEqual(layoutOf(['LC50', 'Chemical name', 'CAS']), { structureAt: 1, kind: 'name', nameAt: 1, casAt: 2, featureAt: [0, 1, 2] });
});

test('structure_column= chooses the structure column by header (whitespace folded) or number; its cells are read as what they look like', () => {
  const chosen = layoutOf(['Lab ID', 'Molecule', 'Name', 'TD50'], ' Molecule ');
  assert.deepEqual([chosen.structureAt, chosen.kind, chosen.nameAt, chosen.featureAt], [1, 'any', 2, [0, 2, 3]]);
  assert.equal(layoutOf(['Lab ID', 'Molecule'], '2').structureAt, 1);
  // a chosen name column stays a column of its own, as a recognised one does
  assert.deepEqual(layoutOf(['Name', 'x'], 'Name').featureAt, [0, 1]);
  assert.throws(() => layoutOf(['a', 'b'], 'c'), /structure_column: the table has no column "c"/);
  assert.throws(() => layoutOf(['a', 'b'], '3'), /structure_column/);
  assert.throws(() => layoutOf(['a', 'b']), /choose it with structure_column=/);
  assert.deepEqual(['CCO', 'InChI=1S/CH4/h1H4', 'http://x/compound/1', 'x\n  RDKit\n\n  0  0\nM  END'].map(structureKindOf), ['smiles', 'inchi', 'uri', 'molfile']);
});
