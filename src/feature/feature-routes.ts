import type Router from '@koa/router';
import type { Context } from 'koa';
import { df, ot, owl } from '../rdf/namespaces.js';
import { sparql, checkIri } from '../store/sparql-template.js';
import { select } from '../store/query-helpers.js';
import { notFound } from '../core/errors.js';
import { sendList, sendNegotiated, sendUri, sendDone, resourceRenderers } from '../http/respond.js';
import { readRdfBody } from '../http/rdf-body.js';
import { Params } from '../http/params.js';
import type { Services } from '../core/services.js';
import { featureFromBody } from './feature-description.js';
import { sortById } from '../store/id-minter.js';

/** Feature component (spec 4.7): GET list / one, POST, PUT, DELETE. */
export function featureRoutes(router: Router, services: Services): void {
  const { store, config, shapes, ids } = services;
  const collection = services.uris.collection('feature');

  const featureUri = (ctx: Context) => `${collection}/${encodeURIComponent(ctx.params.id)}`;

  async function requireFeature(uri: string) {
    const quads = await store.readGraph(uri);
    if (!quads.length) throw notFound(`feature ${uri} not found`);
    return quads;
  }

  router.get('/feature', async (ctx) => {
    const sameAs = Params.fromQuery(ctx).get('query') ?? Params.fromQuery(ctx).get('sameas');
    const filter = sameAs ? sparql`${df.namedNode(checkIri(sameAs))}` : undefined;
    const rows = await select(
      store,
      filter
        ? sparql`SELECT DISTINCT ?f WHERE { GRAPH ?f { ?f a ${ot('Feature')} ; ${owl('sameAs')} ${filter} } } ORDER BY ?f`
        : sparql`SELECT DISTINCT ?f WHERE { GRAPH ?f { ?f a ${ot('Feature')} } } ORDER BY ?f`,
    );
    const uris = sortById(rows.map((r) => r.f.value));
    if (sameAs && uris.length === 0) throw notFound(`no feature has owl:sameAs <${sameAs}>`);
    await sendList(ctx, uris, async () => (await Promise.all(uris.map((u) => store.readGraph(u)))).flat(), sameAs ? `Features with owl:sameAs ${sameAs}` : 'Features');
  });

  router.get('/feature/:id', async (ctx) => {
    const uri = featureUri(ctx);
    const quads = await requireFeature(uri);
    const title = quads.find((q) => q.subject.value === uri && q.predicate.value.endsWith('/title'))?.object.value;
    await sendNegotiated(ctx, resourceRenderers(ctx, uri, quads, title ? `Feature: ${title}` : `Feature ${uri}`));
  });

  router.post('/feature', async (ctx) => {
    const body = await readRdfBody(ctx, config.bodyLimit, `${collection}/`);
    // Validate before minting, so that a rejected request leaves nothing behind (not even an id).
    const probe = featureFromBody(body, `${collection}/new`);
    await shapes.check(probe);
    const uri = await ids.next(collection);
    await store.replaceGraphs({ [uri]: featureFromBody(body, uri) });
    await sendUri(ctx, uri);
  });

  router.put('/feature/:id', async (ctx) => {
    const uri = featureUri(ctx);
    await requireFeature(uri);
    const quads = featureFromBody(await readRdfBody(ctx, config.bodyLimit, uri), uri);
    await shapes.check(quads);
    await store.replaceGraphs({ [uri]: quads });
    await sendUri(ctx, uri);
  });

  router.delete('/feature/:id', async (ctx) => {
    const uri = featureUri(ctx);
    await requireFeature(uri);
    await store.deleteGraphs([uri]);
    sendDone(ctx);
  });
}
