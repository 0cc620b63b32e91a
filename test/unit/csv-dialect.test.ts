import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import { decodeTable, withDecimalPoint } from '../../src/dataset/csv-dialect.ts';
import { csvRecords } from '../../src/dataset/csv-records.ts';
import { CELL_MAX_CHARS, TABLE_MAX_CELLS, TABLE_MAX_COLUMNS } from '../../src/dataset/table-limits.ts';

const utf8 = (text: string) => Buffer.from(text, 'utf8');

test('separators: the one that splits every line alike, tab and ; before , when several do', async () => {
  assert.equal((await decodeTable(utf8('SMILES,LC50,Class\nCCO,1.5,toxic\nc1ccccc1,2.25,"a; b"\n'))).dialect.delimiter, ',');
  // decimal commas split a ;-file's lines alike too: ; wins, and the commas are decimal marks
  const excel = await decodeTable(utf8('SMILES;LC50;logP\nCCO;1,5;-0,31\nc1ccccc1;2,25;2,13\n'));
  assert.deepEqual(excel.dialect, { encoding: 'utf-8', delimiter: ';', decimal: ',' });
  assert.deepEqual(excel.guesses, ['columns are separated by semicolons', 'numbers are written with a decimal comma (1,5 is read as 1.5)']);
  assert.equal((await decodeTable(utf8('SMILES\tLC50\nCCO\t1.5\nCCN\t2\n'))).dialect.delimiter, '\t');
  assert.equal((await decodeTable(utf8('SMILES|LC50\nCCO|1.5\nCCN|2\n'))).dialect.delimiter, '|');
  // a separator inside quotes does not count
  assert.equal((await decodeTable(utf8('SMILES,Name\nCCO,"ethanol; alcohol"\nCCN,"ethylamine; amine"\n'))).dialect.delimiter, ',');
  // one column: nothing splits it, the comma is kept
  assert.equal((await decodeTable(utf8('SMILES\nCCO\nCCN\n'))).dialect.delimiter, ',');
});

test('decimal marks: a comma only with another separator and numbers written that way', async () => {
  assert.equal((await decodeTable(utf8('SMILES;LC50\nCCO;1.5\nCCN;2.25\n'))).dialect.decimal, '.');
  assert.equal((await decodeTable(utf8('SMILES;LC50\nCCO;1.234,5\nCCN;2,1E-3\n'))).dialect.decimal, ',');
  // InChI holds commas: a structure column alone does not make a decimal comma
  assert.equal((await decodeTable(utf8('InChI;LC50\nInChI=1S/C2H6O/c1-2-3/h3H,2H2,1H3;3\n'))).dialect.decimal, '.');
  assert.equal(withDecimalPoint('1,5', ','), '1.5');
  assert.equal(withDecimalPoint('-1.234,5', ','), '-1234.5');
  assert.equal(withDecimalPoint('2,1E-3', ','), '2.1E-3');
  assert.equal(withDecimalPoint('toxic, very', ','), 'toxic, very');
  assert.equal(withDecimalPoint('1,5', '.'), '1,5');
});

test('encodings: byte-order marks, UTF-16 without one, and Windows-1252 when the bytes are not UTF-8', async () => {
  const table = 'SMILES\tLC50 µg/L\nCCO\t1.5\n';
  const le = await decodeTable(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(table, 'utf16le')]));
  assert.deepEqual([le.dialect.encoding, le.text], ['utf-16le', table]);
  const be = Buffer.from(table, 'utf16le').swap16();
  assert.deepEqual([(await decodeTable(Buffer.concat([Buffer.from([0xfe, 0xff]), be]))).text, (await decodeTable(be)).dialect.encoding], [table, 'utf-16be']);
  assert.equal((await decodeTable(Buffer.from(table, 'utf16le'))).dialect.encoding, 'utf-16le');
  assert.equal((await decodeTable(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(table)]))).text, table);
  // € – “ ” are 0x80 0x96 0x93 0x94 in Windows-1252, control characters in Latin-1
  const cp1252 = Buffer.from([...Buffer.from('SMILES;Note\nCCO;'), 0x80, 0x96, 0x93, 0xb5, 0x94, 0x0a]);
  const read = await decodeTable(cp1252);
  assert.equal(read.dialect.encoding, 'windows-1252');
  assert.equal(read.text, 'SMILES;Note\nCCO;€–“µ”\n');
  assert.match(read.guesses[0], /read as Windows-1252 \(it is not UTF-8\)/);
});

test('what a request says is taken as it is; what it cannot be is refused', async () => {
  const told = await decodeTable(utf8('SMILES;LC50\nCCO;1.5\n'), { delimiter: 'semicolon', decimal: '.', encoding: 'UTF-8' });
  assert.deepEqual([told.dialect, told.guesses], [{ encoding: 'utf-8', delimiter: ';', decimal: '.' }, []]);
  assert.equal((await decodeTable(utf8('a\tb\n'), { delimiter: 'tab' })).dialect.delimiter, '\t');
  await assert.rejects(() => decodeTable(Buffer.from([0x53, 0xb5, 0x0a]), { encoding: 'utf-8' }), /cannot be decoded as UTF-8/);
  await assert.rejects(() => decodeTable(utf8('a\n'), { encoding: 'koi8' }), /unknown encoding/);
  await assert.rejects(() => decodeTable(utf8('a\n'), { delimiter: '::' }), /not a column separator/);
  await assert.rejects(() => decodeTable(utf8('a\n'), { decimal: ',', delimiter: ',' }), /needs another column separator/);
});

test('real files: thousands under a decimal comma, ragged rows, and records with newlines in quotes', async () => {
  // a German export: a thousand-separated whole number is no sign of a decimal point
  const german = await decodeTable(utf8('SMILES;MW;LC50\nCCO;1.234;0,5\nCCN;12.345;1,25\nCCC;2.001;3\n'));
  assert.deepEqual([german.dialect.delimiter, german.dialect.decimal], [';', ',']);
  assert.equal(withDecimalPoint('1.234', ','), '1234');
  assert.equal(withDecimalPoint('-12.345.678', ','), '-12345678');
  assert.equal(withDecimalPoint('1.234', '.'), '1.234');
  // Excel leaves out trailing empty cells
  assert.equal((await decodeTable(utf8('SMILES;a;b;c\nCCO;1\nCCN;1;2\nCCC;1;2;3\nCCCC;4\n'))).dialect.delimiter, ';');
  // a molfile column: its newlines are inside quotes, its records still split alike
  const mol = '"\n  RDKit\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\nM  END"';
  assert.equal((await decodeTable(utf8(`Molfile;LC50\n${mol};1,5\n${mol};2,5\n`))).dialect.delimiter, ';');
  // a value with a decimal comma far down the file is still seen
  const rows = Array.from({ length: 200 }, (_, i) => `C${'C'.repeat(i % 5)}O;${i}`);
  assert.equal((await decodeTable(utf8(`SMILES;x\n${rows.join('\n')}\nCCO;0,55\n`))).dialect.decimal, ',');
});

test('a header beyond the sample (a huge single line) is not examined: the separator is the comma unless given', async () => {
  const line = `SMILES;${'x;'.repeat(200_000)}y\n`;
  assert.equal((await decodeTable(utf8(line))).dialect.delimiter, ',');
  assert.equal((await decodeTable(utf8(line), { delimiter: ';' })).dialect.delimiter, ';');
  // the same header within the sample is examined
  assert.equal((await decodeTable(utf8(`SMILES;${'x;'.repeat(1000)}y\nCCO;${'1;'.repeat(1000)}2\n`))).dialect.delimiter, ';');
});

/** Every record csvRecords reads from a text, in order. */
async function records(text: string, delimiter = ','): Promise<string[][]> {
  const all: string[][] = [];
  for await (const batch of csvRecords(text, delimiter)) all.push(...batch);
  return all;
}

test('records: what csv-parse read (quotes, doubled quotes, line breaks in quotes, blank lines, whitespace, ragged rows), read the same', async () => {
  const samples = [
    'SMILES,LC50,Note\nCCO,1.5,"quoted, with comma"\n',
    'a,b\r\nc,d\r\n',
    'a,b\rc,d\r',
    'a,b\n\n  \nc,d\n',
    'a, "b c" ,d\n',
    'a,"x""y",z\n',
    ',,\n',
    'a,b\n,\n',
    ' a , b \n',
    'a,"  q  "\n',
    'a\n\r\nb\n',
    'a,b\n"\n",c\n',
    'a,"b" \n',
    'x,"a\r\nb"\n',
    'a,b',
    'a,',
    'SMILES;a;b;c\nCCO;1\nCCN;1;2\nCCC;1;2;3\n',
    'Molfile;LC50\n"\n  RDKit\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\nM  END";1,5\n',
    '"a";"b;c";d\n',
    '',
    '\n\n',
    'µg/L,€,日本\n1,2,3\n',
  ];
  for (const text of samples) {
    const delimiter = text.includes(';') ? ';' : ',';
    assert.deepEqual(await records(text, delimiter), parseCsv(text, { relax_column_count: true, skip_empty_lines: true, trim: true, delimiter }), JSON.stringify(text));
  }
  assert.deepEqual(await records('a\t b \t"c"\n', '\t'), [['a', 'b', 'c']]);
});

test('records: what cannot be read is refused naming the row and column', async () => {
  await assert.rejects(() => records('SMILES,x\nCCO,5"\n'), /the CSV cannot be read: row 2, column 2 \("x"\) has a quote inside a value/);
  await assert.rejects(() => records('a,"b"c,d\n'), /row 1, column 2 has "c" after its closing quote/);
  await assert.rejects(() => records('a,b\nc,"d\n'), /the quote that opens row 2, column 2 \("b"\) is never closed/);
});

test('records: a value, a record and a table beyond the limits are refused as they are read, before the rest is', async () => {
  const cell = 'A'.repeat(CELL_MAX_CHARS);
  assert.equal((await records(`SMILES,x\nC,${cell}\n`))[1][1].length, CELL_MAX_CHARS);
  assert.equal((await records(`SMILES,x\nC,"${cell}"\n`))[1][1].length, CELL_MAX_CHARS);
  for (const text of [`SMILES,x\nC,${cell}A\n`, `SMILES,x\nC,"${cell}A"\n`, `SMILES,x\nC,"${'A'.repeat(CELL_MAX_CHARS - 1)}""A"\n`]) {
    await assert.rejects(() => records(text), new RegExp(`^.*row 2, column 2 \\("x"\\) holds more than ${CELL_MAX_CHARS} characters; a cell may hold at most ${CELL_MAX_CHARS}$`));
  }
  // 45 MiB in one value: refused after its first CELL_MAX_CHARS characters, an unclosed quote too
  const huge = `SMILES,x\nCCO,1\nC,${'A'.repeat(45 * 1024 * 1024)}\n`;
  await assert.rejects(() => records(huge), /row 3, column 2 \("x"\) holds more than/);
  await assert.rejects(() => records(`SMILES,x\nC,"${'A'.repeat(45 * 1024 * 1024)}`), /holds more than/);
  await assert.rejects(() => records(`SMILES,${'x,'.repeat(300_000)}y\n`), new RegExp(`row 1 has more than ${TABLE_MAX_COLUMNS} columns`));
  await assert.rejects(() => records(`SMILES,x\n${'C,1\n'.repeat(TABLE_MAX_CELLS / 2)}`), new RegExp(`more than ${TABLE_MAX_CELLS} cells`));
});
