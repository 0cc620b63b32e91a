import type * as RDF from '@rdfjs/types';
import { randomUUID } from 'node:crypto';
import { badRequest, notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { currentUser } from '../core/request-context.ts';
import { df } from '../rdf/namespaces.ts';
import { checkIri } from '../rdf/terms.ts';
import { DEFAULT_GRAPH_IRI } from '../store/triple-store.ts';
import { checkUpdateRights, refusedGraphs } from './sparql-update.ts';

/**
 * The operations of the SPARQL 1.1 Graph Store HTTP Protocol (graph-store-routes.ts): reading,
 * replacing, adding to and deleting one graph, as far as the caller may. Writes have the rights of
 * SPARQL Update and never touch the graphs of this server's resources, vocabularies or access
 * control (400, nothing written); each is one atomic write.
 */
export class GraphStore {
  /** The name `?default` stands for: the store's unnamed default graph. */
  readonly defaultGraph = DEFAULT_GRAPH_IRI;

  private readonly services: Pick<Services, 'config' | 'uris' | 'store' | 'published' | 'access'>;
  constructor(services: GraphStore['services']) {
    this.services = services;
  }

  /** A graph IRI given as `graph=` (400 when it is not an absolute IRI). */
  checkGraph(graph: string): string {
    try {
      checkIri(graph);
      new URL(graph);
    } catch {
      throw badRequest(`graph: ${JSON.stringify(graph.slice(0, 200))} is not an absolute IRI`);
    }
    return graph;
  }

  /** The base IRI of a body written to `graph` (the default graph's is the graph store's own URL). */
  baseOf(graph: string): string {
    return graph === DEFAULT_GRAPH_IRI ? this.services.uris.ofPath('/graph-store') : graph;
  }

  /** A new graph's IRI, under /graph-store/ (directly addressable). */
  newGraph(): string {
    return this.services.uris.ofPath(`/graph-store/graph/${randomUUID()}`);
  }

  /** A graph's triples (its name is the request's, not part of the representation); 404 when the caller may not read it or it is empty. */
  async read(graph: string): Promise<RDF.Quad[]> {
    if (graph !== DEFAULT_GRAPH_IRI && !this.services.access.scopeFor(currentUser.getStore()).allows(graph)) throw notFound(`graph ${graph} not found`);
    const quads = await this.services.store.readGraph(graph);
    if (!quads.length && graph !== DEFAULT_GRAPH_IRI) throw notFound(`graph ${graph} not found`);
    return quads.map((q) => df.quad(q.subject, q.predicate, q.object));
  }

  /** Replace a graph; answers whether it existed. */
  async replace(graph: string, quads: RDF.Quad[]): Promise<boolean> {
    this.checkWrite(graph);
    const existed = await this.services.store.hasGraph(graph);
    await this.services.store.replaceGraphs({ [graph]: quads });
    return existed;
  }

  /** Add triples to a graph; answers whether it existed. */
  async merge(graph: string, quads: RDF.Quad[]): Promise<boolean> {
    this.checkWrite(graph);
    const { store } = this.services;
    const existed = await store.hasGraph(graph);
    await store.replaceGraphs({ [graph]: [...(existed ? await store.readGraph(graph) : []), ...quads] });
    return existed;
  }

  /** Delete a graph (404 when there is none; the default graph is emptied). */
  async remove(graph: string): Promise<void> {
    this.checkWrite(graph);
    if (graph !== DEFAULT_GRAPH_IRI && !(await this.services.store.hasGraph(graph))) throw notFound(`graph ${graph} not found`);
    await this.services.store.deleteGraphs([graph]);
  }

  /** May the caller write this graph? (before the body is read) */
  checkWrite(graph: string): void {
    checkUpdateRights(this.services, currentUser.getStore());
    const refused = refusedGraphs(this.services, [graph]);
    if (refused.length) throw badRequest(`graph ${graph} is kept by this server for its resources or vocabularies; change it through its own interface. Nothing was written.`);
  }
}
