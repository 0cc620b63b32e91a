import { badRequest } from '../core/errors.ts';
import { roleByHeader } from './column-roles.ts';

// The shape of a table as people lay out a sheet (CSV or workbook alike): title and blank rows
// above the header, a row of units right under it, footnotes after the data. A row is its
// number (as warnings name it) and its cells by position; a cell is text, another value
// (a number, a date) or empty.

export interface ShapeRow {
  line: number;
  cells: readonly unknown[];
}

/** Rows looked at for the header (a title block is a few rows). */
export const HEADER_SEARCH_ROWS = 20;

const filled = (cells: readonly unknown[]) => cells.filter((c) => c !== undefined && c !== null && c !== '');
const texts = (cells: readonly unknown[]) => filled(cells).filter((c): c is string => typeof c === 'string');

/**
 * The header among the first rows of a table (HEADER_SEARCH_ROWS): the row `given`
 * (`header_row=`, its number), else the first row that names a structure or a name column,
 * else the first row of more than one filled cell (rows of one cell above it are titles).
 * Answers its index in `rows` and, when it is not the first row, why it was taken.
 */
export function findHeader(rows: readonly ShapeRow[], given?: number): { at: number; note?: string } {
  if (given !== undefined) {
    const at = rows.findIndex((r) => r.line === given);
    if (at < 0) throw badRequest(`header_row: the table has no row ${given} with a value (its first is row ${rows[0]?.line ?? 1})`);
    return { at, note: `row ${given} was read as the header (header_row=)` };
  }
  const first = rows.slice(0, HEADER_SEARCH_ROWS);
  const named = first.findIndex((r) => texts(r.cells).some((t) => roleByHeader(t) !== 'value'));
  if (named > 0)
    return { at: named, note: `row ${rows[named].line} was read as the header: it is the first that names a structure column (the rows above it are titles; choose another with header_row=)` };
  if (named === 0) return { at: 0 };
  const wide = first.findIndex((r) => filled(r.cells).length > 1);
  if (wide > 0) return { at: wide, note: `row ${rows[wide].line} was read as the header: the rows above it hold one cell each (titles; choose another with header_row=)` };
  return { at: 0 };
}

/** Units as a units row writes them: `[mg/L]`, `(mmol/kg)`, `mg/L`, `-`. */
const BRACKETED = /^[[(]([^[\]()]{1,30})[\])]$/;
const BARE_UNITS = /^(-|%|[pnµμumcdk]?(g|l|L|mol|M|Pa|J)(\/[pnµμumcdk]?(g|l|L|mol|M|m3|m2|kg|day|d|h))*|°C|ppm|ppb)$/;

/**
 * The units of each column when `row` (the one under `header`) is a row of units: every filled
 * cell text in brackets (`[mg/L]`, `(class)`) or units (`mg/L`, `%`, `-`), at least one not a
 * dash, and nothing under a structure column but a dash or a word in brackets (`[SMILES]`, not
 * `[Na+]`). Undefined when it is a row of data.
 */
export function unitsRow(header: readonly unknown[], row: readonly unknown[]): (string | undefined)[] | undefined {
  const units: (string | undefined)[] = [];
  let some = false;
  for (let j = 0; j < row.length; j++) {
    const cell = row[j];
    if (cell === undefined || cell === null || cell === '') continue;
    if (typeof cell !== 'string') return undefined;
    const text = cell.trim();
    const bracketed = BRACKETED.exec(text);
    const heading = header[j];
    if (typeof heading === 'string' && roleByHeader(heading) === 'structure' && text !== '-' && !(bracketed && /^[A-Za-z ]{3,}$/.test(bracketed[1]))) return undefined;
    if (!bracketed && !BARE_UNITS.test(text)) return undefined;
    if (text !== '-') some = true;
    units[j] = bracketed ? bracketed[1].trim() : text;
  }
  return some ? units : undefined;
}

/**
 * A footnote: one filled cell of text that reads as a note: marked (`* values from …`,
 * `Source: …`, `Note …`), or of several words where no structure or name is written (under a
 * structure or name column, a name of several words is a row of data).
 */
export function isFootnote(cells: readonly unknown[], header: readonly unknown[]): boolean {
  let at = -1;
  let count = 0;
  cells.forEach((c, j) => {
    if (c === undefined || c === null || c === '') return;
    count++;
    at = j;
  });
  const cell = cells[at];
  if (count !== 1 || typeof cell !== 'string') return false;
  const text = cell.trim();
  if (/^[*†‡¹²³#]|^(source|note|notes|ref|reference|data)s?\b/i.test(text)) return true;
  const heading = header[at];
  const identifies = typeof heading === 'string' && (roleByHeader(heading) === 'structure' || roleByHeader(heading) === 'name');
  return !identifies && /\S\s+\S+\s+\S/.test(text);
}

/** The note of footnote rows left out. */
export function footnoteNote(lines: number[], unit = 'row'): string {
  return `${lines.length === 1 ? `${unit} ${lines[0]}` : `${unit}s ${lines[0]}–${lines[lines.length - 1]}`} after the data ${lines.length === 1 ? 'is a footnote' : 'are footnotes'}, not read as data`;
}

/** The note of a units row read. */
export function unitsNote(line: number, unit = 'row'): string {
  return `${unit} ${line}, under the header, was read as the columns' units`;
}

/** `header_row=`: a row number (from 1), or undefined when not given. */
export function headerRowOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw badRequest(`header_row: ${JSON.stringify(value.slice(0, 20))} is not a row number (from 1)`);
  return n;
}
