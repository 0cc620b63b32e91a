import { z } from 'zod';
import { answers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';
import { resourceRenderers, sendDone, sendGraphList, sendNegotiated, sendUri } from '../http/respond.ts';
import { badRequest } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { renderPage } from '../rdf/html.ts';
import { RDF_OUTPUT_TYPES, serializeRdf } from '../rdf/serialize.ts';
import { XLSX_TYPE } from '../dataset/xlsx-table.ts';
import type { Services } from '../core/services.ts';
import { categoryQuads } from './category-codec.ts';
import type { Categories } from './categories.ts';
import { categoryHtml, gapFillingHtml, gapFillingJson, matrixCsv, matrixHtml, matrixJson, matrixWorkbook } from './category-views.ts';
import { collapseRule, MATRIX_DESCRIPTORS, matrixQuads } from './data-matrix.ts';
import { MAX_ANALOGUES } from './analogue-search.ts';
import { descriptorRanges } from './descriptor-values.ts';
import { profileTermsOf } from './profile-terms.ts';

/** Categories for read-across: made around a target (POST /category), read, listed, deleted, and their data matrices. */
export function categoryRoutes(routes: DescribedRoutes, services: Pick<Services, 'uris' | 'store' | 'config'>, categories: Categories, nextStep: (category: string) => string = () => ''): void {
  const uriOf = (id: string) => services.uris.item('category', id);
  const canReadOf = (state: { canRead?: (uri: string) => boolean }) => state.canRead ?? (() => true);

  routes.add(
    {
      method: 'POST',
      path: '/category',
      summary:
        'A category around a target: for each endpoint the compounds with measured values you may read, at or above a similarity, holding a substructure, within a parent category; members with roles and the nearest left out with the reason',
      tag: 'category',
      body: ['application/x-www-form-urlencoded'],
      responses: answers(MEDIA.uri, 400, 404),
    },
    async (ctx) => {
      const form = await Params.fromRequest(ctx, services.config.bodyLimit);
      const number = (name: string, fallback: number, min: number, max: number, whole: boolean) => {
        const given = form.get(name)?.trim();
        if (given === undefined || given === '') return fallback;
        const n = Number(given);
        if (!Number.isFinite(n) || n < min || n > max || (whole && !Number.isInteger(n))) throw badValue(name, given, min, max, whole);
        return n;
      };
      const uri = await categories.create({
        target: form.required('target').trim(),
        endpoints: form
          .all('endpoint')
          .flatMap((e) => e.split(/\s+/))
          .filter(Boolean),
        similarityThreshold: number('similarity_threshold', 0.5, 0, 1, false),
        maxSources: number('max_sources', 10, 1, MAX_ANALOGUES, true),
        smarts: form.get('smarts')?.trim() || undefined,
        ranges: descriptorRanges(form.all('descriptor_range')),
        profile: profileTermsOf(form.all('profile')),
        parent: form.get('parent')?.trim() || undefined,
        members: form
          .all('member')
          .flatMap((m) => m.split(/\s+/))
          .filter(Boolean),
        title: form.get('title')?.trim() || undefined,
        canRead: canReadOf(ctx.state),
      });
      await sendUri(ctx, uri, 201);
    },
  );

  routes.add(
    {
      method: 'GET',
      path: '/category',
      summary: 'The categories you may read (with parent: its subcategories)',
      tag: 'category',
      params: z.object({ parent: param.optional('Only the subcategories of this category') }),
      responses: answers(MEDIA.list, 400),
    },
    async (ctx, p) => sendGraphList(ctx, services.store, await categories.list(canReadOf(ctx.state), p.parent?.trim()), 'Categories'),
  );

  routes.add(
    { method: 'GET', path: '/category/:id', summary: 'A category: definition, members with roles, the nearest left out', tag: 'category', responses: answers(MEDIA.resource, 404) },
    async (ctx) => {
      const category = await categories.require(uriOf(ctx.params.id));
      const quads = categoryQuads(category);
      const renderers = resourceRenderers(ctx, category.uri, quads, `Category: ${category.title}`);
      renderers['text/html'] = async () =>
        renderPage({
          title: `Category: ${category.title}`,
          intro: categoryHtml(category, await categories.list(canReadOf(ctx.state), category.uri), nextStep(category.uri)),
          quads,
          jsonld: await serializeRdf(quads, 'application/ld+json'),
        });
      await sendNegotiated(ctx, renderers);
    },
  );

  routes.add({ method: 'DELETE', path: '/category/:id', summary: 'Delete a category', tag: 'category', responses: answers([], 404) }, async (ctx) => {
    await categories.delete(uriOf(ctx.params.id));
    sendDone(ctx);
  });

  routes.add(
    {
      method: 'GET',
      path: '/category/:id/matrix',
      summary: 'The data matrix: members × endpoints, with log P and molecular weight; several values of one compound collapsed by a stated rule',
      tag: 'category',
      params: z.object({ collapse: param.optional('all (default: every value kept), mean, median, min or max (classes: the most frequent)') }),
      responses: answers(['text/html', 'text/csv', XLSX_TYPE, 'application/json', ...RDF_OUTPUT_TYPES], 400, 404),
    },
    async (ctx, p) => {
      const category = await categories.require(uriOf(ctx.params.id));
      const matrix = await categories.matrix(category, collapseRule(p.collapse), canReadOf(ctx.state));
      const title = `Data matrix: ${category.title}`;
      await sendNegotiated(ctx, {
        'text/html': () => renderPage({ title, intro: matrixHtml(matrix) }),
        'text/csv': () => matrixCsv(matrix),
        [XLSX_TYPE]: () => {
          ctx.set('Content-Disposition', `attachment; filename="category-${ctx.params.id}-matrix.xlsx"`);
          return matrixWorkbook(matrix);
        },
        'application/json': () => `${JSON.stringify(matrixJson(matrix))}\n`,
        ...Object.fromEntries(RDF_OUTPUT_TYPES.filter((t) => t !== 'text/html').map((t) => [t, () => serializeRdf(matrixQuads(matrix), t)])),
      });
    },
  );
}

export function gapFillingRoute(routes: DescribedRoutes, services: Pick<Services, 'uris'>, categories: Categories): void {
  routes.add(
    {
      method: 'GET',
      path: '/category/:id/gap-filling',
      summary:
        'The target’s data gaps filled side by side, per endpoint: read-across (GenRA), a trend on a descriptor within the category, the worst case among the sources, each QSAR model’s prediction with its domain, and whether the sources agree',
      tag: 'category',
      params: z.object({ descriptor: param.optional(`The trend's descriptor: ${MATRIX_DESCRIPTORS.map((d) => d.name).join(' or ')} (default ${MATRIX_DESCRIPTORS[0].name})`) }),
      responses: answers(['text/html', 'application/json'], 400, 404),
    },
    async (ctx, p) => {
      const category = await categories.require(services.uris.item('category', ctx.params.id));
      const filled = await categories.gapFilling(category, p.descriptor?.trim() || MATRIX_DESCRIPTORS[0].name, ctx.state.canRead ?? (() => true));
      await sendNegotiated(ctx, {
        'text/html': () => renderPage({ title: `Data gaps filled: ${category.title}`, intro: gapFillingHtml(filled) }),
        'application/json': () => `${JSON.stringify(gapFillingJson(filled))}\n`,
      });
    },
  );
}

function badValue(name: string, given: string, min: number, max: number, whole: boolean) {
  return badRequest(`${name} must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max} (got ${given.slice(0, 40)})`);
}
