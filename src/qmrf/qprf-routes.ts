import type Router from '@koa/router';
import type { Context } from 'koa';
import { notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { Params } from '../http/params.ts';
import { resourceRenderers, sendDone, sendGraphList, sendNegotiated, sendTask, type Renderer } from '../http/respond.ts';
import { resourceTree } from '../rdf/resource-tree.ts';
import type { Qprfs } from './qprfs.ts';

const RENDER_MODULE = new URL('../report/report-render.ts', import.meta.url).href;

/** QPRF reports (beyond the interface: ECHA's (Q)SAR Prediction Reporting Format), also under `/validation/reach_report/qprf`. */
export function qprfRoutes(router: Router, services: Services, qprfs: Qprfs): void {
  const { uris, config } = services;
  const uriOf = (ctx: Context) => uris.reachReport('qprf', ctx.params.id);

  for (const base of ['/reach_report/qprf', '/validation/reach_report/qprf']) {
    router.get(base, async (ctx) => {
      const q = Params.fromQuery(ctx);
      await sendGraphList(ctx, services.store, await qprfs.list({ model: q.get('model_uri'), compound: q.get('compound_uri') }), 'QPRF reports');
    });

    router.post(base, async (ctx) => {
      const params = await Params.fromRequest(ctx, config.bodyLimit);
      await sendTask(ctx, await qprfs.start({ modelUri: params.get('model_uri'), datasetUri: params.get('dataset_uri'), compoundUri: params.required('compound_uri') }));
    });

    router.get(`${base}/:id`, async (ctx) => {
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
    });

    router.delete(`${base}/:id`, async (ctx) => {
      const uri = uriOf(ctx);
      if (!(await qprfs.read(uri))) throw notFound(`QPRF report ${uri} not found`);
      await qprfs.delete(uri);
      sendDone(ctx);
    });
  }
}
