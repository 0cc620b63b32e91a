import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseCsv } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { startTestServer, http, errorReport, parseTurtle, type TestServer } from '../helpers.ts';

// Issue 55 item 7: a table as people lay out a sheet (a title, a blank row, a header with a line
// break, a units row, a footnote) is read as its header, units and rows, by the upload and its
// preview alike, for CSV and Excel; header_row= names the header row.

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The sheet: row 1 a title, row 2 blank, row 3 the header, row 4 units, rows 5–7 data, row 8 a footnote. */
const SHEET: (string | number | null)[][] = [
  ['Carcinogenic potency in rats (CPDB extract)', null, null, null],
  [null, null, null, null],
  ['Lab ID', 'Structure (SMILES)', 'Carcinogenic\nclass', 'TD50'],
  [null, null, '[class]', '(mg/kg/day)'],
  ['R1', 'CCO', 'active', 12.5],
  ['R2', 'c1ccccc1', 'inactive', 3.1],
  ['R3', 'CC(=O)O', 'active', 7],
  ['* values from the Carcinogenic Potency Database', null, null, null],
];

const csvCell = (v: string | number | null) => (v === null ? '' : typeof v === 'number' ? String(v) : /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
const CSV = `${SHEET.map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`;

async function workbook(): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('CPDB');
  SHEET.forEach((row, i) => {
    row.forEach((v, j) => {
      if (v !== null) sheet.getCell(i + 1, j + 1).value = v;
    });
  });
  return new Uint8Array(await book.xlsx.writeBuffer());
}

const files = async () => [
  { name: 'CSV', body: CSV as string | Uint8Array, type: 'text/csv' },
  { name: 'XLSX', body: await workbook(), type: XLSX },
];

const post = (path: string, body: string | Uint8Array, type: string, accept: string) => http(`${s.url}${path}`, { method: 'POST', body: body as never, contentType: type, accept });

test('a sheet with a title, a blank row, a header with a line break, a units row and a footnote: the preview reads its header, units and rows, and says how', async () => {
  for (const f of await files()) {
    const r = await post('/dataset/preview', f.body, f.type, 'application/json');
    assert.equal(r.status, 200, `${f.name}: ${r.text}`);
    const p = JSON.parse(r.text);
    assert.equal(p.structureHeader, 'Structure (SMILES)', f.name);
    assert.equal(p.total, 3, `${f.name}: the three rows of data, not the units row or the footnote`);
    assert.deepEqual(
      p.columns.map((c: { title: string; units?: string }) => [c.title, c.units]),
      [
        ['Lab ID', undefined],
        ['Carcinogenic class', 'class'],
        ['TD50', 'mg/kg/day'],
      ],
      f.name,
    );
    const kinds = Object.fromEntries(p.columns.map((c: { title: string; kind: string; accepted: string[] }) => [c.title, [c.kind, c.accepted]]));
    assert.deepEqual(kinds['Carcinogenic class'], ['nominal', ['active', 'inactive']], `${f.name}: [class] is not a class`);
    assert.equal(kinds.TD50[0], 'numeric', f.name);
    assert.deepEqual(
      p.rows.map((row: { line: number; cells: string[] }) => row.line),
      [5, 6, 7],
      f.name,
    );
    const notes = p.notes.join('\n');
    assert.match(notes, /row 3 was read as the header/, f.name);
    assert.match(notes, /row 4, under the header, was read as the columns' units/, f.name);
    assert.match(notes, /row 8 after the data is a footnote/, f.name);
    // the page offers the header row to change
    const page = await http(`${s.url}/dataset/preview/${p.pending}`, { accept: 'text/html' });
    assert.match(page.text, /name="header_row"/, f.name);
  }
});

test('the same sheet uploaded: its values, titles and units, and no footnote row', async () => {
  for (const f of await files()) {
    const r = await post('/dataset', f.body, f.type, 'text/uri-list');
    assert.equal(r.status, 200, `${f.name}: ${r.text}`);
    const uri = r.text.trim().replace(s.base, s.url);
    const rows = parseCsv((await http(uri, { accept: 'text/csv' })).text) as string[][];
    const [header, ...data] = rows;
    assert.equal(data.length, 3, f.name);
    const at = (title: RegExp) => header.findIndex((h) => title.test(h));
    assert.ok(at(/^Carcinogenic class/) > 0, `${f.name}: ${header.join(' | ')}`);
    assert.deepEqual(
      data.map((row) => [row[at(/^Lab ID/)], row[at(/^Carcinogenic class/)], Number(row[at(/^TD50/)])]),
      [
        ['R1', 'active', 12.5],
        ['R2', 'inactive', 3.1],
        ['R3', 'active', 7],
      ],
      f.name,
    );
    const turtle = (await http(uri.replace(/\/?$/, '/feature'), { accept: 'text/turtle' })).text;
    assert.match(turtle, /mg\/kg\/day/, `${f.name}: TD50's units`);
  }
});

test('header_row= names the header row: the title row as header has no structure column (400), a row past the table is refused', async () => {
  for (const f of await files()) {
    const asTitle = await post('/dataset?header_row=1', f.body, f.type, 'text/turtle');
    assert.equal(asTitle.status, 400, f.name);
    assert.match((await errorReport(asTitle)).message ?? '', /no structure column.*Carcinogenic potency in rats/, f.name);
    const beyond = await post('/dataset/preview?header_row=99', f.body, f.type, 'text/turtle');
    assert.equal(beyond.status, 400, f.name);
    assert.match((await errorReport(beyond)).message ?? '', /header_row: the table has no row 99/, f.name);
    const given = await post('/dataset/preview?header_row=3', f.body, f.type, 'application/json');
    assert.equal(given.status, 200, `${f.name}: ${given.text}`);
    const p = JSON.parse(given.text);
    assert.equal(p.total, 3, f.name);
    assert.match(p.notes.join('\n'), /row 3 was read as the header \(header_row=\)/, f.name);
  }
});

test('structure_column= names the structure column a header does not (its header or its number); without it the 400 says so', async () => {
  const csv = 'Lab ID,Molecule,TD50\nR1,CCO,12.5\nR2,InChI=1S/C6H6/c1-2-4-6-5-3-1/h1-6H,3.1\n';
  const plain = await post('/dataset', csv, 'text/csv', 'text/turtle');
  assert.equal(plain.status, 400);
  assert.match((await errorReport(plain)).message ?? '', /no structure column.*structure_column=/);
  // the preview is shown all the same, to choose the column: each row says why it would be skipped
  const unchosen = await post('/dataset/preview', csv, 'text/csv', 'application/json');
  assert.equal(unchosen.status, 200, unchosen.text);
  const without = JSON.parse(unchosen.text);
  assert.equal(without.structureHeader, undefined);
  assert.match(without.notes.join('\n'), /choose it with structure_column=/);
  assert.deepEqual(
    without.columns.map((c: { title: string }) => c.title),
    ['Lab ID', 'Molecule', 'TD50'],
  );
  assert.match(without.skipped[0], /row 2: no structure column \(choose it with structure_column=\), row skipped/);
  for (const chosen of ['Molecule', '2']) {
    const p = await post(`/dataset/preview?structure_column=${chosen}`, csv, 'text/csv', 'application/json');
    assert.equal(p.status, 200, p.text);
    const preview = JSON.parse(p.text);
    assert.equal(preview.structureHeader, 'Molecule');
    assert.deepEqual(
      preview.rows.map((r: { smiles: string }) => r.smiles),
      ['CCO', 'c1ccccc1'],
      'a SMILES and an InChI in the chosen column',
    );
    assert.deepEqual(
      preview.columns.map((c: { title: string }) => c.title),
      ['Lab ID', 'TD50'],
    );
    const page = await http(`${s.url}/dataset/preview/${preview.pending}`, { accept: 'text/html' });
    assert.match(page.text, /name="structure_column" value="\d*\w*"/);
  }
  const stored = await post('/dataset?structure_column=Molecule', csv, 'text/csv', 'text/uri-list');
  assert.equal(stored.status, 200, stored.text);
  const rows = parseCsv((await http(stored.text.trim().replace(s.base, s.url), { accept: 'text/csv' })).text) as string[][];
  assert.deepEqual(
    rows.slice(1).map((r) => r[0]),
    ['CCO', 'c1ccccc1'],
  );
  const unknown = await post('/dataset?structure_column=Nothing', csv, 'text/csv', 'text/turtle');
  assert.equal(unknown.status, 400);
  assert.match((await errorReport(unknown)).message ?? '', /structure_column: the table has no column "Nothing"/);
});

test('id_columns= keeps identifier columns as text (by title or number), in CSV and in a workbook whose identifiers are numbers', async () => {
  const csv = 'SMILES,Lab ID,TD50\nCCO,1001,1.5\nc1ccccc1,1002,2\n';
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('data');
  for (const row of csv.trim().split('\n')) sheet.addRow(row.split(',').map((v) => (/^[\d.]+$/.test(v) ? Number(v) : v)));
  const xlsx = new Uint8Array(await book.xlsx.writeBuffer());
  const kindOf = async (uri: string, title: string) => {
    const quads = parseTurtle((await http(`${uri.replace(/\/?$/, '')}/feature`, { accept: 'text/turtle' })).text);
    const feature = quads.find((q) => q.predicate.value === 'http://purl.org/dc/elements/1.1/title' && q.object.value === title)?.subject.value;
    return quads
      .filter((q) => q.subject.value === feature && q.predicate.value.endsWith('#type'))
      .map((q) => q.object.value.replace(/.*#/, ''))
      .filter((t) => t !== 'Feature')
      .sort();
  };
  for (const [body, type] of [
    [csv, 'text/csv'],
    [xlsx, XLSX],
  ] as const) {
    for (const query of ['', '?id_columns=Lab%20ID', '?id_columns=1']) {
      const r = await post(`/dataset${query}`, body, type, 'text/uri-list');
      assert.equal(r.status, 200, r.text);
      const uri = r.text.trim().replace(s.base, s.url);
      assert.deepEqual(await kindOf(uri, 'Lab ID'), query ? ['StringFeature'] : ['NumericFeature'], `${type} ${query}`);
      assert.deepEqual(await kindOf(uri, 'TD50'), ['NumericFeature'], `${type} ${query}`);
      const rows = parseCsv((await http(uri, { accept: 'text/csv' })).text) as string[][];
      assert.deepEqual(
        rows.slice(1).map((row) => row[rows[0].indexOf('Lab ID')]),
        ['1001', '1002'],
      );
    }
  }
  const unknown = await post('/dataset?id_columns=Nothing', csv, 'text/csv', 'text/turtle');
  assert.equal(unknown.status, 400);
  assert.match((await errorReport(unknown)).message ?? '', /id_columns: the table has no column "Nothing"/);
});
