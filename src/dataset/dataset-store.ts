import { releaseParts } from '../store/intermediate-parts.ts';
import { featureGraph, featuresByTitle } from '../feature/feature-record.ts';
import { parseDatasetRef } from '../core/uri-scheme.ts';
import type * as RDF from '@rdfjs/types';
import { df, ot, owl, dc, dcterms } from '../rdf/namespaces.ts';
import { select, selectUris, type ListOptions } from '../store/query-helpers.ts';
import { sortById } from '../store/id-minter.ts';
import {
  datasetMeta,
  datasetOfEntry,
  entryIri,
  entryNumber,
  entryQuads,
  mergeAnnotations,
  metadataQuads,
  parseRowRuns,
  rowRuns,
  rowRunsLength,
  selectionEntryQuads,
  type DatasetMeta,
  type DatasetMetadata,
} from './dataset-codec.ts';
import { datasetQueries } from './dataset-queries.ts';
import { compoundQueries } from '../compound/compound-queries.ts';
import { badRequest, notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { PostedStructure } from '../compound/structure-input.ts';
import { ColumnTyper, typeColumns, typedCells, type TypedColumn } from './columns.ts';
import { ConflictFinder, comparedColumn, conflictSummary, conflictWarning } from './conflicting-duplicates.ts';
import { ROWS_PER_CHUNK, withStructures, type InputRow, type InputTable, type TableSource } from './table-input.ts';
import type { StructureReader } from '../chemistry/structure-reader.ts';

export type { DatasetMeta } from './dataset-codec.ts';

export interface DatasetRow {
  entry: string;
  index: number;
  compound: string;
  values: Map<string, RDF.Literal>;
  /** A selection's row: the entry of the dataset whose values it has (see startSelection). */
  sameAs?: string;
}

export interface RowFilter {
  compounds?: string[];
  features?: string[];
  /** Only rows whose value of `feature` is `value` (before paging): the rows inside a domain, of a class. */
  where?: { feature: string; value: string };
  page?: number;
  pagesize?: number;
}

/** Dublin Core annotations accepted as form or multipart parameters. */
export const DC_PARAMS: Record<string, RDF.NamedNode> = {
  title: dc('title'),
  description: dc('description'),
  creator: dc('creator'),
  contributor: dc('contributor'),
  publisher: dc('publisher'),
  subject: dc('subject'),
  source: dc('source'),
  rights: dc('rights'),
  license: dcterms('license'),
  seeAlso: df.namedNode('http://www.w3.org/2000/01/rdf-schema#seeAlso'),
};

/** The row a warning names ("row 7: ..."). */
const lineOf = (warning: string) => Number(/^\w+ (\d+)/.exec(warning)?.[1] ?? 0);

/**
 * Datasets in the store. `{uri}` holds the metadata (title, license, source, warnings and the
 * columns in order); `{uri}/entries` holds the rows in the bulk partition, one quad per value:
 *
 *     <{uri}> ot:dataEntry <{uri}#entry-00000001> .
 *     <{uri}#entry-00000001> ot:compound <compound> ; ot:index 1 ; <feature> "1.5"^^xsd:double .
 *
 * Clients receive the standard ot:dataEntry / ot:values / ot:feature / ot:value form, built
 * from these rows as they stream out. A new dataset's rows are written first and its metadata
 * last: a dataset exists once its metadata graph does, so an interrupted upload never shows.
 */
export class DatasetStore {
  readonly collection: string;

  private readonly services: Pick<Services, 'uris' | 'store' | 'ids'>;
  private readonly compounds: CompoundRegistry;
  constructor(services: DatasetStore['services'], compounds: CompoundRegistry) {
    this.services = services;
    this.compounds = compounds;
    this.collection = services.uris.collection('dataset');
  }

  /** How an upload's structures are read: on the worker pool, chemical names resolved first (the compound registry's reader). */
  structureReader(signal?: AbortSignal): StructureReader {
    return this.compounds.reader(signal);
  }

  entriesGraph(uri: string): string {
    return this.services.uris.subgraph(uri, 'entries');
  }

  /** This server's datasets (not harvested copies of others'). */
  async list(options: ListOptions = {}): Promise<string[]> {
    return (await selectUris(this.services.store, datasetQueries.all(options))).filter((d) => this.services.uris.isIn('dataset', d));
  }

  /** Every dataset with its title, in id order, in one query (not one metadata read each); intermediate work left out (pickers). */
  async listWithTitles(): Promise<{ uri: string; title?: string }[]> {
    const titles = new Map<string, string | undefined>();
    for (const row of await select(this.services.store, datasetQueries.titled())) if (this.services.uris.isIn('dataset', row.r.value)) titles.set(row.r.value, titles.get(row.r.value) ?? row.t?.value);
    return sortById([...titles.keys()]).map((uri) => ({ uri, title: titles.get(uri) }));
  }

  async readMeta(uri: string): Promise<DatasetMeta | undefined> {
    return datasetMeta(await this.services.store.readGraph(uri), uri);
  }

  /** The dataset a request parameter names (its query, if any, ignored); 404 naming the parameter when there is none. */
  async requireMeta(uri: string, parameter: string): Promise<DatasetMeta> {
    const meta = await this.readMeta(parseDatasetRef(uri).uri);
    if (!meta) throw notFound(`${parameter}: dataset ${uri} not found`);
    return meta;
  }

  /**
   * The dataset a reference names with the features its query selects (`?feature_uris[]=…`,
   * none: all); 404 when there is no such dataset, 400 when it lacks a selected feature.
   */
  async requireRef(ref: string, parameter = 'dataset_uri'): Promise<{ meta: DatasetMeta; selected: string[] }> {
    const { uri, features: selected } = parseDatasetRef(ref);
    const meta = await this.requireMeta(uri, parameter);
    const unknown = selected.filter((f) => !meta.features.includes(f));
    if (unknown.length) throw badRequest(`${parameter} selects features that are not in dataset ${uri}: ${unknown.join(', ')}`);
    return { meta, selected };
  }

  /** Every row in order, in memory (for work that needs them all at once). */
  async allRows(uri: string): Promise<DatasetRow[]> {
    const rows: DatasetRow[] = [];
    for await (const r of this.rows(uri)) rows.push(r);
    return rows;
  }

  /** The datasets with a row of a structure (found through the index of rows by compound). */
  async holding(structure: string): Promise<string[]> {
    return (await select(this.services.store, compoundQueries.datasetsHolding(structure))).map((r) => r.d.value);
  }

  /** The number of rows, counted in the store (no row is read); a selection's, from its runs. */
  async count(uri: string): Promise<number> {
    const meta = await this.readMeta(uri);
    if (meta?.rowsOf && meta.selectedRows !== undefined) return rowRunsLength(meta.selectedRows);
    const [row] = await select(this.services.store, datasetQueries.rowCount(uri, this.entriesGraph(uri)));
    return Number(row?.n.value ?? 0);
  }

  /**
   * The rows in order, optionally a subset; memory stays flat whatever the size (but for a
   * selection whose rows are not in its source's order, which holds the rows it selects).
   */
  async *rows(uri: string, filter: RowFilter = {}): AsyncGenerator<DatasetRow> {
    const meta = await this.readMeta(uri);
    const compounds = filter.compounds?.length ? new Set(filter.compounds) : undefined;
    const features = filter.features?.length ? new Set(filter.features) : undefined;
    const skip = filter.pagesize ? (filter.page ?? 0) * filter.pagesize : 0;
    const take = filter.pagesize ?? Infinity;
    const where = filter.where;
    let seen = 0;
    let emitted = 0;
    const source = meta?.rowsOf && meta.selectedRows !== undefined ? this.selectedRows(uri, meta.rowsOf, parseRowRuns(meta.selectedRows)) : this.storedRows(uri, meta);
    for await (const row of source) {
      if (compounds && !compounds.has(row.compound)) continue;
      if (where && row.values.get(where.feature)?.value.trim() !== where.value) continue;
      if (seen++ < skip) continue;
      if (features) for (const f of [...row.values.keys()]) if (!features.has(f)) row.values.delete(f);
      yield row;
      if (++emitted >= take) return;
    }
  }

  /** The rows of the entries graph, in order (an older selection's by reference: see referencedValues). */
  private async *storedRows(uri: string, meta: DatasetMeta | undefined): AsyncGenerator<DatasetRow> {
    const referenced = meta?.rowsOf ? await this.referencedValues(uri) : undefined;
    const resolve = (row: DatasetRow): DatasetRow => {
      if (row.sameAs && referenced) {
        const source = referenced.get(row.sameAs);
        // another compound's row there now (the source was changed behind its back): no values rather than wrong ones
        row.values = new Map(source?.compound === row.compound ? source.values : []);
      }
      return row;
    };
    const compound = ot('compound').value;
    const index = ot('index').value;
    const sameAs = owl('sameAs').value;
    let current: DatasetRow | undefined;
    for await (const batch of this.services.store.graphBatches(this.entriesGraph(uri))) {
      for (const q of batch) {
        if (q.subject.value === uri) continue; // the ot:dataEntry list
        if (!current || current.entry !== q.subject.value) {
          if (current) yield resolve(current);
          current = { entry: q.subject.value, index: 0, compound: '', values: new Map() };
        }
        const p = q.predicate.value;
        if (p === compound) current.compound = q.object.value;
        else if (p === index) current.index = Number(q.object.value);
        else if (p === sameAs) current.sameAs = q.object.value;
        else if (q.object.termType === 'Literal') current.values.set(p, q.object);
      }
    }
    if (current) yield resolve(current);
  }

  /**
   * A selection's rows: the entries of `source` numbered in its runs, in their order, each as
   * the selection's own entry `owl:sameAs` the source's. Runs in the source's order (a fold, a
   * split's side) are read streaming; any other order (a bootstrap sample) holds the rows it
   * selects. Entries the source no longer has are left out.
   */
  private async *selectedRows(uri: string, source: string, numbers: number[]): AsyncGenerator<DatasetRow> {
    if (!numbers.length) return;
    const own = (k: number, row: DatasetRow): DatasetRow => ({ entry: entryIri(uri, k + 1), index: k + 1, compound: row.compound, values: row.values, sameAs: row.entry });
    if (numbers.every((n, i) => i === 0 || n > numbers[i - 1])) {
      let k = 0;
      for await (const row of this.storedRows(source, undefined)) {
        const n = entryNumber(row.entry);
        while (k < numbers.length && numbers[k] < n) k++;
        if (numbers[k] === n) yield own(k++, row);
        if (k >= numbers.length) return;
      }
      return;
    }
    const wanted = new Set(numbers);
    const found = new Map<number, DatasetRow>();
    for await (const row of this.storedRows(source, undefined)) {
      const n = entryNumber(row.entry);
      if (wanted.has(n)) found.set(n, row);
    }
    for (const [k, n] of numbers.entries()) {
      const row = found.get(n);
      // a row selected twice is two rows with values of their own
      if (row) yield own(k, { ...row, values: new Map(row.values) });
    }
  }

  /**
   * An older selection's referenced rows, by entry: the values of the rows of other datasets its
   * entries are `owl:sameAs` (each of those read once, streaming).
   */
  private async referencedValues(uri: string): Promise<Map<string, { compound?: string; values: Map<string, RDF.Literal> }>> {
    const wanted = new Set<string>();
    for await (const batch of this.services.store.graphBatches(this.entriesGraph(uri))) for (const q of batch) if (q.predicate.equals(owl('sameAs'))) wanted.add(q.object.value);
    const found = new Map<string, { compound?: string; values: Map<string, RDF.Literal> }>();
    for (const source of new Set([...wanted].map(datasetOfEntry))) {
      for await (const batch of this.services.store.graphBatches(this.entriesGraph(source))) {
        for (const q of batch) {
          if (!wanted.has(q.subject.value) || q.predicate.equals(ot('index'))) continue;
          let row = found.get(q.subject.value);
          if (!row) found.set(q.subject.value, (row = { values: new Map() }));
          if (q.predicate.equals(ot('compound'))) row.compound = q.object.value;
          else if (q.object.termType === 'Literal') row.values.set(q.predicate.value, q.object);
        }
      }
    }
    return found;
  }

  // --- writing -------------------------------------------------------------------------

  /**
   * A new dataset of some rows of another (a cross-validation's folds, a split's sides), by
   * reference (ot:selectedRows: runs of the numbers of the source's entries; entry by entry,
   * `owl:sameAs` the source's, when a row is not the source's), with the source's rows that are
   * themselves references followed to the rows they refer to. Rewriting it (a merge, a partial
   * delete) gives it values of its own. Answers at once with its metadata and its write still
   * under way, so that work on rows the caller holds (a fold's training) need not wait for it.
   */
  async startSelection(source: DatasetMeta, rows: DatasetRow[], annotations: [RDF.NamedNode, RDF.Term][]): Promise<{ meta: DatasetMeta; written: Promise<void> }> {
    const uri = await this.services.ids.next(this.collection);
    const rowsOf = source.rowsOf ?? source.uri;
    const entries = rows.map((r) => r.sameAs ?? r.entry);
    // the rows as runs of the source's entry numbers; entry by entry when one is not the source's
    const numbers = entries.every((e) => datasetOfEntry(e) === rowsOf) ? entries.map(entryNumber) : undefined;
    const selectedRows = numbers?.every((n) => Number.isInteger(n) && n > 0) ? rowRuns(numbers) : undefined;
    const quads = metadataQuads(uri, { annotations, features: source.features, warnings: [], rowsOf, selectedRows });
    const graphs =
      selectedRows !== undefined
        ? { [uri]: quads }
        : { [this.entriesGraph(uri)]: rows.flatMap((r, k) => selectionEntryQuads(uri, this.entriesGraph(uri), k + 1, r.compound, entries[k])), [uri]: quads };
    const written = this.services.store.replaceGraphs(graphs);
    written.catch(() => undefined); // the caller awaits it later: not an unhandled rejection meanwhile
    return { meta: datasetMeta(quads, uri)!, written };
  }

  /**
   * Resolve each row's structure to a compound URI (registering new structures); unknown URIs
   * become warnings. `firstLine` remembers each compound's first row across the chunks of one
   * upload, so that repeated structures are reported.
   */
  private async compoundsFor(rows: InputRow[], unit: string, warnings: string[], firstLine = new Map<string, number>()): Promise<(string | undefined)[]> {
    const posted: PostedStructure[] = [];
    const at: number[] = [];
    rows.forEach((r, i) => {
      if (r.structure && 'structure' in r.structure) {
        posted.push({ structure: r.structure.structure, names: r.structure.names, sameAs: [], fields: {} });
        at.push(i);
      }
    });
    const out: (string | undefined)[] = rows.map(() => undefined);
    const uris = posted.length ? await this.compounds.register(posted) : [];
    at.forEach((rowIndex, k) => (out[rowIndex] = uris[k]));
    for (const [i, r] of rows.entries()) {
      if (!r.structure || !('uri' in r.structure)) continue;
      const uri = r.structure.uri;
      const local = uri.startsWith(`${this.compounds.collection}/`) && (await this.services.store.hasGraph(uri));
      if (local) out[i] = uri;
      else warnings.push(`${unit} ${r.line}: ${uri} is not a compound of this service, ${unit} skipped`);
    }
    rows.forEach((r, i) => {
      const c = out[i];
      if (!c) return;
      if (firstLine.has(c)) warnings.push(`${unit} ${r.line}: same compound as ${unit} ${firstLine.get(c)} (${c}), both kept`);
      else firstLine.set(c, r.line);
    });
    return out;
  }

  /** Feature URIs for typed columns: given ones, associated by title, or new features. */
  private async featuresFor(
    columns: TypedColumn[],
    source: string,
    associated: Map<string, string>,
    existing: Map<string, string> = new Map(),
  ): Promise<{ uris: string[]; graphs: Record<string, RDF.Quad[]> }> {
    const graphs: Record<string, RDF.Quad[]> = {};
    const uris: string[] = [];
    for (const c of columns) {
      const known = c.featureUri ?? existing.get(c.title) ?? associated.get(c.title);
      if (known) {
        uris.push(known);
        continue;
      }
      const uri = await this.services.ids.next(this.services.uris.collection('feature'));
      graphs[uri] = featureGraph({
        uri,
        title: c.title,
        kind: c.kind,
        source,
        accepted: c.accepted,
        units: c.units,
        sameAs: c.endpoint?.sameAs ? [c.endpoint.sameAs] : [],
        species: c.endpoint?.species,
        protocol: c.endpoint?.protocol,
      });
      uris.push(uri);
    }
    return { uris, graphs };
  }

  /**
   * Store a new dataset from an uploaded table, streaming: a first pass over the rows types
   * the columns, a second reads structures, registers compounds and writes rows a chunk at a
   * time, so memory holds one chunk whatever the size of the upload. Rows without a usable
   * structure are left out with a warning; a table with no usable row at all is refused and
   * nothing is stored. The metadata is written last: until then the dataset does not exist.
   * Aborting `signal` stops it between chunks (and its structure reading at once), with nothing
   * stored.
   */
  async create(
    source: TableSource,
    read: StructureReader,
    annotations: [RDF.NamedNode, RDF.Term][],
    options: { associated?: Map<string, string>; progress?: (fraction: number) => void; signal?: AbortSignal } = {},
  ): Promise<string> {
    const { signal } = options;
    const typer = new ColumnTyper(source.columns);
    let total = 0;
    for await (const chunk of source.chunks(ROWS_PER_CHUNK)) {
      signal?.throwIfAborted();
      for (const r of chunk) typer.observe(r.cells);
      total += chunk.length;
    }
    options.progress?.(0.05);
    const columns = typer.columns();
    const uri = await this.services.ids.next(this.collection);
    const { uris: features, graphs } = await this.featuresFor(columns, uri, options.associated ?? new Map());
    const warnings: { line: number; text: string }[] = [];
    const firstLine = new Map<string, number>();
    const conflicts = new ConflictFinder();
    const compared = columns.map(comparedColumn);
    let stored = 0;
    let done = 0;
    // the rows of the last chunk, written with the metadata (a small upload: one write in all)
    let last: RDF.Quad[] = [];
    let written = false;
    // the structures of the next chunk are read (on the worker pool) while this chunk's compounds
    // are registered and its rows written: the pool never waits for the store
    const chunks = source.chunks(ROWS_PER_CHUNK)[Symbol.asyncIterator]();
    const readAhead = async () => {
      const next = await chunks.next();
      if (next.done) return undefined;
      const found: string[] = [];
      const rows = withStructures(next.value, read, found, source.unit);
      rows.catch(() => undefined); // awaited below; an error must not go unhandled meanwhile
      return { chunk: next.value, found, rows };
    };
    let ahead = readAhead();
    ahead.catch(() => undefined);
    try {
      for (let current = await ahead; current; current = await ahead) {
        signal?.throwIfAborted();
        const { chunk, found } = current;
        const rows = await current.rows;
        ahead = readAhead();
        ahead.catch(() => undefined);
        const compounds = await this.compoundsFor(rows, source.unit, found, firstLine);
        const quads: RDF.Quad[] = [];
        rows.forEach((row, i) => {
          if (!compounds[i]) return;
          const cells = typedCells(row.cells, columns, `${source.unit} ${row.line}`, found);
          const values = features.map((f, j) => [f, cells[j]] as [string, RDF.Literal | undefined]).filter((p): p is [string, RDF.Literal] => !!p[1]);
          conflicts.observe(
            compounds[i]!,
            row.line,
            columns.flatMap((c, j) => (compared[j] && cells[j] ? [[c.title, cells[j]!.value] as [string, string]] : [])),
          );
          quads.push(...entryQuads(uri, this.entriesGraph(uri), ++stored, compounds[i]!, values));
        });
        if (last.length) {
          await this.services.store.bulkLoad(last);
          written = true;
        }
        last = quads;
        for (const text of found) warnings.push({ line: lineOf(text), text });
        done += chunk.length;
        options.progress?.(0.05 + (0.9 * done) / Math.max(1, total));
      }
      const numeric = new Set(columns.filter((c) => c.kind === 'numeric').map((c) => c.title));
      for (const c of conflicts.conflicts()) warnings.push({ line: c.line, text: conflictWarning(c, source.unit, numeric.has(c.column)) });
      const sorted = warnings.sort((a, b) => a.line - b.line).map((w) => w.text);
      if (!stored) throw badRequest(`no ${source.unit} has a usable structure${sorted.length ? `: ${sorted.slice(0, 5).join('; ')}` : ''}`);
      graphs[uri] = metadataQuads(uri, { annotations, features, warnings: [...(source.notes ?? []), ...conflictSummary(conflicts.conflicts(), (c) => numeric.has(c)), ...sorted] });
      // rows of one chunk only (a small upload) are written with it; the rows graph of a larger
      // one already holds rows, so its last chunk is loaded first (createGraphs is for new graphs)
      if (last.length && written) await this.services.store.bulkLoad(last);
      else if (last.length) graphs[this.entriesGraph(uri)] = last;
      signal?.throwIfAborted();
      // the dataset and its new features were just minted: no graph to read and compare
      await this.services.store.createGraphs(graphs);
    } catch (e) {
      if (written) await this.services.store.deleteGraphs([this.entriesGraph(uri)]);
      throw e;
    }
    return uri;
  }

  /** Rewrite a dataset (PUT merge, partial delete, subsets): rows and metadata in one batch. */
  async rewrite(uri: string, meta: DatasetMetadata, rows: { compound: string; values: [string, RDF.Literal][] }[], featureGraphs: Record<string, RDF.Quad[]> = {}): Promise<void> {
    await this.materialiseSelectionsOf(uri);
    const entries = rows.flatMap((r, k) => entryQuads(uri, this.entriesGraph(uri), k + 1, r.compound, r.values));
    await this.services.store.replaceGraphs({ ...featureGraphs, [this.entriesGraph(uri)]: entries, [uri]: metadataQuads(uri, meta) });
  }

  /** A new dataset from rows already resolved to compounds (results of algorithms and models), with the warnings of what made it. */
  async createFromRows(
    annotations: [RDF.NamedNode, RDF.Term][],
    features: string[],
    rows: { compound: string; values: [string, RDF.Literal][] }[],
    featureGraphs: Record<string, RDF.Quad[]> = {},
    warnings: string[] = [],
  ): Promise<string> {
    const uri = await this.services.ids.next(this.collection);
    await this.rewrite(uri, { annotations, features, warnings }, rows, featureGraphs);
    return uri;
  }

  /**
   * Add (or overwrite) columns of a dataset: each row gets the new values given for its
   * compound, and `warnings` of what made them (once each). Rows and metadata are written in one batch.
   */
  async addColumns(meta: DatasetMeta, features: string[], valuesByCompound: Map<string, [string, RDF.Literal][]>, warnings: string[] = []): Promise<void> {
    const allFeatures = [...meta.features, ...features.filter((f) => !meta.features.includes(f))];
    const rows: { compound: string; values: [string, RDF.Literal][] }[] = [];
    for await (const r of this.rows(meta.uri)) {
      for (const [f, v] of valuesByCompound.get(r.compound) ?? []) r.values.set(f, v);
      rows.push({ compound: r.compound, values: allFeatures.filter((f) => r.values.has(f)).map((f) => [f, r.values.get(f)!]) });
    }
    await this.rewrite(meta.uri, { annotations: meta.annotations, features: allFeatures, warnings: [...new Set([...meta.warnings, ...warnings])], created: meta.created }, rows);
  }

  /** Merge a table into a dataset (PUT): same compound + feature overwrites, anything new is added. */
  async merge(uri: string, meta: DatasetMeta, table: InputTable, annotations: [RDF.NamedNode, RDF.Term][]): Promise<void> {
    const { columns, values } = typeColumns(table);
    const compounds = await this.compoundsFor(table.rows, table.unit, table.warnings);
    // rows of the table that disagree on a compound's value: the later one is the value kept
    const conflicts = new ConflictFinder();
    const compared = columns.map(comparedColumn);
    table.rows.forEach((r, i) => {
      const c = compounds[i];
      if (c)
        conflicts.observe(
          c,
          r.line,
          columns.flatMap((col, j) => (compared[j] && values[i][j] ? [[col.title, values[i][j]!.value] as [string, string]] : [])),
        );
    });
    const numeric = new Set(columns.filter((c) => c.kind === 'numeric').map((c) => c.title));
    table.warnings.push(...conflicts.conflicts().map((c) => `${conflictWarning(c, table.unit, numeric.has(c.column))} (the later value is kept)`));
    const titles = await featuresByTitle(this.services.store, meta.features);
    const { uris: features, graphs } = await this.featuresFor(columns, uri, new Map(), titles);
    const rows: { compound: string; values: Map<string, RDF.Literal> }[] = [];
    for await (const r of this.rows(uri)) rows.push({ compound: r.compound, values: r.values });
    table.rows.forEach((_, i) => {
      const compound = compounds[i];
      if (!compound) return;
      let row = rows.find((r) => r.compound === compound);
      if (!row) rows.push((row = { compound, values: new Map() }));
      features.forEach((f, j) => {
        const v = values[i][j];
        if (v) row!.values.set(f, v);
      });
    });
    const allFeatures = [...meta.features, ...features.filter((f) => !meta.features.includes(f))];
    await this.rewrite(
      uri,
      { annotations: mergeAnnotations(meta.annotations, annotations), features: allFeatures, warnings: [...meta.warnings, ...table.warnings], created: meta.created },
      rows.map((r) => ({ compound: r.compound, values: allFeatures.filter((f) => r.values.has(f)).map((f) => [f, r.values.get(f)!] as [string, RDF.Literal]) })),
      graphs,
    );
  }

  async delete(uri: string): Promise<void> {
    await this.materialiseSelectionsOf(uri);
    await this.services.store.deleteGraphs([uri, this.entriesGraph(uri)]);
    await releaseParts(this.services.store, uri);
  }

  /**
   * Before a dataset's rows change or go (a rewrite renumbers its entries, a delete removes
   * them), the selections that refer to its rows take the values they show now as their own:
   * a fold of a cross-validation keeps its rows whatever happens to the dataset it came from.
   */
  private async materialiseSelectionsOf(source: string): Promise<void> {
    for (const row of await select(this.services.store, datasetQueries.selectionsOf(source))) {
      const selection = row.d.value;
      const meta = await this.readMeta(selection);
      if (!meta) continue;
      const rows = (await this.allRows(selection)).map((r) => ({
        compound: r.compound,
        values: meta.features.filter((f) => r.values.has(f)).map((f): [string, RDF.Literal] => [f, r.values.get(f)!]),
      }));
      const entries = rows.flatMap((r, k) => entryQuads(selection, this.entriesGraph(selection), k + 1, r.compound, r.values));
      const { rowsOf: _, selectedRows: __, ...own } = meta;
      await this.services.store.replaceGraphs({ [this.entriesGraph(selection)]: entries, [selection]: metadataQuads(selection, own) });
    }
  }

  /** Remove the rows of an upload that never committed its metadata (a crash mid-upload). */
  async removeOrphans(): Promise<number> {
    const rows = await select(this.services.store, datasetQueries.entryGraphs());
    let removed = 0;
    for (const r of rows) {
      if (r.g.value !== this.entriesGraph(r.d.value)) continue;
      if (!(await this.services.store.hasGraph(r.d.value))) {
        await this.services.store.deleteGraphs([r.g.value]);
        removed++;
      }
    }
    return removed;
  }
}
