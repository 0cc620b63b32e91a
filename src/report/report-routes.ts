import type { Context } from 'koa';
import { z } from 'zod';
import { notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { resourceRenderers, sendDone, sendGraphList, sendList, sendNegotiated, sendTask, sendUri, type Renderer } from '../http/respond.ts';
import { answers, MEDIA, param, taskResponses, type DescribedRoutes } from '../http/route-description.ts';
import { df, dc, literal } from '../rdf/namespaces.ts';
import { resourceTree } from '../rdf/resource-tree.ts';
import { REPORT_TYPES, type ReportType } from './report-codec.ts';
import type { Reports } from './reports.ts';
import type { ReportStore } from './report-store.ts';

const RENDER_MODULE = new URL('./report-render.ts', import.meta.url).href;

/** Validation reports (spec 4.3), also under the Ruby service layout `/validation/report`. */
export function reportRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'uris' | 'store' | 'workers'>, reports: Reports, store: ReportStore): void {
  const { uris, config } = services;
  const also = (path: string) => [`/validation${path}`];

  function requireType(ctx: Context): ReportType {
    const type = ctx.params.type as ReportType;
    if (!REPORT_TYPES.includes(type)) throw notFound(`report type ${ctx.params.type} not found (the types are ${REPORT_TYPES.join(', ')})`);
    return type;
  }

  routes.add({ method: 'GET', path: '/report', aliases: also('/report'), summary: 'Validation report types', tag: 'report', responses: answers(MEDIA.list) }, async (ctx) => {
    const types = REPORT_TYPES.map((t) => uris.reports(t));
    await sendList(ctx, types, (members) => members.map((u) => df.quad(df.namedNode(u), dc('title'), literal(`${u.split('/').pop()} reports`))), 'Report types');
  });

  routes.add(
    {
      method: 'GET',
      path: '/report/:type',
      aliases: also('/report/:type'),
      summary: 'Reports of a type',
      tag: 'report',
      params: z.object({ validation: param.optional('Those of this validation or cross-validation') }),
      responses: answers(MEDIA.list, 404),
    },
    async (ctx, p) => {
      const type = requireType(ctx);
      await sendGraphList(ctx, services.store, await store.list(type, p.validation), `${type} reports`);
    },
  );

  routes.add(
    {
      method: 'POST',
      path: '/report/:type',
      aliases: also('/report/:type'),
      summary: 'Make a report of validations (validation, crossvalidation, algorithm_comparison)',
      tag: 'report',
      params: z.object({
        validation_uris: z.array(z.string()).describe('The validations or cross-validations reported (comma-separated, or the parameter repeated)'),
        identifier: param.list('An algorithm comparison: a name for each cross-validation, in the same order'),
      }),
      responses: { ...taskResponses(400, 404), 200: MEDIA.uri },
    },
    async (ctx, p) => {
      const type = requireType(ctx);
      const started = await reports.start(type, { validationUris: p.validation_uris, identifiers: p.identifier ?? [] }, ctx.state.canRead);
      if ('existing' in started) return sendUri(ctx, started.existing);
      await sendTask(ctx, started.task);
    },
  );

  routes.add(
    {
      method: 'GET',
      path: '/report/:type/:id',
      aliases: also('/report/:type/:id'),
      summary: 'A report: its object (RDF, YAML), its DocBook document, HTML or PDF',
      tag: 'report',
      responses: answers([...MEDIA.resource, 'text/xml', 'application/docbook+xml', 'application/pdf'], 404),
    },
    async (ctx) => {
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
    },
  );

  routes.add({ method: 'DELETE', path: '/report/:type/:id', aliases: also('/report/:type/:id'), summary: 'Delete a report', tag: 'report', responses: answers([], 404) }, async (ctx) => {
    const type = requireType(ctx);
    const uri = uris.report(type, ctx.params.id);
    if (!(await store.read(uri))) throw notFound(`report ${uri} not found`);
    await store.delete(uri);
    sendDone(ctx);
  });
}
