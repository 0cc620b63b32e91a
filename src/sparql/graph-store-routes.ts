import type { Context } from 'koa';
import { z } from 'zod';
import type * as RDF from '@rdfjs/types';
import { badRequest } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { readRdfBody } from '../http/rdf-body.ts';
import { requestMediaType } from '../http/body.ts';
import { readMultipart } from '../http/multipart.ts';
import { isRdfMediaType, parseRdf, RDF_INPUT_TYPES } from '../rdf/parse.ts';
import { rdfRenderers, sendNegotiated } from '../http/respond.ts';
import { answers, errorAnswers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';
import { GraphStore } from './graph-store.ts';

/**
 * The SPARQL 1.1 Graph Store HTTP Protocol at `/graph-store` (graph-store.ts), with indirect graph
 * identification (`?graph=IRI` or `?default`) and direct identification (`/graph-store/{path}`:
 * that URL is the graph): GET and HEAD read a graph (as far as the caller may read it), PUT
 * replaces it, POST adds to it (RDF, or every RDF file of a multipart/form-data body; POST to the
 * store itself makes a new graph and answers its URL), DELETE removes it.
 */
export function graphStoreRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'uris' | 'store' | 'published' | 'access'>): void {
  const { config } = services;
  const graphs = new GraphStore(services);

  /** The graph a request names: its IRI, the default graph for ?default, undefined for the store itself. */
  function target({ graph, default: isDefault }: GraphParams): string | undefined {
    if (graph !== undefined && isDefault !== undefined) throw badRequest('give graph= or default, not both');
    if (isDefault !== undefined) return graphs.defaultGraph;
    return graph === undefined ? undefined : graphs.checkGraph(graph);
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

  // indirect identification (?graph=, ?default: in the query of every method, the body is RDF) and
  // direct identification (the URL is the graph); HEAD is answered by GET without a body
  const indirect = { tag: 'sparql', params: GRAPH_PARAMS, paramsIn: 'query' } as const;
  const directly = { tag: 'sparql', paramsIn: 'query' } as const;
  routes.add({ method: 'GET', path: '/graph-store', ...indirect, summary: 'Graph Store Protocol: read a graph (graph=IRI or default)', responses: answers(MEDIA.rdf, 400, 404) }, (ctx, p) =>
    read(ctx, target(p)),
  );
  routes.add({ method: 'PUT', path: '/graph-store', ...indirect, summary: 'Graph Store Protocol: replace a graph', body: RDF_BODY, responses: WRITTEN }, (ctx, p) => replace(ctx, target(p)));
  routes.add({ method: 'POST', path: '/graph-store', ...indirect, summary: 'Graph Store Protocol: add to a graph (to the store itself: a new graph)', body: RDF_BODY, responses: WRITTEN }, (ctx, p) =>
    merge(ctx, target(p)),
  );
  routes.add({ method: 'DELETE', path: '/graph-store', ...indirect, summary: 'Graph Store Protocol: delete a graph', responses: DELETED }, (ctx, p) => remove(ctx, target(p)));
  routes.add(
    { method: 'GET', path: '/graph-store/*path', ...directly, summary: 'Graph Store Protocol, direct identification: read the graph named by this URL', responses: answers(MEDIA.rdf, 404) },
    (ctx) => read(ctx, direct(ctx)),
  );
  routes.add({ method: 'PUT', path: '/graph-store/*path', ...directly, summary: 'Graph Store Protocol, direct identification: replace the graph', body: RDF_BODY, responses: WRITTEN }, (ctx) =>
    replace(ctx, direct(ctx)),
  );
  routes.add({ method: 'POST', path: '/graph-store/*path', ...directly, summary: 'Graph Store Protocol, direct identification: add to the graph', body: RDF_BODY, responses: WRITTEN }, (ctx) =>
    merge(ctx, direct(ctx)),
  );
  routes.add({ method: 'DELETE', path: '/graph-store/*path', ...directly, summary: 'Graph Store Protocol, direct identification: delete the graph', responses: DELETED }, (ctx) =>
    remove(ctx, direct(ctx)),
  );
}

/** Indirect identification: the graph an operation is on. */
const GRAPH_PARAMS = z.object({
  graph: param.optional('The graph, by its IRI'),
  default: param.optional('The default graph (given without a value: ?default)'),
});
type GraphParams = z.infer<typeof GRAPH_PARAMS>;

/** What a write takes: one RDF document, or RDF files in a multipart/form-data body. */
const RDF_BODY = [...RDF_INPUT_TYPES, 'multipart/form-data'];
/** A write: 201 made, 204 changed. */
const WRITTEN = { 201: [], 204: [], ...errorAnswers(400, 401, 403, 413) };
const DELETED = { 204: [], ...errorAnswers(400, 401, 403, 404) };
