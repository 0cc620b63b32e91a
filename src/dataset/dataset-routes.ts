import { answerNowOrAsTask } from '../task/now-or-as-task.ts';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { parseDatasetRef } from '../core/uri-scheme.ts';
import { dc, ot, literal } from '../rdf/namespaces.ts';
import { notFound } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { requestMediaType } from '../http/body.ts';
import { sendGraphList, sendNegotiated, sendUri, rdfRenderers, sendDone } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import type { DatasetMeta, DatasetStore } from './dataset-store.ts';
import { mergeAnnotations } from './dataset-codec.ts';
import { collectTable } from './table-input.ts';
import { structureReaderOn } from '../chemistry/structure-reader.ts';
import { datasetRenderers } from './dataset-views.ts';
import { annotationsOf, associatedFeatures, dedupe, filterOf, metadataOf, openTable, readUpload } from './dataset-input.ts';
import { DatasetEdits } from './dataset-edits.ts';
import { storeRepresentation } from '../http/representation-cache.ts';

/** Dataset component (spec 2.1, 4.12). */
/** Upload from a browser: a file (CSV, SDF, ARFF, RDF) and a title; the answer leads to the new dataset or its task. */
const UPLOAD_FORM = `<form class="upload" method="post" action="/dataset" enctype="multipart/form-data">
<h2>Upload a dataset</h2>
<p><label>Data file (CSV with a SMILES column, SDF, ARFF or RDF) <input type="file" name="file" required></label></p>
<p><label>Title <input name="title" size="40"></label> <button type="submit">Upload</button></p>
</form>`;

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

  router.get('/dataset', async (ctx) => {
    const uris = await datasets.list();
    await sendGraphList(ctx, store, uris, 'Datasets', UPLOAD_FORM);
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
    const associated = await associatedFeatures(params, datasets, store);
    const annotations = annotationsOf(params);
    // a large upload is stored as a task
    // as a task it stops when the task is cancelled or the server stops (then nothing is kept)
    // a few thousand structures take seconds to register (about 1 ms each): a task, however small the file
    const slow = upload.body.length > config.datasetTaskBytes || roughRows(upload.body) > config.datasetTaskRows;
    await answerNowOrAsTask(ctx, tasks, { slow, title: `Upload ${upload.filename ?? 'dataset'}` }, async ({ progress, signal }) => {
      const source = await openTable(upload, `${base}/`, services.shapes);
      const defaults: [RDF.NamedNode, RDF.Term][] = [];
      if (upload.filename) defaults.push([ot('hasSource'), literal(upload.filename)], [dc('title'), literal(upload.filename)]);
      if (source.title) defaults.push([dc('title'), literal(source.title)]);
      return datasets.create(source, structureReaderOn(services.workers, signal, services.chemistry), mergeAnnotations(dedupe(defaults), annotations), { associated, progress, signal });
    });
  });

  router.get('/dataset/:id', async (ctx) => {
    const meta = await requireDataset(datasetUri(ctx));
    await sendNegotiated(ctx, await datasetRenderers(ctx, datasets, store, services.chemistry, meta, filterOf(Params.fromQuery(ctx))));
    storeRepresentation(ctx);
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
    const fresh = await metadataOf(ctx, meta.uri, services.shapes, config.bodyLimit);
    await edits.setMetadata(meta, fresh);
    sendDone(ctx);
  });

  // the same from a page's form (browsers post forms): answers the dataset (a browser goes back to it)
  router.post('/dataset/:id/metadata', async (ctx) => {
    const meta = await requireDataset(datasetUri(ctx));
    await edits.setMetadata(meta, await metadataOf(ctx, meta.uri, services.shapes, config.bodyLimit));
    await sendUri(ctx, meta.uri);
  });

  router.get('/dataset/:id/compounds', async (ctx) => {
    const meta = await requireDataset(datasetUri(ctx));
    const uris: string[] = [];
    for await (const r of datasets.rows(meta.uri)) if (!uris.includes(r.compound)) uris.push(r.compound);
    await sendGraphList(ctx, store, uris, `Compounds of ${meta.title ?? meta.uri}`);
  });

  for (const path of ['/dataset/:id/features', '/dataset/:id/feature']) {
    router.get(path, async (ctx) => {
      const meta = await requireDataset(datasetUri(ctx));
      await sendGraphList(ctx, store, meta.features, `Features of ${meta.title ?? meta.uri}`);
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

/** Records of an upload, roughly: its SD records (`$$$$` lines) when it has any, else its lines. */
function roughRows(body: string | Uint8Array): number {
  const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const count = (what: string | number) => {
    let n = 0;
    for (let at = bytes.indexOf(what); at >= 0; at = bytes.indexOf(what, at + 1)) n++;
    return n;
  };
  return count('$$$$') || count(0x0a);
}
