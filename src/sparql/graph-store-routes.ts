import type Router from '@koa/router';
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import type * as RDF from '@rdfjs/types';
import { badRequest, notFound } from '../core/errors.js';
import type { Services } from '../core/services.js';
import { currentUser } from '../core/request-context.js';
import { readRdfBody } from '../http/rdf-body.js';
import { rdfRenderers, sendNegotiated } from '../http/respond.js';
import { checkIri } from '../store/sparql-template.js';
import { df } from '../rdf/namespaces.js';
import { DEFAULT_GRAPH_IRI } from '../store/triple-store.js';
import { checkUpdateRights, refusedGraphs } from './sparql-update.js';

/**
 * The SPARQL 1.1 Graph Store HTTP Protocol at `/graph-store` (indirect graph identification:
 * `?graph=IRI` or `?default`): GET and HEAD read a graph (as far as the caller may read it),
 * PUT replaces it, POST adds to it (POST to the store itself makes a new graph), DELETE removes
 * it. Writes have the rights of SPARQL Update and never touch the graphs of this server's
 * resources, vocabularies or access control (400, nothing written); each is one atomic write.
 */
export function graphStoreRoutes(router: Router, services: Services): void {
  const { store, config, access } = services;

  /** The graph a request names: its IRI, DEFAULT_GRAPH_IRI for ?default, undefined for the store itself. */
  function target(ctx: Context): string | undefined {
    const q = new URLSearchParams(ctx.querystring);
    const graph = q.get('graph');
    if (graph !== null && q.has('default')) throw badRequest('give graph= or default, not both');
    if (q.has('default')) return DEFAULT_GRAPH_IRI;
    if (graph === null) return undefined;
    try {
      checkIri(graph);
      new URL(graph);
    } catch {
      throw badRequest(`graph: ${JSON.stringify(graph.slice(0, 200))} is not an absolute IRI`);
    }
    return graph;
  }

  function checkWrite(graph: string): void {
    checkUpdateRights(services, currentUser.getStore());
    const refused = refusedGraphs(services, [graph]);
    if (refused.length) throw badRequest(`graph ${graph} is kept by this server for its resources or vocabularies; change it through its own interface. Nothing was written.`);
  }

  async function readable(graph: string): Promise<RDF.Quad[]> {
    if (graph !== DEFAULT_GRAPH_IRI && !access.scopeFor(currentUser.getStore()).allows(graph)) throw notFound(`graph ${graph} not found`);
    const quads = await store.readGraph(graph);
    if (!quads.length && graph !== DEFAULT_GRAPH_IRI) throw notFound(`graph ${graph} not found`);
    // the graph's triples (its name is the request's, not part of the representation)
    return quads.map((q) => df.quad(q.subject, q.predicate, q.object));
  }

  router.get('/graph-store', async (ctx) => {
    const graph = target(ctx);
    if (!graph) throw badRequest('name the graph: graph=IRI, or default');
    const quads = await readable(graph);
    await sendNegotiated(
      ctx,
      rdfRenderers(ctx, () => quads, `Graph ${graph === DEFAULT_GRAPH_IRI ? '(default)' : graph}`),
    );
  });

  router.put('/graph-store', async (ctx) => {
    const graph = target(ctx);
    if (!graph) throw badRequest('name the graph to replace: graph=IRI, or default');
    checkWrite(graph);
    const quads = await readRdfBody(ctx, config.bodyLimit, graph === DEFAULT_GRAPH_IRI ? services.uris.ofPath('/graph-store') : graph);
    const existed = await store.hasGraph(graph);
    await store.replaceGraphs({ [graph]: quads });
    ctx.status = existed ? 204 : 201;
  });

  router.post('/graph-store', async (ctx) => {
    let graph = target(ctx);
    const created = !graph;
    // POST to the store itself: a new graph, named by the server
    graph ??= services.uris.ofPath(`/graph-store/graph/${randomUUID()}`);
    checkWrite(graph);
    const quads = await readRdfBody(ctx, config.bodyLimit, graph === DEFAULT_GRAPH_IRI ? services.uris.ofPath('/graph-store') : graph);
    const existed = !created && (await store.hasGraph(graph));
    await store.replaceGraphs({ [graph]: [...(existed ? await store.readGraph(graph) : []), ...quads] });
    if (created) {
      ctx.status = 201;
      ctx.set('Location', `${services.uris.ofPath('/graph-store')}?graph=${encodeURIComponent(graph)}`);
      ctx.body = '';
      return;
    }
    ctx.status = existed ? 204 : 201;
  });

  router.delete('/graph-store', async (ctx) => {
    const graph = target(ctx);
    if (!graph) throw badRequest('name the graph to delete: graph=IRI, or default');
    checkWrite(graph);
    if (graph !== DEFAULT_GRAPH_IRI && !(await store.hasGraph(graph))) throw notFound(`graph ${graph} not found`);
    await store.deleteGraphs([graph]);
    ctx.status = 204;
  });
}
