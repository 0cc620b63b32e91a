import { featureRecord } from './feature-record.ts';
import { z } from 'zod';
import { answers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';
import type { Context } from 'koa';
import { notFound } from '../core/errors.ts';
import { sendList, sendNegotiated, sendUri, sendDone, resourceRenderers, sendWarnings } from '../http/respond.ts';
import { readRdfBody } from '../http/rdf-body.ts';
import type { Services } from '../core/services.ts';
import { FeatureStore } from './feature-store.ts';
import { storeRepresentation } from '../http/representation-cache.ts';

/** Feature component (spec 4.7): GET list / one, POST, PUT, DELETE. Each route: parameters, one call, one renderer. */
export function featureRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'shapes'>): void {
  const { config, uris } = services;
  const features = new FeatureStore(services);
  const featureUri = (ctx: Context) => uris.item('feature', ctx.params.id);

  const rdfIn = MEDIA.rdf.filter((t) => t !== 'text/html');
  routes.add(
    {
      method: 'GET',
      path: '/feature',
      summary: 'Features (with query or sameas: those that stand for an ontology entry)',
      tag: 'feature',
      params: z.object({ query: param.optional('Features owl:sameAs this IRI'), sameas: param.optional('The same as query') }),
      responses: answers(MEDIA.list, 404),
    },
    async (ctx, p) => {
      const sameAs = p.query ?? p.sameas;
      const list = await features.list(sameAs);
      if (sameAs && list.length === 0) throw notFound(`no feature has owl:sameAs <${sameAs}>`);
      await sendList(ctx, list, (members) => features.readAll(members), sameAs ? `Features with owl:sameAs ${sameAs}` : 'Features');
    },
  );

  routes.add({ method: 'GET', path: '/feature/:id', summary: 'A feature', tag: 'feature', responses: answers(MEDIA.resource, 404) }, async (ctx) => {
    const uri = featureUri(ctx);
    const quads = await features.require(uri);
    const { title } = featureRecord(quads, uri);
    await sendNegotiated(ctx, resourceRenderers(ctx, uri, quads, title ? `Feature: ${title}` : `Feature ${uri}`));
    storeRepresentation(ctx);
  });

  routes.add({ method: 'POST', path: '/feature', summary: 'Create a feature (checked against its SHACL shape)', tag: 'feature', body: rdfIn, responses: answers(MEDIA.uri, 400) }, async (ctx) => {
    const { uri, warnings } = await features.create(await readRdfBody(ctx, config.bodyLimit, `${features.collection}/`));
    sendWarnings(ctx, warnings);
    await sendUri(ctx, uri);
  });

  routes.add({ method: 'PUT', path: '/feature/:id', summary: 'Replace a feature', tag: 'feature', body: rdfIn, responses: answers(MEDIA.uri, 400, 404) }, async (ctx) => {
    const uri = featureUri(ctx);
    sendWarnings(ctx, await features.replace(uri, () => readRdfBody(ctx, config.bodyLimit, uri)));
    await sendUri(ctx, uri);
  });

  routes.add({ method: 'DELETE', path: '/feature/:id', summary: 'Delete a feature', tag: 'feature', responses: answers([], 404) }, async (ctx) => {
    await features.delete(featureUri(ctx));
    sendDone(ctx);
  });
}
