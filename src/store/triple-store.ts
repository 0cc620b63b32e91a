import type * as RDF from '@rdfjs/types';
import type { SparqlText } from './sparql-template.ts';

/** One solution of a SELECT: variable name (without '?') to bound term. */
export type Solution = Record<string, RDF.Term>;

export type QueryResult = { type: 'bindings'; variables: string[]; solutions: AsyncIterable<Solution> } | { type: 'quads'; quads: AsyncIterable<RDF.Quad> } | { type: 'boolean'; value: boolean };

/** Which named graphs a query may see (access control, the published scope of /ontology). */
export interface GraphScope {
  allows(graphIri: string): boolean;
  /** May the store's unnamed default graph be seen? */
  readonly includesDefaultGraph: boolean;
  /**
   * Scopes with the same key allow the same graphs (a store may keep what a scope lets through
   * under it); none: no scope is known to be the same.
   */
  readonly key?: string;
  /**
   * The same scope as lists of graphs, when it can be written so: a remote store filters its
   * queries by them (and evaluates queries itself, more slowly, for a scope without them).
   */
  restriction?(): GraphRestriction;
}

/** Graphs a scope allows: only those in `allow` (when given), none in `deny`, none starting with one of `denyPrefixes`. */
export interface GraphRestriction {
  allow?: readonly string[];
  deny?: readonly string[];
  denyPrefixes?: readonly string[];
}

export interface QueryOptions {
  scope?: GraphScope;
  /** Aborting ends the query's result streams with an error. */
  signal?: AbortSignal;
  baseIri?: string;
  /** Federated query: SERVICE clauses call other endpoints with this fetch (which applies the outbound policy). */
  serviceFetch?: typeof fetch;
  /**
   * `comunica`: leave the query to the query engine even when the embedded store's own evaluators
   * answer its shape (the reference of the differential tests and of the benchmarks).
   */
  engine?: 'comunica';
}

export interface UpdateOptions {
  /** Sees the graphs the update would change, before anything is written; throwing there writes nothing. */
  beforeWrite?: (graphs: string[]) => void;
  /** false: the default graph a WHERE reads is the unnamed default graph (SPARQL 1.1 Update), not the union of all graphs. */
  unionDefaultGraph?: boolean;
  baseIri?: string;
  /**
   * `comunica`: leave the update to the query engine even when the store evaluates its
   * operations itself (update-evaluator.ts; the reference of the differential tests).
   */
  engine?: 'comunica';
}

/**
 * The narrow seam between ToxGraph and its triplestore. The embedded implementation is
 * QuadstoreTripleStore; a remote SPARQL 1.1 store can implement the same interface.
 *
 * Graph names are resource URIs (DESIGN.md): every resource write is one replaceGraphs call,
 * which is atomic over all the graphs it names.
 */
export interface TripleStore {
  readGraph(graphIri: string): Promise<RDF.Quad[]>;
  /**
   * Many graphs, each whole, in the order given: through one LevelDB iterator on the embedded
   * store, a hundred per request on a remote store (not a read or a request each).
   */
  readEachGraph(graphIris: string[]): Promise<RDF.Quad[][]>;
  /** Read a graph as a stream of batches of quads, subject by subject (memory stays flat for large graphs). */
  graphBatches(graphIri: string): AsyncIterable<RDF.Quad[]>;
  hasGraph(graphIri: string): Promise<boolean>;
  /**
   * Atomically make each named graph hold exactly the given quads (their graph term is ignored),
   * and write `records` in the same write.
   */
  replaceGraphs(graphs: Record<string, RDF.Quad[]>, records?: RecordWrites): Promise<void>;
  /**
   * Atomically write graphs of freshly minted resources, which hold nothing yet: like
   * replaceGraphs without reading what the graphs held (one read per graph saved).
   */
  createGraphs(graphs: Record<string, RDF.Quad[]>, records?: RecordWrites): Promise<void>;
  /** Atomically remove the named graphs (and write `records` in the same write). */
  deleteGraphs(graphIris: string[], records?: RecordWrites): Promise<void>;
  /** Every record whose key starts with `prefix`, in key order (see RecordWrites). */
  readRecords(prefix: string): AsyncIterable<[string, Uint8Array]>;
  query(query: SparqlText | string, options?: QueryOptions): Promise<QueryResult>;
  /**
   * Run a SPARQL 1.1 update as one atomic write. `beforeWrite` sees the graphs the update would
   * change, before anything is written; throwing there writes nothing. The default graph its
   * WHERE reads is the union of all graphs, unless `unionDefaultGraph` is false (then it is the
   * unnamed default graph, as SPARQL 1.1 Update has it).
   */
  update(update: SparqlText | string, options?: UpdateOptions): Promise<void>;
  /** Add quads in large batches (not atomic as a whole); answers the number of quads written. */
  bulkLoad(quads: AsyncIterable<RDF.Quad> | Iterable<RDF.Quad>): Promise<number>;
  /**
   * How many writes this process has made. Only a store that no other process writes to has it
   * (the embedded one): there, the same count means the same contents.
   */
  writeCount?(): number;
  /** Native memory the store itself holds (memtables, block cache), when it can tell. */
  memoryUsage?(): number | undefined;
  /** The JavaScript heap of the store's writer thread, in use (embedded store only). */
  writerHeapUsage?(): Promise<number | undefined>;
  close(): Promise<void>;
}

/**
 * Records beside the graphs: bytes by key, written in the same atomic write as the graphs they
 * go with (a compound's entry in the structure index with the compound's graph), so they are
 * never out of step with them. `null` removes a record. They are not RDF: no query sees them.
 */
export type RecordWrites = Map<string, Uint8Array | null>;

/** The special graph IRI that names the store's unnamed default graph in FROM / default-graph-uri. */
export const DEFAULT_GRAPH_IRI = 'urn:toxgraph:default-graph';
