import { structureFrom } from '../compound/compound-codec.ts';
import { csvField } from '../http/csv-text.ts';
import type { Chemistry } from '../chemistry/chemistry.ts';
import { featureRecord } from '../feature/feature-record.ts';
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { df, ot, rdf } from '../rdf/namespaces.ts';
import { compact, renderPage } from '../rdf/html.ts';
import { curationColumnsOf } from './curation-report.ts';
import { notAcceptable } from '../core/errors.ts';
import { TimeSlices } from '../core/time-slices.ts';
import { columnStatistics, datasetPageHtml, PAGE_COLUMNS, STATISTICS_ROWS } from './dataset-page.ts';
import { RDF_OUTPUT_TYPES, rdfText } from '../rdf/serialize.ts';
import { xmlText } from '../rdf/xml-text.ts';
import { alternateLinks, uriList, type Renderer } from '../http/respond.ts';
import type { TripleStore } from '../store/triple-store.ts';
import type { DatasetMeta, DatasetRow, DatasetStore, RowFilter } from './dataset-store.ts';
import { arffQuoted } from './arff-text.ts';
import { isNumericDatatype } from './columns.ts';
import { sheetTooLarge, writeWorkbook, XLSX_TYPE } from './xlsx-table.ts';
import { datasetYaml } from './yaml-dataset.ts';

export const DATASET_OUTPUT_TYPES = [
  ...RDF_OUTPUT_TYPES,
  'text/csv',
  XLSX_TYPE,
  'text/arff',
  'chemical/x-mdl-sdfile',
  'application/json',
  'text/x-json',
  'text/x-yaml',
  'text/html',
  'text/uri-list',
  'text/plain',
];

interface FeatureInfo {
  uri: string;
  title: string;
  kind: 'numeric' | 'nominal' | 'string';
  accepted: string[];
  units?: string;
  source?: string;
  sameAs: string[];
  quads: RDF.Quad[];
}

/**
 * How much is made at a time, so that no step holds the event loop for long whatever the shape
 * of a dataset (300 columns of 5,000 rows, 16,383 columns of 3): rows are read in chunks of at
 * most CELLS_PER_CHUNK values (one row at least, MAX_ROWS_PER_CHUNK at most), every renderer
 * pauses (TimeSlices) between rows and every few hundred cells of a row, and a row goes to the
 * RDF writers VALUES_PER_PART values at a time.
 */
const CELLS_PER_CHUNK = 20_000;
const MAX_ROWS_PER_CHUNK = 500;
const VALUES_PER_PART = 2000;
/** Cells handed to the workbook writer at a time (it writes them without a pause: exceljs takes some 5 µs a cell). */
const WORKBOOK_CELLS = 4000;
/** The features of the columns (their graphs read by readEachGraph: a few at a time, or some dozens per request). */
async function featureInfo(store: TripleStore, uris: string[]): Promise<FeatureInfo[]> {
  const slices = new TimeSlices();
  const graphs = await store.readEachGraph(uris);
  const out: FeatureInfo[] = [];
  for (const [k, uri] of uris.entries()) {
    const quads = graphs[k];
    const record = featureRecord(quads, uri);
    out.push({
      uri,
      title: record.title ?? uri,
      kind: record.numeric ? 'numeric' : record.nominal ? 'nominal' : 'string',
      accepted: record.accepted,
      units: record.units,
      source: record.source,
      sameAs: record.sameAs,
      quads,
    });
    if (k % 256 === 255) await slices.pause();
  }
  return out;
}

/** Rows in chunks (of at most CELLS_PER_CHUNK values of `columns` columns), each with the compounds' SMILES and molfiles read in one go. */
async function* chunks(
  datasets: DatasetStore,
  store: TripleStore,
  uri: string,
  filter: RowFilter,
  columns: number,
): AsyncGenerator<{ rows: DatasetRow[]; structure: Map<string, { smiles: string; molfile?: string }> }> {
  const size = Math.max(1, Math.min(MAX_ROWS_PER_CHUNK, Math.floor(CELLS_PER_CHUNK / Math.max(1, columns))));
  let rows: DatasetRow[] = [];
  const flush = async () => {
    const structure = new Map<string, { smiles: string; molfile?: string }>();
    const compounds = [...new Set(rows.map((r) => r.compound))];
    const graphs = await store.readEachGraph(compounds);
    compounds.forEach((c, i) => {
      const found = structureFrom(graphs[i], c);
      structure.set(c, { smiles: found?.smiles ?? '', molfile: found?.molfile });
    });
    const out = { rows, structure };
    rows = [];
    return out;
  };
  for await (const row of datasets.rows(uri, filter)) {
    rows.push(row);
    if (rows.length >= size) yield await flush();
  }
  if (rows.length) yield await flush();
}

/** A workbook column's header: its feature's title, with its units as an upload reads them back (`LC50 [mg/L]`; the CSV keeps its titles alone, as its clients read them). */
function columnHeader(f: FeatureInfo): string {
  return f.units ? `${f.title} [${f.units}]` : f.title;
}

function arffValue(v: string | undefined, kind: FeatureInfo['kind']): string {
  if (v === undefined) return '?';
  return kind === 'numeric' ? v : arffQuoted(v);
}

/**
 * The standard OpenTox form of one row, in parts of at most VALUES_PER_PART values (the first
 * with the entry itself): a row of thousands of columns is written a part at a time.
 */
function* rowQuadParts(datasetUri: string, row: DatasetRow, features: string[]): Generator<RDF.Quad[]> {
  const e = df.namedNode(row.entry);
  let quads = [df.quad(df.namedNode(datasetUri), ot('dataEntry'), e), df.quad(e, rdf('type'), ot('DataEntry')), df.quad(e, ot('compound'), df.namedNode(row.compound))];
  for (let from = 0; from < features.length; from += VALUES_PER_PART) {
    for (let j = from; j < Math.min(features.length, from + VALUES_PER_PART); j++) {
      const f = features[j];
      const v = row.values.get(f);
      if (!v) continue;
      const node = df.namedNode(`${row.entry}-value-${j + 1}`);
      quads.push(df.quad(e, ot('values'), node), df.quad(node, rdf('type'), ot('FeatureValue')), df.quad(node, ot('feature'), df.namedNode(f)), df.quad(node, ot('value'), v));
    }
    if (quads.length) yield quads;
    quads = [];
  }
  if (quads.length) yield quads;
}

async function* csvLines(features: FeatureInfo[], parts: ReturnType<typeof chunks>): AsyncGenerator<string> {
  const slices = new TimeSlices();
  yield `${['SMILES', ...(await slices.map(features, (f) => f.title))].map(csvField).join(',')}\r\n`;
  for await (const { rows, structure } of parts) {
    const lines: string[] = [];
    for (const r of rows) {
      const cells = await slices.map(features, (f) => csvField(r.values.get(f.uri)?.value ?? ''));
      lines.push(`${csvField(structure.get(r.compound)?.smiles ?? '')}${cells.length ? ',' : ''}${cells.join(',')}\r\n`);
    }
    yield lines.join('');
  }
}

/**
 * A dataset as a workbook: its rows (numbers as numbers) on the first sheet, as the CSV has
 * them, so that the file uploaded again gives the same dataset; what the dataset and each
 * column are (titles, units, sources) on a second.
 */
function datasetWorkbook(meta: DatasetMeta, features: FeatureInfo[], parts: ReturnType<typeof chunks>): Readable {
  const slices = new TimeSlices();
  // a workbook is XML: text loses the characters XML cannot carry (a stored literal may hold them)
  const cell = (v: RDF.Literal | undefined) => (v && isNumericDatatype(v.datatype.value) && Number.isFinite(Number(v.value)) ? Number(v.value) : v && xmlText(v.value));
  const text = (v: string | undefined) => v && xmlText(v);
  // the workbook writer writes what it is given in one go: a few thousand cells at a time
  const perGroup = Math.max(1, Math.floor(WORKBOOK_CELLS / (features.length + 1)));
  const rows = async function* () {
    yield [['SMILES', ...(await slices.map(features, (f) => xmlText(columnHeader(f))))]];
    for await (const { rows, structure } of parts) {
      let group: (string | number | undefined)[][] = [];
      for (const r of rows) {
        group.push([xmlText(structure.get(r.compound)?.smiles ?? ''), ...(await slices.map(features, (f) => cell(r.values.get(f.uri))))]);
        if (group.length < perGroup) continue;
        yield group;
        group = [];
      }
      if (group.length) yield group;
    }
  };
  const about = async function* () {
    yield [['dataset', meta.uri], ...meta.annotations.map(([p, o]) => [compact(p.value), o.value].map(text)), [], ['column', 'feature', 'type', 'units', 'source', 'same as']];
    for (let i = 0; i < features.length; i += MAX_ROWS_PER_CHUNK) {
      yield await slices.map(features.slice(i, i + MAX_ROWS_PER_CHUNK), (f) => [f.title, f.uri, f.kind, f.units, f.source, f.sameAs.join(' ')].map(text));
    }
  };
  return writeWorkbook([
    { name: 'rows', rows: rows(), widths: [40, ...features.map(() => 16)] },
    { name: 'metadata', rows: about(), widths: [30, 50, 10, 12, 50, 50] },
  ]);
}

/** A whole dataset as CSV text: a SMILES column, then one column per feature titled by its title. */
export async function datasetCsv(datasets: DatasetStore, store: TripleStore, meta: DatasetMeta): Promise<string> {
  let out = '';
  for await (const line of csvLines(await featureInfo(store, meta.features), chunks(datasets, store, meta.uri, {}, meta.features.length))) out += line;
  return out;
}

/**
 * What the page of a dataset a model made says about its predictions (made by the component
 * that explains predictions: qmrf/prediction-explanation.ts); '' for other datasets.
 */
export type ExplainPredictions = (meta: DatasetMeta, compounds: string[], canRead: (uri: string) => boolean) => Promise<string>;

export async function datasetRenderers(
  ctx: Context,
  datasets: DatasetStore,
  store: TripleStore,
  chemistry: Chemistry,
  meta: DatasetMeta,
  filter: RowFilter,
  explain?: ExplainPredictions,
): Promise<Record<string, Renderer>> {
  const uri = meta.uri;
  const selected = filter.features?.length ? new Set(filter.features) : undefined;
  const featureUris = selected ? meta.features.filter((f) => selected.has(f)) : meta.features;
  // read once, by the renderer chosen (a URI list needs none of thousands of feature graphs)
  let read: Promise<FeatureInfo[]> | undefined;
  const featuresOf = () => (read ??= featureInfo(store, featureUris));
  const rowsOf = () => chunks(datasets, store, uri, filter, featureUris.length);
  const title = meta.title ?? uri;
  const rdfParts = async function* () {
    yield [...meta.quads, ...(await featuresOf()).flatMap((f) => f.quads)];
    for await (const { rows } of rowsOf()) for (const r of rows) yield* rowQuadParts(uri, r, featureUris);
  };
  const renderers: Record<string, Renderer> = {};
  for (const t of RDF_OUTPUT_TYPES) renderers[t] = () => Readable.from(rdfText(rdfParts(), t));
  // ?bom=1 (the pages' download link): a UTF-8 byte-order mark first, without which Excel reads the CSV as the system's code page
  const forExcel = ctx.query.bom === '1';
  renderers['text/csv'] = async () => {
    const lines = csvLines(await featuresOf(), rowsOf());
    return Readable.from(forExcel ? withByteOrderMark(lines) : lines);
  };
  renderers[XLSX_TYPE] = async () => {
    // what a spreadsheet program cannot open is refused before a byte is written
    const count = await datasets.count(uri);
    const problem = sheetTooLarge(Math.min(count, filter.pagesize ?? count), featureUris.length + 1);
    if (problem) throw notAcceptable(`dataset ${uri}: ${problem}; ask for pages (page, pagesize), fewer features (feature_uris[]) or CSV`);
    return datasetWorkbook(meta, await featuresOf(), rowsOf());
  };
  renderers['text/arff'] = async () => {
    const features = await featuresOf();
    return Readable.from(
      (async function* () {
        const slices = new TimeSlices();
        const q = arffQuoted;
        const attributes = await slices.map(
          features,
          (f) => `@attribute ${q(f.title)} ${f.kind === 'numeric' ? 'numeric' : f.kind === 'nominal' && f.accepted.length ? `{${f.accepted.map(q).join(',')}}` : 'string'}`,
        );
        yield `@relation ${q(title)}\n\n@attribute SMILES string\n${attributes.join('\n')}\n\n@data\n`;
        for await (const { rows, structure } of rowsOf()) {
          const lines: string[] = [];
          for (const r of rows) lines.push(`${[q(structure.get(r.compound)?.smiles ?? ''), ...(await slices.map(features, (f) => arffValue(r.values.get(f.uri)?.value, f.kind)))].join(',')}\n`);
          yield lines.join('');
        }
      })(),
    );
  };
  renderers['chemical/x-mdl-sdfile'] = async () => {
    const features = await featuresOf();
    return Readable.from(
      (async function* () {
        const slices = new TimeSlices();
        const field = (k: string, v: string) => `> <${k.replace(/[<>\r\n]/g, ' ')}>\n${v.replace(/\r?\n\s*\r?\n/g, '\n')}\n\n`;
        for await (const { rows, structure } of rowsOf()) {
          const records: string[] = [];
          for (const r of rows) {
            const s = structure.get(r.compound);
            // a structure given without coordinates is laid out in 2D here
            const molfile = s?.smiles ? chemistry.molfileOf(s) : '';
            const fields = await slices.map(features, (f) => {
              const v = r.values.get(f.uri);
              return v ? field(f.title, v.value) : '';
            });
            records.push(`${molfile.endsWith('\n') ? molfile : `${molfile}\n`}${field('Compound', r.compound)}${fields.join('')}$$$$\n`);
            await slices.pause();
          }
          yield records.join('');
        }
      })(),
    );
  };
  const jsonValue = (v: RDF.Literal) => (isNumericDatatype(v.datatype.value) ? Number(v.value) : v.value);
  const headOf = async (features: FeatureInfo[], slices: TimeSlices) => ({
    uri,
    title: meta.title,
    warnings: meta.warnings,
    features: await slices.map(features, (f) => ({ uri: f.uri, title: f.title, type: f.kind, ...(f.accepted.length ? { acceptValues: f.accepted } : {}) })),
  });
  /** A row's values by feature URI, as [uri, value] pairs (its columns in order, those without a value left out). */
  const valuesOf = async (r: DatasetRow, features: FeatureInfo[], slices: TimeSlices) =>
    (await slices.map(features, (f): [string, string | number] | undefined => (r.values.has(f.uri) ? [f.uri, jsonValue(r.values.get(f.uri)!)] : undefined))).filter((p) => p !== undefined);
  renderers['application/json'] = async () => {
    const features = await featuresOf();
    return Readable.from(
      (async function* () {
        const slices = new TimeSlices();
        yield `${JSON.stringify(await headOf(features, slices)).slice(0, -1)},"entries":[`;
        let separator = '';
        for await (const { rows, structure } of rowsOf()) {
          const entries: string[] = [];
          for (const r of rows) {
            const entry = { uri: r.entry, compound: r.compound, smiles: structure.get(r.compound)?.smiles ?? '', values: Object.fromEntries(await valuesOf(r, features, slices)) };
            entries.push(`${separator}\n${JSON.stringify(entry)}`);
            separator = ',';
          }
          yield entries.join('');
        }
        yield '\n]}\n';
      })(),
    );
  };
  renderers['text/x-json'] = renderers['application/json'];
  renderers['text/x-yaml'] = async () => Readable.from(datasetYaml(meta, await featuresOf(), () => datasets.rows(uri, filter)));
  renderers['text/uri-list'] = () => uriList([uri]);
  renderers['text/html'] = async () => {
    const features = await featuresOf();
    const slices = new TimeSlices();
    const page = filter.page ?? 0;
    const pagesize = filter.pagesize ?? 50;
    const rows: Parameters<typeof datasetPageHtml>[0]['rows'] = [];
    // the table shows the first PAGE_COLUMNS columns (the page says so)
    const shown = featureUris.slice(0, PAGE_COLUMNS);
    for await (const { rows: chunk, structure } of chunks(datasets, store, uri, { ...filter, page, pagesize }, featureUris.length)) {
      for (const r of chunk) rows.push({ index: r.index, compound: r.compound, smiles: structure.get(r.compound)?.smiles ?? '', values: await slices.map(shown, (f) => r.values.get(f)?.value) });
    }
    const total = await datasets.count(uri);
    let count = total;
    if (filter.where) {
      count = 0;
      for await (const _ of datasets.rows(uri, { where: filter.where })) count++;
    }
    const link = (p: number) => {
      const q = new URLSearchParams(ctx.querystring);
      q.set('page', String(p));
      q.set('pagesize', String(pagesize));
      return `${ctx.path}?${q}`;
    };
    const annotation = (name: string) => meta.annotations.find(([p]) => p.value === `http://purl.org/dc/elements/1.1/${name}` || p.value === `http://purl.org/dc/terms/${name}`)?.[1].value;
    const statistics = total <= STATISTICS_ROWS ? await columnStatistics(features, datasets.rows(uri)) : undefined;
    const pages = Math.ceil(count / pagesize);
    // rows chosen by the value of a column of a few values (inside a domain or not, a class)
    const whereLink = (where?: { feature: string; value: string }) => {
      const q = new URLSearchParams(ctx.querystring);
      for (const name of ['where_feature', 'where_value', 'page']) q.delete(name);
      if (where) {
        q.set('where_feature', where.feature);
        q.set('where_value', where.value);
      }
      return `${ctx.path}${q.size ? `?${q}` : ''}`;
    };
    return renderPage({
      title,
      alternates: alternateLinks(
        ctx,
        DATASET_OUTPUT_TYPES.filter((t) => t !== 'text/html'),
      ),
      intro: await datasetPageHtml({
        uri,
        title: meta.title,
        description: annotation('description'),
        license: annotation('license'),
        count,
        features,
        statistics,
        rows,
        paging: { page, pages, previous: page > 0 ? link(page - 1) : undefined, next: page + 1 < pages ? link(page + 1) : undefined },
        warnings: meta.warnings,
        curation: !!curationColumnsOf(features),
        choices: {
          where: filter.where,
          all: whereLink(),
          columns: features
            .filter((f) => f.kind === 'nominal' && (statistics?.get(f.uri)?.top?.length ?? 0) > 1 && statistics!.get(f.uri)!.top!.length <= 3)
            .map((f) => ({ uri: f.uri, title: f.title, values: statistics!.get(f.uri)!.top!.map(([value, n]) => ({ value, n, href: whereLink({ feature: f.uri, value }) })) })),
        },
        explained:
          explain && page === 0
            ? await explain(
                meta,
                rows.map((r) => r.compound),
                ctx.state.canRead ?? (() => true),
              )
            : '',
      }),
    });
  };
  return renderers;
}

async function* withByteOrderMark(text: AsyncIterable<string>): AsyncGenerator<string> {
  yield '\uFEFF';
  yield* text;
}
