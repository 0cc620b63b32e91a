import { df, ot, literal } from '../rdf/namespaces.js';
import type { TripleStore } from './triple-store.js';

const COUNTERS_GRAPH = 'urn:toxgraph:counters';

/**
 * Mints short increasing integer ids per collection (`/feature/1`, `/feature/2`, ...), as
 * OpenTox services do. The last id of each collection is kept in the store, so ids are never
 * reused, even after a restart or a delete.
 */
export class IdMinter {
  private counters?: Map<string, number>;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: TripleStore) {}

  next(collectionUri: string): Promise<string> {
    const run = this.chain.then(async () => {
      if (!this.counters) {
        this.counters = new Map();
        for (const q of await this.store.readGraph(COUNTERS_GRAPH)) this.counters.set(q.subject.value, Number(q.object.value));
      }
      const id = (this.counters.get(collectionUri) ?? 0) + 1;
      this.counters.set(collectionUri, id);
      await this.store.replaceGraphs({
        [COUNTERS_GRAPH]: [...this.counters].map(([c, n]) => df.quad(df.namedNode(c), ot('lastId'), literal(n))),
      });
      return `${collectionUri}/${id}`;
    });
    this.chain = run.catch(() => undefined);
    return run;
  }
}
