import { INTERMEDIATE_PARAM, intermediateSwitchHtml, listsIntermediate } from '../http/intermediate-work.ts';
import { escapeHtml, iriHtml, renderPage } from '../rdf/html.ts';
import type { Context } from 'koa';
import { notFound } from '../core/errors.ts';
import { alternateLinks, sendList, sendGraphList, sendNegotiated, type Renderer, sendDone, resourceRenderers, sendTask } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import type { Crossvalidations } from './crossvalidation.ts';
import { learningInput, learningParams, type ValidationStarters } from './validation-service-routes.ts';
import { z } from 'zod';
import { answers, MEDIA, param, taskResponses, type DescribedRoutes } from '../http/route-description.ts';
import { specParam } from '../algorithm/parameters.ts';
import { VALIDATION_PARAMETERS as V } from './validation-params.ts';
import { VALIDATION_SCHEMA } from './validation-schema.ts';
import { crossvalidationHtml, sendValidation, toXml, validationTitle } from './validation-views.ts';
import { RDF_OUTPUT_TYPES } from '../rdf/serialize.ts';
import { resourceTree } from '../rdf/resource-tree.ts';

/**
 * Cross-validation component (spec 4.2) at /crossvalidation, also answered under the Ruby
 * service layout /validation/crossvalidation (DESIGN.md).
 */
export function crossvalidationRoutes(
  routes: DescribedRoutes,
  services: Pick<Services, 'uris' | 'store'>,
  crossvalidations: Crossvalidations,
  startCrossvalidation: ValidationStarters['crossvalidation'],
): void {
  const uriOf = (ctx: Context) => services.uris.item('crossvalidation', ctx.params.id);

  async function requireCrossvalidation(ctx: Context) {
    const uri = uriOf(ctx);
    const quads = await crossvalidations.read(uri);
    if (!quads) throw notFound(`cross-validation ${uri} not found`);
    return { uri, quads };
  }

  /** A cross-validation (k-fold, or leave-one-out) of a recipe on a dataset, run as a task (validation-jobs.ts). */
  const recipe = z.object({
    ...learningParams,
    dataset_uri: param.required('The dataset'),
    random_seed: specParam(V.randomSeed),
    stratified: z
      .string()
      .optional()
      .transform((v, ctx) => {
        const given = v?.trim().toLowerCase() || undefined;
        if (given === undefined || given === 'true' || given === 'false' || given === 'super') return given;
        ctx.addIssue({ code: 'custom', message: `stratified must be true, false or super (got ${JSON.stringify(given.slice(0, 40))})` });
        return z.NEVER;
      })
      .describe('Folds with the class shares of the dataset (true, the default), or not (false), or on the sorted target values (super)'),
  });
  const start = (ctx: Context, p: z.infer<typeof recipe>, numFolds: number | undefined) =>
    startCrossvalidation({ ...learningInput(p), datasetUri: p.dataset_uri, stratified: p.stratified, randomSeed: Number(p.random_seed), numFolds }).then((task) => sendTask(ctx, task));
  routes.add(
    {
      method: 'POST',
      path: '/crossvalidation',
      startsJob: true,
      aliases: ['/validation/crossvalidation'],
      summary: 'k-fold cross-validation (folds drawn over structures)',
      tag: 'validation',
      params: recipe.extend({ num_folds: specParam(V.numFolds) }),
      responses: taskResponses(400, 404),
    },
    (ctx, p) => start(ctx, p, Number(p.num_folds)),
  );
  routes.add(
    {
      method: 'POST',
      path: '/crossvalidation/loo',
      startsJob: true,
      aliases: ['/validation/crossvalidation/loo'],
      summary: 'Leave-one-out cross-validation',
      tag: 'validation',
      params: recipe,
      responses: taskResponses(400, 404),
    },
    (ctx, p) => start(ctx, p, undefined),
  );

  // registered before /validation/{id}, which would take these paths otherwise
  routes.add({ method: 'GET', path: '/validation/schema.xsd', summary: 'The XML schema of validations as application/xml', tag: 'validation', responses: answers(['application/xml']) }, (ctx) => {
    ctx.set('Content-Type', 'application/xml');
    ctx.body = VALIDATION_SCHEMA;
  });

  const xml = ['application/xml', 'text/xml'];
  // each also under the Ruby service layout, /validation/crossvalidation
  const also = (path: string) => [`/validation${path}`];
  routes.add(
    {
      method: 'GET',
      path: '/crossvalidation',
      aliases: also('/crossvalidation'),
      summary: 'Cross-validations (those of an algorithm, of a dataset)',
      tag: 'validation',
      params: z.object({ algorithm: param.optional('Of this algorithm'), dataset: param.optional('On this dataset'), ...INTERMEDIATE_PARAM }),
      responses: answers(MEDIA.list),
    },
    async (ctx, { intermediate: given, ...filter }) => {
      const intermediate = listsIntermediate({ intermediate: given }) || Object.values(filter).some((v) => v);
      await sendGraphList(ctx, services.store, await crossvalidations.list(filter, { intermediate }), 'Cross-validations', intermediateSwitchHtml(ctx, intermediate));
    },
  );

  routes.add(
    { method: 'GET', path: '/crossvalidation/:id', aliases: also('/crossvalidation/:id'), summary: 'A cross-validation', tag: 'validation', responses: answers([...MEDIA.resource, ...xml], 404) },
    async (ctx) => {
      const { uri, quads } = await requireCrossvalidation(ctx);
      const tree = resourceTree(quads, uri, false);
      const renderers: Record<string, Renderer> = {
        ...resourceRenderers(ctx, uri, quads, `Cross-validation ${uri}`, { tree }),
        'application/xml': () => toXml('crossvalidation', tree),
        'text/xml': () => toXml('crossvalidation', tree),
      };
      // for people: what it found first (pooled statistics, each fold's), then what it is
      renderers['text/html'] = async () => {
        const statisticsUri = crossvalidations.statisticsUri(uri);
        const pooled = resourceTree(await crossvalidations.statistics(uri), statisticsUri, false);
        const folds = (await crossvalidations.folds(uri, quads)).map((f) => ({ uri: f.uri, tree: resourceTree(f.quads, f.uri, false) }));
        const links = `<p>${iriHtml(statisticsUri, 'pooled statistics')} · ${iriHtml(`${uri}/validations`, 'fold validations')}</p>
<form class="run" method="post" action="/report/crossvalidation"><input type="hidden" name="validation_uris" value="${escapeHtml(uri)}"><button type="submit">Make a report of this cross-validation (with plots)</button></form>`;
        return renderPage({
          title: await validationTitle(services.store, tree),
          intro: `${links}\n${crossvalidationHtml(pooled, folds)}`,
          quads,
          alternates: alternateLinks(ctx, [...RDF_OUTPUT_TYPES, 'application/xml', 'application/json', 'text/x-yaml']),
        });
      };
      await sendNegotiated(ctx, renderers);
    },
  );

  routes.add(
    {
      method: 'GET',
      path: '/crossvalidation/:id/validations',
      aliases: also('/crossvalidation/:id/validations'),
      summary: 'Its fold validations',
      tag: 'validation',
      responses: answers(MEDIA.list, 404),
    },
    async (ctx) => {
      const { uri, quads } = await requireCrossvalidation(ctx);
      const folds = await crossvalidations.folds(uri, quads);
      await sendList(
        ctx,
        folds.map((f) => f.uri),
        () => folds.flatMap((f) => f.quads),
        `Validations of ${uri}`,
      );
    },
  );

  routes.add(
    {
      method: 'GET',
      path: '/crossvalidation/:id/statistics',
      aliases: also('/crossvalidation/:id/statistics'),
      summary: 'Its pooled statistics',
      tag: 'validation',
      responses: answers([...MEDIA.resource, ...xml], 404),
    },
    async (ctx) => {
      const { uri } = await requireCrossvalidation(ctx);
      await sendValidation(ctx, crossvalidations.statisticsUri(uri), await crossvalidations.statistics(uri), async () => {
        const { quads } = await requireCrossvalidation(ctx);
        return `Pooled statistics of the ${(await validationTitle(services.store, resourceTree(quads, uri, false))).replace(/^./, (c) => c.toLowerCase())}`;
      });
    },
  );

  routes.add(
    { method: 'DELETE', path: '/crossvalidation/:id', aliases: also('/crossvalidation/:id'), summary: 'Delete a cross-validation and its folds', tag: 'validation', responses: answers([], 404) },
    async (ctx) => {
      const { uri, quads } = await requireCrossvalidation(ctx);
      await crossvalidations.delete(uri, quads);
      sendDone(ctx);
    },
  );
}
