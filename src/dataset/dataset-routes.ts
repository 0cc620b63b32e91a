import { answerNowOrAsTask } from '../task/now-or-as-task.js';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { featuresByTitle } from '../feature/feature-titles.js';
import { parseDatasetRef } from '../core/uri-scheme.js';
import { df, dc, ot, rdf, literal } from '../rdf/namespaces.js';
import { badRequest, notFound } from '../core/errors.js';
import { Params } from '../http/params.js';
import { readBody, requestMediaType } from '../http/body.js';
import { sendList, sendNegotiated, sendUri, rdfRenderers, sendDone } from '../http/respond.js';
import { isRdfMediaType, parseRdf } from '../rdf/parse.js';
import type { Services } from '../core/services.js';
import { mergeAnnotations, type DatasetMeta, type DatasetStore } from './dataset-store.js';
import { collectTable } from './table-input.js';
import { structureReaderOn } from '../chemistry/structure-reader.js';
import { datasetRenderers } from './dataset-views.js';
import { annotationsOf, dedupe, filterOf, openTable, readUpload } from './dataset-input.js';
import { DatasetEdits } from './dataset-edits.js';

/** Dataset component (spec 2.1, 4.12). */
export function datasetRoutes(router: Router, services: Services, datasets: DatasetStore): void {
  const { store, config, tasks } = services;
  const base = datasets.collection;
  const datasetUri = (ctx: Context) => services.uris.item('dataset', ctx.params.id);
  const edits = new DatasetEdits(services, datasets);

  async function requireDataset(uri: string): Promise<DatasetMeta> {
    const meta = await datasets.readMeta(uri);
    if (!meta) throw notFound(`dataset ${uri} not found`);
    return meta;
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
      const ref = parseDatasetRef(params.required('dataset_uri'));
      const source = await requireDataset(ref.uri);
      return sendUri(ctx, await edits.subset(source, filterOf(new Params(new URLSearchParams([...ref.query, ...params.entries()]))), annotationsOf(params)));
    }
    const upload = await readUpload(ctx, config.bodyLimit);
    const params = new Params(new URLSearchParams([...new URLSearchParams(ctx.querystring), ...upload.params.entries()]));
    const associated = await associatedFeatures(params);
    const annotations = annotationsOf(params);
    // a large upload is stored as a task
    await answerNowOrAsTask(ctx, tasks, { slow: upload.body.length > config.datasetTaskBytes, title: `Upload ${upload.filename ?? 'dataset'}` }, async ({ progress }) => {
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
    await edits.setMetadata(meta, fresh);
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
      await edits.mergeFrom(meta, source, filterOf(new Params(new URLSearchParams([...ref.query, ...params.entries()]))), annotationsOf(params));
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
    await edits.remove(meta, params.all('compound_uris'), params.all('feature_uris'));
    sendDone(ctx);
  });
}
