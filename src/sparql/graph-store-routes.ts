import type Router from '@koa/router';
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import type * as RDF from '@rdfjs/types';
import { badRequest, notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { currentUser } from '../core/request-context.ts';
import { readRdfBody } from '../http/rdf-body.ts';
import { requestMediaType } from '../http/body.ts';
import { readMultipart } from '../http/multipart.ts';
import { isRdfMediaType, parseRdf } from '../rdf/parse.ts';
import { rdfRenderers, sendNegotiated } from '../http/respond.ts';
import { checkIri } from '../store/sparql-template.ts';
import { df } from '../rdf/namespaces.ts';
import { DEFAULT_GRAPH_IRI } from '../store/triple-store.ts';
import { checkUpdateRights, refusedGraphs } from './sparql-update.ts';

/**
 * The SPARQL 1.1 Graph Store HTTP Protocol at `/graph-store`, with indirect graph identification
 * (`?graph=IRI` or `?default`) and direct identification (`/graph-store/{path}`: that URL is the
 * graph): GET and HEAD read a graph (as far as the caller may read it),
 * PUT replaces it, POST adds to it (RDF, or every RDF file of a multipart/form-data body; POST to
 * the store itself makes a new graph and answers its URL), DELETE removes
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

  /** The graph of a direct identification: the request's own URL (under /graph-store/). */
  const direct = (ctx: Context) => services.uris.ofPath(ctx.path);
  /** A request's body as triples: one RDF document, or every RDF file of a multipart/form-data body (merged). */
  async function body(ctx: Context, graph: string): Promise<RDF.Quad[]> {
    const base = graph === DEFAULT_GRAPH_IRI ? services.uris.ofPath('/graph-store') : graph;
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
    const quads = await readable(graph);
    await sendNegotiated(
      ctx,
      rdfRenderers(ctx, () => quads, `Graph ${graph === DEFAULT_GRAPH_IRI ? '(default)' : graph}`),
    );
  };

  const replace = async (ctx: Context, graph: string | undefined) => {
    if (!graph) throw badRequest('name the graph to replace: graph=IRI, or default');
    checkWrite(graph);
    const quads = await body(ctx, graph);
    const existed = await store.hasGraph(graph);
    await store.replaceGraphs({ [graph]: quads });
    ctx.status = existed ? 204 : 201;
  };

  const merge = async (ctx: Context, named: string | undefined) => {
    // POST to the store itself: a new graph, named by the server under /graph-store/ (directly addressable)
    const graph = named ?? services.uris.ofPath(`/graph-store/graph/${randomUUID()}`);
    checkWrite(graph);
    const quads = await body(ctx, graph);
    const existed = !!named && (await store.hasGraph(graph));
    await store.replaceGraphs({ [graph]: [...(existed ? await store.readGraph(graph) : []), ...quads] });
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
    checkWrite(graph);
    if (graph !== DEFAULT_GRAPH_IRI && !(await store.hasGraph(graph))) throw notFound(`graph ${graph} not found`);
    await store.deleteGraphs([graph]);
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
