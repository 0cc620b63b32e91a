import type * as RDF from '@rdfjs/types';
import { df, ot, literal } from '../rdf/namespaces.ts';
import { notFound } from '../core/errors.ts';
import type { GraphScope, TripleStore } from '../store/triple-store.ts';
import type { Config } from '../core/config.ts';
import type { UriScheme } from '../core/uri-scheme.ts';
import type { Logger } from '../core/log.ts';
import type { PublishedScope } from './published-scope.ts';
import { harvest } from './harvester.ts';
import { ontologyQueries } from './ontology-queries.ts';
import { construct, select } from '../store/query-helpers.ts';
import type { Coordination } from '../core/coordination.ts';

/**
 * Registrations of POST /ontology uri[] (spec 4.5). Local resources are published in place;
 * remote ones are harvested into a graph named by their URI and refreshed periodically. The
 * list of registrations is itself kept in the store (graph `{base}/ontology`); processes sharing
 * the store read it again when one of them changes it.
 */
export class OntologyRegistry {
  private timer?: NodeJS.Timeout;
  private readonly graph: string;

  private readonly store: TripleStore;
  private readonly scope: PublishedScope;
  private readonly config: Config;
  private readonly log: Logger;
  private readonly uris: UriScheme;
  private readonly coordination?: Coordination;
  constructor(store: TripleStore, scope: PublishedScope, config: Config, log: Logger, uris: UriScheme, coordination?: Coordination) {
    this.store = store;
    this.scope = scope;
    this.config = config;
    this.log = log;
    this.uris = uris;
    this.coordination = coordination;
    this.graph = uris.endpoint('ontology');
  }

  isLocal(uri: string): boolean {
    return this.uris.isLocal(uri);
  }

  /** The published models, algorithms or endpoints (GET /ontology/models, …), within what `scope` lets the caller read. */
  published(what: 'models' | 'algorithms' | 'endpoints', scope: GraphScope): Promise<RDF.Quad[]> {
    return construct(this.store, ontologyQueries[what](), { scope });
  }

  /** What the bundled vocabularies (ot:, ota:, otee:) say of a term: its page (GET /ontology/term). */
  term(iri: string): Promise<RDF.Quad[]> {
    const vocabularies = this.scope.vocabularyGraphs();
    return construct(this.store, ontologyQueries.term(iri), { scope: { includesDefaultGraph: false, allows: (g) => vocabularies.includes(g), restriction: () => ({ allow: vocabularies }) } });
  }

  isRegistered(uri: string): boolean {
    return this.scope.isRegistered(uri);
  }

  /** Read the registrations (at start, before a change, and when another process changed them). */
  async load(): Promise<void> {
    const stored = new Set((await select(this.store, ontologyQueries.registered(this.graph))).map((row) => row.r.value));
    for (const uri of this.scope.registeredUris()) if (!stored.has(uri)) this.scope.deregister(uri);
    for (const uri of stored) this.scope.register(uri, !this.isLocal(uri));
  }

  /** Follow the changes other processes make. */
  async listen(): Promise<void> {
    await this.coordination?.subscribe('ontology', () => void this.load().catch((e) => this.log.warn('could not read the registrations again', { error: String(e) })));
  }

  private async changed(): Promise<void> {
    await this.coordination?.publish('ontology', {});
  }

  private async save(extra: Record<string, RDF.Quad[]> = {}): Promise<void> {
    const quads = this.scope.registeredUris().map((u) => df.quad(df.namedNode(u), ot('registered'), literal(true)));
    await this.store.replaceGraphs({ ...extra, [this.graph]: quads });
  }

  /** Register every URI or none: all fetches happen before anything is written. */
  async register(uris: string[], subjectid?: string): Promise<void> {
    const harvested: Record<string, RDF.Quad[]> = {};
    for (const uri of uris) {
      if (this.isLocal(uri)) {
        if (!(await this.store.hasGraph(uri))) throw notFound(`${uri} is not a resource of this service`);
      } else {
        harvested[uri] = await harvest(uri, this.config, subjectid);
      }
    }
    await this.load();
    for (const uri of uris) this.scope.register(uri, !this.isLocal(uri));
    await this.save(harvested);
    await this.changed();
  }

  async deregister(uri: string): Promise<void> {
    await this.load();
    if (!this.scope.isRegistered(uri)) throw notFound(`${uri} is not registered`);
    this.scope.deregister(uri);
    if (!this.isLocal(uri)) await this.store.deleteGraphs([uri]);
    await this.save();
    await this.changed();
  }

  /** Harvest every remote registration again; a failure keeps the last good copy. */
  async refreshAll(): Promise<void> {
    for (const uri of this.scope.remoteUris()) {
      try {
        const quads = await harvest(uri, this.config);
        if (this.scope.isRegistered(uri)) await this.store.replaceGraphs({ [uri]: quads });
      } catch (e) {
        this.log.warn('refresh of a registered resource failed', { uri, error: (e as Error).message });
      }
    }
  }

  startRefreshing(): void {
    if (this.config.harvestIntervalSeconds > 0) {
      this.timer = setInterval(() => void this.refreshAll(), this.config.harvestIntervalSeconds * 1000);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
