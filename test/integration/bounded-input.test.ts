import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import { startTestServer, http, form, errorReport, parseTurtle, waitForTask, OT, type TestServer, type Reply } from '../helpers.ts';
import { zipArchive } from '../fixtures.ts';
import { CELL_MAX_CHARS, NO_ROWS, TABLE_MAX_COLUMNS } from '../../src/dataset/table-limits.ts';
import { PendingUploads, pendingBytes, PREVIEWS_PER_CALLER } from '../../src/dataset/upload-preview.ts';
import { Params } from '../../src/http/params.ts';
import { MULTIPART_FIELD_MAX_BYTES } from '../../src/http/multipart.ts';

// Issue 52, the input side: no single upload or preview exhausts the server. Every table is
// bounded (table-limits.ts) and refused with 400 before anything is stored or a task started;
// upload and preview accept and refuse the same tables alike; previews count what they keep.

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--dataset-task-rows', '50']);
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const upload = (server: TestServer, body: string | Uint8Array | FormData, type?: string) =>
  http(`${server.url}/dataset`, { method: 'POST', body: body as never, contentType: type, accept: 'text/uri-list' });
const preview = (server: TestServer, body: string | Uint8Array | FormData, type?: string) =>
  http(`${server.url}/dataset/preview`, { method: 'POST', body: body as never, contentType: type, accept: 'application/json' });

/** A multipart upload: the file and fields (as a browser's form sends them). */
function multipart(file: string, fields: Record<string, string> = {}, name = 'table.csv'): FormData {
  const fd = new FormData();
  fd.append('file', new Blob([file], { type: 'text/csv' }), name);
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  return fd;
}

/** The message of an ErrorReport reply. */
async function messageOf(r: Reply): Promise<string> {
  return (await errorReport({ ...r, type: r.type.startsWith('application/json') ? 'text/turtle' : r.type })).message ?? '';
}

/** Upload and preview answer a table alike: the same status, the same message. */
async function bothRefuse(body: string, type: string, message: RegExp): Promise<string> {
  const stored = await http(`${s.url}/dataset`, { method: 'POST', body, contentType: type, accept: 'text/turtle' });
  const looked = await http(`${s.url}/dataset/preview`, { method: 'POST', body, contentType: type, accept: 'text/turtle' });
  assert.equal(stored.status, 400, `upload: ${stored.status} ${stored.text.slice(0, 300)}`);
  assert.equal(looked.status, 400, `preview: ${looked.status} ${looked.text.slice(0, 300)}`);
  const [a, b] = [await messageOf(stored), await messageOf(looked)];
  assert.match(a, message);
  assert.equal(a, b, 'the upload and the preview say the same');
  return a;
}

test('a CSV cell over the length limit: 400 at upload and at preview (never a task that fails), saying the limit and where', async () => {
  const before = (await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text;
  const message = await bothRefuse(`SMILES,x\nCCO,1\nC,${'A'.repeat(CELL_MAX_CHARS + 1)}\n`, 'text/csv', new RegExp(`row 3, column 2 \\("x"\\) holds more than ${CELL_MAX_CHARS} characters`));
  assert.match(message, new RegExp(`at most ${CELL_MAX_CHARS}`));
  // beyond what the store can write as one term (1,679,616 characters): 400 at once, not 202 and a task ending in 500
  await bothRefuse(`SMILES,x\nCCO,1\nC,"${'A'.repeat(1_700_000)}"\n`, 'text/csv', /holds more than/);
  // the brief's 10 MiB cell: refused, not parsed
  await bothRefuse(`SMILES,x\nCCO,1\nC,${'A'.repeat(10 * 1024 * 1024)}\n`, 'text/csv', /row 3, column 2 \("x"\) holds more than/);
  // a cell exactly at the limit is stored
  const ok = await upload(s, `SMILES,x\nCCO,1\nC,${'A'.repeat(CELL_MAX_CHARS)}\n`, 'text/csv');
  assert.equal(ok.status, 200, ok.text.slice(0, 300));
  const after = (await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text;
  assert.equal(after.split('\n').filter(Boolean).length, before.split('\n').filter(Boolean).length + 1);
});

test('a header-only CSV gets the same answer from upload and preview: 400, nothing to store', async () => {
  await bothRefuse('SMILES,LC50\n', 'text/csv', new RegExp(NO_ROWS));
  await bothRefuse('SMILES\tLC50\r\n\r\n', 'text/tab-separated-values', new RegExp(NO_ROWS));
});

test('characters RDF/XML cannot carry (NUL, other C0 controls, U+FFFE) in a cell or a header: 400 naming the row and column', async () => {
  await bothRefuse('SMILES,LC50\nCCO,1\nCCN,2\u0000\n', 'text/csv', /row 3, column 2 \("LC50"\) holds the character U\+0000 at position 2/);
  await bothRefuse('SMILES,LC\u000150\nCCO,1\n', 'text/csv', /row 1, column 2 holds the character U\+0001/);
  await bothRefuse('SMILES;Note\nCCO;a\uFFFEb\n', 'text/csv', /row 2, column 2 \("Note"\) holds the character U\+FFFE/);
  // an SD file's field and an N-Triples literal alike (the tables read without a pass of their own)
  const sdf =
    'ethanol\n  RDKit\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\n    0.0000    0.0000    0.0000 C   0  0\n    0.0000    0.0000    0.0000 O   0  0\n  1  2  1  0\n  2  3  1  0\nM  END\n>  <Note>\nbad\u0007bell\n\n$$$$\n';
  await bothRefuse(sdf, 'chemical/x-mdl-sdfile', /record 1, column 1 \("Note"\) holds the character U\+0007/);
  // the dataset's title parameter too
  const titled = await http(`${s.url}/dataset?title=a%00b`, { method: 'POST', body: 'SMILES,x\nCCO,1\n', contentType: 'text/csv', accept: 'text/turtle' });
  assert.equal(titled.status, 400);
  assert.match(await messageOf(titled), /parameter title holds the character U\+0000/);
});

test('CSV beyond the column and cell limits: 400 naming the limit, at once (a record of 300,000 columns is not read)', async () => {
  await bothRefuse(`SMILES,${'x,'.repeat(300_000)}y\nCCO\n`, 'text/csv', new RegExp(`row 1 has more than ${TABLE_MAX_COLUMNS} columns; a table may have at most ${TABLE_MAX_COLUMNS}`));
  await bothRefuse(`SMILES,x\n${'C,1\n'.repeat(1_000_000)}`, 'text/csv', /more than 2000000 cells/);
});

/** A workbook of rows (exceljs), with cells set by address after them. */
async function workbook(rows: unknown[][], cells: Record<string, unknown> = {}): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet('data');
  for (const row of rows) sheet.addRow(row);
  for (const [address, value] of Object.entries(cells)) sheet.getCell(address).value = value as ExcelJS.CellValue;
  return new Uint8Array(await book.xlsx.writeBuffer());
}

test('XLSX: one stray cell at XFD1048576 makes no column (and no 16,383 empty ones): only the real columns are read', async () => {
  const book = await workbook(
    [
      ['SMILES', 'LC50'],
      ['CCO', 1.5],
      ['CCN', 2.5],
    ],
    { XFD1048576: 'x' },
  );
  const looked = await preview(s, book, XLSX);
  assert.equal(looked.status, 200, looked.text.slice(0, 300));
  const p = JSON.parse(looked.text);
  assert.deepEqual(
    p.columns.map((c: { title: string }) => c.title),
    ['LC50'],
  );
  assert.ok(
    p.notes.some((n: string) => /cell XFD1048576 holds the only value of a column without a header: it is left out/.test(n)),
    JSON.stringify(p.notes),
  );
  const stored = await upload(s, book, XLSX);
  assert.equal(stored.status, 200, stored.text.slice(0, 300));
  const features = (await http(`${local(stored.text.trim())}/features`, { accept: 'text/uri-list' })).text.split('\n').filter(Boolean);
  assert.equal(features.length, 1);
  // empty columns between real ones are no columns either; a headed column far out is one
  const spread = await preview(s, await workbook([['SMILES'], ['CCO'], ['CCN']], { Z1: 'LC50', Z2: 1, Z3: 2, AZ1: 'Note' }), XLSX);
  assert.deepEqual(
    JSON.parse(spread.text).columns.map((c: { title: string }) => c.title),
    ['LC50', 'Note'],
  );
});

test('XLSX: a used range over the limits is refused with 400 naming the limit, before a table is made', async () => {
  const header = ['SMILES', ...Array.from({ length: TABLE_MAX_COLUMNS }, (_, i) => `d${i}`)];
  const wide = await workbook([header, ['CCO', ...header.slice(1).map((_, i) => i)]]);
  const stored = await upload(s, wide, XLSX);
  assert.equal(stored.status, 400, stored.text.slice(0, 300));
  assert.match(await messageOf(stored), new RegExp(`has a header or values in ${TABLE_MAX_COLUMNS + 1} columns; a table may have at most ${TABLE_MAX_COLUMNS}`));
  const looked = await preview(s, wide, XLSX);
  assert.equal(looked.status, 400);
  // what exceljs would lay out cell by cell is measured first: a merge over the whole sheet
  const merged = sheetWorkbook(
    '<row r="1"><c r="A1" t="inlineStr"><is><t>SMILES</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>CCO</t></is></c></row>',
    '<mergeCells count="1"><mergeCell ref="B1:XFD1048576"/></mergeCells>',
  );
  const m = await upload(s, merged, XLSX);
  assert.equal(m.status, 400, m.text.slice(0, 300));
  assert.match(await messageOf(m), /merged cells and named ranges cover 17178820608 cells; they may cover at most 2000000/);
  // and a named range over it
  const named = sheetWorkbook(
    '<row r="1"><c r="A1" t="inlineStr"><is><t>SMILES</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>CCO</t></is></c></row>',
    '',
    '',
    '<definedNames><definedName name="all">data!$A$1:$XFD$1048576</definedName></definedNames>',
  );
  const n = await upload(s, named, XLSX);
  assert.equal(n.status, 400, n.text.slice(0, 300));
  assert.match(await messageOf(n), /cover 17179869184 cells/);
});

test('XLSX: parts exceljs would expand cell by cell (a data validation over the whole sheet, a column range of a billion) are not read: the table is', async () => {
  const rows =
    '<row r="1"><c r="A1" t="inlineStr"><is><t>SMILES</t></is></c><c r="B1" t="inlineStr"><is><t>LC50</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>CCO</t></is></c><c r="B2"><v>1.5</v></c></row>';
  const book = sheetWorkbook(
    rows,
    '<dataValidations count="1"><dataValidation type="list" sqref="A1:XFD1048576"><formula1>"a,b"</formula1></dataValidation></dataValidations>',
    '<cols><col min="1" max="1000000000" width="9"/></cols>',
  );
  const looked = await preview(s, book, XLSX);
  assert.equal(looked.status, 200, looked.text.slice(0, 300));
  assert.deepEqual(JSON.parse(looked.text).rows, [{ line: 2, smiles: 'CCO', cells: ['1.5'] }]);
});

test('XLSX: a workbook of more rows than --dataset-task-rows is stored as a task (202 and its URI), like any table', async () => {
  const rows: unknown[][] = [['SMILES', 'LC50']];
  for (let i = 0; i < 60; i++) rows.push([`${'C'.repeat((i % 6) + 1)}O`, i / 10]);
  const book = await workbook(rows);
  assert.ok(book.length < 20_000, 'far below --dataset-task-bytes: its rows make it a task');
  const r = await upload(s, book, XLSX);
  assert.equal(r.status, 202, r.text.slice(0, 300));
  const uri = await waitForTask(s, r.text.trim());
  const csv = (await http(local(uri), { accept: 'text/csv' })).text.trim().split(/\r?\n/);
  assert.equal(csv.length, 61);
  // and a workbook of fewer rows at once, as before
  assert.equal((await upload(s, await workbook(rows.slice(0, 11)), XLSX)).status, 200);
});

test("a preview counts its fields with its file: many big fields are refused once over the caller's share (429), and the store counts them", async () => {
  const small = await startTestServer(['--body-limit', String(256 * 1024)]);
  try {
    // 3 fields of 64,000 characters: 192 KB of fields with a 22-byte file, under the body's fields limit (256 KiB)
    const fields = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`note${i}`, 'x'.repeat(64_000)]));
    const first = await preview(small, multipart('SMILES,x\nCCO,1\nCCN,2\n', fields));
    assert.equal(first.status, 200, first.text.slice(0, 300));
    // the file alone would fit many times; with its fields the second passes the caller's share of 640 KiB
    const second = await http(`${small.url}/dataset/preview`, { method: 'POST', body: multipart('SMILES,x\nCCO,1\nCCN,2\n', fields), accept: 'text/turtle' });
    assert.equal(second.status, 429, second.text.slice(0, 300));
    assert.ok(Number(second.headers.get('retry-after')) > 0);
    assert.match(await messageOf(second), /waiting on their previews hold \d+ bytes; with this one \(\d+\) they would pass the 655360 one caller may keep/);
    // fields beyond what a multipart body may hold together (here its body limit): 413
    const many = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`note${i}`, 'x'.repeat(60_000)]));
    const over = await http(`${small.url}/dataset/preview`, { method: 'POST', body: multipart('SMILES,x\nCCO,1\n', many), accept: 'text/turtle' });
    assert.equal(over.status, 413);
    assert.match(await messageOf(over), /the fields of the multipart body hold more than 262144 bytes together/);
  } finally {
    await small.stop();
  }
  // a field longer than a field may be is refused (413), not cut short
  const long = await http(`${s.url}/dataset/preview`, { method: 'POST', body: multipart('SMILES,x\nCCO,1\n', { title: 'x'.repeat(MULTIPART_FIELD_MAX_BYTES + 1) }), accept: 'text/turtle' });
  assert.equal(long.status, 413);
  assert.match(await messageOf(long), new RegExp(`the field "title" of the multipart body is longer than ${MULTIPART_FIELD_MAX_BYTES} bytes`));
  // what the store counts: the file and every field, not the file alone
  const store = new PendingUploads({ maxBytes: 10_000_000, callerBytes: 5_000_000, perCaller: 3, ttlMs: 60_000 });
  const withFields = {
    body: Buffer.from('SMILES\nC\n'),
    mediaType: 'text/csv',
    params: new Params(
      new URLSearchParams([
        ['a', 'x'.repeat(100_000)],
        ['b', 'y'.repeat(100_000)],
      ]),
    ),
  };
  store.keep(withFields, undefined, 'address:x');
  assert.ok(store.bytes >= 400_000 && store.bytes === pendingBytes(withFields), String(store.bytes));
});

test('previews per caller: the most one caller may have waiting, then 429 until one is stored', async () => {
  const own = await startTestServer();
  try {
    const pendings: string[] = [];
    for (let i = 0; i < PREVIEWS_PER_CALLER; i++) {
      const r = await preview(own, `SMILES,x\nCCO,${i}\nCCN,2\n`, 'text/csv');
      assert.equal(r.status, 200, r.text.slice(0, 300));
      pendings.push(JSON.parse(r.text).pending);
    }
    const refused = await http(`${own.url}/dataset/preview`, { method: 'POST', body: 'SMILES,x\nCCO,1\n', contentType: 'text/csv', accept: 'text/turtle' });
    assert.equal(refused.status, 429, refused.text.slice(0, 300));
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    assert.match(await messageOf(refused), new RegExp(`has ${PREVIEWS_PER_CALLER} uploads waiting on their previews, the most one caller may have`));
    // reading one again with other settings takes no other place
    assert.equal((await http(`${own.url}/dataset/preview`, { method: 'POST', body: form({ pending: pendings[0], decimal: '.' }), accept: 'application/json' })).status, 200);
    // one stored: there is room for another
    const stored = await http(`${own.url}/dataset`, { method: 'POST', body: form({ pending: pendings[1] }), accept: 'text/uri-list' });
    assert.equal(stored.status, 200, stored.text.slice(0, 300));
    assert.equal((await preview(own, 'SMILES,x\nCCO,1\nCCN,2\n', 'text/csv')).status, 200);
    // a table that cannot be read takes no place
    assert.equal((await preview(own, 'SMILES,x\n', 'text/csv')).status, 429);
  } finally {
    await own.stop();
  }
});

test('a preview of a huge CSV record hands the event loop back: a /health request sent while it is read is answered before it', async () => {
  // one record of 2,000 values of 20,000 characters (40 MB, each value within the limits) whose
  // last value opens a quote it never closes: the whole record is read before it is refused
  const header = `SMILES,${Array.from({ length: 1999 }, (_, i) => `c${i}`).join(',')}\n`;
  const body = `${header}C,${Array.from({ length: 1998 }, () => 'A'.repeat(20_000)).join(',')},"never closed\n`;
  // when the server starts reading the table (its worker pool is asked for a runner), /health is asked, again and again
  const workers = s.services.workers;
  const runner = workers.runner.bind(workers);
  const answered: number[] = [];
  let previewed = false;
  let chain: Promise<void> | undefined;
  const healthChain = async () => {
    while (!previewed) {
      const r = await http(`${s.url}/health`, { accept: 'application/json' });
      if (!previewed) answered.push(r.status);
    }
  };
  workers.runner = (signal?: AbortSignal) => {
    chain ??= healthChain();
    return runner(signal);
  };
  let r: Reply;
  try {
    r = await http(`${s.url}/dataset/preview`, { method: 'POST', body, contentType: 'text/csv', accept: 'text/turtle' });
    previewed = true;
  } finally {
    previewed = true;
    workers.runner = runner;
    await chain;
  }
  assert.equal(r.status, 400, r.text.slice(0, 300));
  // the order, not the time: /health, asked when the server began reading, was answered before the preview was
  assert.ok(answered.length >= 1, "no /health answer came before the preview's");
  assert.ok(answered.every((status) => status === 200));
  assert.match(await messageOf(r), /the quote that opens row 2, column 2000 \("c1998"\) is never closed/);
});

test('ARFF and RDF tables are bounded alike: a value over the length limit, a NUL in a literal', async () => {
  await bothRefuse(`@relation t\n@attribute SMILES string\n@attribute x string\n@data\nCCO,'${'A'.repeat(CELL_MAX_CHARS + 1)}'\n`, 'text/arff', /line 5, column 2 \("x"\) holds more than/);
  const nt = `<http://e/d> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${OT}Dataset> .
<http://e/d> <${OT}dataEntry> _:e .
_:e <${OT}compound> <${s.base}/compound/1> .
_:e <${OT}values> _:v .
_:v <${OT}feature> <http://e/f> .
_:v <${OT}value> "a\\u0000b" .
`;
  const r = await http(`${s.url}/dataset`, { method: 'POST', body: nt, contentType: 'application/n-triples', accept: 'text/turtle' });
  assert.equal(r.status, 400, r.text.slice(0, 300));
  // refused where the RDF is read, or where its table is checked (entry 1, column 1)
  assert.match(await messageOf(r), /holds the character U\+0000/);
  // what was refused was not stored
  assert.ok(!parseTurtle((await http(`${s.url}/dataset`, { accept: 'text/turtle' })).text).some((q) => q.object.value === 'a\u0000b'));
});

/** A workbook of one sheet written by hand: its rows' XML, and what follows its sheetData (merges, validations) or precedes it (cols). */
function sheetWorkbook(rows: string, after = '', beforeData = '', names = ''): Uint8Array {
  const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  return zipArchive([
    [
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
    ],
    [
      '_rels/.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    ['xl/workbook.xml', `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${ns}" xmlns:r="${rel}"><sheets><sheet name="data" sheetId="1" r:id="rId1"/></sheets>${names}</workbook>`],
    [
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ],
    ['xl/worksheets/sheet1.xml', `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${ns}">${beforeData}<sheetData>${rows}</sheetData>${after}</worksheet>`],
  ]);
}
