import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findHeader, isFootnote, unitsRow } from '../../src/dataset/sheet-shape.ts';

const rows = (...cells: unknown[][]) => cells.map((c, i) => ({ line: i + 1, cells: c }));

test('the header: the first row naming a structure, else the first of several cells; header_row= names it', () => {
  assert.deepEqual(findHeader(rows(['SMILES', 'x'], ['CCO', 1])), { at: 0 });
  assert.equal(findHeader(rows(['Rat carcinogenicity', '', ''], ['', '', ''], ['ID', 'Structure (SMILES)', 'class'], ['1', 'CCO', 'a'])).at, 2);
  // a two-cell title block above a header that names its structure
  assert.equal(findHeader(rows(['Table 1', 'CPDB'], ['Name', 'TD50'], ['ethanol', 1])).at, 1);
  // no header names a structure: the first row of more than one cell, under one-cell titles
  assert.equal(findHeader(rows(['A title'], ['a', 'b'], ['1', '2'])).at, 1);
  assert.deepEqual(findHeader(rows(['A title'], ['a', 'b']), 1), { at: 0, note: 'row 1 was read as the header (header_row=)' });
  assert.throws(() => findHeader(rows(['a', 'b']), 5), /header_row: the table has no row 5/);
});

test('a units row: every filled cell units, at least one not a dash; a bracket atom under a structure column is data', () => {
  const header = ['SMILES', 'LC50', 'class', 'logP'];
  assert.deepEqual([...(unitsRow(header, ['', '[mg/L]', '[class]', '-']) ?? [])], [undefined, 'mg/L', 'class', '-']);
  assert.deepEqual(unitsRow(header, ['[SMILES]', 'mg/L', '(mmol/kg)']), ['SMILES', 'mg/L', 'mmol/kg']);
  assert.equal(unitsRow(header, ['[Na+]', '[mg/L]']), undefined);
  assert.equal(unitsRow(header, ['', '-', '', '-']), undefined);
  assert.equal(unitsRow(header, ['', 1.5, '[class]']), undefined);
  assert.equal(unitsRow(header, ['CCO', 'mg/L']), undefined);
  assert.equal(unitsRow(header, ['', 'active', '[class]']), undefined);
});

test('a footnote: one cell of text marked as a note, or of several words where no structure or name is written', () => {
  const header = ['Name', 'SMILES', 'TD50'];
  assert.ok(isFootnote(['* values from the CPDB'], header));
  assert.ok(isFootnote(['', '', 'Source: CPDB'], header));
  assert.ok(isFootnote(['', '', 'measured at 25 degrees'], header));
  assert.ok(!isFootnote(['sodium lauryl sulfate salt'], header), 'a name of several words under Name');
  assert.ok(!isFootnote(['', 'CCO ethanol extra'], header), 'a SMILES with its name under SMILES');
  assert.ok(!isFootnote(['', 'CCO'], header));
  assert.ok(!isFootnote(['a', 'b'], header));
  assert.ok(!isFootnote(['', '', 12], header));
});
