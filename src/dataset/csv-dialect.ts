import { badRequest } from '../core/errors.ts';

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

/** Lines looked at to find the separator and the decimal mark. */
const SAMPLE_LINES = 50;

/** Decode a delimited file and find its dialect; what a request gives is taken as it is. */
export function decodeTable(body: Buffer, overrides: DialectOverrides = {}): DecodedTable {
  const guesses: string[] = [];
  const { encoding, bomLength, guessed } = encodingOf(body, overrides.encoding);
  if (guessed && encoding !== 'utf-8') guesses.push(`the file was read as ${ENCODING_NAMES[encoding]}${encoding === 'windows-1252' ? ' (it is not UTF-8)' : ''}`);
  let text: string;
  try {
    text = new TextDecoder(encoding, { fatal: true }).decode(body.subarray(bomLength));
  } catch {
    throw badRequest(`the file cannot be decoded as ${ENCODING_NAMES[encoding]}${overrides.encoding ? '' : '; give its encoding with encoding= (utf-8, utf-16le, utf-16be, windows-1252)'}`);
  }
  const sample = sampleLines(text);
  const delimiter = overrides.delimiter !== undefined ? delimiterOf(overrides.delimiter) : guessDelimiter(sample);
  if (overrides.delimiter === undefined && delimiter !== ',') guesses.push(`columns are separated by ${DELIMITER_NAMES[delimiter]}`);
  const decimal = overrides.decimal !== undefined ? decimalOf(overrides.decimal, delimiter) : guessDecimal(sample, delimiter);
  if (overrides.decimal === undefined && decimal === ',') guesses.push('numbers are written with a decimal comma (1,5 is read as 1.5)');
  return { text, dialect: { encoding, delimiter, decimal }, guesses };
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

function isUtf8(body: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(body);
    return true;
  } catch {
    return false;
  }
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

/** The first non-empty lines of a text (a quoted field over several lines counts as lines of its own: a sample only). */
function sampleLines(text: string): string[] {
  const lines: string[] = [];
  let at = 0;
  while (lines.length < SAMPLE_LINES && at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end).replace(/\r$/, '');
    if (line.trim()) lines.push(line);
    at = end + 1;
  }
  return lines;
}

/** The fields of a line split by `delimiter` outside double quotes. */
function fieldsOf(line: string, delimiter: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (const c of line) {
    if (c === '"') quoted = !quoted;
    else if (c === delimiter && !quoted) {
      fields.push(field);
      field = '';
      continue;
    }
    field += c;
  }
  fields.push(field);
  return fields;
}

/**
 * The separator that splits the header and (nearly) every sampled line into the same number of
 * fields, more than one; of several, the preferred one (DELIMITER_PREFERENCE); none: the comma.
 */
function guessDelimiter(lines: string[]): string {
  if (!lines.length) return ',';
  const fits = DELIMITER_PREFERENCE.filter((d) => {
    const width = fieldsOf(lines[0], d).length;
    if (width < 2) return false;
    const same = lines.filter((l) => fieldsOf(l, d).length === width).length;
    return same >= Math.max(1, Math.ceil(0.9 * lines.length));
  });
  return fits[0] ?? ',';
}

/** A number written with a decimal comma (`-1,5`, `1.234,5`, `2,1E-3`). */
const DECIMAL_COMMA_NUMBER = /^[-+]?(\d{1,3}(\.\d{3})+|\d+),\d+([eE][-+]?\d+)?$/;
/** A number written with a decimal point. */
const DECIMAL_POINT_NUMBER = /^[-+]?(\d+\.\d*|\.\d+)([eE][-+]?\d+)?$/;

/** A decimal comma when, with another separator than the comma, the sampled fields hold numbers with commas and none with points. */
function guessDecimal(lines: string[], delimiter: string): '.' | ',' {
  if (delimiter === ',') return '.';
  let commas = 0;
  let points = 0;
  for (const line of lines.slice(1)) {
    for (const raw of fieldsOf(line, delimiter)) {
      const field = raw.trim().replace(/^"(.*)"$/, '$1');
      if (DECIMAL_COMMA_NUMBER.test(field)) commas++;
      else if (DECIMAL_POINT_NUMBER.test(field)) points++;
    }
  }
  return commas > 0 && commas >= points * 9 ? ',' : '.';
}

/** A cell's text as a number would read it: `1.234,5` → `1234.5` under a decimal comma; anything else as it is. */
export function withDecimalPoint(cell: string, decimal: '.' | ','): string {
  if (decimal === '.') return cell;
  const text = cell.trim();
  return DECIMAL_COMMA_NUMBER.test(text) ? text.replace(/\./g, '').replace(',', '.') : cell;
}
