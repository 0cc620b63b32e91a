import type Router from '@koa/router';
import type { Context } from 'koa';
import { notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { Params } from '../http/params.ts';
import { resourceRenderers, sendDone, sendGraphList, sendList, sendNegotiated, sendTask, sendUri, type Renderer } from '../http/respond.ts';
import { df, dc, literal } from '../rdf/namespaces.ts';
import { resourceTree } from '../rdf/resource-tree.ts';
import { REPORT_TYPES, type ReportType } from './report-codec.ts';
import type { Reports } from './reports.ts';
import type { ReportStore } from './report-store.ts';

const RENDER_MODULE = new URL('./report-render.ts', import.meta.url).href;

/** Validation reports (spec 4.3), also under the Ruby service layout `/validation/report`. */
export function reportRoutes(router: Router, services: Services, reports: Reports, store: ReportStore): void {
  const { uris, config } = services;

  function requireType(ctx: Context): ReportType {
    const type = ctx.params.type as ReportType;
    if (!REPORT_TYPES.includes(type)) throw notFound(`report type ${ctx.params.type} not found (the types are ${REPORT_TYPES.join(', ')})`);
    return type;
  }

  for (const base of ['/report', '/validation/report']) {
    router.get(base, async (ctx) => {
      const types = REPORT_TYPES.map((t) => uris.reports(t));
      await sendList(ctx, types, (members) => members.map((u) => df.quad(df.namedNode(u), dc('title'), literal(`${u.split('/').pop()} reports`))), 'Report types');
    });

    router.get(`${base}/:type`, async (ctx) => {
      const type = requireType(ctx);
      const validation = Params.fromQuery(ctx).get('validation');
      await sendGraphList(ctx, services.store, await store.list(type, validation), `${type} reports`);
    });

    router.post(`${base}/:type`, async (ctx) => {
      const type = requireType(ctx);
      const started = await reports.start(type, await Params.fromRequest(ctx, config.bodyLimit), ctx.state.canRead);
      if ('existing' in started) return sendUri(ctx, started.existing);
      await sendTask(ctx, started.task);
    });

    router.get(`${base}/:type/:id`, async (ctx) => {
      const type = requireType(ctx);
      const uri = uris.report(type, ctx.params.id);
      const found = await store.read(uri);
      if (!found) throw notFound(`report ${uri} not found`);
      const alternates = {
        'application/docbook+xml': `${uri}?media=text/xml`,
        'application/pdf': `${uri}?media=application/pdf`,
        'text/turtle': `${uri}?media=text/turtle`,
        'text/x-yaml': `${uri}?media=text/x-yaml`,
      };
      const convert = async (format: 'html' | 'pdf') => services.workers.run<string | Uint8Array>(RENDER_MODULE, 'convertReport', [await store.document(uri), format, alternates, config.baseUrl]);
      const renderers: Record<string, Renderer> = {
        ...resourceRenderers(ctx, uri, found.quads, found.record.title, { tree: resourceTree(found.quads, uri, false) }),
        // spec 2.7: the report document, DocBook at its core, HTML and PDF converted from it
        'text/xml': () => store.document(uri),
        'application/docbook+xml': () => store.document(uri),
        'text/html': async () => String(await convert('html')),
        'application/pdf': async () => Buffer.from((await convert('pdf')) as Uint8Array),
      };
      await sendNegotiated(ctx, renderers);
    });

    router.delete(`${base}/:type/:id`, async (ctx) => {
      const type = requireType(ctx);
      const uri = uris.report(type, ctx.params.id);
      if (!(await store.read(uri))) throw notFound(`report ${uri} not found`);
      await store.delete(uri);
      sendDone(ctx);
    });
  }
}
