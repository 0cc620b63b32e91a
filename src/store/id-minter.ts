import { randomUUID } from 'node:crypto';
import { df, ot, literal } from '../rdf/namespaces.ts';
import type { TripleStore } from './triple-store.ts';
import { LocalCoordination, type Coordination } from '../core/coordination.ts';
import { idQueries } from './id-queries.ts';

/** Told of each URI minted. */
export type MintListener = (uri: string) => Promise<void>;

const COUNTERS_GRAPH = 'urn:toxgraph:counters';
/** Ids reserved per write of the counter graph. */
const BLOCK = 64;

/**
 * Mints short increasing integer ids per collection (`/feature/1`, `/feature/2`, ...), as
 * OpenTox services do. Ids are reserved in blocks and the end of each collection's reserved
 * block is kept in the store, so an id is never reused, even after a restart or a delete (a
 * restart may skip the rest of a block). When several processes share the store, blocks are
 * reserved from a counter they share (Redis), lifted first to what the store remembers.
 */
export class IdMinter {
  /** Each collection's end of ids written to the store: ids up to it may be given out. */
  private reserved?: Map<string, number>;
  /** Each collection's end as last asked to be written (at least `reserved`). */
  private readonly target = new Map<string, number>();
  /** The write of a collection's next end, while it is in flight. */
  private readonly extending = new Map<string, Promise<void>>();
  private readonly last = new Map<string, number>();
  private chain: Promise<unknown> = Promise.resolve();

  private readonly store: TripleStore;
  private readonly coordination: Coordination;
  private readonly listeners: MintListener[];
  /**
   * `listeners` are told of every URI minted, in the context of the request or task that
   * minted it (the ownership rule: access control gives the resource to that caller).
   */
  constructor(store: TripleStore, coordination: Coordination = new LocalCoordination(), listeners: MintListener[] = []) {
    this.store = store;
    this.coordination = coordination;
    this.listeners = [...listeners];
  }

  /** One more listener (the task runner's, as it is made: a task records what it created). */
  addListener(listener: MintListener): void {
    this.listeners.push(listener);
  }

  private async minted(uri: string): Promise<void> {
    for (const listener of this.listeners) await listener(uri);
  }

  async next(collectionUri: string): Promise<string> {
    const uri = await this.reserve(collectionUri);
    await this.minted(uri);
    return uri;
  }

  /** A URI that nobody can guess (`{collection}/{uuid}`), for resources such as tasks. */
  async nextUnique(collectionUri: string): Promise<string> {
    const uri = `${collectionUri}/${randomUUID()}`;
    await this.minted(uri);
    return uri;
  }

  private reserve(collectionUri: string): Promise<string> {
    const run = this.chain.then(async () => {
      if (!this.reserved) {
        this.reserved = new Map();
        for (const q of await this.store.readGraph(COUNTERS_GRAPH)) this.reserved.set(q.subject.value, Number(q.object.value));
        for (const [c, n] of this.reserved) {
          this.last.set(c, n);
          this.target.set(c, n);
        }
      }
      let id = (this.last.get(collectionUri) ?? 0) + 1;
      if (id > (this.reserved.get(collectionUri) ?? 0)) {
        if (this.coordination.shared) {
          // the shared counter says where this process's block ends; the store keeps the highest end
          const end = await this.coordination.reserve(`ids:${collectionUri}`, this.reserved.get(collectionUri) ?? 0, BLOCK);
          id = end - BLOCK + 1;
          this.reserved.set(collectionUri, end);
          await this.store.update(idQueries.raiseCounter(COUNTERS_GRAPH, collectionUri, end));
        } else {
          await this.extending.get(collectionUri);
          if (id > (this.reserved.get(collectionUri) ?? 0)) await this.extend(collectionUri, id + BLOCK - 1);
        }
      }
      // half of the block given out: the next block's end is written meanwhile, so that minting
      // does not wait for that write (behind other writes) when this block runs out
      if (!this.coordination.shared && id > (this.reserved.get(collectionUri) ?? 0) - BLOCK / 2 && !this.extending.has(collectionUri)) {
        this.extend(collectionUri, (this.target.get(collectionUri) ?? 0) + BLOCK).catch(() => undefined);
      }
      this.last.set(collectionUri, id);
      return `${collectionUri}/${id}`;
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /**
   * Write `end` as the collection's reserved end; ids up to it are given out once it is written.
   * Every write holds every collection's latest target, so writes of two collections in flight
   * never take one another's back (the store writes them in the order they were asked for).
   */
  private extend(collectionUri: string, end: number): Promise<void> {
    this.target.set(collectionUri, Math.max(end, this.target.get(collectionUri) ?? 0));
    const counters = [...this.target].map(([c, n]) => df.quad(df.namedNode(c), ot('lastId'), literal(n)));
    const written = this.store
      .replaceGraphs({ [COUNTERS_GRAPH]: counters })
      .then(() => {
        this.reserved?.set(collectionUri, Math.max(end, this.reserved.get(collectionUri) ?? 0));
      })
      .finally(() => {
        if (this.extending.get(collectionUri) === written) this.extending.delete(collectionUri);
      });
    this.extending.set(collectionUri, written);
    return written;
  }
}

/** `/feature/2` before `/feature/10`: URIs ordered by their trailing integer id. */
export function sortById(uris: string[]): string[] {
  const id = (u: string) => Number(u.slice(u.lastIndexOf('/') + 1));
  return [...uris].sort((a, b) => {
    const x = id(a);
    const y = id(b);
    return Number.isFinite(x) && Number.isFinite(y) && x !== y ? x - y : a.localeCompare(b);
  });
}
