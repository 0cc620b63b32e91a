import { PassThrough, type Readable } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import type ExcelJS from 'exceljs';
import { findHeader, footnoteNote, HEADER_SEARCH_ROWS, isFootnote, unitsNote, unitsRow } from './sheet-shape.ts';
import { cellProblem, checkCells, readColumns, TABLE_MAX_CELLS, TABLE_MAX_COLUMNS } from './table-limits.ts';

// Excel workbooks in and out (exceljs). Reading runs on the worker pool (a workbook is parsed
// whole); what crosses back to the main thread is plain data.

export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A cell as read: text, a number, a truth value, a date (`YYYY-MM-DD` or an ISO instant), or empty. */
export type SheetCell = string | number | boolean | { date: string } | null;

/** The first (or the named) sheet of a workbook: its header row, its rows by their Excel row numbers, and what was noticed. */
export type SheetTable =
  | {
      sheet: string;
      header: string[];
      rows: { line: number; cells: SheetCell[] }[];
      notes: string[];
      /** The units of each column, from a units row under the header (sheet-shape.ts). */
      units?: (string | undefined)[];
      /** Titles and units of the columns after the first, as a workbook this server wrote describes them (its `metadata` sheet). */
      described?: { title: string; units?: string }[];
    }
  | { error: string; status: 400 | 413 };

/**
 * Parts of a sheet that exceljs is not asked to read: nothing here needs them, and some of them
 * it lays out one cell or one column at a time (a data validation over A1:XFD1048576 is 17
 * billion steps, `<col min="1" max="1000000000">` a billion columns).
 */
const IGNORED_NODES = [
  'cols',
  'dataValidations',
  'conditionalFormatting',
  'hyperlinks',
  'autoFilter',
  'rowBreaks',
  'drawing',
  'picture',
  'tableParts',
  'extLst',
  'sheetProtection',
  'pageSetup',
  'headerFooter',
  'printOptions',
  'pageMargins',
];

/** Worker entry: read a workbook's sheet (what is wrong with it comes back as `error`, for a 400 or a 413). */
export async function readWorkbook(body: Uint8Array, sheetName?: string, headerRow?: number): Promise<SheetTable> {
  // the parts are inflated once against the limit before exceljs inflates them whole: a
  // directory that lies about its sizes stops here, at the limit; and what exceljs would lay out
  // cell by cell (merged cells, named ranges) is measured in their XML before it does
  let laidOut = 0;
  const unpacked = inflatedSize(body, XLSX_MAX_UNPACKED, (name, xml) => {
    laidOut += laidOutCells(name, xml);
  });
  if (unpacked === 'too large') return { error: `the workbook unpacks to more than ${XLSX_MAX_UNPACKED / 1024 / 1024} MiB`, status: 413 };
  if (unpacked === undefined) return { error: 'the file is not an Excel workbook (.xlsx): its zip archive cannot be read', status: 400 };
  if (laidOut > TABLE_MAX_CELLS)
    return { error: `the workbook's merged cells and named ranges cover ${laidOut} cells; they may cover at most ${TABLE_MAX_CELLS} (its reader lays them out one by one)`, status: 400 };
  const book = new (await loadExcel()).Workbook();
  try {
    await book.xlsx.load(Buffer.from(body.buffer, body.byteOffset, body.byteLength) as never, { ignoreNodes: IGNORED_NODES } as never);
  } catch (e) {
    return { error: `the file is not an Excel workbook (.xlsx): ${(e as Error).message.slice(0, 200)}`, status: 400 };
  }
  const sheets = book.worksheets;
  if (!sheets.length) return { error: 'the workbook has no sheets', status: 400 };
  const sheet = sheetName === undefined ? sheets[0] : sheets.find((s) => s.name === sheetName);
  if (!sheet) return { error: `sheet: the workbook has no sheet ${JSON.stringify(sheetName)} (it has ${sheets.map((s) => JSON.stringify(s.name)).join(', ')})`, status: 400 };
  const notes: string[] = [];
  if (sheetName === undefined && sheets.length > 1) notes.push(`the first sheet (${sheet.name}) of ${sheets.length} was read; name another with sheet=`);
  const grid = filledRows(sheet, notes);
  if ('error' in grid) return { error: grid.error, status: 400 };
  if (!grid.length) return { error: `sheet ${sheet.name} is empty`, status: 400 };
  // the header under any title rows, a units row under it, footnotes after the data (sheet-shape.ts)
  let shape: ReturnType<typeof sheetShape>;
  try {
    shape = sheetShape(grid, headerRow);
  } catch (e) {
    return { error: (e as Error).message, status: 400 };
  }
  notes.push(...shape.notes);
  const first = grid[shape.header];
  const rest = grid.slice(shape.header + (shape.units ? 2 : 1), shape.end);
  // the used range, from the cells themselves (a sheet's own <dimension> may say anything): the
  // columns with a header or a value, of which those without a header and with a value in one
  // row only are left out (readColumns); empty columns between them are no columns at all
  const valueRows = new Map<number, number>();
  const firstValueRow = new Map<number, number>();
  for (const r of rest) {
    for (const c of r.cells.keys()) {
      valueRows.set(c, (valueRows.get(c) ?? 0) + 1);
      if (!firstValueRow.has(c)) firstValueRow.set(c, r.line);
    }
  }
  const used = [...new Set([...first.cells.keys(), ...valueRows.keys()])].sort((a, b) => a - b);
  if (used.length > TABLE_MAX_COLUMNS)
    return { error: `sheet ${sheet.name} has a header or values in ${used.length} columns; a table may have at most ${TABLE_MAX_COLUMNS} (its structure column counted)`, status: 400 };
  const { keep, notes: left } = readColumns(
    used.map((c) => textOf(first.cells.get(c) ?? null)),
    used.map((c) => valueRows.get(c) ?? 0),
    used.map((c) => firstValueRow.get(c) ?? 0),
    (i, row) => `cell ${columnName(used[i])}${row}`,
  );
  notes.push(...left);
  const columns = keep.map((i) => used[i]);
  const rows = rest.map((r) => ({ line: r.line, cells: columns.map((c) => r.cells.get(c) ?? null) })).filter((r) => r.cells.some((v) => v !== null));
  try {
    checkCells((rows.length + 1) * columns.length);
  } catch (e) {
    return { error: (e as Error).message, status: 400 };
  }
  const header = uniqueTitles(
    columns.map((c) => textOf(first.cells.get(c) ?? null)),
    columns,
  );
  const described = sheet === sheets[0] ? describedColumns(book, columns.length - 1) : undefined;
  const units = shape.units && columns.map((c) => shape.units?.[c]);
  return { sheet: sheet.name, header, rows, notes, units, described };
}

type GridRow = { line: number; cells: Map<number, SheetCell> };

/** Where a sheet's header, units row and footnotes are: indexes into its filled rows (`end`: after the last row of data). */
function sheetShape(grid: GridRow[], headerRow?: number): { header: number; units?: (string | undefined)[]; end: number; notes: string[] } {
  const notes: string[] = [];
  const byColumn = (r: GridRow) => {
    const cells: SheetCell[] = [];
    for (const [c, v] of r.cells) cells[c] = v;
    return cells;
  };
  const head = grid.filter((r, i) => (headerRow === undefined ? i <= HEADER_SEARCH_ROWS : r.line <= headerRow)).map((r) => ({ line: r.line, cells: byColumn(r) }));
  const { at, note } = findHeader(head, headerRow);
  if (note) notes.push(note);
  const next = grid[at + 1];
  const units = next && unitsRow(head[at].cells, byColumn(next));
  if (units) notes.push(unitsNote(next.line));
  let end = grid.length;
  const start = at + (units ? 2 : 1);
  while (end > start && isFootnote(byColumn(grid[end - 1]), head[at].cells)) end--;
  if (end < grid.length) notes.push(footnoteNote(grid.slice(end).map((r) => r.line)));
  return { header: at, units, end, notes };
}

/**
 * The rows of a sheet that hold a value, each with its cells that do, by column number; every
 * text checked (table-limits.ts, cellProblem), the cells counted against TABLE_MAX_CELLS.
 * exceljs's own iterations (eachRow, eachCell, dimensions) step through every position of a
 * sparse row: a row with one cell at XFD is 16,384 steps, 10,000 such rows seconds. Its rows
 * and cells are arrays by position, so they are read here by their keys, which are only the
 * positions that hold something.
 */
function filledRows(sheet: ExcelJS.Worksheet, notes: string[]): { line: number; cells: Map<number, SheetCell> }[] | { error: string } {
  type Sparse<T> = Record<string, T | undefined>;
  const rowsOf = (sheet as unknown as { _rows?: Sparse<ExcelJS.Row> })._rows;
  const cellsOf = (row: ExcelJS.Row) => (row as unknown as { _cells?: Sparse<ExcelJS.Cell> })._cells;
  const grid: { line: number; cells: Map<number, SheetCell> }[] = [];
  let count = 0;
  const take = (line: number, cells: Iterable<[number, ExcelJS.Cell]>): string | undefined => {
    let filled: Map<number, SheetCell> | undefined;
    for (const [c, cell] of cells) {
      const at = `${columnName(c)}${line}`;
      const value = cellValue(cell, at, notes);
      if (value === null || value === '') continue;
      if (typeof value === 'string') {
        const problem = cellProblem(value, `cell ${at}`);
        if (problem) return problem;
      }
      if (++count > TABLE_MAX_CELLS) return `sheet ${sheet.name} has more than ${TABLE_MAX_CELLS} cells with a value; a table may have at most ${TABLE_MAX_CELLS}`;
      (filled ??= new Map()).set(c, value);
    }
    if (filled) grid.push({ line, cells: filled });
    return undefined;
  };
  if (rowsOf && typeof rowsOf === 'object') {
    for (const key of Object.keys(rowsOf)) {
      const row = rowsOf[key];
      const cells = row && cellsOf(row);
      if (!row || !cells) continue;
      const problem = take(row.number, keyed(cells));
      if (problem) return { error: problem };
    }
    return grid;
  }
  // an exceljs that keeps its rows otherwise: its own iteration
  let problem: string | undefined;
  sheet.eachRow({ includeEmpty: false }, (row, line) => {
    const cells: [number, ExcelJS.Cell][] = [];
    row.eachCell({ includeEmpty: false }, (cell, c) => cells.push([c, cell]));
    problem ??= take(line, cells);
  });
  return problem ? { error: problem } : grid;
}

function* keyed<T>(sparse: Record<string, T | undefined>): Generator<[number, T]> {
  for (const key of Object.keys(sparse)) {
    const value = sparse[key];
    if (value) yield [Number(key) + 1, value];
  }
}

/**
 * Cells exceljs lays out one by one as it reads a part: a sheet's merged cells (each covered
 * cell is made), the workbook's named ranges (each named cell is listed); print areas and
 * titles are not.
 */
function laidOutCells(name: string, xml: Buffer): number {
  const text = () => xml.toString('latin1');
  let cells = 0;
  if (/^xl\/worksheets\/[^/]+\.xml$/.test(name)) {
    if (xml.indexOf('<mergeCell ') < 0) return 0;
    for (const m of text().matchAll(/<mergeCell\s[^>]*?\bref="([A-Z]{1,3})(\d+):([A-Z]{1,3})(\d+)"/g)) cells += areaOf(m[1], m[2], m[3], m[4]);
  } else if (name === 'xl/workbook.xml') {
    if (xml.indexOf('<definedName') < 0) return 0;
    for (const d of text().matchAll(/<definedName\s([^>]*)>([^<]*)<\/definedName>/g)) {
      if (/name="_xlnm\.Print_(Area|Titles)"/.test(d[1])) continue;
      for (const m of d[2].matchAll(/\$([A-Z]{1,3})\$(\d+):\$([A-Z]{1,3})\$(\d+)/g)) cells += areaOf(m[1], m[2], m[3], m[4]);
    }
  }
  return cells;
}

function areaOf(left: string, top: string, right: string, bottom: string): number {
  return (Math.abs(columnNumber(right) - columnNumber(left)) + 1) * (Math.abs(Number(bottom) - Number(top)) + 1);
}

/** `A` → 1, `XFD` → 16384. */
function columnNumber(name: string): number {
  let n = 0;
  for (const ch of name) n = n * 26 + ch.charCodeAt(0) - 64;
  return n;
}

/**
 * The columns as the `metadata` sheet of a workbook this server wrote describes them (title,
 * units), when it describes as many as the first sheet has after its structure: a title that
 * ends in brackets is then a title, not units.
 */
function describedColumns(book: ExcelJS.Workbook, count: number): { title: string; units?: string }[] | undefined {
  const sheet = book.getWorksheet('metadata');
  if (!sheet) return undefined;
  const rows: string[][] = [];
  sheet.eachRow({ includeEmpty: false }, (row) => rows.push(((row.values as unknown[]) ?? []).slice(1).map((v) => (v === null || v === undefined ? '' : String(v)))));
  const start = rows.findIndex((r) => r[0] === 'column' && r[1] === 'feature' && r[3] === 'units');
  const columns = start < 0 ? [] : rows.slice(start + 1);
  if (columns.length !== count) return undefined;
  return columns.map((r) => (r[3] ? { title: r[0], units: r[3] } : { title: r[0] }));
}

/** `A`, `B`, … `AA` (for warnings that name a cell). */
function columnName(c: number): string {
  let name = '';
  for (let n = c; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function textOf(cell: SheetCell): string {
  if (cell === null) return '';
  if (typeof cell === 'object') return cell.date;
  return String(cell).trim();
}

/** Header titles made unique (a merged header cell repeats its title over the columns it spans): `LC50`, `LC50 (2)`; an empty one is its column's number. */
function uniqueTitles(titles: string[], columns: number[]): string[] {
  const seen = new Map<string, number>();
  return titles.map((t, i) => {
    const title = t || `column ${columns[i]}`;
    const n = (seen.get(title) ?? 0) + 1;
    seen.set(title, n);
    return n === 1 ? title : `${title} (${n})`;
  });
}

/** A cell's value: a formula's cached result, rich text as its text, a link as its text; an error value is empty, with a note. */
function cellValue(cell: ExcelJS.Cell, at: string, notes: string[]): SheetCell {
  const v = cell.value;
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v === 'string') return v;
  if (v instanceof Date) return { date: dateText(v) };
  if ('richText' in v) return v.richText.map((r) => r.text).join('');
  if ('error' in v) {
    notes.push(`cell ${at}: the error value ${v.error} is read as empty`);
    return null;
  }
  if ('formula' in v || 'sharedFormula' in v) {
    const result = (v as { result?: unknown }).result;
    if (result === undefined || result === null) {
      notes.push(`cell ${at}: a formula without a saved result is read as empty`);
      return null;
    }
    if (typeof result === 'object' && result && 'error' in result) {
      notes.push(`cell ${at}: the formula's error ${(result as { error: string }).error} is read as empty`);
      return null;
    }
    return result instanceof Date ? { date: dateText(result) } : (result as SheetCell);
  }
  if ('text' in v) return String((v as { text: unknown }).text);
  return String(v);
}

/** A date as its day when it has no time of day, else as an instant. */
function dateText(d: Date): string {
  const iso = d.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

/** A sheet to write: its name and its rows (a number is written as a number). */
export interface SheetToWrite {
  name: string;
  rows: AsyncIterable<(string | number | undefined)[][]> | (string | number | undefined)[][];
  /** Column widths, in characters. */
  widths?: number[];
}

/**
 * A workbook written as it is read from `sheets` (exceljs's streaming writer: one chunk of
 * rows in memory at a time, the main thread handed back between chunks).
 */
export function writeWorkbook(sheets: SheetToWrite[]): Readable {
  const out = new PassThrough();
  void (async () => {
    try {
      const book = new (await loadExcel()).stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
      book.creator = 'ToxGraph';
      for (const s of sheets) {
        const sheet = book.addWorksheet(s.name);
        if (s.widths) sheet.columns = s.widths.map((width) => ({ width }));
        let first = true;
        for await (const chunk of Symbol.asyncIterator in s.rows ? (s.rows as AsyncIterable<(string | number | undefined)[][]>) : [s.rows as (string | number | undefined)[][]]) {
          // a client gone: the rest is not read; a slow one: no more is made until it has read
          if (out.destroyed) return;
          while (out.readableLength > BUFFERED_BYTES && !out.destroyed) await new Promise((resolve) => setTimeout(resolve, 10));
          for (const values of chunk) {
            const row = sheet.addRow(values.map((v) => (v === undefined ? null : v)));
            if (first) row.font = { bold: true };
            first = false;
            row.commit();
          }
          await new Promise((resolve) => setImmediate(resolve));
        }
        sheet.commit();
      }
      await book.commit();
    } catch (e) {
      out.destroy(e as Error);
    }
  })();
  return out;
}

/** exceljs, loaded when the first workbook is read or written, not when the server starts. */
export const loadExcel = (): Promise<typeof ExcelJS> => import('exceljs').then((m) => m.default);

/** The most a workbook may unpack to (its XML parts together; exceljs holds about 20 times a sheet's XML while it reads it): a zip bomb is refused before it is opened. */
export const XLSX_MAX_UNPACKED = 64 * 1024 * 1024;

/** What one Excel sheet holds: 2^20 rows (one of them the header) and 2^14 columns. */
export const SHEET_MAX_ROWS = 1_048_575;
export const SHEET_MAX_COLUMNS = 16_384;

/** Why rows of `columns` columns (the SMILES column counted) do not fit one sheet, or undefined when they do. */
export function sheetTooLarge(rows: number, columns: number): string | undefined {
  if (rows <= SHEET_MAX_ROWS && columns <= SHEET_MAX_COLUMNS) return undefined;
  return `${rows} rows of ${columns} columns do not fit an Excel sheet (${SHEET_MAX_ROWS} rows below its header, ${SHEET_MAX_COLUMNS} columns)`;
}

/** The most of a workbook written and not yet read by the client. */
const BUFFERED_BYTES = 1024 * 1024;

/**
 * What a zip archive says its entries unpack to (its central directory), checked before
 * anything is inflated; undefined when it is not a zip archive at all.
 */
export function unpackedSize(body: Uint8Array): number | undefined {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  // the end-of-central-directory record: within the last 64 KiB (its comment) + 22 bytes
  for (let at = body.length - 22; at >= Math.max(0, body.length - 65_557); at--) {
    if (view.getUint32(at, true) !== 0x06054b50) continue;
    const entries = view.getUint16(at + 10, true);
    let entry = view.getUint32(at + 16, true);
    let total = 0;
    for (let i = 0; i < entries; i++) {
      if (entry + 46 > body.length || view.getUint32(entry, true) !== 0x02014b50) return undefined;
      const size = view.getUint32(entry + 24, true);
      // ZIP64 sizes (0xFFFFFFFF) are beyond any workbook this server reads
      total += size === 0xffffffff ? Number.POSITIVE_INFINITY : size;
      entry += 46 + view.getUint16(entry + 28, true) + view.getUint16(entry + 30, true) + view.getUint16(entry + 32, true);
    }
    return total;
  }
  return undefined;
}

/**
 * What a zip archive's entries inflate to, inflating each against what is left of `limit`
 * (the entries are found by their signatures in the central directory, whatever its count
 * says): `too large` past it, undefined when it is not a zip archive that can be read.
 */
export function inflatedSize(body: Uint8Array, limit: number, look?: (name: string, data: Buffer) => void): number | 'too large' | undefined {
  const buffer = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let end = -1;
  for (let at = buffer.length - 22; at >= Math.max(0, buffer.length - 65_557); at--) {
    if (buffer.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) return undefined;
  let total = 0;
  for (let entry = buffer.readUInt32LE(end + 16); entry + 46 <= end && buffer.readUInt32LE(entry) === 0x02014b50; ) {
    const method = buffer.readUInt16LE(entry + 10);
    const compressed = buffer.readUInt32LE(entry + 20);
    const local = buffer.readUInt32LE(entry + 42);
    if (local + 30 > buffer.length || buffer.readUInt32LE(local) !== 0x04034b50) return undefined;
    const start = local + 30 + buffer.readUInt16LE(local + 26) + buffer.readUInt16LE(local + 28);
    const data = buffer.subarray(start, start + compressed);
    const name = buffer.toString('latin1', entry + 46, entry + 46 + buffer.readUInt16LE(entry + 28));
    if (method === 0) {
      total += data.length;
      look?.(name, data);
    } else if (method === 8) {
      try {
        const inflated = inflateRawSync(data, { maxOutputLength: Math.max(1, limit - total) });
        total += inflated.length;
        look?.(name, inflated);
      } catch (e) {
        if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return 'too large';
        return undefined;
      }
    } else return undefined;
    if (total > limit) return 'too large';
    entry += 46 + buffer.readUInt16LE(entry + 28) + buffer.readUInt16LE(entry + 30) + buffer.readUInt16LE(entry + 32);
  }
  return total;
}
