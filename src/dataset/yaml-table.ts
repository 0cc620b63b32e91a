import { Composer, isAlias, isMap, isScalar, isSeq, Lexer, LineCounter, Parser, visit, type Document, type Node as YamlNode } from 'yaml';
import { badRequest, tooLarge } from '../core/errors.ts';
import type { RunFunction } from '../learning/learner.ts';
import { CELL_MAX_CHARS, cellAt, cellProblem, TABLE_MAX_CELLS, TABLE_MAX_COLUMNS } from './table-limits.ts';
import type { InputColumn, RawRow, TableSource } from './table-input.ts';
import { RUBY_DATASET_TAGS, TITLES, UNITS } from './yaml-dataset.ts';

// An uploaded dataset in the YAML layout of the OpenTox Ruby services (yaml-dataset.ts), read
// on the worker pool into the rows a table upload gives: one row per compound (one per value
// when a compound has several values of a feature), one column per feature. Only that layout
// is read, with every limit of a table upload, and the document's own expansion bounded:
// - size: at most YAML_MAX_BYTES, YAML_MAX_TOKENS and YAML_MAX_ALIASES, counted as the parser
//   goes (it holds hundreds of bytes a token: 2 MB of `C,` made 1 GB before it);
// - nesting: at most YAML_MAX_DEPTH levels, checked as the parser goes (its cost grows with
//   depth: two bytes of `[` a level took 1 GB and seconds before it);
// - aliases: followed by this reader, never by the parser; every node reached counts, an alias
//   counting what it stands for, against YAML_MAX_NODES (a billion laughs stops there);
// - tags: only the core schema's, `!binary`, and the dataset's Ruby class at the root; any
//   other tag (`!!js/function`, `!ruby/object:` another class) is refused, never resolved.

/** Bytes of a YAML upload (what it may hold is bounded by its tokens, below). */
export const YAML_MAX_BYTES = 8 * 1024 * 1024;
/**
 * Tokens of a document (its lexemes: scalars, indicators, line ends): the parser holds some 350
 * bytes and 2 µs a token, an alias twice that; a value of the Ruby layout takes about 14.
 */
export const YAML_MAX_TOKENS = 1_000_000;
export const YAML_MAX_ALIASES = 100_000;
/** Nesting of a document: the layout needs six levels, metadata a few more. */
export const YAML_MAX_DEPTH = 32;
/** Nodes the reader may reach, aliases counted as what they stand for: twice the cells of the largest table and more. */
export const YAML_MAX_NODES = 3 * TABLE_MAX_CELLS;

/** What comes back from the worker: the table, or why there is none (400, 413). */
export type YamlTable = { title?: string; columns: InputColumn[]; rows: YamlRow[]; notes: string[] } | { error: string; status: 400 | 413 };
/** A row: its compound as the document names it (a URI, SMILES or InChI), its cells (null: no value). */
export interface YamlRow {
  line: number;
  compound: string;
  cells: (string | null)[];
}

class Refused extends Error {}

const CORE = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq', 'binary'].map((t) => `tag:yaml.org,2002:${t}`));
/** The Ruby services' own spelling of binary text (Psych writes strings that are not UTF-8 so). */
const BINARY = new Set(['tag:yaml.org,2002:binary', '!binary']);

/** Worker entry: an uploaded YAML document as a table. */
export function readYamlDataset(body: Uint8Array): YamlTable {
  try {
    return tableOf(documentOf(body));
  } catch (e) {
    if (e instanceof Refused) return { error: e.message, status: 400 };
    throw e;
  }
}

/** The one document of the upload, parsed with its depth checked as the parser goes. */
function documentOf(body: Uint8Array): Document.Parsed {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new Refused('the YAML is not UTF-8 text');
  }
  const lines = new LineCounter();
  const parser = new Parser(lines.addNewLine);
  let count = 0;
  let aliases = 0;
  const tokens = function* () {
    for (const lexeme of new Lexer().lex(text)) {
      if (++count > YAML_MAX_TOKENS) throw new Refused(`the YAML holds more than ${YAML_MAX_TOKENS} tokens (some 70,000 values in the Ruby layout); send larger datasets as CSV or RDF`);
      if (lexeme[0] === '*' && ++aliases > YAML_MAX_ALIASES) throw new Refused(`the YAML holds more than ${YAML_MAX_ALIASES} aliases`);
      yield* parser.next(lexeme);
      if (parser.stack.length > YAML_MAX_DEPTH) {
        const { line } = lines.linePos(parser.offset);
        throw new Refused(`the YAML nests deeper than ${YAML_MAX_DEPTH} levels (at line ${line})`);
      }
    }
    yield* parser.end();
  };
  const docs = [...new Composer({ uniqueKeys: false }).compose(tokens())];
  if (docs.length !== 1) throw new Refused(`the YAML holds ${docs.length} documents; a dataset is one`);
  const [doc] = docs;
  const error = doc.errors[0];
  if (error) {
    const { line, col } = lines.linePos(error.pos[0]);
    throw new Refused(`the YAML cannot be read: line ${line}, column ${col}: ${error.message.split('\n')[0].slice(0, 200)}`);
  }
  return doc;
}

/**
 * The document's aliases, each to the node it stands for (the last anchor of its name before
 * it), in one pass that also refuses tags outside the layout.
 */
function aliasesOf(doc: Document.Parsed): Map<YamlNode, YamlNode> {
  const anchors = new Map<string, YamlNode>();
  const targets = new Map<YamlNode, YamlNode>();
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node)) {
        const target = anchors.get(node.source);
        if (!target) throw new Refused(`the YAML's alias *${node.source.slice(0, 100)} has no anchor before it`);
        targets.set(node, target);
        return;
      }
      const tag = node.tag;
      if (tag && !CORE.has(tag) && !BINARY.has(tag) && !(node === doc.contents && RUBY_DATASET_TAGS.includes(tag)))
        throw new Refused(`the YAML has the tag ${tag.slice(0, 100)}; a dataset's YAML has only the core tags and ${RUBY_DATASET_TAGS[0]} at its root`);
      if (node.anchor) anchors.set(node.anchor, node);
    },
  });
  return targets;
}

/** The document as a table: its features as columns, its compounds as rows. */
function tableOf(doc: Document.Parsed): YamlTable {
  const aliases = aliasesOf(doc);
  let reached = 0;
  /** A node, an alias followed, counted against YAML_MAX_NODES. */
  const at = (node: unknown): unknown => {
    if (++reached > YAML_MAX_NODES) throw new Refused(`the YAML stands for more than ${YAML_MAX_NODES} values (its aliases expanded); a table may have at most ${TABLE_MAX_CELLS} cells`);
    return isAlias(node) ? aliases.get(node) : node;
  };
  const pairs = (node: unknown, what: string) => {
    const n = at(node);
    if (n === null || n === undefined || (isScalar(n) && n.value === null)) return [];
    if (!isMap(n)) throw new Refused(`${what} is not a mapping`);
    return n.items.map((p) => ({ key: keyOf(at(p.key), what), value: p.value }));
  };
  const items = (node: unknown): unknown[] => {
    const n = at(node);
    if (n === null || n === undefined || (isScalar(n) && n.value === null)) return [];
    return isSeq(n) ? n.items : [n];
  };
  /** An annotation's text (a title, units): of several values the first; a mapping says nothing. */
  const annotation = (node: unknown, what: string): string | undefined => {
    const n = at(node);
    const first = isSeq(n) ? at(n.items[0]) : n;
    return isScalar(first) ? (scalarText(first, what) ?? undefined) : undefined;
  };
  const root = at(doc.contents);
  if (!isMap(root)) throw new Refused('the YAML is not a mapping: a dataset is one, of uri, metadata, features, compounds and data_entries (the OpenTox::Dataset of the Ruby services)');
  const field = (name: string) => root.items.find((p) => isScalar(p.key) && p.key.value === name)?.value;
  const notes: string[] = [];

  const title = pairs(field('metadata'), 'metadata').find((p) => TITLES.includes(p.key))?.value;
  const columns: InputColumn[] = [];
  const columnOf = new Map<string, number>();
  const addColumn = (key: string, meta: { key: string; value: unknown }[]) => {
    if (columnOf.has(key)) return;
    if (columns.length + 1 >= TABLE_MAX_COLUMNS)
      throw new Refused(`the YAML has more than ${TABLE_MAX_COLUMNS - 1} features; a table may have at most ${TABLE_MAX_COLUMNS} columns (its structure counted)`);
    const text = (names: string[]) => annotation(meta.find((p) => names.includes(p.key))?.value, `feature ${named(key)}`);
    const given = text(TITLES);
    const units = text([UNITS]);
    // a feature named by URI is that feature, as in an RDF upload; one named otherwise is a new column of that title
    const column: InputColumn = isUri(key) ? { title: given ?? key, featureUri: key } : { title: given ?? key };
    if (units) column.units = units;
    checked(column.title, `the title of feature ${named(key)}`);
    columnOf.set(key, columns.length);
    columns.push(column);
  };
  for (const f of pairs(field('features'), 'features')) addColumn(f.key, pairs(f.value, `the metadata of feature ${named(f.key)}`));

  // the compounds in the order of their list, then those with entries only
  const order: string[] = [];
  const listed = new Set<string>();
  for (const c of items(field('compounds'))) {
    const key = keyOf(at(c), 'compounds');
    if (!listed.has(key)) order.push(key);
    listed.add(key);
  }
  const entries = new Map<string, { key: string; value: unknown }[]>();
  for (const e of pairs(field('data_entries'), 'data_entries')) {
    if (entries.has(e.key)) throw new Refused(`data_entries has the compound ${named(e.key)} twice`);
    const values = pairs(e.value, `the entry of ${named(e.key)}`);
    entries.set(e.key, values);
    if (!listed.has(e.key)) order.push(e.key);
    listed.add(e.key);
    for (const v of values) addColumn(v.key, []);
  }

  const rows: YamlRow[] = [];
  let replicated = 0;
  for (const compound of order) {
    checked(compound, `the compound ${named(compound)}`);
    const lists = new Map<number, unknown[]>();
    for (const v of entries.get(compound) ?? []) lists.set(columnOf.get(v.key)!, items(v.value));
    const count = Math.max(1, ...[...lists.values()].map((l) => l.length));
    if (count > 1) replicated++;
    for (let i = 0; i < count; i++) {
      const line = rows.length + 1;
      if ((line + 1) * (columns.length + 1) > TABLE_MAX_CELLS)
        throw new Refused(`the YAML has more than ${TABLE_MAX_CELLS} cells (rows × columns, the header's counted); split it into several uploads`);
      const cells: (string | null)[] = columns.map(() => null);
      for (const [j, list] of lists) {
        const text = scalarText(at(list[i]), `the values of ${named(compound)}, ${named(columns[j].title)}`);
        if (text !== null) cells[j] = checked(text, cellAt('entry', line, j + 1, columns[j].title));
      }
      rows.push({ line, compound, cells });
    }
  }
  if (replicated) notes.push(`${replicated} compound(s) have several values of a feature: a row for each value`);
  return { title: annotation(title, 'the title'), columns, rows, notes };
}

/** A mapping's key as text (a number or truth value as written); anything else is refused. */
function keyOf(node: unknown, what: string): string {
  const text = isScalar(node) ? scalarText(node, what) : undefined;
  if (text === undefined || text === null || text === '') throw new Refused(`${what} has a key that is not a name, a number or a URI`);
  return text;
}

/** A value as a cell's text: numbers and truth values as a CSV writes them, binary as its UTF-8 text; null for none; a collection is refused. */
function scalarText(node: unknown, what: string): string | null {
  if (node === undefined || node === null) return null;
  if (!isScalar(node)) throw new Refused(`${what}: a value is a list or a mapping; a value is a number, a truth value or text`);
  const v = node.value;
  if (v === null || v === undefined) return null;
  if (node.tag && BINARY.has(node.tag)) {
    const bytes = v instanceof Uint8Array ? v : Buffer.from(String(v), 'base64');
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new Refused(`${what}: a !binary value is not UTF-8 text`);
    }
  }
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v instanceof Date) return v.toISOString().replace(/T00:00:00\.000Z$/, '');
  throw new Refused(`${what}: a value is not a number, a truth value or text`);
}

/** The text, when a cell may hold it (table-limits.ts). */
function checked(text: string, where: string): string {
  const problem = cellProblem(text, where, CELL_MAX_CHARS);
  if (problem) throw new Refused(problem);
  return text;
}

/** A name as a message gives it: its first 100 characters. */
function named(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

function isUri(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
}

/**
 * Where a row's structure comes from: a compound URI of this service is that compound; a URI
 * of the Ruby compound services (`…/compound/InChI=1S/…`) is its InChI; other text is an InChI
 * (`InChI=…`) or a SMILES.
 */
function structureOf(compound: string, line: number): RawRow['structure'] {
  if (isUri(compound)) {
    let path = compound;
    try {
      path = decodeURIComponent(new URL(compound).pathname);
    } catch {
      // not a URL after all: kept as the URI it says it is
    }
    const inchi = /\/compound\/(InChI=.+)$/.exec(path)?.[1];
    return inchi ? { kind: 'inchi', text: inchi, what: `entry ${line}` } : { uri: compound };
  }
  return { kind: compound.startsWith('InChI=') ? 'inchi' : 'smiles', text: compound, what: `entry ${line}` };
}

const YAML_WORKER = new URL('./yaml-table.ts', import.meta.url).href;

/** An uploaded YAML dataset as a table source (read whole on the worker pool, every cell checked there). */
export async function yamlSource(body: Buffer, run: RunFunction): Promise<TableSource> {
  if (body.length > YAML_MAX_BYTES) throw tooLarge(`a YAML upload may have at most ${YAML_MAX_BYTES / 1024 / 1024} MiB; send larger datasets as CSV or RDF`);
  let table: YamlTable;
  try {
    table = await run<YamlTable>(YAML_WORKER, 'readYamlDataset', [body]);
  } catch (e) {
    throw badRequest(`the YAML cannot be read: ${(e as Error).message.slice(0, 200)}`);
  }
  if ('error' in table) throw table.status === 413 ? tooLarge(table.error) : badRequest(table.error);
  const { rows } = table;
  return {
    columns: table.columns,
    unit: 'entry',
    title: table.title,
    structureHeader: 'compounds',
    notes: table.notes,
    rows: rows.length,
    async *chunks(size) {
      for (let i = 0; i < rows.length; i += size) {
        yield rows.slice(i, i + size).map((r): RawRow => ({ line: r.line, structure: structureOf(r.compound, r.line), cells: r.cells.map((c) => c ?? undefined) }));
      }
    },
  };
}
