import { z } from 'zod';
import { answers, MEDIA, param, taskResponses, type DescribedRoutes } from '../http/route-description.ts';
import type { Context } from 'koa';
import { notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { resourceRenderers, sendDone, sendGraphList, sendNegotiated, sendTask, type Renderer } from '../http/respond.ts';
import { resourceTree } from '../rdf/resource-tree.ts';
import type { Qprfs } from './qprfs.ts';
import type { PredictionFacts } from './qprf-facts.ts';
import { predictionEvidence } from './prediction-evidence.ts';

const RENDER_MODULE = new URL('../report/report-render.ts', import.meta.url).href;

/** QPRF reports (beyond the interface: ECHA's (Q)SAR Prediction Reporting Format), also under `/validation/reach_report/qprf`. */
export function qprfRoutes(
  routes: DescribedRoutes,
  services: Pick<Services, 'config' | 'uris' | 'store' | 'workers'>,
  qprfs: Qprfs,
  prediction: {
    /** 403 unless the caller may read the model and its training dataset. */
    readable: (request: { modelUri?: string; datasetUri?: string; compoundUri: string }, canRead?: (uri: string) => boolean) => Promise<unknown>;
    evidence: (request: { modelUri?: string; datasetUri?: string; compoundUri: string }, canRead?: (uri: string) => boolean) => Promise<PredictionFacts>;
  },
): void {
  const { uris, config } = services;
  const uriOf = (ctx: Context) => uris.reachReport('qprf', ctx.params.id);

  const also = (path: string) => [`/validation${path}`];

  routes.add(
    {
      method: 'GET',
      path: '/reach_report/qprf',
      aliases: also('/reach_report/qprf'),
      summary: 'QPRF reports',
      tag: 'qmrf',
      params: z.object({ model_uri: param.optional('Of this model'), compound_uri: param.optional('Of this compound') }),
      responses: answers(MEDIA.list),
    },
    async (ctx, p) => sendGraphList(ctx, services.store, await qprfs.list({ model: p.model_uri, compound: p.compound_uri }), 'QPRF reports'),
  );

  routes.add(
    {
      method: 'POST',
      path: '/reach_report/qprf',
      aliases: also('/reach_report/qprf'),
      summary: 'Make a QPRF of one prediction',
      tag: 'qmrf',
      params: z.object({
        compound_uri: param.required('The compound predicted'),
        model_uri: param.optional('The model that predicted it'),
        dataset_uri: param.optional('Or the prediction dataset that holds the prediction'),
      }),
      responses: taskResponses(400, 403, 404),
    },
    async (ctx, p) => {
      const request = { modelUri: p.model_uri, datasetUri: p.dataset_uri, compoundUri: p.compound_uri };
      await prediction.readable(request, ctx.state.canRead);
      await sendTask(ctx, await qprfs.start(request));
    },
  );

  routes.add(
    {
      method: 'GET',
      path: '/reach_report/qprf/evidence',
      aliases: also('/reach_report/qprf/evidence'),
      summary:
        'What a QPRF would report about one prediction, as JSON: the prediction, its applicability domains and the nearest training compounds (made now for a model, or read from a prediction dataset)',
      tag: 'qmrf',
      params: z.object({
        compound_uri: param.required('The compound predicted'),
        model_uri: param.optional('The model that predicts it'),
        dataset_uri: param.optional('Or the prediction dataset that holds the prediction'),
      }),
      responses: answers(['application/json'], 400, 403, 404),
    },
    async (ctx, p) => {
      const facts = await prediction.evidence({ modelUri: p.model_uri, datasetUri: p.dataset_uri, compoundUri: p.compound_uri }, ctx.state.canRead);
      await sendNegotiated(ctx, { 'application/json': () => JSON.stringify(predictionEvidence(facts)) });
    },
  );

  routes.add(
    {
      method: 'GET',
      path: '/reach_report/qprf/:id',
      aliases: also('/reach_report/qprf/:id'),
      summary: 'A QPRF: RDF, DocBook, HTML, PDF',
      tag: 'qmrf',
      responses: answers([...MEDIA.resource, 'text/xml', 'application/docbook+xml', 'application/pdf'], 404),
    },
    async (ctx) => {
      const uri = uriOf(ctx);
      const quads = await qprfs.read(uri);
      if (!quads) throw notFound(`QPRF report ${uri} not found`);
      const alternates = { 'application/pdf': `${uri}?media=application/pdf`, 'application/docbook+xml': `${uri}?media=text/xml`, 'text/turtle': `${uri}?media=text/turtle` };
      const convert = async (format: 'html' | 'pdf') => services.workers.run<string | Uint8Array>(RENDER_MODULE, 'convertReport', [await qprfs.document(uri), format, alternates, config.baseUrl]);
      const renderers: Record<string, Renderer> = {
        ...resourceRenderers(ctx, uri, quads, `QPRF ${uri}`, { tree: resourceTree(quads, uri, false) }),
        'text/xml': () => qprfs.document(uri),
        'application/docbook+xml': () => qprfs.document(uri),
        'text/html': async () => String(await convert('html')),
        'application/pdf': async () => Buffer.from((await convert('pdf')) as Uint8Array),
      };
      await sendNegotiated(ctx, renderers);
    },
  );

  routes.add({ method: 'DELETE', path: '/reach_report/qprf/:id', aliases: also('/reach_report/qprf/:id'), summary: 'Delete a QPRF', tag: 'qmrf', responses: answers([], 404) }, async (ctx) => {
    const uri = uriOf(ctx);
    if (!(await qprfs.read(uri))) throw notFound(`QPRF report ${uri} not found`);
    await qprfs.delete(uri);
    sendDone(ctx);
  });
}
