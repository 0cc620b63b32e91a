import type * as RDF from '@rdfjs/types';
import { badRequest, tooLarge } from '../core/errors.ts';
import { ot, rdf, rdfs, dc, literal, xsd } from '../rdf/namespaces.ts';
import { sdfFields, sdfRecords, type Structure } from '../chemistry/chemistry.ts';
import type { StructureInput, StructureReader } from '../chemistry/structure-reader.ts';
import { TimeSlices } from '../core/time-slices.ts';
import { decodeTable, withDecimalPoint, type DialectOverrides } from './csv-dialect.ts';
import { csvRecords } from './csv-records.ts';
import { CELL_MAX_CHARS, cellAt, checkCell, checkCells, checkColumns, NO_ROWS, readColumns, STRUCTURE_MAX_CHARS, tooLongCell } from './table-limits.ts';
import { isCasNumber, layoutOf, structureKindOf, titleAndUnits, type TableLayout } from './column-roles.ts';
import { findHeader, footnoteNote, HEADER_SEARCH_ROWS, isFootnote, type ShapeRow, unitsNote, unitsRow } from './sheet-shape.ts';
import { unpackedSize, XLSX_MAX_UNPACKED, type SheetCell, type SheetTable } from './xlsx-table.ts';
import type { RunFunction } from '../learning/learner.ts';

/** Where a row's structure comes from: parsed text, or a compound/conformer URI already known. */
export type RowStructure = { structure: Structure; names: string[] } | { uri: string };

export type Cell = string | RDF.Literal | undefined;

export interface InputRow {
  /** Line (CSV, ARFF), record (SDF) or entry number, for warnings. */
  line: number;
  structure?: RowStructure;
  cells: Cell[];
}

/** A row as read from the file: its structure still text (parsed later, on the worker pool). */
export interface RawRow {
  line: number;
  structure?: StructureInput | { uri: string };
  /** Why the row cannot be used (it is skipped with this warning). */
  problem?: string;
  /** What names its substance (a name column, a CAS RN). */
  names?: string[];
  /** What is said of the row, which is kept (a CAS RN that is not one). */
  notes?: string[];
  cells: Cell[];
}

export interface InputColumn {
  title: string;
  /** Units written in the header (`LC50 [mg/L]`). */
  units?: string;
  /** A feature the input names explicitly (RDF bodies), reused as is. */
  featureUri?: string;
  /** What the uploader said of a measured endpoint: its ontology term (owl:sameAs), species and test guideline. */
  endpoint?: Endpoint;
  /** An identifier column the uploader named (`id_columns=`): its values are text, whatever they look like. */
  identifier?: boolean;
}

/** A measured endpoint as its uploader describes it (the upload preview's form). */
export interface Endpoint {
  sameAs?: string;
  species?: string;
  protocol?: string;
}

/**
 * An uploaded table, read row by row as often as needed (once to type the columns, once to
 * store the rows), a chunk of rows at a time: only the raw file and one chunk are in memory.
 */
export interface TableSource {
  columns: InputColumn[];
  /** How rows are counted in warnings ("row", "record", "entry", "line"). */
  unit: string;
  structureHeader?: string;
  title?: string;
  /** What was guessed in reading the file (its encoding, separator, decimal mark), for the upload's warnings. */
  notes?: string[];
  /** Its rows (the header not counted), once every cell has been checked against table-limits.ts (checkedSource). */
  rows?: number;
  /** The rows in order, `size` at a time. */
  chunks(size: number): AsyncGenerator<RawRow[]>;
}

/** A whole table in memory (PUT merges, which rewrite the dataset they merge into anyway). */
export interface InputTable {
  columns: InputColumn[];
  rows: InputRow[];
  warnings: string[];
  unit: string;
  structureHeader?: string;
}

/** Rows per chunk while reading an upload: enough to keep the worker pool busy, small in memory. */
export const ROWS_PER_CHUNK = 1000;
/**
 * Cells per chunk at most: a chunk of a wide table has fewer rows, so that what is done with one
 * chunk at a time (typing its cells, writing its rows) holds the event loop for milliseconds.
 */
export const CELLS_PER_CHUNK = 100_000;

/** What a preview of a table without a structure column says. */
const NO_STRUCTURE_NOTE = 'no column is headed as a structure (SMILES, InChI, Molfile, Compound, Name): choose it with structure_column= (its header or number)';

function rawRowOf(record: Cell[], line: number, layout: TableLayout, unit: string): RawRow {
  const cells = layout.featureAt.map((i) => record[i]);
  if (layout.structureAt < 0) return { line, cells, problem: `${unit} ${line}: no structure column (choose it with structure_column=), ${unit} skipped` };
  // a column the uploader chose holds whatever each cell looks like
  const kind = layout.kind === 'any' ? structureKindOf(cellText(record[layout.structureAt])) : layout.kind;
  // a molfile's first lines (its name, its program line) may be blank: only its end is trimmed
  const structure = record[layout.structureAt];
  const text = kind === 'molfile' ? (typeof structure === 'string' ? structure : (structure?.value ?? '')).trimEnd() : cellText(structure);
  if (!text.trim()) return { line, cells, problem: `${unit} ${line}: empty ${kind === 'name' ? 'name' : 'structure'}, ${unit} skipped` };
  // the substance's name and CAS RN name its compound (a CAS RN whose check digit fails does not)
  const names = layout.nameAt === undefined ? [] : [cellText(record[layout.nameAt])].filter(Boolean);
  const notes: string[] = [];
  const cas = layout.casAt === undefined ? '' : cellText(record[layout.casAt]).replace(MISSING, '');
  if (cas && isCasNumber(cas)) names.push(cas);
  else if (cas) notes.push(`${unit} ${line}: ${JSON.stringify(cas)} is not a CAS RN (its form or check digit), not kept as an identifier`);
  const known = { line, cells, names, notes };
  if (kind === 'uri') return { ...known, structure: { uri: text } };
  if (kind === 'name') return { ...known, structure: { kind: 'name', text, what: 'the name' } };
  return { ...known, structure: { kind: kind === 'molfile' ? 'sdf-record' : kind, text, what: 'structure' } };
}

/** What tables write for "no value" (`-`, `NA`, `n/a`, `#N/A`, `none`, `?`). */
const MISSING = /^(-+|n\/?a|#n\/a|none|null|\?)$/i;

function cellText(cell: Cell): string {
  return (typeof cell === 'string' ? cell : (cell?.value ?? '')).trim();
}

/**
 * A delimited table (CSV, TSV, Excel's `;` and UTF-16 exports): its encoding, separator and
 * decimal mark are found from the file unless the request gives them (csv-dialect.ts). The
 * whole file is read once first (csv-records.ts, handing the event loop back as it goes): its
 * size and every value against table-limits.ts, the columns that hold values, its rows.
 */
/** What the uploader said of a table's shape: its header row (`header_row=`), its structure column (`structure_column=`). */
export interface ShapeChoices {
  headerRow?: number;
  structureColumn?: string;
  /** A table without a structure column is read with none (each row then says so), for the upload preview. */
  orNoStructure?: boolean;
}

export async function csvSource(body: Buffer, overrides: DialectOverrides = {}, choices: ShapeChoices = {}): Promise<TableSource> {
  const { headerRow, structureColumn } = choices;
  const { text, dialect, guesses, mayHoldNonXml } = await decodeTable(body, overrides);
  // a character XML cannot carry is looked for once in the whole text as it is decoded; only a text that may hold one is looked at value by value, to say where
  const suspect = mayHoldNonXml;
  // the first rows, until the header is found among them (sheet-shape.ts): titles and blank rows above it, units under it
  const top: ShapeRow[] = [];
  const enough = Math.max(HEADER_SEARCH_ROWS, headerRow ?? 0) + 1;
  let shape: { header: string[]; headerLine: number; units?: (string | undefined)[] } | undefined;
  const shapeNotes: string[] = [];
  let rows = 0;
  const valueRows: number[] = [];
  const firstValueRow: number[] = [];
  // rows that read as footnotes, kept aside until a row of data follows them (then they are data)
  let tail: { line: number; record: string[] }[] = [];
  const take = (record: string[], line: number) => {
    rows++;
    const width = Math.min(shape!.header.length, record.length);
    for (let j = 0; j < width; j++) {
      if (!record[j]) continue;
      if (!valueRows[j]) [valueRows[j], firstValueRow[j]] = [0, line];
      valueRows[j]++;
    }
  };
  const observe = (record: string[], line: number) => {
    if (isFootnote(record, shape!.header)) {
      tail.push({ line, record });
      return;
    }
    for (const t of tail) take(t.record, t.line);
    tail = [];
    take(record, line);
  };
  const decide = () => {
    const { at, note } = findHeader(top, headerRow);
    if (note) shapeNotes.push(note);
    const header = top[at].cells as string[];
    if (suspect) for (const [k, r] of top.entries()) r.cells.forEach((cell, j) => checkCell(cell as string, cellAt('row', r.line, j + 1, k > at ? header[j] : undefined)));
    layoutOf(header, structureColumn, choices.orNoStructure);
    const next = top[at + 1];
    const units = next ? unitsRow(header, next.cells) : undefined;
    if (units) shapeNotes.push(unitsNote(next.line));
    shape = { header, headerLine: top[at].line, units };
    for (const r of top.slice(at + (units ? 2 : 1))) observe(r.cells as string[], r.line);
  };
  let line = 0;
  for await (const batch of csvRecords(text, dialect.delimiter)) {
    for (const record of batch) {
      line++;
      if (shape) {
        if (suspect) record.forEach((cell, j) => checkCell(cell, cellAt('row', line, j + 1, shape?.header[j])));
        observe(record, line);
      } else {
        top.push({ line, cells: record });
        if (top.length >= enough) decide();
      }
    }
  }
  if (!top.length) throw badRequest('the CSV is empty');
  if (!shape) decide();
  const { header, headerLine, units } = shape!;
  // the footnotes after the last row of data
  const dataEnd = tail.length ? tail[0].line : Number.POSITIVE_INFINITY;
  if (tail.length) shapeNotes.push(footnoteNote(tail.map((t) => t.line)));
  const firstData = headerLine + (units ? 2 : 1);
  const { keep, notes } = readColumns(header, valueRows, firstValueRow, (i, row) => cellAt('row', row, i + 1));
  const kept = keep.length === header.length ? undefined : keep;
  const decimal = (cell: string | undefined) => (cell === undefined ? undefined : withDecimalPoint(cell, dialect.decimal));
  return headedSource(
    kept ? kept.map((i) => header[i]) : header,
    [...guesses, ...shapeNotes, ...notes],
    async function* () {
      let line = 0;
      for await (const batch of csvRecords(text, dialect.delimiter)) {
        const out: { line: number; cells: Cell[] }[] = [];
        for (const record of batch) {
          // rows are numbered as the file's lines would be without blank lines
          line++;
          if (line < firstData || line >= dataEnd) continue;
          out.push({ line, cells: kept ? kept.map((i) => decimal(record[i])) : record.map(decimal) });
        }
        yield out;
      }
    },
    undefined,
    rows,
    units && (kept ? kept.map((i) => units[i]) : header.map((_, i) => units[i])),
    choices,
  );
}

/**
 * The first sheet of an Excel workbook (or the one `sheet` names): numbers stay numbers, dates
 * are xsd:date (xsd:dateTime with a time of day), formulas are read as their saved results;
 * rows are numbered as Excel numbers them. Parsed on the worker pool.
 */
export async function xlsxSource(body: Buffer, sheet: string | undefined, run: RunFunction, choices: ShapeChoices = {}): Promise<TableSource> {
  const unpacked = unpackedSize(body);
  if (unpacked === undefined) throw badRequest('the file is not an Excel workbook (.xlsx): it is not a zip archive');
  if (unpacked > XLSX_MAX_UNPACKED) throw tooLarge(`the workbook unpacks to more than ${XLSX_MAX_UNPACKED / 1024 / 1024} MiB`);
  let table: SheetTable;
  try {
    table = await run<SheetTable>(XLSX_WORKER, 'readWorkbook', [body, sheet, choices.headerRow]);
  } catch (e) {
    // a workbook the reading thread could not hold or parse (what it refuses comes back as a table's error)
    throw badRequest(`the workbook cannot be read: ${(e as Error).message.slice(0, 200)}`);
  }
  if ('error' in table) throw table.status === 413 ? tooLarge(table.error) : badRequest(table.error);
  return headedSource(
    table.header,
    table.notes,
    async function* () {
      for (let i = 0; i < table.rows.length; i += ROWS_PER_CHUNK) yield table.rows.slice(i, i + ROWS_PER_CHUNK).map((row) => ({ line: row.line, cells: row.cells.map(sheetCell) }));
    },
    table.described,
    // the worker checked every cell against table-limits.ts
    table.rows.length,
    table.units,
    choices,
  );
}

const XLSX_WORKER = new URL('./xlsx-table.ts', import.meta.url).href;

function sheetCell(cell: SheetCell): Cell {
  if (cell === null) return undefined;
  if (typeof cell === 'number') return literal(String(cell), xsd('double'));
  if (typeof cell === 'boolean') return String(cell);
  if (typeof cell === 'object') return literal(cell.date, xsd(cell.date.length === 10 ? 'date' : 'dateTime'));
  return cell;
}

/**
 * A table of a header and records: the structure column is found by its header; every other
 * column is a feature. Rows whose structure is empty or unreadable are reported and left out.
 */
function headedSource(
  header: string[],
  notes: string[],
  records: () => AsyncGenerator<{ line: number; cells: Cell[] }[]>,
  described?: { title: string; units?: string }[],
  rows?: number,
  units?: (string | undefined)[],
  choices: ShapeChoices = {},
): TableSource {
  const layout = layoutOf(header, choices.structureColumn, choices.orNoStructure);
  if (layout.structureAt < 0) notes = [...notes, NO_STRUCTURE_NOTE];
  // a workbook this server wrote says what its columns are (after the structure, in order); a units row says what the header does not
  const columnAt = (i: number, k: number) => {
    if (described && layout.structureAt === 0) return described[k];
    const column = titleAndUnits(header[i] || `column ${i + 1}`);
    return units?.[i] && !column.units ? { ...column, units: units[i] } : column;
  };
  return {
    columns: layout.featureAt.map((i, k) => columnAt(i, k)),
    unit: 'row',
    structureHeader: layout.structureAt < 0 ? undefined : header[layout.structureAt],
    notes,
    rows,
    async *chunks(size) {
      let chunk: RawRow[] = [];
      const rowsPerChunk = Math.max(1, Math.min(size, Math.floor(CELLS_PER_CHUNK / header.length)));
      for await (const batch of records()) {
        for (const { line, cells } of batch) {
          chunk.push(rawRowOf(cells, line, layout, 'row'));
          if (chunk.length >= rowsPerChunk) {
            yield chunk;
            chunk = [];
          }
        }
      }
      if (chunk.length) yield chunk;
    },
  };
}

/** An SD file: each record a row, each SD field a feature (the fields are read in a first pass). */
export async function sdfSource(text: string): Promise<TableSource> {
  const titles: string[] = [];
  const seen = new Set<string>();
  const slices = new TimeSlices();
  let records = 0;
  for (const record of sdfRecords(text)) {
    records++;
    if (record.length > STRUCTURE_MAX_CHARS) throw badRequest(tooLongCell(`record ${records}`, record.length, STRUCTURE_MAX_CHARS));
    for (const k of Object.keys(sdfFields(record))) {
      if (seen.has(k)) continue;
      seen.add(k);
      titles.push(k);
    }
    await slices.pause();
  }
  if (!records) throw badRequest('the SD file holds no records');
  return {
    columns: titles.map((title) => ({ title })),
    unit: 'record',
    async *chunks(size) {
      let chunk: RawRow[] = [];
      let n = 0;
      for (const record of sdfRecords(text)) {
        n++;
        const fields = sdfFields(record);
        chunk.push({ line: n, structure: { kind: 'sdf-record', text: record, what: `SDF record ${n}` }, cells: titles.map((t) => fields[t]) });
        if (chunk.length >= size) {
          yield chunk;
          chunk = [];
        }
        await slices.pause();
      }
      if (chunk.length) yield chunk;
    },
  };
}

/** ARFF (Weka): a string attribute named SMILES/InChI/Compound holds the structure. */
export async function arffSource(text: string): Promise<TableSource> {
  const attributes: string[] = [];
  let dataAt = -1;
  const lineBreak = /\r?\n/g;
  let lineNo = 0;
  let start = 0;
  // the header, line by line, up to @data
  for (;;) {
    const m = lineBreak.exec(text);
    const line = text.slice(start, m ? m.index : text.length).trim();
    lineNo++;
    start = m ? m.index + m[0].length : text.length;
    const a = /^@attribute\s+('[^']*'|"[^"]*"|\S+)/i.exec(line);
    if (a) attributes.push(a[1].replace(/^['"]|['"]$/g, ''));
    if (/^@data\b/i.test(line)) {
      dataAt = start;
      break;
    }
    if (!m) break;
  }
  if (dataAt < 0 || !attributes.length) throw badRequest('the ARFF has no @attribute or @data section');
  const layout = layoutOf(attributes);
  const firstDataLine = lineNo + 1;
  return {
    columns: layout.featureAt.map((i) => ({ title: attributes[i] || `column ${i + 1}` })),
    unit: 'line',
    structureHeader: attributes[layout.structureAt],
    async *chunks(size) {
      const lines = /([^\r\n]*)(\r?\n|$)/g;
      lines.lastIndex = dataAt;
      let n = firstDataLine - 1;
      let chunk: RawRow[] = [];
      const slices = new TimeSlices();
      while (lines.lastIndex < text.length) {
        const m = lines.exec(text)!;
        n++;
        const line = m[1].trim();
        if (!m[0]) break;
        if (!line || line.startsWith('%')) continue;
        // ARFF quotes with '...'; missing values are ?
        const csv = line.replace(/'([^']*)'/g, (_, v: string) => `"${v.replace(/"/g, '""')}"`).replace(/(^|,)\?(?=,|$)/g, '$1');
        let record: string[] = [];
        for await (const batch of csvRecords(csv, ',', { unit: 'line', firstRow: n, header: attributes, what: 'the ARFF' })) record = batch[0] ?? record;
        chunk.push(rawRowOf(record, n, layout, 'line'));
        if (chunk.length >= size) {
          yield chunk;
          chunk = [];
        }
        await slices.pause();
      }
      if (chunk.length) yield chunk;
    },
  };
}

/** The OpenTox RDF form: ot:dataEntry / ot:compound / ot:values / ot:feature / ot:value (parsed whole). */
export function rdfSource(quads: RDF.Quad[]): TableSource {
  const { columns, rows, title } = readRdfDataset(quads);
  return {
    columns,
    unit: 'entry',
    title,
    async *chunks(size) {
      for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
    },
  };
}

/**
 * Read a chunk's structures (on the worker pool): rows whose structure cannot be read, or that
 * have none, are left out with a warning.
 */
export async function withStructures(chunk: RawRow[], read: StructureReader, warnings: string[], unit: string): Promise<InputRow[]> {
  const toParse = chunk.filter((r) => r.structure && 'kind' in r.structure);
  const parsed = toParse.length ? await read(toParse.map((r) => r.structure as StructureInput)) : [];
  const results = new Map(toParse.map((r, k) => [r, parsed[k]]));
  const rows: InputRow[] = [];
  for (const r of chunk) {
    warnings.push(...(r.notes ?? []));
    if (r.problem || !r.structure) {
      warnings.push(r.problem ?? `${unit} ${r.line}: no structure, ${unit} skipped`);
      continue;
    }
    if ('uri' in r.structure) {
      rows.push({ line: r.line, structure: { uri: r.structure.uri }, cells: r.cells });
      continue;
    }
    const result = results.get(r)!;
    if ('error' in result) {
      const error = r.structure.kind === 'sdf-record' ? result.error.replace(/^the SDF record 1 /, 'the structure ') : result.error;
      warnings.push(`${unit} ${r.line}: ${error}, ${unit} skipped`);
    } else rows.push({ line: r.line, structure: { structure: result.structure, names: r.names?.length ? r.names : result.name ? [result.name] : [] }, cells: r.cells });
  }
  return rows;
}

/**
 * The one check of an uploaded table, for the upload and its preview alike (openTable calls it):
 * its headers, its size and every cell against table-limits.ts, and that it has rows. A source
 * that checked its cells while it read the file (CSV/TSV, workbooks) says how many rows it has;
 * the others (SDF, ARFF, RDF) are read once here. Answers the source with its count of rows.
 */
export async function checkedSource(source: TableSource): Promise<TableSource & { rows: number }> {
  const width = source.columns.length + 1;
  checkColumns(width);
  source.columns.forEach((c, j) => {
    checkCell(c.title, `the header of column ${j + 1}`);
    if (c.units) checkCell(c.units, `the units of column ${j + 1}`);
  });
  let rows = source.rows;
  if (rows === undefined) {
    rows = 0;
    for await (const chunk of source.chunks(ROWS_PER_CHUNK)) {
      for (const r of chunk) checkRow(r, source);
      rows += chunk.length;
      checkCells((rows + 1) * width);
    }
  }
  if (!rows) throw badRequest(NO_ROWS);
  checkCells((rows + 1) * width);
  return { ...source, rows };
}

/** 400 when a row's cells or structure cannot be stored (too long, or a character RDF/XML cannot carry). */
function checkRow(r: RawRow, source: TableSource): void {
  r.cells.forEach((cell, j) => {
    const text = typeof cell === 'string' ? cell : cell?.value;
    if (text) checkCell(text, cellAt(source.unit, r.line, j + 1, source.columns[j]?.title));
  });
  if (!r.structure) return;
  const structure = 'uri' in r.structure ? r.structure.uri : r.structure.text;
  checkCell(structure, `${source.unit} ${r.line}: its structure`, 'kind' in r.structure && r.structure.kind === 'sdf-record' ? STRUCTURE_MAX_CHARS : CELL_MAX_CHARS);
}

/** A whole source in memory (for PUT merges). */
export async function collectTable(source: TableSource, read: StructureReader): Promise<InputTable> {
  const table: InputTable = { columns: source.columns, rows: [], warnings: [...(source.notes ?? [])], unit: source.unit, structureHeader: source.structureHeader };
  for await (const chunk of source.chunks(ROWS_PER_CHUNK)) table.rows.push(...(await withStructures(chunk, read, table.warnings, source.unit)));
  return table;
}

/** The entries of an OpenTox RDF dataset in ot:index order; an entry without ot:compound is a row with a problem. */
function readRdfDataset(quads: RDF.Quad[]): { columns: InputColumn[]; rows: RawRow[]; title?: string } {
  const entries = quads.filter((q) => q.predicate.equals(ot('dataEntry'))).map((q) => q.object);
  const entryNodes = entries.length ? entries : quads.filter((q) => q.predicate.equals(rdf('type')) && q.object.equals(ot('DataEntry'))).map((q) => q.subject);
  if (!entryNodes.length) throw badRequest('the RDF body holds no ot:dataEntry');
  const bySubject = new Map<string, RDF.Quad[]>();
  for (const q of quads) {
    const key = `${q.subject.termType}:${q.subject.value}`;
    let list = bySubject.get(key);
    if (!list) bySubject.set(key, (list = []));
    list.push(q);
  }
  const get = (s: RDF.Term, p: RDF.NamedNode) => (bySubject.get(`${s.termType}:${s.value}`) ?? []).filter((q) => q.predicate.equals(p)).map((q) => q.object);
  const featureOrder: string[] = [];
  const featureSeen = new Set<string>();
  const byIndex = entryNodes.map((e, i) => ({ e, index: Number(get(e, ot('index'))[0]?.value ?? i + 1) })).sort((a, b) => a.index - b.index);
  const values = byIndex.map(({ e }) => {
    const found = new Map<string, RDF.Literal>();
    for (const v of get(e, ot('values'))) {
      const f = get(v, ot('feature'))[0];
      const val = get(v, ot('value'))[0];
      if (!f || !val || val.termType !== 'Literal') continue;
      if (!featureSeen.has(f.value)) {
        featureSeen.add(f.value);
        featureOrder.push(f.value);
      }
      found.set(f.value, val);
    }
    return found;
  });
  const rows = byIndex.map(({ e }, k): RawRow => {
    const compound = get(e, ot('compound'))[0];
    const cells = featureOrder.map((f) => values[k].get(f));
    const line = k + 1;
    if (compound?.termType !== 'NamedNode') return { line, cells, problem: `entry ${line}: no ot:compound, entry skipped` };
    return { line, cells, structure: { uri: compound.value } };
  });
  const ds = quads.find((q) => q.predicate.equals(rdf('type')) && q.object.equals(ot('Dataset')))?.subject;
  const title = ds ? (get(ds, dc('title'))[0] ?? get(ds, rdfs('label'))[0])?.value : undefined;
  return { columns: featureOrder.map((f) => ({ title: f, featureUri: f })), rows, title };
}
