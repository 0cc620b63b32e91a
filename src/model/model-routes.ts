import { z } from 'zod';
import { answers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import { modelPageHtml } from './model-page.ts';
import { datasetSelectHtml } from '../dataset/dataset-page.ts';
import { linkOf, renderPage } from '../rdf/html.ts';
import { RDF_OUTPUT_TYPES, serializeRdf } from '../rdf/serialize.ts';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { notFound, noSuchForm } from '../core/errors.ts';
import { alternateLinks, sendGraphList, sendNegotiated, type Renderer, sendDone, resourceRenderers, sendSeeOther, sendUri } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import { PMML_MEDIA_TYPES, PMML_MODULE, pmmlUnsupported, type PmmlFeature } from './pmml.ts';
import { ONNX_EXPORT_MODULE, ONNX_MEDIA_TYPE, onnxUnsupported } from './onnx-forms.ts';
import { ONNX_IMPORT_ID } from '../algorithm/catalogue.ts';
import { checkImportReadable, importOnnxModel, ONNX_IMPORT_FIELDS, readOnnxImport } from './onnx-import.ts';
import type { OnnxState } from './onnx-runtime.ts';
import { SERVICE_VERSION } from '../core/version.ts';
import type { ModelStore } from './model-store.ts';
import type { ModelDescription } from './model-codec.ts';
import type { Predictor } from './prediction.ts';
import { predictionRoutes } from './prediction-routes.ts';
import { INTERMEDIATE_PARAM, intermediateSwitchHtml, listsIntermediate } from '../http/intermediate-work.ts';
import type { ModelStarters } from './model-jobs.ts';

/** The validations section of a model's page, made by the validation component (which this one cannot import: it validates models). */
export type ModelValidationsHtml = (model: ModelDescription, canRead: (uri: string) => boolean) => Promise<string>;

/** Model component (spec 2.5, 4.11): list, describe, delete; predictions in prediction-routes.ts. */
export function modelRoutes(
  routes: DescribedRoutes,
  services: Pick<Services, 'config' | 'uris' | 'store' | 'chemistry' | 'workers'>,
  datasets: DatasetStore,
  models: ModelStore,
  predictor: Predictor,
  compounds: CompoundRegistry,
  validationsHtml: ModelValidationsHtml,
  start: ModelStarters,
): void {
  const { store } = services;
  const modelUri = (ctx: Context) => services.uris.item('model', ctx.params.id);

  async function requireModel(ctx: Context): Promise<{ uri: string; quads: RDF.Quad[]; description: ModelDescription }> {
    const uri = modelUri(ctx);
    const found = await models.describe(uri);
    if (!found) throw notFound(`model ${uri} not found`);
    return { uri, ...found };
  }

  routes.add(
    {
      method: 'GET',
      path: '/model',
      summary: 'Models (with query or sameas: those of an endpoint)',
      tag: 'model',
      params: z.object({ query: param.optional('Models owl:sameAs this IRI (an endpoint)'), sameas: param.optional('The same as query'), ...INTERMEDIATE_PARAM }),
      responses: answers(MEDIA.list, 404),
    },
    async (ctx, p) => {
      const sameAs = p.query ?? p.sameas;
      const intermediate = listsIntermediate(p);
      const uris = await models.list(sameAs, { intermediate });
      if (sameAs && !uris.length) throw notFound(`no model has owl:sameAs <${sameAs}>`);
      await sendGraphList(ctx, store, uris, sameAs ? `Models with owl:sameAs ${sameAs}` : 'Models', intermediateSwitchHtml(ctx, intermediate));
    },
  );

  routes.add(
    {
      method: 'POST',
      path: '/model',
      startsJob: true,
      summary: 'Import a model trained elsewhere: an ONNX file with its variables (multipart/form-data); 201 and its URI',
      tag: 'model',
      params: z.object(Object.fromEntries(Object.entries(ONNX_IMPORT_FIELDS).map(([name, description]) => [name, param.optional(description)]))),
      ownInput: true,
      body: ['multipart/form-data'],
      responses: answers(MEDIA.uri, 400, 404, 413),
    },
    async (ctx) => {
      const request = await readOnnxImport(ctx, services.config.modelImportBytes);
      // a multipart body is read here, not by the access-control middleware: what it names is checked here
      if (ctx.state.canRead) checkImportReadable(request, ctx.state.canRead);
      await sendUri(ctx, await importOnnxModel(services, datasets, models, request), 201);
    },
  );

  routes.add(
    {
      method: 'GET',
      path: '/model/:id',
      summary: 'A model (PMML and ONNX for forests, SVMs, linear and logistic regression; ONNX for boosting too)',
      tag: 'model',
      responses: answers([...MEDIA.resource, 'text/xml', 'application/xml', ONNX_MEDIA_TYPE], 404, 406),
    },
    async (ctx) => {
      const { uri, quads, description } = await requireModel(ctx);
      const renderers: Record<string, Renderer> = resourceRenderers(ctx, uri, quads, `Model: ${description.title ?? uri}`);
      // for people: what it was trained on, its validations, and forms that use it
      renderers['text/html'] = async () =>
        renderPage({
          title: `Model: ${description.title ?? uri}`,
          intro: await modelPageHtml(
            services,
            description,
            description.dependent ? await validationsHtml(description, ctx.state.canRead ?? (() => true)) : '',
            (await datasetSelectHtml(datasets, ctx.state.canRead ?? (() => true), { name: 'dataset_uri', label: 'Dataset' })).html,
          ),
          quads,
          alternates: alternateLinks(ctx, RDF_OUTPUT_TYPES),
          jsonld: await serializeRdf(quads, 'application/ld+json'),
        });
      // PMML for linear and logistic regression, forests and SVMs of numeric variables (406 naming why for the others)
      const pmml = async () => {
        const model = (await models.load(uri))!;
        const why = pmmlUnsupported(model);
        if (why) throw noSuchForm(`${why}; ask for RDF`);
        const records = await readFeatureRecords(store, [...model.independent, model.dependent]);
        const features = new Map([...records].map(([f, d]): [string, PmmlFeature] => [f, { title: d.title, algorithm: d.source && services.uris.isIn('algorithm', d.source) ? d.source : undefined }]));
        // a forest's document is megabytes: written on the worker pool
        return services.workers.run<string>(PMML_MODULE, 'modelPmml', [model, features]);
      };
      for (const type of PMML_MEDIA_TYPES) renderers[type] = pmml;
      // ONNX for the learners that have an ONNX form (406 naming why for the others)
      renderers[ONNX_MEDIA_TYPE] = async () => {
        const model = (await models.load(uri))!;
        const why = onnxUnsupported(model);
        if (why) throw noSuchForm(`${why}; ask for RDF`);
        ctx.set('Content-Disposition', `attachment; filename="model-${uri.split('/').pop()}.onnx"`);
        // an imported model: the file as it came
        if (model.learnerId === ONNX_IMPORT_ID) return Buffer.from((model.state as OnnxState).file, 'base64');
        const features = await readFeatureRecords(store, model.independent);
        // a forest's file is megabytes of nodes: written on the worker pool, never on the request thread
        const bytes = await services.workers.run<Uint8Array>(ONNX_EXPORT_MODULE, 'modelOnnx', [model, features, SERVICE_VERSION]);
        return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      };
      await sendNegotiated(ctx, renderers);
    },
  );

  const variables = {
    independent: { of: (d: ModelDescription) => d.independent, summary: 'The independent variables' },
    dependent: { of: (d: ModelDescription) => (d.dependent ? [d.dependent] : []), summary: 'The dependent variable' },
    predicted: { of: (d: ModelDescription) => d.predictedVariables, summary: 'The predicted variables' },
  };
  for (const [path, { of, summary }] of Object.entries(variables)) {
    routes.add({ method: 'GET', path: `/model/:id/${path}`, summary, tag: 'model', responses: answers(MEDIA.list, 404) }, async (ctx) => {
      const { uri, description } = await requireModel(ctx);
      await sendGraphList(ctx, store, of(description), `${path[0].toUpperCase()}${path.slice(1)} variables of ${uri}`);
    });
  }

  routes.add(
    {
      method: 'GET',
      path: '/model/:id/loo',
      summary: 'A read-across’s leave-one-out predictions of its training compounds: 303 to the dataset (every dataset format)',
      tag: 'model',
      responses: { ...answers([], 404), 303: [] },
    },
    async (ctx) => {
      const { uri, description } = await requireModel(ctx);
      const loo = description.related.find((r) => services.uris.isIn('dataset', r));
      if (!loo) throw notFound(`model ${uri} has no leave-one-out predictions: read-across models (/algorithm/genra) compute them when they are trained`);
      sendSeeOther(ctx, linkOf(loo).href);
    },
  );

  routes.add({ method: 'DELETE', path: '/model/:id', summary: 'Delete a model', tag: 'model', responses: answers([], 404) }, async (ctx) => {
    const { uri } = await requireModel(ctx);
    await models.delete(uri);
    sendDone(ctx);
  });

  predictionRoutes(routes, services, datasets, models, predictor, compounds, start.predictions);
}
