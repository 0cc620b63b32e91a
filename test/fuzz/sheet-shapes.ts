import fc from 'fast-check';
import ExcelJS from 'exceljs';
import { HOSTILE_TOKENS } from './mutations.ts';
import type { FuzzRequest, FuzzTarget } from './fuzz-targets.ts';

/**
 * Tables laid out as people lay out a sheet (issue 55 item 7), for the fuzzer: title rows and
 * blank rows above the header, a header with line breaks, a units row under it, data, footnotes
 * after it, in any number and order of these parts, with cells from a list that holds hostile
 * ones (src/dataset/sheet-shape.ts finds the header, the units and the footnotes), and sometimes
 * a `header_row=` (a row of the table, past it, or not a number). As CSV, and as workbooks made
 * once from a few such sheets. Every one answers 2xx, or 4xx and stores nothing.
 */

type Row = (string | number | null)[];

const TITLES = ['Carcinogenic potency in rats (CPDB extract)', 'Table 1', 'SMILES', 'Name', '', 'Source: CPDB', '*'];
const HEADERS = ['SMILES', 'Structure (SMILES)', 'Name', 'CAS', 'Lab ID', 'Carcinogenic\nclass', 'LC50\r\n[mg/L]', 'TD50', 'InChI', ''];
const UNITS = ['[mg/L]', '(mmol/kg)', 'mg/L', '[class]', '-', '', '[SMILES]', '[Na+]', '%', '(', '[]'];
const VALUES: (string | number)[] = ['CCO', 'c1ccccc1', '[Na+].[Cl-]', 'ethanol', '50-00-0', 'active', 'inactive', 1.5, -3, 0, '', 'n/a', '1,5'];
const FOOTNOTES = ['* values from the CPDB', 'Source: CPDB 2007', 'Note', 'three words here', 'CCO', '†'];

const cell = (list: readonly (string | number)[]) => fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...list) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_TOKENS) });
const row = (list: readonly (string | number)[], width: number) => fc.array(fc.oneof(cell(list), fc.constant(null)), { minLength: 1, maxLength: width });
/** A row of one cell (a title or a footnote) padded with empty cells, as Excel exports it. */
const oneCell = (list: readonly string[], width: number) => fc.tuple(cell(list), fc.boolean()).map(([c, padded]): Row => (padded ? [c, ...Array(width - 1).fill(null)] : [c]));

/** A sheet: titles, blank rows, a header, maybe units, data, footnotes. */
const sheet: fc.Arbitrary<Row[]> = fc.integer({ min: 1, max: 5 }).chain((width) =>
  fc
    .tuple(
      fc.array(oneCell(TITLES, width), { maxLength: 3 }),
      fc.array(fc.constant(Array(width).fill(null) as Row), { maxLength: 2 }),
      // mostly a header that names its structure first, so that most tables are read
      fc.tuple(fc.constantFrom('SMILES', 'Structure (SMILES)', 'Name', ''), row(HEADERS, width)).map(([first, rest]): Row => [first, ...rest]),
      fc.option(row(UNITS, width), { nil: undefined }),
      fc.array(
        fc.tuple(fc.constantFrom('CCO', 'c1ccccc1', 'O', 'ethanol'), row(VALUES, width)).map(([first, rest]): Row => [first, ...rest]),
        { maxLength: 6 },
      ),
      fc.array(oneCell(FOOTNOTES, width), { maxLength: 2 }),
    )
    .map(([titles, blanks, header, units, data, notes]) => [...titles, ...blanks, header, ...(units ? [units] : []), ...data, ...notes]),
);

const QUERIES = ['', '', '', '?header_row=1', '?header_row=3', '?header_row=99', '?header_row=0', '?header_row=x', '?header_row=2.5', '?header_row=%20'];

const csvCell = (v: string | number | null) => (v === null ? '' : typeof v === 'number' ? String(v) : /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const csvOf = (rows: Row[]) => `${rows.map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`;

async function workbookOf(rows: Row[]): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook();
  const ws = book.addWorksheet('sheet');
  rows.forEach((r, i) => {
    r.forEach((v, j) => {
      if (v !== null) ws.getCell(i + 1, j + 1).value = v;
    });
  });
  return new Uint8Array(await book.xlsx.writeBuffer());
}

/** A few workbooks of such sheets (made once: a workbook is written asynchronously). */
const WORKBOOKS = await Promise.all(fc.sample(sheet, { numRuns: 12, seed: 55 }).map(workbookOf));

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export function sheetShapeTargets(): FuzzTarget[] {
  return [
    {
      name: 'sheet shapes (CSV: titles, blank rows, header with line breaks, units row, footnotes)',
      input: fc
        .tuple(sheet, fc.constantFrom(...QUERIES), fc.constantFrom('/dataset', '/dataset', '/dataset', '/dataset/preview'))
        .map(([rows, query, path]): FuzzRequest => ({ method: 'POST', path: `${path}${query}`, contentType: 'text/csv', body: csvOf(rows) })),
    },
    {
      name: 'sheet shapes (XLSX)',
      input: fc
        .tuple(fc.constantFrom(...WORKBOOKS), fc.constantFrom(...QUERIES), fc.constantFrom('/dataset', '/dataset', '/dataset', '/dataset/preview'))
        .map(([body, query, path]): FuzzRequest => ({ method: 'POST', path: `${path}${query}`, contentType: XLSX, body })),
    },
  ];
}
