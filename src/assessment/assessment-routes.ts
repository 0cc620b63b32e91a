import { z } from 'zod';
import { answers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';
import { notFound } from '../core/errors.ts';
import { renderPage } from '../rdf/html.ts';
import { XLSX_TYPE } from '../dataset/xlsx-table.ts';
import { collapseRule } from '../read-across/data-matrix.ts';
import { matrixCsv, matrixHtml, matrixJson, matrixWorkbook } from '../read-across/category-views.ts';
import { resourceRenderers, sendDone, sendGraphList, sendNegotiated, sendUri } from '../http/respond.ts';
import { Params } from '../http/params.ts';
import type { Services } from '../core/services.ts';
import { assessmentQuads, visibleTo } from './assessment-codec.ts';
import { assessmentEditHtml } from './assessment-forms.ts';
import type { Assessments } from './assessments.ts';

/** Read-across assessments (issue 57): made from a category, written by the assessor, made final, revised as new versions. */
const RENDER_MODULE = new URL('../report/report-render.ts', import.meta.url).href;

export function assessmentRoutes(routes: DescribedRoutes, services: Pick<Services, 'uris' | 'store' | 'config' | 'workers'>, assessments: Assessments): void {
  const uriOf = (id: string) => services.uris.item('assessment', id);
  const canReadOf = (state: { canRead?: (uri: string) => boolean }) => state.canRead ?? (() => true);
  const form = (ctx: Parameters<typeof Params.fromRequest>[0]) => Params.fromRequest(ctx, services.config.bodyLimit);

  routes.add(
    {
      method: 'POST',
      path: '/assessment',
      summary:
        'A read-across assessment: category (a category URI) and scenario (a RAAF scenario, 1–6) required; title, purpose, regulatory_context, problem_formulation, tolerable_uncertainty and the other fields of an update may be given at once',
      tag: 'assessment',
      body: ['application/x-www-form-urlencoded'],
      responses: answers(MEDIA.uri, 400, 404),
    },
    async (ctx) => {
      const params = await form(ctx);
      const uri = await assessments.create({ category: params.required('category'), scenario: params.required('scenario'), params, canRead: canReadOf(ctx.state) });
      await sendUri(ctx, uri, 201);
    },
  );

  routes.add({ method: 'GET', path: '/assessment', summary: 'The assessments you may read', tag: 'assessment', responses: answers(MEDIA.list) }, async (ctx) =>
    sendGraphList(ctx, services.store, await assessments.list(canReadOf(ctx.state)), 'Read-across assessments'),
  );

  routes.add(
    {
      method: 'GET',
      path: '/assessment/:id',
      summary: 'An assessment: RDF (with PROV-O: what every gap-filled value was derived from), or the report as HTML, PDF or DocBook',
      tag: 'assessment',
      responses: answers([...MEDIA.resource, 'application/pdf', 'application/docbook+xml'], 404),
    },
    async (ctx) => {
      // a shared assessment shows each reader only the measured values that reader may read
      const a = visibleTo(await assessments.require(uriOf(ctx.params.id)), canReadOf(ctx.state));
      const quads = assessmentQuads(a);
      const renderers = resourceRenderers(ctx, a.uri, quads, `Assessment: ${a.title}`);
      // the report: DocBook, and HTML and PDF converted from it on the worker pool (as the validation reports are)
      const docbook = () => assessments.docbook(a, canReadOf(ctx.state));
      const alternates = { 'application/pdf': `${a.uri}?media=application/pdf`, 'application/docbook+xml': `${a.uri}?media=application/docbook%2Bxml`, 'text/turtle': `${a.uri}?media=text/turtle` };
      const convert = async (format: 'html' | 'pdf') => services.workers.run<string | Uint8Array>(RENDER_MODULE, 'convertReport', [await docbook(), format, alternates, services.config.baseUrl]);
      // the report's page, with the assessor's form (a draft's fields; a final one's new version)
      renderers['text/html'] = async () => String(await convert('html')).replace('</body>', `${assessmentEditHtml(a)}</body>`);
      renderers['application/docbook+xml'] = docbook;
      renderers['application/pdf'] = async () => {
        ctx.set('Content-Disposition', `inline; filename="assessment-${ctx.params.id}.pdf"`);
        const pdf = (await convert('pdf')) as Uint8Array;
        return Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
      };
      await sendNegotiated(ctx, renderers);
    },
  );

  routes.add(
    {
      method: 'POST',
      path: '/assessment/:id',
      summary:
        'Write a draft: texts; tolerable_uncertainty and overall_uncertainty (low, moderate, high); method:{endpoint} (read-across, trend, lowest, highest, qsar), model:{endpoint}, rationale:{endpoint}; score:{element} (1–5), comment:{element}; remove ("{compound} {dataset}") with remark; conclusion',
      tag: 'assessment',
      body: ['application/x-www-form-urlencoded'],
      responses: answers(MEDIA.uri, 400, 404, 409),
    },
    async (ctx) => {
      const uri = uriOf(ctx.params.id);
      await assessments.update(uri, await form(ctx), canReadOf(ctx.state));
      await sendUri(ctx, uri);
    },
  );

  routes.add(
    {
      method: 'POST',
      path: '/assessment/:id/final',
      summary: 'Make a draft final (every element scored, the overall uncertainty and the conclusion given)',
      tag: 'assessment',
      responses: answers(MEDIA.uri, 400, 404, 409),
    },
    async (ctx) => {
      const uri = uriOf(ctx.params.id);
      await assessments.finalise(uri);
      await sendUri(ctx, uri);
    },
  );

  routes.add(
    { method: 'POST', path: '/assessment/:id/version', summary: 'A new draft version of an assessment (the old one stays as it is)', tag: 'assessment', responses: answers(MEDIA.uri, 404) },
    async (ctx) => sendUri(ctx, await assessments.newVersion(uriOf(ctx.params.id)), 201),
  );

  routes.add(
    {
      method: 'GET',
      path: '/assessment/:id/matrix',
      summary: 'The assessment’s data matrix (its category’s, the values taken out left out and listed with their remarks): HTML, CSV, XLSX, JSON',
      tag: 'assessment',
      params: z.object({ collapse: param.optional('all (default), mean, median, min or max') }),
      responses: answers(['text/html', 'text/csv', XLSX_TYPE, 'application/json'], 400, 404),
    },
    async (ctx, p) => {
      const canRead = canReadOf(ctx.state);
      const a = visibleTo(await assessments.require(uriOf(ctx.params.id)), canRead);
      const matrix = await assessments.matrix(a, collapseRule(p.collapse), canRead);
      if (!matrix) throw notFound(`the category ${a.category} of assessment ${a.uri} is not shared with you`);
      await sendNegotiated(ctx, {
        'text/html': () => renderPage({ title: `Data matrix: ${a.title}`, intro: `${matrixHtml(matrix)}<p>${a.removed.length} value(s) taken out, kept with their remarks in the assessment.</p>` }),
        'text/csv': () => matrixCsv(matrix),
        [XLSX_TYPE]: () => {
          ctx.set('Content-Disposition', `attachment; filename="assessment-${ctx.params.id}-matrix.xlsx"`);
          return matrixWorkbook(matrix, a.removed);
        },
        'application/json': () => `${JSON.stringify({ ...matrixJson(matrix), removed: a.removed })}\n`,
      });
    },
  );

  routes.add({ method: 'DELETE', path: '/assessment/:id', summary: 'Delete an assessment (this version)', tag: 'assessment', responses: answers([], 404) }, async (ctx) => {
    await assessments.delete(uriOf(ctx.params.id));
    sendDone(ctx);
  });
}
