import type { ShapeValidator } from '../shacl/shape-validator.js';
import { featuresByTitle } from '../feature/feature-titles.js';
import { parseDatasetRef } from '../core/uri-scheme.js';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import busboy from 'busboy';
import { df, dc, ot, rdf, literal } from '../rdf/namespaces.js';
import { checkIri } from '../store/sparql-template.js';
import { badRequest, notFound, unsupportedType, tooLarge } from '../core/errors.js';
import { Params } from '../http/params.js';
import { readBody, requestMediaType } from '../http/body.js';
import { sendList, sendNegotiated, sendUri, rdfRenderers, sendDone, sendTask } from '../http/respond.js';
import { isRdfMediaType, parseRdf } from '../rdf/parse.js';
import type { Services } from '../core/services.js';
import { DC_PARAMS, mergeAnnotations, type DatasetMeta, type DatasetStore, type RowFilter } from './dataset-store.js';
import { arffSource, collectTable, csvSource, rdfSource, sdfSource, type InputTable, type TableSource } from './table-input.js';
import { structureReaderOn } from '../chemistry/structure-reader.js';
import { datasetRenderers } from './dataset-views.js';

interface Upload {
  body: Buffer;
  mediaType: string;
  filename?: string;
  params: Params;
}

/** The file of a request: a raw body, or the `file` part of multipart/form-data with its fields. */
async function readUpload(ctx: Context, limit: number): Promise<Upload> {
  const type = requestMediaType(ctx);
  if (type !== 'multipart/form-data') return { body: await readBody(ctx, limit), mediaType: type, params: Params.fromQuery(ctx) };
  const fields = new URLSearchParams(ctx.querystring);
  return new Promise<Upload>((resolve, reject) => {
    let file: { body: Buffer; mediaType: string; filename?: string } | undefined;
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: ctx.req.headers, limits: { fileSize: limit, files: 1 } });
    } catch (e) {
      return reject(badRequest(`the multipart body cannot be read: ${(e as Error).message}`));
    }
    bb.on('field', (name, value) => fields.append(name, value));
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => reject(tooLarge(`the uploaded file exceeds the limit of ${limit} bytes`)));
      stream.on('end', () => {
        if (name === 'file') file = { body: Buffer.concat(chunks), mediaType: info.mimeType.toLowerCase(), filename: info.filename };
      });
    });
    bb.on('error', (e) => reject(badRequest(`the multipart body cannot be read: ${(e as Error).message}`)));
    bb.on('close', () => {
      if (!file) return reject(badRequest('the multipart body has no part named "file"'));
      resolve({ ...file, params: new Params(fields) });
    });
    ctx.req.pipe(bb);
  });
}

/** The media type of an uploaded file: declared, or guessed from the file name. */
function fileType(upload: Upload): string {
  const byName: Record<string, string> = {
    csv: 'text/csv',
    txt: 'text/csv',
    sdf: 'chemical/x-mdl-sdfile',
    sd: 'chemical/x-mdl-sdfile',
    mol: 'chemical/x-mdl-sdfile',
    arff: 'text/arff',
    rdf: 'application/rdf+xml',
    owl: 'application/rdf+xml',
    ttl: 'text/turtle',
    nt: 'application/n-triples',
    jsonld: 'application/ld+json',
  };
  const ext = upload.filename?.split('.').pop()?.toLowerCase();
  const declared = upload.mediaType;
  if ((!declared || declared === 'application/octet-stream' || declared === 'text/plain') && ext && byName[ext]) return byName[ext];
  return declared;
}

/** An uploaded file as a table source, by its media type; nothing is parsed beyond its header yet. */
export async function openTable(upload: Upload, baseIri: string, shapes: ShapeValidator): Promise<TableSource> {
  const type = fileType(upload);
  if (!upload.body.some((b) => b > 0x20)) throw badRequest('the uploaded file is empty');
  if (type === 'text/csv' || type === 'application/csv' || type === 'text/comma-separated-values') return csvSource(upload.body);
  if (type === 'chemical/x-mdl-sdfile' || type === 'chemical/x-mdl-molfile') return sdfSource(upload.body.toString('utf8'));
  if (type === 'text/arff' || type === 'text/x-arff' || type === 'application/x-arff') return arffSource(upload.body.toString('utf8'));
  if (isRdfMediaType(type)) return rdfSource(await shapes.checked(await parseRdf(upload.body.toString('utf8'), type, baseIri)));
  throw unsupportedType(`cannot read a dataset from ${type || '(no type)'}; send text/csv, chemical/x-mdl-sdfile, text/arff or RDF`);
}

/** Dublin Core parameters of a request as annotations. */
function annotationsOf(params: Params): [RDF.NamedNode, RDF.Term][] {
  const out: [RDF.NamedNode, RDF.Term][] = [];
  for (const [name, p] of Object.entries(DC_PARAMS)) {
    for (const v of params.all(name)) {
      if (!v.trim()) continue;
      out.push([p, name === 'license' || name === 'seeAlso' ? (/^[a-z][a-z0-9+.-]*:/i.test(v) ? df.namedNode(checkIri(v)) : literal(v)) : literal(v)]);
    }
  }
  return out;
}

/** Dataset component (spec 2.1, 4.12). */
export function datasetRoutes(router: Router, services: Services, datasets: DatasetStore): void {
  const { store, config, tasks } = services;
  const base = datasets.collection;
  const datasetUri = (ctx: Context) => `${base}/${encodeURIComponent(ctx.params.id)}`;

  async function requireDataset(uri: string): Promise<DatasetMeta> {
    const meta = await datasets.readMeta(uri);
    if (!meta) throw notFound(`dataset ${uri} not found`);
    return meta;
  }

  function filterOf(params: Params): RowFilter {
    const int = (name: string) => {
      const v = params.get(name);
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || (name === 'pagesize' && n === 0)) throw badRequest(`${name} must be a ${name === 'page' ? 'non-negative' : 'positive'} integer`);
      return n;
    };
    return { compounds: params.all('compound_uris'), features: params.all('feature_uris'), page: int('page'), pagesize: int('pagesize') };
  }

  /** Run dataset work now, or as a task when the upload is large (202 + task URI). */
  async function createOrQueue(ctx: Context, size: number, title: string, work: (progress: (f: number) => void) => Promise<string>) {
    if (size <= config.datasetTaskBytes) return sendUri(ctx, await work(() => undefined));
    const task = await tasks.submit(title, (job) => work((f) => job.progress(f * 100)));
    await sendTask(ctx, task);
  }

  async function associatedFeatures(params: Params): Promise<Map<string, string>> {
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

  router.get('/dataset', async (ctx) => {
    const uris = await datasets.list();
    await sendList(ctx, uris, async () => (await Promise.all(uris.map((u) => store.readGraph(u)))).flat(), 'Datasets');
  });

  router.post('/dataset', async (ctx) => {
    const type = requestMediaType(ctx);
    if (type === 'application/x-www-form-urlencoded' || type === 'application/www-form-urlencoded') {
      // a new dataset from a subset of another
      const params = await Params.fromRequest(ctx, config.bodyLimit);
      const source = params.required('dataset_uri');
      const { uri: sourceUri, query } = parseDatasetRef(source);
      const meta = await requireDataset(sourceUri);
      const sub = new Params(new URLSearchParams([...query, ...params.entries()]));
      const filter = filterOf(sub);
      const features = filter.features?.length ? meta.features.filter((f) => filter.features!.includes(f)) : meta.features;
      const rows: { compound: string; values: [string, RDF.Literal][] }[] = [];
      for await (const r of datasets.rows(sourceUri, filter)) rows.push({ compound: r.compound, values: features.filter((f) => r.values.has(f)).map((f) => [f, r.values.get(f)!]) });
      const uri = await services.ids.next(base);
      const annotations = mergeAnnotations(
        [
          [dc('title'), literal(`Subset of ${meta.title ?? sourceUri}`)],
          [ot('hasSource'), df.namedNode(sourceUri)],
        ],
        annotationsOf(params),
      );
      await datasets.rewrite(uri, { annotations, features, warnings: [] }, rows);
      return sendUri(ctx, uri);
    }
    const upload = await readUpload(ctx, config.bodyLimit);
    const params = new Params(new URLSearchParams([...new URLSearchParams(ctx.querystring), ...upload.params.entries()]));
    const associated = await associatedFeatures(params);
    const annotations = annotationsOf(params);
    await createOrQueue(ctx, upload.body.length, `Upload ${upload.filename ?? 'dataset'}`, async (progress) => {
      const source = await openTable(upload, `${base}/`, services.shapes);
      const defaults: [RDF.NamedNode, RDF.Term][] = [];
      if (upload.filename) defaults.push([ot('hasSource'), literal(upload.filename)], [dc('title'), literal(upload.filename)]);
      if (source.title) defaults.push([dc('title'), literal(source.title)]);
      return datasets.create(source, structureReaderOn(services.workers), mergeAnnotations(dedupe(defaults), annotations), { associated, progress });
    });
  });

  router.get('/dataset/:id', async (ctx) => {
    const meta = await requireDataset(datasetUri(ctx));
    await sendNegotiated(ctx, await datasetRenderers(ctx, datasets, store, meta, filterOf(Params.fromQuery(ctx))));
  });

  router.get('/dataset/:id/metadata', async (ctx) => {
    const meta = await requireDataset(datasetUri(ctx));
    await sendNegotiated(
      ctx,
      rdfRenderers(ctx, () => meta.quads, meta.title ?? meta.uri),
    );
  });

  router.put('/dataset/:id/metadata', async (ctx) => {
    const meta = await requireDataset(datasetUri(ctx));
    const type = requestMediaType(ctx);
    let fresh: [RDF.NamedNode, RDF.Term][];
    if (isRdfMediaType(type)) {
      const quads = await parseRdf((await readBody(ctx, config.bodyLimit)).toString('utf8'), type, meta.uri);
      // the body describes this dataset, whether or not it says so
      await services.shapes.check([...quads, df.quad(df.namedNode(meta.uri), rdf('type'), ot('Dataset'))]);
      const own = new Set([ot('dataEntry'), ot('hasColumn'), ot('warning')].map((t) => t.value));
      fresh = quads
        .filter((q) => q.subject.value === meta.uri && q.predicate.termType === 'NamedNode' && !own.has(q.predicate.value) && q.predicate.value !== 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type')
        .map((q) => [q.predicate as RDF.NamedNode, q.object]);
    } else {
      fresh = annotationsOf(await Params.fromRequest(ctx, config.bodyLimit));
    }
    if (!fresh.length) throw badRequest('no metadata to set: send Dublin Core parameters (title, license, ...) or RDF about the dataset');
    const annotations = mergeAnnotations(datasets.annotationsOf(meta), fresh);
    const graph = datasets.metadataQuads(meta.uri, { annotations, features: meta.features, warnings: meta.warnings, created: datasets.createdOf(meta) });
    await store.replaceGraphs({ [meta.uri]: graph });
    sendDone(ctx);
  });

  router.get('/dataset/:id/compounds', async (ctx) => {
    const meta = await requireDataset(datasetUri(ctx));
    const uris: string[] = [];
    for await (const r of datasets.rows(meta.uri)) if (!uris.includes(r.compound)) uris.push(r.compound);
    await sendList(ctx, uris, async () => (await Promise.all(uris.map((u) => store.readGraph(u)))).flat(), `Compounds of ${meta.title ?? meta.uri}`);
  });

  for (const path of ['/dataset/:id/features', '/dataset/:id/feature']) {
    router.get(path, async (ctx) => {
      const meta = await requireDataset(datasetUri(ctx));
      await sendList(ctx, meta.features, async () => (await Promise.all(meta.features.map((u) => store.readGraph(u)))).flat(), `Features of ${meta.title ?? meta.uri}`);
    });
  }

  router.put('/dataset/:id', async (ctx) => {
    const meta = await requireDataset(datasetUri(ctx));
    const type = requestMediaType(ctx);
    if (type === 'application/x-www-form-urlencoded') {
      // merge another dataset (or a subset of it) into this one
      const params = await Params.fromRequest(ctx, config.bodyLimit);
      const ref = parseDatasetRef(params.required('dataset_uri'));
      const source = await requireDataset(ref.uri);
      const filter = filterOf(new Params(new URLSearchParams([...ref.query, ...params.entries()])));
      const table: InputTable = { columns: [], rows: [], warnings: [], unit: 'entry' };
      const features = filter.features?.length ? source.features.filter((f) => filter.features!.includes(f)) : source.features;
      table.columns = features.map((f) => ({ title: f, featureUri: f }));
      let n = 0;
      for await (const r of datasets.rows(source.uri, filter)) table.rows.push({ line: ++n, structure: { uri: r.compound }, cells: features.map((f) => r.values.get(f)) });
      await datasets.merge(meta.uri, meta, table, annotationsOf(params));
    } else {
      const upload = await readUpload(ctx, config.bodyLimit);
      const table = await collectTable(await openTable(upload, meta.uri, services.shapes), structureReaderOn(services.workers));
      await datasets.merge(meta.uri, meta, table, annotationsOf(upload.params));
    }
    await sendUri(ctx, meta.uri);
  });

  router.delete('/dataset/:id', async (ctx) => {
    const meta = await requireDataset(datasetUri(ctx));
    const params = await Params.fromRequest(ctx, config.bodyLimit);
    const compounds = params.all('compound_uris');
    const features = params.all('feature_uris');
    if (!compounds.length && !features.length) {
      await datasets.delete(meta.uri);
    } else {
      const keepFeatures = meta.features.filter((f) => !features.includes(f));
      const rows: { compound: string; values: [string, RDF.Literal][] }[] = [];
      for await (const r of datasets.rows(meta.uri)) {
        if (compounds.includes(r.compound)) continue;
        rows.push({ compound: r.compound, values: keepFeatures.filter((f) => r.values.has(f)).map((f) => [f, r.values.get(f)!]) });
      }
      await datasets.rewrite(meta.uri, { annotations: datasets.annotationsOf(meta), features: keepFeatures, warnings: meta.warnings, created: datasets.createdOf(meta) }, rows);
    }
    sendDone(ctx);
  });
}

function dedupe(pairs: [RDF.NamedNode, RDF.Term][]): [RDF.NamedNode, RDF.Term][] {
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
