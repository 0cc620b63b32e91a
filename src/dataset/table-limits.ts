import { badRequest } from '../core/errors.ts';
import { nonXmlCharProblem } from '../core/xml-chars.ts';

/**
 * How large an uploaded table may be, in one place. Every reader (CSV/TSV, workbooks, SDF,
 * ARFF, RDF) checks its table against these while it reads the file, and the upload and its
 * preview open tables the same way (dataset-input.ts, openTable), so both accept and refuse
 * the same tables with the same words, before a task is started or anything is stored. What is
 * beyond them answers 400 with an ot:ErrorReport that names the limit and where it was passed.
 */

/** Columns of a table, its structure column counted: room for a 4,096-bit fingerprint or any common descriptor set with its identifiers. */
export const TABLE_MAX_COLUMNS = 5_000;
/** Cells of a table, the header's and the empty ones counted (rows × columns): 10,000 rows of 200 columns. */
export const TABLE_MAX_CELLS = 2_000_000;
/**
 * Characters of one cell or header: three times what Excel itself holds in a cell (32,767), far
 * below what the store writes as one term (1,679,616 characters, RDF's escapes and a datatype
 * included).
 */
export const CELL_MAX_CHARS = 100_000;
/** Characters of one structure record of an SD file (a molfile of some 5,000 atoms; structures in a table's cells are cells). */
export const STRUCTURE_MAX_CHARS = 500_000;

/** Why a cell's (or a header's) text cannot be stored: too long, or a character RDF/XML cannot carry; undefined when it can be. */
export function cellProblem(text: string, where: string, maxChars = CELL_MAX_CHARS): string | undefined {
  if (text.length > maxChars) return tooLongCell(where, text.length, maxChars);
  return nonXmlCharProblem(text, where);
}

/** 400 when a cell's text cannot be stored (cellProblem). */
export function checkCell(text: string, where: string, maxChars = CELL_MAX_CHARS): void {
  const problem = cellProblem(text, where, maxChars);
  if (problem) throw badRequest(problem);
}

/** The words for a cell over the length limit (`chars` undefined: it was not read to its end). */
export function tooLongCell(where: string, chars?: number, maxChars = CELL_MAX_CHARS): string {
  return `${where} holds ${chars === undefined ? `more than ${maxChars}` : chars} characters; a cell may hold at most ${maxChars}`;
}

/** Where a cell is, as every message says it: `row 3, column 2 ("LC50")`. */
export function cellAt(unit: string, row: number, column: number, title?: string): string {
  return `${unit} ${row}, column ${column}${title ? ` (${JSON.stringify(title.length > 40 ? `${title.slice(0, 40)}…` : title)})` : ''}`;
}

/** 400 when a table (or one of its rows) has more columns than TABLE_MAX_COLUMNS (`partial`: counted so far, "more than"). */
export function checkColumns(columns: number, where = 'the table', partial = false): void {
  if (columns > TABLE_MAX_COLUMNS)
    throw badRequest(`${where} has ${partial ? `more than ${TABLE_MAX_COLUMNS}` : columns} columns; a table may have at most ${TABLE_MAX_COLUMNS} (its structure column counted)`);
}

/** 400 when a table has more cells than TABLE_MAX_CELLS (`cells` may be a count so far: "more than"). */
export function checkCells(cells: number): void {
  if (cells > TABLE_MAX_CELLS) throw badRequest(`the table has more than ${TABLE_MAX_CELLS} cells (rows × columns, the header's counted); split it into several uploads`);
}

/** What a table without rows is told: the upload and the preview say the same. */
export const NO_ROWS = 'the table has a header and no rows: there is nothing to store';

/**
 * The columns of a table that are read, by the header and by how many rows hold a value in each
 * (`valueRows`, with the first such row in `firstValueRow`): a column without a header is
 * read only when two rows or more hold a value in it. A column with neither is no column (a
 * trailing separator, a formatted cell); a column without a header whose only value is one
 * stray cell (XFD1048576) is left out with a note, so that it does not make a feature.
 */
export function readColumns(header: string[], valueRows: number[], firstValueRow: number[], name: (column: number, row: number) => string): { keep: number[]; notes: string[] } {
  const keep: number[] = [];
  const notes: string[] = [];
  const width = Math.max(header.length, valueRows.length);
  for (let i = 0; i < width; i++) {
    if ((header[i] ?? '').trim() || (valueRows[i] ?? 0) >= 2) keep.push(i);
    else if (valueRows[i] === 1) notes.push(`${name(i, firstValueRow[i])} holds the only value of a column without a header: it is left out`);
  }
  return { keep, notes };
}
