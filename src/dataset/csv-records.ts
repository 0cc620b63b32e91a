import { badRequest } from '../core/errors.ts';
import { TimeSlices } from '../core/time-slices.ts';
import { CELL_MAX_CHARS, cellAt, checkCells, checkColumns, TABLE_MAX_CELLS, TABLE_MAX_COLUMNS, tooLongCell } from './table-limits.ts';

/**
 * The records of a delimited text (CSV, TSV, Excel's `;` files), read in one pass that never
 * holds the event loop: it hands the loop back (TimeSlices) every few thousand characters, and
 * it measures each value before it makes a string of it, so that a value of 45 MiB is refused
 * after its first CELL_MAX_CHARS characters, a record of 300,000 columns after its first
 * TABLE_MAX_COLUMNS, and a file of too many cells at the first cell too many (table-limits.ts).
 *
 * What is read is what Excel and RFC 4180 write: a value in double quotes may hold separators,
 * line breaks and doubled quotes (`""`); whitespace around a value is not part of it; records end
 * at `\r\n`, `\n` or `\r` outside quotes; empty and blank lines are no records. A quote inside
 * an unquoted value, text after a closing quote and a quote never closed are errors (400), as
 * they were with csv-parse, which this replaces.
 */

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** Whitespace around a value (what String.prototype.trim removes, for the characters a table holds). */
function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0b || c === 0x0c || c === 0xa0 || c === 0xfeff || (c >= 0x2000 && c <= 0x200a) || c === 0x3000;
}

/** Characters read between two looks at the clock (TimeSlices decides whether to yield). */
const CHARS_PER_LOOK = 16 * 1024;
/** Records handed on together (one promise per batch, not per record). */
const RECORDS_PER_BATCH = 256;

/** How records are named in errors: `row 3, column 2 ("LC50")` of `the CSV`. */
export interface RecordNames {
  /** What a record is called (`row`, `line`). */
  unit?: string;
  /** The number of the first record (1: the header). */
  firstRow?: number;
  /** The column titles (by default the first record's). */
  header?: string[];
  /** What cannot be read (`the CSV`, `the ARFF`). */
  what?: string;
}

/**
 * The records of `text` separated by `delimiter`, in batches. Records are numbered from 1 (the
 * header) as errors name them ("row 3"); blank lines are not counted.
 */
export async function* csvRecords(text: string, delimiter: string, names: RecordNames = {}): AsyncGenerator<string[][]> {
  const { unit = 'row', what = 'the CSV' } = names;
  const d = delimiter.charCodeAt(0);
  const n = text.length;
  const slices = new TimeSlices();
  let batch: string[][] = [];
  let fields: string[] = [];
  let row = names.firstRow ?? 1;
  let cells = 0;
  let lookAt = CHARS_PER_LOOK;
  let i = 0;
  let header = names.header;
  const where = () => cellAt(unit, row, fields.length + 1, header?.[fields.length]);
  for (;;) {
    // a value: whitespace, then a quoted or a plain value
    const start = i;
    let c = 0;
    while (i < n && isBlank((c = text.charCodeAt(i))) && c !== d) {
      if (++i - start > CELL_MAX_CHARS) throw badRequest(tooLongCell(where()));
    }
    let value: string;
    let quoted = false;
    if (i < n && text.charCodeAt(i) === QUOTE) {
      quoted = true;
      value = '';
      let from = i + 1;
      for (;;) {
        const q = text.indexOf('"', from);
        if (value.length + ((q < 0 ? n : q) - from) > CELL_MAX_CHARS) throw badRequest(tooLongCell(where()));
        if (q < 0) throw badRequest(`${what} cannot be read: the quote that opens ${where()} is never closed`);
        if (text.charCodeAt(q + 1) === QUOTE) {
          value += text.slice(from, q + 1);
          from = q + 2;
          continue;
        }
        value += text.slice(from, q);
        i = q + 1;
        break;
      }
      const after = i;
      while (i < n && isBlank((c = text.charCodeAt(i))) && c !== d) {
        if (++i - after > CELL_MAX_CHARS) throw badRequest(tooLongCell(where()));
      }
      if (i < n && c !== d && c !== LF && c !== CR)
        throw badRequest(`${what} cannot be read: ${where()} has ${JSON.stringify(text[i])} after its closing quote (a quote inside a value is written "")`);
    } else {
      const from = i;
      const end = Math.min(n, from + CELL_MAX_CHARS + 1);
      while (i < end) {
        c = text.charCodeAt(i);
        if (c === d || c === LF || c === CR) break;
        if (c === QUOTE) throw badRequest(`${what} cannot be read: ${where()} has a quote inside a value that does not start with one (quote the whole value and write the quote as "")`);
        i++;
      }
      if (i - from > CELL_MAX_CHARS) throw badRequest(tooLongCell(where()));
      value = text.slice(from, i).trimEnd();
    }
    fields.push(value);
    if (fields.length > TABLE_MAX_COLUMNS) checkColumns(fields.length, `${unit} ${row}`, true);
    if (cells + fields.length > TABLE_MAX_CELLS) checkCells(cells + fields.length);
    // the separator: another value follows
    if (i < n && text.charCodeAt(i) === d) {
      i++;
      if (i >= lookAt) {
        lookAt = i + CHARS_PER_LOOK;
        await slices.pause();
      }
      continue;
    }
    // a line break or the end: the record ends (a blank line is none)
    if (i < n) i += text.charCodeAt(i) === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    if (fields.length > 1 || quoted || fields[0] !== '') {
      cells += fields.length;
      header ??= fields;
      batch.push(fields);
      row++;
    }
    fields = [];
    if (i >= n) break;
    if (batch.length >= RECORDS_PER_BATCH || i >= lookAt) {
      lookAt = i + CHARS_PER_LOOK;
      if (batch.length) yield batch;
      batch = [];
      await slices.pause();
    }
  }
  if (batch.length) yield batch;
}
