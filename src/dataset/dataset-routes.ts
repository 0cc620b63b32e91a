import { answerNowOrAsTask } from '../task/now-or-as-task.ts';
import type { Context } from 'koa';
import { z } from 'zod';
import { parseDatasetRef } from '../core/uri-scheme.ts';
import { notFound } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { requestMediaType } from '../http/body.ts';
import { asksForPage, sendGraphList, sendNegotiated, sendSeeOther, sendUri, rdfRenderers, sendDone } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import { DC_PARAMS, type DatasetMeta, type DatasetStore } from './dataset-store.ts';
import { collectTable } from './table-input.ts';
import { DATASET_OUTPUT_TYPES, datasetRenderers, type ExplainPredictions } from './dataset-views.ts';
import { XLSX_TYPE } from './xlsx-table.ts';
import { annotationsOf, filterOf, metadataOf, openTable, readUpload } from './dataset-input.ts';
import { DatasetEdits } from './dataset-edits.ts';
import { DatasetUploads } from './dataset-uploads.ts';
import { emptyDatasetMetadata } from './empty-dataset.ts';
import { previewHtml } from './upload-preview.ts';
import { renderPage } from '../rdf/html.ts';
import { storeRepresentation } from '../http/representation-cache.ts';
import { answers, MEDIA, param, taskResponses, type DescribedRoutes } from '../http/route-description.ts';
import { RDF_INPUT_TYPES } from '../rdf/parse.ts';
import { INTERMEDIATE_PARAM, intermediateSwitchHtml, listsIntermediate } from '../http/intermediate-work.ts';
import { CURATION_VIEWS, curationRenderers, curationReportOf, curationSelectionOf } from './curation-report.ts';

/** Dataset component (spec 2.1, 4.12). */
/** Upload from a browser: a file (CSV, TSV, Excel, SDF, ARFF, RDF) and a title; the preview page shows what was read and stores it (or it is stored at once). */
const UPLOAD_FORM = `<form class="upload" method="post" action="/dataset/preview" enctype="multipart/form-data">
<h2>Upload a dataset</h2>
<p><label>Data file (an Excel workbook, CSV or TSV with a SMILES, InChI or Molfile column; SDF, ARFF or RDF) <input type="file" name="file" required></label></p>
<p><label>Title <input name="title" size="40"></label> <button type="submit">Upload and check what was read</button> <button type="submit" formaction="/dataset">Store it at once</button></p>
<p><small>The check shows how the file was read, its columns and first rows, and the rows it would skip, before anything is stored; there you can leave columns out, correct units and describe the measured endpoint.</small></p>
</form>`;

/** What a dataset is made from (dataset-input.ts opens it): a table or RDF, raw or as the `file` of multipart/form-data. */
const DATASET_INPUT_TYPES = ['text/csv', 'text/tab-separated-values', XLSX_TYPE, 'chemical/x-mdl-sdfile', 'text/arff', ...RDF_INPUT_TYPES, 'text/x-yaml', 'application/x-yaml', 'multipart/form-data'];

/** The rows a request selects (filterOf in dataset-input.ts reads them). */
const SELECTION = {
  compound_uris: param.list('Only these compounds'),
  feature_uris: param.list('Only these features'),
  where_feature: param.optional('Only the rows whose value of this feature is where_value (for example those inside an applicability domain)'),
  where_value: param.optional('The value where_feature must have'),
  page: param.optional('The page of rows (from 0)'),
  pagesize: param.optional('Rows per page'),
};

/** The Dublin Core parameters a dataset is annotated with (annotationsOf in dataset-input.ts reads them). */
const ANNOTATIONS = Object.fromEntries(Object.entries(DC_PARAMS).map(([name, property]) => [name, param.list(`The dataset's ${property.value}`)]));

/** How a delimited upload was written, when the file should not be examined for it (csv-dialect.ts). */
const DIALECT = {
  encoding: param.optional('A CSV or TSV upload: its encoding (utf-8, utf-16le, utf-16be, windows-1252); found from the file when not given'),
  delimiter: param.optional('A CSV or TSV upload: its column separator (, ; tab |); found from the file when not given'),
  decimal: param.optional('A CSV or TSV upload: its decimal mark (. or ,); found from the file when not given'),
  sheet: param.optional('An Excel upload: the sheet to read (the first when not given)'),
  header_row: param.optional('A CSV, TSV or Excel upload: the number of its header row (as warnings number rows); found under any title rows when not given'),
  structure_column: param.optional('A CSV, TSV or Excel upload: its structure column (its header or its number from 1), when no header names it SMILES, InChI, Molfile, Compound or Name'),
};

/** What a preview's form decides (upload-choices.ts); an upload may give them too. Units of column n: units_{n}. */
const CHOICES = {
  pending: param.optional('The file a preview read (POST /dataset/preview), stored now'),
  ignore_column: param.list('Columns left out, numbered from 1 as the preview lists them'),
  endpoint_column: param.optional('The column of the measured endpoint (numbered from 1)'),
  endpoint: param.optional("The endpoint's ontology term (owl:sameAs of its feature, e.g. an otee: endpoint)"),
  species: param.optional('The species the endpoint was measured in (QMRF 3.1)'),
  guideline: param.optional('The test guideline it was measured by (QMRF 3.6)'),
  id_columns: param.list('Identifier columns, kept as text (numbered from 1 as the preview lists them, or their titles)'),
};

/** A dataset to take rows from (a subset or a merge), with a selection of its own in its query (`?feature_uris[]=…`). */
const SOURCE = param.optional('A dataset to take rows from; its URI may carry a selection of its own (?compound_uris[]=…)');

export function datasetRoutes(
  routes: DescribedRoutes,
  services: Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'tasks' | 'workers' | 'shapes' | 'chemistry'>,
  datasets: DatasetStore,
  explain?: ExplainPredictions,
): void {
  const { store, config, tasks } = services;
  const datasetUri = (ctx: Context) => services.uris.item('dataset', ctx.params.id);
  const edits = new DatasetEdits(services, datasets);
  const uploads = new DatasetUploads(services, datasets);

  async function requireDataset(uri: string): Promise<DatasetMeta> {
    const meta = await datasets.readMeta(uri);
    if (!meta) throw notFound(`dataset ${uri} not found`);
    return meta;
  }

  routes.add({ method: 'GET', path: '/dataset', summary: 'Datasets', tag: 'dataset', params: z.object(INTERMEDIATE_PARAM), responses: answers(MEDIA.list) }, async (ctx, p) => {
    const intermediate = listsIntermediate(p);
    const uris = await datasets.list({ intermediate });
    await sendGraphList(ctx, store, uris, 'Datasets', UPLOAD_FORM + intermediateSwitchHtml(ctx, intermediate));
  });

  // an upload (raw, or a multipart/form-data file with fields) or a form: the handler reads which it is
  routes.add(
    {
      method: 'POST',
      path: '/dataset',
      startsJob: true,
      summary: 'Upload a dataset (CSV, SDF, ARFF, RDF, YAML; large ones as a task), make one from a subset of another (form), or an empty one (no body, or metadata only)',
      tag: 'dataset',
      params: z.object({
        dataset_uri: SOURCE,
        ...SELECTION,
        ...ANNOTATIONS,
        associated_features: param.optional("An upload: another dataset whose features its columns of the same titles become (its URI, or its features' URI)"),
        matcher: param.optional('An upload: how columns match associated_features (title, the default)'),
        ...DIALECT,
        ...CHOICES,
      }),
      ownInput: true,
      body: DATASET_INPUT_TYPES,
      responses: { ...answers(MEDIA.uri, 400, 404, 413), ...taskResponses(), 303: [] },
    },
    async (ctx) => {
      const type = requestMediaType(ctx);
      const form = type === 'application/x-www-form-urlencoded' || type === 'application/www-form-urlencoded' ? await Params.fromRequest(ctx, config.bodyLimit) : undefined;
      // no rows at all (no body, a form or RDF of metadata only): an empty dataset, filled by PUT later
      const empty = await emptyDatasetMetadata(ctx, form, services.shapes, config.bodyLimit, `${datasets.collection}/`);
      if (empty) return sendUri(ctx, await datasets.createFromRows(empty, [], []));
      if (form && !form.has('pending')) {
        // a new dataset from a subset of another
        const ref = parseDatasetRef(form.required('dataset_uri'));
        const source = await requireDataset(ref.uri);
        return sendUri(ctx, await edits.subset(source, filterOf(new Params(new URLSearchParams([...ref.query, ...form.entries()]))), annotationsOf(form)));
      }
      // an upload, or the file a preview's form stores
      const prepared = await uploads.prepare(await uploads.of(ctx, form));
      await answerNowOrAsTask(ctx, tasks, prepared, prepared.work);
    },
  );

  // a browser's form goes on to the preview's own page (reloadable, its links resolve); a client gets the preview
  routes.add(
    {
      method: 'POST',
      path: '/dataset/preview',
      startsJob: true,
      summary: 'Look at an upload before storing it: how it was read, its columns, its first rows, the rows it would skip; its page stores it',
      tag: 'dataset',
      params: z.object({ pending: param.optional('The file a preview read, read again (its settings changed)'), ...DIALECT }),
      ownInput: true,
      body: DATASET_INPUT_TYPES,
      responses: { ...answers(['application/json'], 400, 404, 413, 429), 303: [] },
    },
    async (ctx) => {
      const type = requestMediaType(ctx);
      const form = type === 'application/x-www-form-urlencoded' ? await Params.fromRequest(ctx, config.bodyLimit) : undefined;
      const { preview, pending } = await uploads.preview(await uploads.of(ctx, form));
      if (asksForPage(ctx)) return sendSeeOther(ctx, `/dataset/preview/${pending}`);
      await sendNegotiated(ctx, { 'application/json': () => `${JSON.stringify({ pending, ...preview })}\n` });
    },
  );

  routes.add(
    {
      method: 'GET',
      path: '/dataset/preview/:pending',
      summary: 'The preview of a waiting upload, with the form that stores it',
      tag: 'dataset',
      responses: answers(['text/html', 'application/json'], 404),
    },
    async (ctx) => {
      const { preview, pending, params } = await uploads.previewOfPending(ctx.params.pending);
      await sendNegotiated(ctx, {
        'text/html': () => renderPage({ title: `What was read: ${preview.file.name ?? 'the upload'}`, intro: previewHtml(preview, pending, Object.fromEntries(params.entries())) }),
        'application/json': () => `${JSON.stringify({ pending, ...preview })}\n`,
      });
    },
  );

  // the selection is read as a dataset reference's own is (filterOf)
  routes.add(
    {
      method: 'GET',
      path: '/dataset/:id',
      summary: 'A dataset, whole or a subset (compounds, features, page)',
      tag: 'dataset',
      params: z.object({
        ...SELECTION,
        media: param.optional('The media type wanted, where a link cannot set Accept'),
        bom: param.optional('1: CSV starts with a UTF-8 byte-order mark (for Excel)'),
      }),
      ownInput: true,
      responses: answers(DATASET_OUTPUT_TYPES, 400, 404),
    },
    async (ctx) => {
      const meta = await requireDataset(datasetUri(ctx));
      await sendNegotiated(ctx, await datasetRenderers(ctx, datasets, store, services.chemistry, meta, filterOf(Params.fromQuery(ctx)), explain));
      storeRepresentation(ctx);
    },
  );

  routes.add({ method: 'GET', path: '/dataset/:id/metadata', summary: 'A dataset’s metadata', tag: 'dataset', responses: answers(MEDIA.rdf, 404) }, async (ctx) => {
    const meta = await requireDataset(datasetUri(ctx));
    await sendNegotiated(
      ctx,
      rdfRenderers(ctx, () => meta.quads, meta.title ?? meta.uri),
    );
  });

  // the metadata is RDF about the dataset or Dublin Core parameters (metadataOf reads which)
  routes.add(
    {
      method: 'PUT',
      path: '/dataset/:id/metadata',
      summary: 'Set a dataset’s metadata (Dublin Core parameters or RDF)',
      tag: 'dataset',
      params: z.object(ANNOTATIONS),
      ownInput: true,
      body: RDF_INPUT_TYPES,
      responses: answers([], 400, 404),
    },
    async (ctx) => {
      const meta = await requireDataset(datasetUri(ctx));
      const fresh = await metadataOf(ctx, meta.uri, services.shapes, config.bodyLimit);
      await edits.setMetadata(meta, fresh);
      sendDone(ctx);
    },
  );

  // the same from a page's form (browsers post forms): answers the dataset (a browser goes back to it)
  routes.add(
    {
      method: 'POST',
      path: '/dataset/:id/metadata',
      summary: 'The same from a page’s form',
      tag: 'dataset',
      params: z.object(ANNOTATIONS),
      ownInput: true,
      body: RDF_INPUT_TYPES,
      responses: { ...answers(MEDIA.uri, 400, 404), 303: [] },
    },
    async (ctx) => {
      const meta = await requireDataset(datasetUri(ctx));
      await edits.setMetadata(meta, await metadataOf(ctx, meta.uri, services.shapes, config.bodyLimit));
      await sendUri(ctx, meta.uri);
    },
  );

  routes.add(
    {
      method: 'GET',
      path: '/dataset/:id/curation',
      summary: 'The curation report of a dataset of standardised structures: per row the original, the parent, the rules and flags',
      tag: 'dataset',
      params: z.object({
        show: param.optional(`Which rows: ${CURATION_VIEWS.join(', ')} (changed: what a rule changed or flagged)`),
        rule: param.optional('Only rows where this standardisation rule fired'),
        flag: param.optional('Only rows with this flag'),
        page: param.optional('The page of rows (from 0)'),
        pagesize: param.optional('Rows per page (at most 500)'),
        media: param.optional('The media type wanted, where a link cannot set Accept'),
      }),
      responses: answers(['text/html', 'application/json'], 400, 404),
    },
    async (ctx, params) => {
      const report = await curationReportOf(datasets, store, datasetUri(ctx), curationSelectionOf(params));
      await sendNegotiated(ctx, curationRenderers(report, services.workers));
    },
  );

  routes.add({ method: 'GET', path: '/dataset/:id/compounds', summary: 'The compounds of a dataset', tag: 'dataset', responses: answers(MEDIA.list, 404) }, async (ctx) => {
    const meta = await requireDataset(datasetUri(ctx));
    const uris: string[] = [];
    for await (const r of datasets.rows(meta.uri)) if (!uris.includes(r.compound)) uris.push(r.compound);
    await sendGraphList(ctx, store, uris, `Compounds of ${meta.title ?? meta.uri}`);
  });

  routes.add(
    { method: 'GET', path: '/dataset/:id/features', aliases: ['/dataset/:id/feature'], summary: 'The features of a dataset', tag: 'dataset', responses: answers(MEDIA.list, 404) },
    async (ctx) => {
      const meta = await requireDataset(datasetUri(ctx));
      await sendGraphList(ctx, store, meta.features, `Features of ${meta.title ?? meta.uri}`);
    },
  );

  // rows from another dataset (a form) or from an upload: the handler reads which it is
  routes.add(
    {
      method: 'PUT',
      path: '/dataset/:id',
      startsJob: true,
      summary: 'Merge rows and columns into a dataset: from another dataset (a form) or an upload',
      tag: 'dataset',
      params: z.object({ dataset_uri: SOURCE, ...SELECTION, ...ANNOTATIONS, ...DIALECT }),
      ownInput: true,
      body: DATASET_INPUT_TYPES,
      responses: { ...answers(MEDIA.uri, 400, 404, 413), 303: [] },
    },
    async (ctx) => {
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
        const table = await collectTable(await openTable(upload, meta.uri, services.shapes, services.workers.runner()), datasets.structureReader());
        await datasets.merge(meta.uri, meta, table, annotationsOf(upload.params));
      }
      await sendUri(ctx, meta.uri);
    },
  );

  routes.add(
    {
      method: 'DELETE',
      path: '/dataset/:id',
      summary: 'Delete a dataset, or some of its compounds or features',
      tag: 'dataset',
      params: z.object({ compound_uris: SELECTION.compound_uris, feature_uris: SELECTION.feature_uris }),
      responses: answers([], 404),
    },
    async (ctx, p) => {
      const meta = await requireDataset(datasetUri(ctx));
      await edits.remove(meta, p.compound_uris ?? [], p.feature_uris ?? []);
      sendDone(ctx);
    },
  );
}
