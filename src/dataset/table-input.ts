import { parse as parseCsv } from 'csv-parse/sync';
import type * as RDF from '@rdfjs/types';
import { badRequest } from '../http/errors.js';
import { ot, rdf, rdfs, dc } from '../rdf/namespaces.js';
import type { Structure } from '../chemistry/chemistry.js';
import type { StructureReader, StructureResult } from '../chemistry/structure-reader.js';

/** Where a row's structure comes from: parsed text, or a compound/conformer URI already known. */
export type RowStructure = { structure: Structure; name?: string } | { uri: string };

export interface InputRow {
  /** Line (CSV, ARFF), record (SDF) or entry number, for warnings. */
  line: number;
  structure?: RowStructure;
  cells: (string | RDF.Literal | undefined)[];
}

export interface InputColumn {
  title: string;
  /** A feature the input names explicitly (RDF bodies), reused as is. */
  featureUri?: string;
}

export interface InputTable {
  columns: InputColumn[];
  rows: InputRow[];
  warnings: string[];
  /** How rows are counted in warnings ("row", "record", "entry"). */
  unit: string;
  structureHeader?: string;
}

const STRUCTURE_HEADERS: [RegExp, 'smiles' | 'inchi' | 'uri'][] = [
  [/^(smiles|structure_smiles|canonical_smiles|isomeric_smiles)$/i, 'smiles'],
  [/^(inchi|std_inchi|standard_inchi)$/i, 'inchi'],
  [/^(compound|compound_uri|compounduri|uri)$/i, 'uri'],
];

/**
 * A delimited table (CSV): the structure column is found by its header; every other column
 * is a feature. Rows whose structure is empty or unreadable are reported and left out.
 */
export async function readCsv(text: string, read: StructureReader, onProgress?: (fraction: number) => void): Promise<InputTable> {
  let records: string[][];
  try {
    records = parseCsv(text, { relax_column_count: true, skip_empty_lines: true, bom: true, trim: true });
  } catch (e) {
    throw badRequest(`the CSV cannot be read: ${(e as Error).message}`);
  }
  if (records.length < 1) throw badRequest('the CSV is empty');
  const header = records[0];
  const found = header.map((h, i) => ({ i, kind: STRUCTURE_HEADERS.find(([re]) => re.test(h.trim()))?.[1] })).filter((c) => c.kind);
  if (!found.length) throw badRequest(`the CSV has no structure column: name one SMILES, STRUCTURE_SMILES, InChI or Compound (found ${header.slice(0, 10).map((h) => JSON.stringify(h)).join(', ')})`);
  const order = ['smiles', 'inchi', 'uri'];
  const chosen = found.sort((a, b) => order.indexOf(a.kind!) - order.indexOf(b.kind!))[0];
  const kind = chosen.kind!;
  const structureColumns = new Set(found.map((c) => c.i));
  const featureIdx = header.map((_, i) => i).filter((i) => !structureColumns.has(i));
  const table: InputTable = { columns: featureIdx.map((i) => ({ title: header[i] || `column ${i + 1}` })), rows: [], warnings: [], unit: 'row', structureHeader: header[chosen.i] };
  const candidates: { line: number; text: string; cells: string[] }[] = [];
  records.slice(1).forEach((record, k) => {
    const line = k + 2;
    const text = (record[chosen.i] ?? '').trim();
    if (!text) table.warnings.push(`row ${line}: empty structure, row skipped`);
    else candidates.push({ line, text, cells: featureIdx.map((i) => record[i]) });
  });
  const parsed: (StructureResult | undefined)[] =
    kind === 'uri' ? candidates.map(() => undefined) : await read(candidates.map((c) => ({ kind: kind === 'inchi' ? 'inchi' : 'smiles', text: c.text, what: 'structure' })), onProgress);
  candidates.forEach((c, k) => {
    const result = parsed[k];
    if (!result) table.rows.push({ line: c.line, structure: { uri: c.text }, cells: c.cells });
    else if ('error' in result) table.warnings.push(`row ${c.line}: ${result.error}, row skipped`);
    else table.rows.push({ line: c.line, structure: { structure: result.structure }, cells: c.cells });
  });
  table.warnings.sort((a, b) => lineOf(a) - lineOf(b));
  return table;
}

const lineOf = (warning: string) => Number(/^\w+ (\d+)/.exec(warning)?.[1] ?? 0);

/** An SD file: each record a row, each SD field a feature. */
export async function readSdf(text: string, read: StructureReader): Promise<InputTable> {
  const records = text.split(/\r?\n\$\$\$\$[^\n]*(?=\r?\n|$)/).filter((r) => r.trim());
  if (!records.length) throw badRequest('the SD file holds no records');
  const table: InputTable = { columns: [], rows: [], warnings: [], unit: 'record' };
  const parsed = await read(records.map((r, i) => ({ kind: 'sdf-record', text: i === 0 ? r : r.replace(/^\r?\n/, ''), what: `SDF record ${i + 1}` })));
  const titles: string[] = [];
  parsed.forEach((p, i) => {
    if ('error' in p) table.warnings.push(`record ${i + 1}: ${p.error.replace(/^the SDF record 1 /, 'the structure ')}, record skipped`);
    else for (const k of Object.keys(p.fields)) if (!titles.includes(k)) titles.push(k);
  });
  table.columns = titles.map((title) => ({ title }));
  parsed.forEach((p, i) => {
    if ('error' in p) return;
    table.rows.push({ line: i + 1, structure: { structure: p.structure, name: p.name }, cells: titles.map((t) => p.fields[t]) });
  });
  return table;
}

/** ARFF (Weka): a string attribute named SMILES/InChI/Compound holds the structure. */
export async function readArff(text: string, read: StructureReader): Promise<InputTable> {
  const lines = text.split(/\r?\n/);
  const attributes: string[] = [];
  let dataAt = -1;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].trim();
    const m = /^@attribute\s+('[^']*'|"[^"]*"|\S+)/i.exec(l);
    if (m) attributes.push(m[1].replace(/^['"]|['"]$/g, ''));
    if (/^@data\b/i.test(l)) {
      dataAt = i + 1;
      break;
    }
  }
  if (dataAt < 0 || !attributes.length) throw badRequest('the ARFF has no @attribute or @data section');
  const csv = [attributes.map((a) => `"${a.replace(/"/g, '""')}"`).join(','), ...lines.slice(dataAt).filter((l) => l.trim() && !l.trim().startsWith('%')).map((l) => l.replace(/'([^']*)'/g, (_, v) => `"${v.replace(/"/g, '""')}"`))].join('\n');
  const table = await readCsv(csv.replace(/(^|,)\?(?=,|$)/gm, '$1'), read);
  // warnings count lines of the CSV made from @data; map back to the file's lines
  table.warnings = table.warnings.map((w) => w.replace(/^row (\d+)/, (_, n) => `line ${Number(n) - 2 + dataAt + 1}`));
  for (const r of table.rows) r.line = r.line - 2 + dataAt + 1;
  table.unit = 'line';
  return table;
}

/** The OpenTox RDF form: ot:dataEntry / ot:compound / ot:values / ot:feature / ot:value. */
export function readRdfDataset(quads: RDF.Quad[]): InputTable & { title?: string } {
  const entries = quads.filter((q) => q.predicate.equals(ot('dataEntry'))).map((q) => q.object);
  const entryNodes = entries.length ? entries : quads.filter((q) => q.predicate.equals(rdf('type')) && q.object.equals(ot('DataEntry'))).map((q) => q.subject);
  if (!entryNodes.length) throw badRequest('the RDF body holds no ot:dataEntry');
  const get = (s: RDF.Term, p: RDF.NamedNode) => quads.filter((q) => q.subject.equals(s) && q.predicate.equals(p)).map((q) => q.object);
  const featureOrder: string[] = [];
  const rows: InputRow[] = [];
  const warnings: string[] = [];
  const byIndex = entryNodes.map((e, i) => ({ e, i, index: Number(get(e, ot('index'))[0]?.value ?? i + 1) })).sort((a, b) => a.index - b.index);
  const rowValues: Map<string, RDF.Literal>[] = [];
  byIndex.forEach(({ e }, k) => {
    const compound = get(e, ot('compound'))[0];
    const values = new Map<string, RDF.Literal>();
    for (const v of get(e, ot('values'))) {
      const f = get(v, ot('feature'))[0];
      const val = get(v, ot('value'))[0];
      if (!f || !val || val.termType !== 'Literal') continue;
      if (!featureOrder.includes(f.value)) featureOrder.push(f.value);
      values.set(f.value, val);
    }
    if (!compound || compound.termType !== 'NamedNode') {
      warnings.push(`entry ${k + 1}: no ot:compound, entry skipped`);
      return;
    }
    rows.push({ line: k + 1, structure: { uri: compound.value }, cells: [] });
    rowValues.push(values);
  });
  rows.forEach((r, i) => (r.cells = featureOrder.map((f) => rowValues[i].get(f))));
  const ds = quads.find((q) => q.predicate.equals(rdf('type')) && q.object.equals(ot('Dataset')))?.subject;
  const title = ds ? (get(ds, dc('title'))[0] ?? get(ds, rdfs('label'))[0])?.value : undefined;
  return { columns: featureOrder.map((f) => ({ title: f, featureUri: f })), rows, warnings, unit: 'entry', title };
}
