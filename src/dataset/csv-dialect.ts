import { isUtf8 } from 'node:buffer';
import { badRequest } from '../core/errors.ts';
import { TimeSlices } from '../core/time-slices.ts';
import { firstNonXmlChar } from '../core/xml-chars.ts';

/**
 * How a delimited text file was written: its encoding, its column separator and its decimal
 * mark. Excel on a German or French Windows machine writes `;`, decimal commas and
 * Windows-1252; its "Unicode text" is UTF-16 with tabs.
 */
export interface CsvDialect {
  encoding: CsvEncoding;
  delimiter: string;
  decimal: '.' | ',';
}

export type CsvEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/** What a request may say instead of letting the file be examined (`encoding=`, `delimiter=`, `decimal=`). */
export interface DialectOverrides {
  encoding?: string;
  delimiter?: string;
  decimal?: string;
}

/** A file decoded by its dialect, with what was guessed (for the upload's warnings). */
export interface DecodedTable {
  text: string;
  dialect: CsvDialect;
  /** Every guess that is not the plain default (UTF-8, `,`, `.`), said in words. */
  guesses: string[];
  /**
   * Whether the text may hold a character XML cannot carry (xml-chars.ts): looked for slice by
   * slice as it was decoded, so a surrogate pair split between two slices makes it true too;
   * false means there is none.
   */
  mayHoldNonXml: boolean;
}

const ENCODINGS: Record<string, CsvEncoding> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'utf-16le': 'utf-16le',
  'utf-16be': 'utf-16be',
  'utf-16': 'utf-16le',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
  'iso-8859-1': 'windows-1252',
  latin1: 'windows-1252',
  'latin-1': 'windows-1252',
};
const ENCODING_NAMES: Record<CsvEncoding, string> = { 'utf-8': 'UTF-8', 'utf-16le': 'UTF-16 LE', 'utf-16be': 'UTF-16 BE', 'windows-1252': 'Windows-1252' };

const DELIMITERS: Record<string, string> = { ',': ',', comma: ',', ';': ';', semicolon: ';', '\t': '\t', tab: '\t', '\\t': '\t', '|': '|', pipe: '|' };
/** When several separators would split every line alike, the one Excel and tools write least by accident wins: tab, then `;` (a `;` file's decimal commas also split), then `,`, then `|`. */
const DELIMITER_PREFERENCE = ['\t', ';', ',', '|'];
const DELIMITER_NAMES: Record<string, string> = { ',': 'commas', ';': 'semicolons', '\t': 'tabs', '|': 'vertical bars' };

/** Records looked at to find the separator and the decimal mark (whole records, quotes respected), and the most text read for them. */
const SAMPLE_RECORDS = 1000;
const SAMPLE_CHARS = 256 * 1024;

/**
 * Decode a delimited file and find its dialect; what a request gives is taken as it is. The
 * file is decoded a slice at a time, handing the event loop back between slices.
 */
export async function decodeTable(body: Buffer, overrides: DialectOverrides = {}): Promise<DecodedTable> {
  const guesses: string[] = [];
  const { encoding, bomLength, guessed } = encodingOf(body, overrides.encoding);
  if (guessed && encoding !== 'utf-8') guesses.push(`the file was read as ${ENCODING_NAMES[encoding]}${encoding === 'windows-1252' ? ' (it is not UTF-8)' : ''}`);
  let decoded: { text: string; mayHoldNonXml: boolean };
  try {
    decoded = await decodeInSlices(body.subarray(bomLength), encoding);
  } catch {
    throw badRequest(`the file cannot be decoded as ${ENCODING_NAMES[encoding]}${overrides.encoding ? '' : '; give its encoding with encoding= (utf-8, utf-16le, utf-16be, windows-1252)'}`);
  }
  const { text, mayHoldNonXml } = decoded;
  const sample = sampleRecords(text);
  const delimiter = overrides.delimiter !== undefined ? delimiterOf(overrides.delimiter) : guessDelimiter(sample);
  if (overrides.delimiter === undefined && delimiter !== ',') guesses.push(`columns are separated by ${DELIMITER_NAMES[delimiter]}`);
  const decimal = overrides.decimal !== undefined ? decimalOf(overrides.decimal, delimiter) : guessDecimal(sample, delimiter);
  if (overrides.decimal === undefined && decimal === ',') guesses.push('numbers are written with a decimal comma (1,5 is read as 1.5)');
  return { text, dialect: { encoding, delimiter, decimal }, guesses, mayHoldNonXml };
}

/** Bytes decoded between two looks at the clock (a MiB of UTF-8 decodes in about a millisecond). */
const DECODED_PER_SLICE = 1024 * 1024;

async function decodeInSlices(bytes: Buffer, encoding: CsvEncoding): Promise<{ text: string; mayHoldNonXml: boolean }> {
  const parts: string[] = [];
  const decoder = encoding === 'windows-1252' ? undefined : new TextDecoder(encoding, { fatal: true });
  const slices = new TimeSlices();
  let mayHoldNonXml = false;
  const add = (part: string) => {
    parts.push(part);
    mayHoldNonXml ||= firstNonXmlChar(part) >= 0;
  };
  for (let at = 0; at < bytes.length; at += DECODED_PER_SLICE) {
    const slice = bytes.subarray(at, at + DECODED_PER_SLICE);
    add(decoder ? decoder.decode(slice, { stream: true }) : fromWindows1252(slice));
    await slices.pause();
  }
  if (decoder) add(decoder.decode());
  return { text: parts.join(''), mayHoldNonXml };
}

function encodingOf(body: Buffer, given: string | undefined): { encoding: CsvEncoding; bomLength: number; guessed: boolean } {
  const bom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 'utf-8' : body[0] === 0xff && body[1] === 0xfe ? 'utf-16le' : body[0] === 0xfe && body[1] === 0xff ? 'utf-16be' : undefined;
  const bomLength = bom === 'utf-8' ? 3 : bom ? 2 : 0;
  if (given !== undefined) {
    const encoding = ENCODINGS[given.trim().toLowerCase()];
    if (!encoding) throw badRequest(`encoding: unknown encoding ${JSON.stringify(given)}; use utf-8, utf-16le, utf-16be or windows-1252`);
    return { encoding, bomLength: bom === encoding ? bomLength : 0, guessed: false };
  }
  if (bom) return { encoding: bom, bomLength, guessed: true };
  const utf16 = utf16WithoutBom(body);
  if (utf16) return { encoding: utf16, bomLength: 0, guessed: true };
  return { encoding: isUtf8(body) ? 'utf-8' : 'windows-1252', bomLength: 0, guessed: true };
}

/** UTF-16 without a byte-order mark: text in the Latin range has a zero byte in every other place. */
function utf16WithoutBom(body: Buffer): CsvEncoding | undefined {
  const n = Math.min(body.length, 4096) & ~1;
  if (n < 4) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < n; i += 2) {
    if (body[i] === 0) evenZeros++;
    if (body[i + 1] === 0) oddZeros++;
  }
  const pairs = n / 2;
  if (oddZeros > 0.4 * pairs && evenZeros < 0.05 * pairs) return 'utf-16le';
  if (evenZeros > 0.4 * pairs && oddZeros < 0.05 * pairs) return 'utf-16be';
  return undefined;
}

function delimiterOf(given: string): string {
  const delimiter = DELIMITERS[given] ?? DELIMITERS[given.trim().toLowerCase()];
  if (!delimiter) throw badRequest(`delimiter: ${JSON.stringify(given)} is not a column separator; use , ; tab or |`);
  return delimiter;
}

function decimalOf(given: string, delimiter: string): '.' | ',' {
  const decimal = given.trim();
  if (decimal !== '.' && decimal !== ',') throw badRequest(`decimal: ${JSON.stringify(given)} is not a decimal mark; use . or ,`);
  if (decimal === ',' && delimiter === ',') throw badRequest('decimal: a decimal comma needs another column separator than the comma (delimiter=; or tab)');
  return decimal;
}

/** The first non-empty records of a text: a newline inside double quotes belongs to its field (a molfile, a note). */
function sampleRecords(text: string): string[] {
  const records: string[] = [];
  const end = Math.min(text.length, SAMPLE_CHARS);
  let start = 0;
  let quoted = false;
  for (let at = 0; at < end && records.length < SAMPLE_RECORDS; at++) {
    const c = text.charCodeAt(at);
    if (c === 0x22) quoted = !quoted;
    else if (c === 0x0a && !quoted) {
      const record = text.slice(start, at).replace(/\r$/, '');
      if (record.trim()) records.push(record);
      start = at + 1;
    }
  }
  // the last record, when the sample holds all of the text
  if (end === text.length && records.length < SAMPLE_RECORDS && text.slice(start).trim()) records.push(text.slice(start));
  return records;
}

/** How many fields `delimiter` splits a record into, outside double quotes (counted, no strings made). */
function widthOf(record: string, delimiter: string): number {
  const d = delimiter.charCodeAt(0);
  let width = 1;
  let quoted = false;
  for (let i = 0; i < record.length; i++) {
    const c = record.charCodeAt(i);
    if (c === 0x22) quoted = !quoted;
    else if (c === d && !quoted) width++;
  }
  return width;
}

/** The fields of a record split by `delimiter` outside double quotes. */
function fieldsOf(record: string, delimiter: string): string[] {
  const fields: string[] = [];
  let from = 0;
  let quoted = false;
  for (let i = 0; i < record.length; i++) {
    const c = record[i];
    if (c === '"') quoted = !quoted;
    else if (c === delimiter && !quoted) {
      fields.push(record.slice(from, i));
      from = i + 1;
    }
  }
  fields.push(record.slice(from));
  return fields;
}

/**
 * The separator that splits the header into two fields or more, and most records into as
 * many or fewer (Excel leaves out trailing empty cells); of several, the preferred one
 * (DELIMITER_PREFERENCE); none: the comma.
 */
function guessDelimiter(records: string[]): string {
  if (!records.length) return ',';
  const fits = DELIMITER_PREFERENCE.filter((d) => {
    const width = widthOf(records[0], d);
    if (width < 2) return false;
    const rows = records.slice(1);
    const alike = rows.filter((r) => {
      const w = widthOf(r, d);
      return w >= 2 && w <= width;
    }).length;
    return alike >= Math.ceil(0.8 * rows.length);
  });
  return fits[0] ?? ',';
}

/** A number written with a decimal comma (`-1,5`, `1.234,5`, `2,1E-3`). */
const DECIMAL_COMMA_NUMBER = /^[-+]?(\d{1,3}(\.\d{3})+|\d+),\d+([eE][-+]?\d+)?$/;
/** A whole number with points between its thousands (`1.234`, `12.345.678`): whole under a decimal comma, ambiguous as a sign of a point. */
const THOUSANDS_NUMBER = /^[-+]?\d{1,3}(\.\d{3})+$/;
/** A number written with a decimal point. */
const DECIMAL_POINT_NUMBER = /^[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A decimal comma when, with another separator than the comma, the sampled fields hold numbers with commas and (nearly) none with points. */
function guessDecimal(records: string[], delimiter: string): '.' | ',' {
  if (delimiter === ',') return '.';
  let commas = 0;
  let points = 0;
  for (const record of records.slice(1)) {
    for (const raw of fieldsOf(record, delimiter)) {
      const field = raw.trim().replace(/^"(.*)"$/, '$1');
      if (DECIMAL_COMMA_NUMBER.test(field)) commas++;
      else if (DECIMAL_POINT_NUMBER.test(field) && !THOUSANDS_NUMBER.test(field)) points++;
    }
  }
  return commas > 0 && commas >= points * 9 ? ',' : '.';
}

/** A cell's text as a number would read it: `1.234,5` → `1234.5` and `1.234` → `1234` under a decimal comma; anything else as it is. */
export function withDecimalPoint(cell: string, decimal: '.' | ','): string {
  if (decimal === '.') return cell;
  const text = cell.trim();
  if (DECIMAL_COMMA_NUMBER.test(text)) return text.replace(/\./g, '').replace(',', '.');
  if (THOUSANDS_NUMBER.test(text)) return text.replace(/\./g, '');
  return cell;
}

/**
 * What Windows-1252 writes at 0x80–0x9F (€ ‚ ƒ „ … † ‡ ˆ ‰ Š ‹ Œ Ž ‘ ’ “ ” • – — ˜ ™ š › œ ž Ÿ; the
 * five it leaves undefined stay the C1 controls, as the WHATWG decoder reads them). Node 26's
 * TextDecoder does this itself; Node 24's reads Latin-1 there, so the table is ours.
 */
const WINDOWS_1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122,
  0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function fromWindows1252(bytes: Buffer): string {
  return bytes.toString('latin1').replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]));
}
