import type Router from '@koa/router';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { badRequest } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { readRdfBody } from '../http/rdf-body.ts';
import { requestMediaType } from '../http/body.ts';
import { readMultipart } from '../http/multipart.ts';
import { isRdfMediaType, parseRdf } from '../rdf/parse.ts';
import { rdfRenderers, sendNegotiated } from '../http/respond.ts';
import { GraphStore } from './graph-store.ts';

/**
 * The SPARQL 1.1 Graph Store HTTP Protocol at `/graph-store` (graph-store.ts), with indirect graph
 * identification (`?graph=IRI` or `?default`) and direct identification (`/graph-store/{path}`:
 * that URL is the graph): GET and HEAD read a graph (as far as the caller may read it), PUT
 * replaces it, POST adds to it (RDF, or every RDF file of a multipart/form-data body; POST to the
 * store itself makes a new graph and answers its URL), DELETE removes it.
 */
export function graphStoreRoutes(router: Router, services: Services): void {
  const { config } = services;
  const graphs = new GraphStore(services);

  /** The graph a request names: its IRI, the default graph for ?default, undefined for the store itself. */
  function target(ctx: Context): string | undefined {
    const q = new URLSearchParams(ctx.querystring);
    const graph = q.get('graph');
    if (graph !== null && q.has('default')) throw badRequest('give graph= or default, not both');
    if (q.has('default')) return graphs.defaultGraph;
    return graph === null ? undefined : graphs.checkGraph(graph);
  }

  /** The graph of a direct identification: the request's own URL (under /graph-store/). */
  const direct = (ctx: Context) => services.uris.ofPath(ctx.path);
  /** A request's body as triples: one RDF document, or every RDF file of a multipart/form-data body (merged). */
  async function body(ctx: Context, graph: string): Promise<RDF.Quad[]> {
    graphs.checkWrite(graph);
    const base = graphs.baseOf(graph);
    if (requestMediaType(ctx) !== 'multipart/form-data') return readRdfBody(ctx, config.bodyLimit, base);
    const { files } = await readMultipart(ctx, config.bodyLimit, 20);
    if (!files.length) throw badRequest('the multipart body has no file');
    const out: RDF.Quad[] = [];
    for (const f of files) {
      if (!isRdfMediaType(f.mediaType)) throw badRequest(`part ${f.name}: ${f.mediaType || '(no type)'} is not an RDF type`);
      out.push(...(await parseRdf(f.body.toString('utf8'), f.mediaType, base)));
    }
    return out;
  }

  const read = async (ctx: Context, graph: string | undefined) => {
    if (!graph) throw badRequest('name the graph: graph=IRI, or default');
    const quads = await graphs.read(graph);
    await sendNegotiated(
      ctx,
      rdfRenderers(ctx, () => quads, `Graph ${graph === graphs.defaultGraph ? '(default)' : graph}`),
    );
  };

  const replace = async (ctx: Context, graph: string | undefined) => {
    if (!graph) throw badRequest('name the graph to replace: graph=IRI, or default');
    const existed = await graphs.replace(graph, await body(ctx, graph));
    ctx.status = existed ? 204 : 201;
  };

  const merge = async (ctx: Context, named: string | undefined) => {
    // POST to the store itself: a new graph, named by the server under /graph-store/ (directly addressable)
    const graph = named ?? graphs.newGraph();
    const existed = await graphs.merge(graph, await body(ctx, graph));
    if (!named) {
      ctx.status = 201;
      ctx.set('Location', graph);
      ctx.body = '';
      return;
    }
    ctx.status = existed ? 204 : 201;
  };

  const remove = async (ctx: Context, graph: string | undefined) => {
    if (!graph) throw badRequest('name the graph to delete: graph=IRI, or default');
    await graphs.remove(graph);
    ctx.status = 204;
  };

  // indirect identification (?graph=, ?default) and direct identification (the URL is the graph);
  // HEAD is answered by GET without a body
  router.get('/graph-store', (ctx) => read(ctx, target(ctx)));
  router.put('/graph-store', (ctx) => replace(ctx, target(ctx)));
  router.post('/graph-store', (ctx) => merge(ctx, target(ctx)));
  router.delete('/graph-store', (ctx) => remove(ctx, target(ctx)));
  router.get('/graph-store/*path', (ctx) => read(ctx, direct(ctx)));
  router.put('/graph-store/*path', (ctx) => replace(ctx, direct(ctx)));
  router.post('/graph-store/*path', (ctx) => merge(ctx, direct(ctx)));
  router.delete('/graph-store/*path', (ctx) => remove(ctx, direct(ctx)));
}
