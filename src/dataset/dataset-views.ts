import { structureFrom } from '../compound/compound-codec.ts';
import type { Chemistry } from '../chemistry/chemistry.ts';
import { featureRecord } from '../feature/feature-record.ts';
import { Readable, type Transform } from 'node:stream';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { Writer as N3Writer } from 'n3';
import { JsonLdSerializer } from 'jsonld-streaming-serializer';
import scribe from '@graphy/content.xml.scribe';
import { stringify as yamlStringify } from 'yaml';
import { df, ot, rdf, PREFIXES } from '../rdf/namespaces.ts';
import { compact, renderPage } from '../rdf/html.ts';
import { curationColumnsOf } from './curation-report.ts';
import { notAcceptable } from '../core/errors.ts';
import { columnStatistics, datasetPageHtml, STATISTICS_ROWS } from './dataset-page.ts';
import { RDF_OUTPUT_TYPES } from '../rdf/serialize.ts';
import { alternateLinks, type Renderer } from '../http/respond.ts';
import type { TripleStore } from '../store/triple-store.ts';
import type { DatasetMeta, DatasetRow, DatasetStore, RowFilter } from './dataset-store.ts';
import { isNumericDatatype } from './columns.ts';
import { toC3r } from '../rdf/serialize.ts';
import { sheetTooLarge, writeWorkbook, XLSX_TYPE } from './xlsx-table.ts';

export const DATASET_OUTPUT_TYPES = [...RDF_OUTPUT_TYPES, 'text/csv', XLSX_TYPE, 'text/arff', 'chemical/x-mdl-sdfile', 'application/json', 'text/x-json', 'text/x-yaml', 'text/html', 'text/uri-list'];

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

async function featureInfo(store: TripleStore, uris: string[]): Promise<FeatureInfo[]> {
  return Promise.all(
    uris.map(async (uri) => {
      const quads = await store.readGraph(uri);
      const record = featureRecord(quads, uri);
      return {
        uri,
        title: record.title ?? uri,
        kind: record.numeric ? 'numeric' : record.nominal ? 'nominal' : 'string',
        accepted: record.accepted,
        units: record.units,
        source: record.source,
        sameAs: record.sameAs,
        quads,
      } as FeatureInfo;
    }),
  );
}

/** Rows in chunks, each with the compounds' SMILES and molfiles read in one go. */
async function* chunks(
  datasets: DatasetStore,
  store: TripleStore,
  uri: string,
  filter: RowFilter,
  size = 500,
): AsyncGenerator<{ rows: DatasetRow[]; structure: Map<string, { smiles: string; molfile?: string }> }> {
  let rows: DatasetRow[] = [];
  const flush = async () => {
    const structure = new Map<string, { smiles: string; molfile?: string }>();
    const compounds = [...new Set(rows.map((r) => r.compound))];
    const found = await Promise.all(compounds.map(async (c) => structureFrom(await store.readGraph(c), c)));
    compounds.forEach((c, i) => structure.set(c, { smiles: found[i]?.smiles ?? '', molfile: found[i]?.molfile }));
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

function csvField(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

function arffValue(v: string | undefined, kind: FeatureInfo['kind']): string {
  if (v === undefined) return '?';
  return kind === 'numeric' ? v : `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The standard OpenTox form of one row. */
export function rowQuads(datasetUri: string, row: DatasetRow, features: string[]): RDF.Quad[] {
  const e = df.namedNode(row.entry);
  const quads = [df.quad(df.namedNode(datasetUri), ot('dataEntry'), e), df.quad(e, rdf('type'), ot('DataEntry')), df.quad(e, ot('compound'), df.namedNode(row.compound))];
  features.forEach((f, j) => {
    const v = row.values.get(f);
    if (!v) return;
    const node = df.namedNode(`${row.entry}-value-${j + 1}`);
    quads.push(df.quad(e, ot('values'), node), df.quad(node, rdf('type'), ot('FeatureValue')), df.quad(node, ot('feature'), df.namedNode(f)), df.quad(node, ot('value'), v));
  });
  return quads;
}

/** Stream RDF in any of our RDF types from chunks of quads (backpressure respected). */
function rdfStream(mediaType: string, parts: AsyncIterable<RDF.Quad[]>): Readable {
  if (mediaType === 'application/rdf+xml' || mediaType === 'application/ld+json') {
    const writer: Transform = mediaType === 'application/rdf+xml' ? scribe({ prefixes: PREFIXES }) : (new JsonLdSerializer({ space: '  ', context: PREFIXES } as any) as unknown as Transform);
    void (async () => {
      try {
        for await (const quads of parts) {
          const ok = mediaType === 'application/rdf+xml' ? writer.write({ type: 'c3r', value: toC3r(quads) }) : quads.map((q) => writer.write(q)).every(Boolean);
          if (!ok) await new Promise((r) => writer.once('drain', r));
        }
        writer.end();
      } catch (e) {
        writer.destroy(e as Error);
      }
    })();
    return writer as unknown as Readable;
  }
  const format = { 'text/turtle': 'Turtle', 'text/n3': 'N3', 'application/n-triples': 'N-Triples' }[mediaType] ?? 'N-Triples';
  const lineBased = format === 'N-Triples';
  return Readable.from(
    (async function* () {
      let first = true;
      for await (const quads of parts) {
        const writer = new N3Writer({ format, prefixes: lineBased ? undefined : PREFIXES });
        writer.addQuads(quads as any);
        let text: string = await new Promise((res, rej) => writer.end((err, out) => (err ? rej(err) : res(out))));
        // prefixes once, at the top
        if (!first && !lineBased) text = text.replace(/^@prefix[^\n]*\n/gm, '');
        first = false;
        yield text;
      }
    })(),
  );
}

async function* csvLines(features: FeatureInfo[], parts: ReturnType<typeof chunks>): AsyncGenerator<string> {
  yield `${['SMILES', ...features.map((f) => f.title)].map(csvField).join(',')}\r\n`;
  for await (const { rows, structure } of parts) {
    yield rows.map((r) => `${[structure.get(r.compound)?.smiles ?? '', ...features.map((f) => r.values.get(f.uri)?.value ?? '')].map(csvField).join(',')}\r\n`).join('');
  }
}

/**
 * A dataset as a workbook: its rows (numbers as numbers) on the first sheet, as the CSV has
 * them, so that the file uploaded again gives the same dataset; what the dataset and each
 * column are (titles, units, sources) on a second.
 */
function datasetWorkbook(meta: DatasetMeta, features: FeatureInfo[], parts: ReturnType<typeof chunks>): Readable {
  const rows = async function* () {
    yield [['SMILES', ...features.map(columnHeader)]];
    for await (const { rows, structure } of parts) {
      yield rows.map((r) => [
        structure.get(r.compound)?.smiles ?? '',
        ...features.map((f) => {
          const v = r.values.get(f.uri);
          return v && isNumericDatatype(v.datatype.value) && Number.isFinite(Number(v.value)) ? Number(v.value) : v?.value;
        }),
      ]);
    }
  };
  const about: (string | undefined)[][] = [
    ['dataset', meta.uri],
    ...meta.annotations.map(([p, o]) => [compact(p.value), o.value]),
    [],
    ['column', 'feature', 'type', 'units', 'source', 'same as'],
    ...features.map((f) => [f.title, f.uri, f.kind, f.units, f.source, f.sameAs.join(' ')]),
  ];
  return writeWorkbook([
    { name: 'rows', rows: rows(), widths: [40, ...features.map(() => 16)] },
    { name: 'metadata', rows: about, widths: [30, 50, 10, 12, 50, 50] },
  ]);
}

/** A whole dataset as CSV text: a SMILES column, then one column per feature titled by its title. */
export async function datasetCsv(datasets: DatasetStore, store: TripleStore, meta: DatasetMeta): Promise<string> {
  let out = '';
  for await (const line of csvLines(await featureInfo(store, meta.features), chunks(datasets, store, meta.uri, {}))) out += line;
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
  const featureUris = filter.features?.length ? meta.features.filter((f) => filter.features!.includes(f)) : meta.features;
  const features = await featureInfo(store, featureUris);
  const rowsOf = () => chunks(datasets, store, uri, filter);
  const title = meta.title ?? uri;
  const rdfParts = async function* () {
    yield [...meta.quads, ...features.flatMap((f) => f.quads)].map((q) => df.quad(q.subject, q.predicate, q.object));
    for await (const { rows } of rowsOf()) yield rows.flatMap((r) => rowQuads(uri, r, featureUris));
  };
  const renderers: Record<string, Renderer> = {};
  for (const t of RDF_OUTPUT_TYPES) renderers[t] = () => rdfStream(t, rdfParts());
  renderers['text/csv'] = () => Readable.from(csvLines(features, rowsOf()));
  renderers[XLSX_TYPE] = async () => {
    // what a spreadsheet program cannot open is refused before a byte is written
    const count = await datasets.count(uri);
    const problem = sheetTooLarge(Math.min(count, filter.pagesize ?? count), features.length + 1);
    if (problem) throw notAcceptable(`dataset ${uri}: ${problem}; ask for pages (page, pagesize), fewer features (feature_uris[]) or CSV`);
    return datasetWorkbook(meta, features, rowsOf());
  };
  renderers['text/arff'] = () =>
    Readable.from(
      (async function* () {
        const q = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
        yield `@relation ${q(title)}\n\n@attribute SMILES string\n${features.map((f) => `@attribute ${q(f.title)} ${f.kind === 'numeric' ? 'numeric' : f.kind === 'nominal' && f.accepted.length ? `{${f.accepted.map(q).join(',')}}` : 'string'}`).join('\n')}\n\n@data\n`;
        for await (const { rows, structure } of rowsOf()) {
          yield rows.map((r) => `${[q(structure.get(r.compound)?.smiles ?? ''), ...features.map((f) => arffValue(r.values.get(f.uri)?.value, f.kind))].join(',')}\n`).join('');
        }
      })(),
    );
  renderers['chemical/x-mdl-sdfile'] = () =>
    Readable.from(
      (async function* () {
        for await (const { rows, structure } of rowsOf()) {
          yield rows
            .map((r) => {
              const s = structure.get(r.compound);
              // a structure given without coordinates is laid out in 2D here
              const molfile = s?.smiles ? chemistry.molfileOf(s) : '';
              const fields = [['Compound', r.compound], ...features.filter((f) => r.values.has(f.uri)).map((f) => [f.title, r.values.get(f.uri)!.value])];
              return `${molfile.endsWith('\n') ? molfile : `${molfile}\n`}${fields.map(([k, v]) => `> <${k.replace(/[<>\r\n]/g, ' ')}>\n${v.replace(/\r?\n\s*\r?\n/g, '\n')}\n\n`).join('')}$$$$\n`;
            })
            .join('');
        }
      })(),
    );
  const jsonValue = (v: RDF.Literal) => (isNumericDatatype(v.datatype.value) ? Number(v.value) : v.value);
  const head = {
    uri,
    title: meta.title,
    warnings: meta.warnings,
    features: features.map((f) => ({ uri: f.uri, title: f.title, type: f.kind, ...(f.accepted.length ? { acceptValues: f.accepted } : {}) })),
  };
  const entryObject = (r: DatasetRow, smiles: string) => ({
    uri: r.entry,
    compound: r.compound,
    smiles,
    values: Object.fromEntries(features.filter((f) => r.values.has(f.uri)).map((f) => [f.uri, jsonValue(r.values.get(f.uri)!)])),
  });
  renderers['application/json'] = () =>
    Readable.from(
      (async function* () {
        yield `${JSON.stringify(head).slice(0, -1)},"entries":[`;
        let separator = '';
        for await (const { rows, structure } of rowsOf()) {
          if (!rows.length) continue;
          yield separator + rows.map((r) => `\n${JSON.stringify(entryObject(r, structure.get(r.compound)?.smiles ?? ''))}`).join(',');
          separator = ',';
        }
        yield '\n]}\n';
      })(),
    );
  renderers['text/x-json'] = renderers['application/json'];
  renderers['text/x-yaml'] = () =>
    Readable.from(
      (async function* () {
        yield `${yamlStringify(head)}entries:\n`;
        for await (const { rows, structure } of rowsOf()) {
          yield rows.map((r) => yamlStringify([entryObject(r, structure.get(r.compound)?.smiles ?? '')]).replace(/^/gm, '  ')).join('');
        }
      })(),
    );
  renderers['text/uri-list'] = () => `${uri}\r\n`;
  renderers['text/html'] = async () => {
    const page = filter.page ?? 0;
    const pagesize = filter.pagesize ?? 50;
    const rows: Parameters<typeof datasetPageHtml>[0]['rows'] = [];
    for await (const { rows: chunk, structure } of chunks(datasets, store, uri, { ...filter, page, pagesize })) {
      for (const r of chunk) rows.push({ index: r.index, compound: r.compound, smiles: structure.get(r.compound)?.smiles ?? '', values: featureUris.map((f) => r.values.get(f)?.value) });
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
      intro: datasetPageHtml({
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
