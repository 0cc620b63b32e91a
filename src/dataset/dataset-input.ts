import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { readMultipart } from '../http/multipart.ts';
import { df, ot, rdf, literal } from '../rdf/namespaces.ts';
import { checkIri } from '../rdf/terms.ts';
import { badRequest, notFound, unsupportedType } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { readBody, requestMediaType } from '../http/body.ts';
import { isRdfMediaType, parseRdf } from '../rdf/parse.ts';
import type { ShapeValidator } from '../shacl/shape-validator.ts';
import { DC_PARAMS, type DatasetStore, type RowFilter } from './dataset-store.ts';
import type { TripleStore } from '../store/triple-store.ts';
import { featuresByTitle } from '../feature/feature-record.ts';
import { arffSource, checkedSource, csvSource, rdfSource, sdfSource, xlsxSource, type TableSource } from './table-input.ts';
import { checkCell } from './table-limits.ts';
import { headerRowOf } from './sheet-shape.ts';
import { unpackedSize, XLSX_TYPE } from './xlsx-table.ts';
import type { Config } from '../core/config.ts';
import type { RunFunction } from '../learning/learner.ts';
import { OWN } from './dataset-codec.ts';
import { YAML_TYPES } from './yaml-dataset.ts';
import { yamlSource } from './yaml-table.ts';

// What a dataset request carries: an uploaded file, Dublin Core annotations, a row selection.

export interface Upload {
  body: Buffer;
  mediaType: string;
  filename?: string;
  params: Params;
}

/** The file of a request: a raw body, or the `file` part of multipart/form-data with its fields. */
export async function readUpload(ctx: Context, limit: number): Promise<Upload> {
  const type = requestMediaType(ctx);
  if (type !== 'multipart/form-data') return { body: await readBody(ctx, limit), mediaType: type, params: Params.fromQuery(ctx) };
  const { files, fields } = await readMultipart(ctx, limit, 1);
  const file = files.find((f) => f.name === 'file');
  if (!file) throw badRequest('the multipart body has no part named "file"');
  return { body: file.body, mediaType: file.mediaType, filename: file.filename, params: new Params(new URLSearchParams([...new URLSearchParams(ctx.querystring), ...fields])) };
}

/**
 * Is an upload of `rows` rows (its table read and checked: openTable) large enough to be stored
 * as a task? By its rows (`--dataset-task-rows`, whatever its format), its bytes
 * (`--dataset-task-bytes`), or what a workbook unpacks to.
 */
export function isLargeUpload(upload: Upload, rows: number, limits: Pick<Config, 'datasetTaskBytes' | 'datasetTaskRows'>): boolean {
  if (upload.body.length > limits.datasetTaskBytes || rows > limits.datasetTaskRows) return true;
  // a workbook's rows are in its zipped XML: what that unpacks to says how large it is
  return fileTypeOf(upload) === XLSX_TYPE && (unpackedSize(upload.body) ?? 0) > limits.datasetTaskBytes;
}

/** The media type of an uploaded file: declared, or guessed from the file name. */
export function fileTypeOf(upload: Upload): string {
  const byName: Record<string, string> = {
    csv: 'text/csv',
    txt: 'text/csv',
    tsv: 'text/tab-separated-values',
    xlsx: XLSX_TYPE,
    tab: 'text/tab-separated-values',
    sdf: 'chemical/x-mdl-sdfile',
    sd: 'chemical/x-mdl-sdfile',
    mol: 'chemical/x-mdl-sdfile',
    arff: 'text/arff',
    rdf: 'application/rdf+xml',
    owl: 'application/rdf+xml',
    ttl: 'text/turtle',
    nt: 'application/n-triples',
    jsonld: 'application/ld+json',
    yaml: 'text/x-yaml',
    yml: 'text/x-yaml',
  };
  const ext = upload.filename?.split('.').pop()?.toLowerCase();
  const declared = upload.mediaType;
  if ((!declared || declared === 'application/octet-stream' || declared === 'text/plain') && ext && byName[ext]) return byName[ext];
  return declared;
}

/**
 * An uploaded file as a table source, by its media type, read and checked whole against
 * table-limits.ts (checkedSource): the one way the upload, its preview and a merge open a table,
 * so that they accept and refuse the same tables with the same words, before any task starts.
 */
export async function openTable(upload: Upload, baseIri: string, shapes: ShapeValidator, run: RunFunction, forPreview = false): Promise<TableSource & { rows: number }> {
  return checkedSource(await sourceOf(upload, baseIri, shapes, run, forPreview));
}

/** An uploaded file as a table source, by its media type (`forPreview`: a table of no structure column is read, for the person to choose it). */
async function sourceOf(upload: Upload, baseIri: string, shapes: ShapeValidator, run: RunFunction, forPreview: boolean): Promise<TableSource> {
  const type = fileTypeOf(upload);
  if (!upload.body.some((b) => b > 0x20)) throw badRequest('the uploaded file is empty');
  // a form's "as found" is an empty value: not given
  const given = (name: string) => upload.params.get(name)?.trim() || undefined;
  const dialect = { encoding: given('encoding'), delimiter: upload.params.get('delimiter') || undefined, decimal: given('decimal') };
  // the header row, when the table's title rows hide it (sheet-shape.ts finds it otherwise)
  // and its structure column, when no header says which it is
  const shape = { headerRow: headerRowOf(given('header_row')), structureColumn: given('structure_column'), orNoStructure: forPreview };
  if (type === 'text/csv' || type === 'application/csv' || type === 'text/comma-separated-values') return csvSource(upload.body, dialect, shape);
  if (type === XLSX_TYPE) return xlsxSource(upload.body, given('sheet'), run, shape);
  if (type === 'text/tab-separated-values') return csvSource(upload.body, { ...dialect, delimiter: dialect.delimiter ?? '\t' }, shape);
  if (type === 'chemical/x-mdl-sdfile' || type === 'chemical/x-mdl-molfile') return sdfSource(upload.body.toString('utf8'));
  if (type === 'text/arff' || type === 'text/x-arff' || type === 'application/x-arff') return arffSource(upload.body.toString('utf8'));
  if (isRdfMediaType(type)) return rdfSource(await shapes.checked(await parseRdf(upload.body.toString('utf8'), type, baseIri)));
  if (YAML_TYPES.includes(type)) return yamlSource(upload.body, run);
  throw unsupportedType(
    `cannot read a dataset from ${type || '(no type)'}; send text/csv, text/tab-separated-values, an Excel workbook (${XLSX_TYPE}), chemical/x-mdl-sdfile, text/arff, RDF or YAML (text/x-yaml)`,
  );
}

/** Dublin Core parameters of a request as annotations (each as long and of the characters a cell may be: 400 otherwise). */
export function annotationsOf(params: Params): [RDF.NamedNode, RDF.Term][] {
  const out: [RDF.NamedNode, RDF.Term][] = [];
  for (const [name, p] of Object.entries(DC_PARAMS)) {
    for (const v of params.all(name)) {
      if (!v.trim()) continue;
      checkCell(v, `the parameter ${name}`);
      out.push([p, name === 'license' || name === 'seeAlso' ? (/^[a-z][a-z0-9+.-]*:/i.test(v) ? df.namedNode(checkIri(v)) : literal(v)) : literal(v)]);
    }
  }
  return out;
}

/** The rows a request selects: `compound_uris[]`, `feature_uris[]`, `page`, `pagesize` (spec 4.12). */
export function filterOf(params: Params): RowFilter {
  const int = (name: string) => {
    const v = params.get(name);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0 || (name === 'pagesize' && n === 0)) throw badRequest(`${name} must be a ${name === 'page' ? 'non-negative' : 'positive'} integer`);
    return n;
  };
  const feature = params.get('where_feature');
  const value = params.get('where_value');
  if ((feature === undefined) !== (value === undefined)) throw badRequest('where_feature and where_value go together: the rows whose value of that feature is that value');
  const where = feature !== undefined && value !== undefined ? { feature, value: value.trim() } : undefined;
  return { compounds: params.all('compound_uris'), features: params.all('feature_uris'), where, page: int('page'), pagesize: int('pagesize') };
}

/** Of repeated properties, the last value. */
export function dedupe(pairs: [RDF.NamedNode, RDF.Term][]): [RDF.NamedNode, RDF.Term][] {
  const seen = new Set<string>();
  return pairs
    .reverse()
    .filter(([p]) => {
      if (seen.has(p.value)) return false;
      seen.add(p.value);
      return true;
    })
    .reverse();
}

/**
 * `associated_features` (with `matcher=title`, the default): the features of another dataset by
 * title, so that an upload's columns of the same titles become those features.
 */
export async function associatedFeatures(params: Params, datasets: DatasetStore, store: TripleStore): Promise<Map<string, string>> {
  const ref = params.get('associated_features');
  const map = new Map<string, string>();
  if (!ref) return map;
  const matcher = params.get('matcher') ?? 'title';
  if (!['title', 'name', 'feature name', 'featurename'].includes(matcher.toLowerCase())) throw badRequest(`unknown matcher ${matcher}; use "name" (the feature title)`);
  const dsUri = ref.replace(/\/(features?)\/?$/, '');
  const meta = await datasets.readMeta(dsUri);
  if (!meta) throw notFound(`associated_features: dataset ${dsUri} not found`);
  for (const [title, f] of await featuresByTitle(store, meta.features)) map.set(title, f);
  return map;
}

/** The annotations a metadata PUT sets: RDF about the dataset (checked against its shape) or Dublin Core parameters. */
export async function metadataOf(ctx: Context, uri: string, shapes: ShapeValidator, bodyLimit: number): Promise<[RDF.NamedNode, RDF.Term][]> {
  const type = requestMediaType(ctx);
  if (!isRdfMediaType(type)) return annotationsOf(await Params.fromRequest(ctx, bodyLimit));
  const quads = await parseRdf((await readBody(ctx, bodyLimit)).toString('utf8'), type, uri);
  // the body describes this dataset, whether or not it says so
  await shapes.check([...quads, df.quad(df.namedNode(uri), rdf('type'), ot('Dataset'))]);
  // what the server writes itself (the entries, the columns, which rows a selection shows) is not the body's to set
  return quads.filter((q) => q.subject.value === uri && q.predicate.termType === 'NamedNode' && !OWN.has(q.predicate.value)).map((q) => [q.predicate as RDF.NamedNode, q.object]);
}
