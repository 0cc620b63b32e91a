import { featureRecord } from './feature-record.ts';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { notFound } from '../core/errors.ts';
import { sendList, sendNegotiated, sendUri, sendDone, resourceRenderers } from '../http/respond.ts';
import { readRdfBody } from '../http/rdf-body.ts';
import { Params } from '../http/params.ts';
import type { Services } from '../core/services.ts';
import { FeatureStore } from './feature-store.ts';
import { storeRepresentation } from '../http/representation-cache.ts';

/** Feature component (spec 4.7): GET list / one, POST, PUT, DELETE. Each route: parameters, one call, one renderer. */
export function featureRoutes(router: Router, services: Services): void {
  const { config, uris } = services;
  const features = new FeatureStore(services);
  const featureUri = (ctx: Context) => uris.item('feature', ctx.params.id);

  router.get('/feature', async (ctx) => {
    const params = Params.fromQuery(ctx);
    const sameAs = params.get('query') ?? params.get('sameas');
    const list = await features.list(sameAs);
    if (sameAs && list.length === 0) throw notFound(`no feature has owl:sameAs <${sameAs}>`);
    await sendList(ctx, list, (members) => features.readAll(members), sameAs ? `Features with owl:sameAs ${sameAs}` : 'Features');
  });

  router.get('/feature/:id', async (ctx) => {
    const uri = featureUri(ctx);
    const quads = await features.require(uri);
    const { title } = featureRecord(quads, uri);
    await sendNegotiated(ctx, resourceRenderers(ctx, uri, quads, title ? `Feature: ${title}` : `Feature ${uri}`));
    storeRepresentation(ctx);
  });

  router.post('/feature', async (ctx) => {
    await sendUri(ctx, await features.create(await readRdfBody(ctx, config.bodyLimit, `${features.collection}/`)));
  });

  router.put('/feature/:id', async (ctx) => {
    const uri = featureUri(ctx);
    await features.replace(uri, () => readRdfBody(ctx, config.bodyLimit, uri));
    await sendUri(ctx, uri);
  });

  router.delete('/feature/:id', async (ctx) => {
    await features.delete(featureUri(ctx));
    sendDone(ctx);
  });
}
