import type * as RDF from '@rdfjs/types';
import { comunicaEngine, federatedComunicaEngine } from '../comunica-engines.ts';
import { EmptyIterator, wrap, type AsyncIterator } from 'asynciterator';
import { Readable } from 'node:stream';
import sparqljs from 'sparqljs';
import { df, literal, xsd } from '../../rdf/namespaces.ts';
import { quadKey } from '../../rdf/terms.ts';
import { comunicaQuery } from '../comunica-query.ts';
import { evaluateUpdate } from '../pending-changes.ts';
import { ScopedSource } from '../scoped-source.ts';
import { dataTriples, sparql, SparqlText } from '../sparql-template.ts';
import { checkIri } from '../../rdf/terms.ts';
import { DEFAULT_GRAPH_IRI, type GraphRestriction, type GraphScope, type QueryOptions, type QueryResult, type Solution, type RecordWrites, type TripleStore } from '../triple-store.ts';
import { SparqlProtocolClient, StoreNotAnswering, type RemoteStoreConfig } from './sparql-protocol-client.ts';
import { HIDDEN_VARIABLE_PREFIX, rewriteForUnionGraph } from './union-graph-rewrite.ts';
import { fromServer, quadFromServer, toServer } from './literal-transport.ts';

/** Quads per INSERT DATA operation (servers limit the size of one operation; Virtuoso's SQL text grows with it). */
const QUADS_PER_OPERATION = 2000;
/** Quads per request of a bulk load. */
const QUADS_PER_BULK_REQUEST = 20000;

type Term = RDF.Term | null | undefined;

/**
 * The store seam on a remote SPARQL 1.1 server (Query, Update; see README "Scaling out").
 * Each resource write is one update request (DROP SILENT GRAPH, then INSERT DATA in parts), so
 * its atomicity is the server's per-request transaction. The unnamed default graph is kept as
 * the named graph `urn:toxgraph:default-graph`, so that every server means the same by it.
 * Queries are rewritten (union-graph-rewrite.ts) so that the default graph is the union of all
 * graphs and the caller's graph scope applies, then run by the server. A scope that cannot be
 * written as lists of graphs, a SERVICE clause (the outbound policy) or a DESCRIBE in a scope
 * run here in Comunica over the server's quads instead: slower, the same answers.
 * Updates are evaluated here over the server's quads as on the embedded store (update-evaluator.ts,
 * Comunica for the operations it leaves), and their changes are written in one request.
 */
/** Quads handed on at once by graphBatches. */
const REMOTE_BATCH = 1024;
/** Graphs read by one request of readEachGraph. */
const GRAPHS_PER_READ = 100;

export class RemoteSparqlStore implements TripleStore {
  private writeQueue: Promise<unknown> = Promise.resolve();

  private readonly client: SparqlProtocolClient;
  constructor(client: SparqlProtocolClient) {
    this.client = client;
  }

  /**
   * The store, once it answers: a store that is not answering yet is asked again every second
   * for `waitMs` (`onWait` is told each time); anything else, a refused password among them,
   * fails the start at once.
   */
  static async open(config: RemoteStoreConfig, waitMs = 0, onWait?: (e: unknown) => void): Promise<RemoteSparqlStore> {
    const client = new SparqlProtocolClient(config);
    const until = Date.now() + waitMs;
    for (;;) {
      try {
        await client.ask('ASK { }');
        return new RemoteSparqlStore(client);
      } catch (e) {
        if (!(e instanceof StoreNotAnswering) || Date.now() >= until) throw e;
        onWait?.(e);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  /** A graph whole; read again when it was being rewritten by another process while it was read. */
  async readGraph(graphIri: string): Promise<RDF.Quad[]> {
    return againIfRewritten(async () => {
      const out: RDF.Quad[] = [];
      for await (const batch of this.graphBatches(graphIri)) out.push(...batch);
      return out;
    });
  }

  async *graphBatches(graphIri: string): AsyncIterable<RDF.Quad[]> {
    if (!writable(graphIri)) return; // no such graph can be stored
    await this.writing.get(graphIri);
    const solutions = this.client.selectStream(sparql`SELECT ?s ?p ?o WHERE { GRAPH ${df.namedNode(graphIri)} { ?s ?p ?o } } ORDER BY ?s ?p ?o`);
    let batch: RDF.Quad[] = [];
    for await (const s of solutions) {
      batch.push(quadOf(s, graphIri));
      if (batch.length >= REMOTE_BATCH) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }

  /** GRAPHS_PER_READ graphs per request (reading a dataset's 2,600 compounds was 2,600 requests). */
  async readEachGraph(graphIris: string[]): Promise<RDF.Quad[][]> {
    const read = new Map<string, RDF.Quad[]>();
    const wanted = [...new Set(graphIris)].filter(writable);
    for (let i = 0; i < wanted.length; i += GRAPHS_PER_READ) {
      const part = wanted.slice(i, i + GRAPHS_PER_READ);
      await Promise.all(part.map((g) => this.writing.get(g)));
      const found = await againIfRewritten(async () => {
        const quads = new Map<string, RDF.Quad[]>(part.map((g) => [g, []]));
        const graphs = part.map((g) => df.namedNode(g));
        for await (const s of this.client.selectStream(sparql`SELECT ?g ?s ?p ?o WHERE { VALUES ?g { ${graphs} } GRAPH ?g { ?s ?p ?o } } ORDER BY ?g ?s ?p ?o`)) {
          if (!s.g) throw new ReadDuringWrite(part.join(' '));
          quads.get(s.g.value)?.push(quadOf(s, s.g.value));
        }
        return quads;
      });
      for (const [g, quads] of found) read.set(g, quads);
    }
    return graphIris.map((g) => read.get(g) ?? []);
  }

  async hasGraph(graphIri: string): Promise<boolean> {
    if (!writable(graphIri)) return false;
    await this.writing.get(graphIri);
    return this.client.ask(sparql`ASK { GRAPH ${df.namedNode(graphIri)} { ?s ?p ?o } }`);
  }

  /**
   * Writes in flight, by graph: this process's reads of those graphs wait for them. Virtuoso
   * runs the DROP and the INSERTs of a request one after the other and lets reads in between:
   * a graph read while it was replaced came back with rows missing terms (tested).
   */
  private readonly writing = new Map<string, Promise<unknown>>();

  private async writingGraphs(graphs: string[], write: () => Promise<void>): Promise<void> {
    const done = write();
    const settled = done.catch(() => undefined);
    for (const g of graphs) this.writing.set(g, settled);
    try {
      await done;
    } finally {
      for (const g of graphs) if (this.writing.get(g) === settled) this.writing.delete(g);
    }
  }

  replaceGraphs(graphs: Record<string, RDF.Quad[]>, records?: RecordWrites): Promise<void> {
    const withRecords = { ...graphs, ...recordGraphs(records) };
    return this.write(Object.keys(withRecords), withRecords);
  }

  createGraphs(graphs: Record<string, RDF.Quad[]>, records?: RecordWrites): Promise<void> {
    return this.write([], { ...graphs, ...recordGraphs(records) });
  }

  deleteGraphs(graphIris: string[], records?: RecordWrites): Promise<void> {
    const kept = recordGraphs(records);
    return this.write([...graphIris, ...Object.keys(kept)], kept);
  }

  /** Records are graphs here (see recordGraphs), read in one query. */
  async *readRecords(prefix: string): AsyncIterable<[string, Uint8Array]> {
    const start = literal(recordGraph(prefix));
    const rows = this.client.selectStream(sparql`SELECT ?g ?v WHERE { GRAPH ?g { ?g ${RECORD_BYTES} ?v } FILTER(STRSTARTS(STR(?g), ${start})) } ORDER BY ?g`);
    for await (const row of rows) yield [row.g.value.slice(RECORD_GRAPH.length), Buffer.from(row.v.value, 'base64')];
  }

  /** One update request: drop `dropped`, then insert every graph's quads. */
  private write(dropped: string[], graphs: Record<string, RDF.Quad[]>): Promise<void> {
    const operations = dropped.map(dropGraph);
    for (const [g, quads] of Object.entries(graphs)) operations.push(...insertOperations(quads.map((q) => df.quad(q.subject, q.predicate, q.object, df.namedNode(g)))));
    if (!operations.length) return Promise.resolve();
    return this.exclusive(async () => {
      try {
        await this.writingGraphs([...dropped, ...Object.keys(graphs)], () => this.client.update(request(operations)));
      } catch (e) {
        // Virtuoso keeps the operations of a request that ran before one failed: graphs of a
        // new resource are dropped again, so no half-written resource stays visible
        if (!dropped.length) await this.client.update(request(Object.keys(graphs).map(dropGraph))).catch(() => undefined);
        throw e;
      }
    });
  }

  async query(query: SparqlText | string, options: QueryOptions = {}): Promise<QueryResult> {
    const text = String(query);
    const parsed = new sparqljs.Parser({ baseIRI: options.baseIri }).parse(text);
    if (parsed.type !== 'query') throw new Error('an update cannot be run as a query');
    const restriction = options.scope ? this.restrictionOf(options.scope) : SERVER_GRAPHS;
    if (usesService(parsed) || (options.scope && (!restriction || parsed.queryType === 'DESCRIBE'))) return this.queryHere(text, options);
    const rewritten = new sparqljs.Generator().stringify(rewriteForUnionGraph(parsed, restriction));
    switch (parsed.queryType) {
      case 'SELECT': {
        const { variables, solutions } = await this.client.selectWithVariables(rewritten, options.signal);
        return { type: 'bindings', variables: variables.filter(visible), solutions: withoutHidden(solutions) };
      }
      case 'ASK':
        return { type: 'boolean', value: await this.client.ask(rewritten, options.signal) };
      default:
        return { type: 'quads', quads: mapQuads(await this.client.construct(rewritten, options.signal)) };
    }
  }

  /** What a scope lets a query read, as lists the rewrite can filter by (none when the scope cannot say). */
  private restrictionOf(scope: GraphScope): GraphRestriction | undefined {
    const own = scope.restriction?.();
    if (!own) return undefined;
    return {
      allow: own.allow,
      deny: [...(own.deny ?? []), ...SERVER_GRAPHS.deny, ...(scope.includesDefaultGraph ? [] : [DEFAULT_GRAPH_IRI])],
      denyPrefixes: [...(own.denyPrefixes ?? []), ...SERVER_GRAPHS.denyPrefixes],
    };
  }

  /** The query evaluated here by Comunica, reading the server's quads pattern by pattern. */
  private async queryHere(text: string, options: QueryOptions): Promise<QueryResult> {
    const source = new ScopedSource({ match: (s, p, o, g) => this.match(s, p, o, g, options.signal), countQuads: (s, p, o, g) => this.count(s, p, o, g) }, options.scope, options.signal);
    const context: Record<string, unknown> = { sources: [source], unionDefaultGraph: true };
    if (options.baseIri) context.baseIRI = options.baseIri;
    if (options.serviceFetch) context.fetch = options.serviceFetch;
    const engine = await (options.serviceFetch ? federatedComunicaEngine() : comunicaEngine());
    return comunicaQuery(engine, text, context, options.signal);
  }

  /** Quads of one pattern from the server (the default graph: `urn:toxgraph:default-graph`; never the server's own graphs). */
  private match(s: Term, p: Term, o: Term, g: Term, signal?: AbortSignal): AsyncIterator<RDF.Quad> {
    if ([s, p, o, g].some((t) => t?.termType === 'NamedNode' && !writable(t.value))) return new EmptyIterator();
    const { where, terms } = patternQuery(s, p, o, g);
    const solutions = this.client.selectStream(sparql`SELECT * WHERE { ${where} }`, signal);
    return wrap<Solution>(Readable.from(solutions))
      .filter((x) => !isServerGraph((terms.g ?? x.g).value))
      .map((x) =>
        df.quad((terms.s ?? fromServer(x.s)) as RDF.Quad_Subject, (terms.p ?? x.p) as RDF.Quad_Predicate, (terms.o ?? fromServer(x.o)) as RDF.Quad_Object, graphTerm((terms.g ?? x.g).value)),
      );
  }

  private async count(s: Term, p: Term, o: Term, g: Term): Promise<number> {
    if ([s, p, o, g].some((t) => t?.termType === 'NamedNode' && !writable(t.value))) return 0;
    const { where } = patternQuery(s, p, o, g);
    const [row] = await this.client.select(sparql`SELECT (COUNT(*) AS ?n) WHERE { ${where} }`);
    return Number(row?.n?.value ?? 0);
  }

  update(update: SparqlText | string, options: { beforeWrite?: (graphs: string[]) => void; unionDefaultGraph?: boolean; baseIri?: string } = {}): Promise<void> {
    return this.exclusive(async () => {
      const pending = await evaluateUpdate(comunicaEngine, String(update), { match: (s, p, o, g) => this.match(s, p, o, g), ...options });
      const changed = [...new Set([...pending.deletions, ...pending.additions].map((q) => graphName(q)))];
      options.beforeWrite?.(changed);
      if (changed.some(isServerGraph)) throw new Error('the server’s own graphs cannot be changed');
      const text = await this.changesAsUpdate(pending.deletions, pending.additions);
      await this.writingGraphs(changed, () => this.client.update(text));
    });
  }

  /**
   * Deletions and additions as one request. A graph that loses quads is written whole again:
   * DELETE DATA cannot name a blank node, and Virtuoso does not find some literals it was given
   * (`"…"^^xsd:anyURI`) when DELETE DATA names them.
   */
  private async changesAsUpdate(deletions: RDF.Quad[], additions: RDF.Quad[]): Promise<SparqlText> {
    const stored = (q: RDF.Quad) => df.quad(q.subject, q.predicate, q.object, df.namedNode(graphName(q)));
    const dels = deletions.map(stored);
    const adds = additions.map(stored);
    const rewritten = new Set(dels.map((q) => q.graph.value));
    const operations: SparqlText[] = [];
    for (const g of rewritten) {
      const gone = new Set(dels.filter((q) => q.graph.value === g).map(quadKey));
      const kept = (await this.readGraph(g)).filter((q) => !gone.has(quadKey(df.quad(q.subject, q.predicate, q.object, df.namedNode(g)))));
      operations.push(dropGraph(g));
      operations.push(...insertOperations(kept.map((q) => df.quad(q.subject, q.predicate, q.object, df.namedNode(g)))));
    }
    operations.push(...insertOperations(adds));
    return operations.length ? request(operations) : sparql`INSERT DATA { }`;
  }

  async bulkLoad(quads: AsyncIterable<RDF.Quad> | Iterable<RDF.Quad>): Promise<number> {
    let batch: RDF.Quad[] = [];
    let count = 0;
    const flush = async () => {
      const operations = insertOperations(batch.map((q) => df.quad(q.subject, q.predicate, q.object, df.namedNode(graphName(q)))));
      await this.exclusive(() => this.client.update(request(operations)));
      count += batch.length;
      batch = [];
    };
    for await (const q of quads as AsyncIterable<RDF.Quad>) {
      batch.push(q);
      if (batch.length >= QUADS_PER_BULK_REQUEST) await flush();
    }
    if (batch.length) await flush();
    return count;
  }

  /** Writes of this process one at a time (an update reads, then writes). */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.writeQueue.then(work);
    this.writeQueue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    await this.writeQueue;
    await this.client.close();
  }
}

/** A solution of ?s ?p ?o as a quad of `graphIri`; a solution missing a term was read while the graph was rewritten. */
function quadOf(s: Solution, graphIri: string): RDF.Quad {
  if (!s.s || !s.p || !s.o) throw new ReadDuringWrite(graphIri);
  return df.quad(fromServer(s.s) as RDF.Quad_Subject, s.p as RDF.Quad_Predicate, fromServer(s.o) as RDF.Quad_Object, graphTerm(graphIri));
}

/** A read made again (at most four times more) when another process rewrote what it read meanwhile. */
async function againIfRewritten<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (e) {
      if (!(e instanceof ReadDuringWrite) || attempt >= 4) throw e;
    }
  }
}

/** A graph read while another process rewrote it (rows came back with terms missing). */
class ReadDuringWrite extends Error {
  constructor(graph: string) {
    super(`graph ${graph} was being written while it was read`);
  }
}

/** The server's own graphs (Virtuoso's system graphs): never shown, never written. */
const SERVER_GRAPHS = { deny: ['http://www.w3.org/ns/ldp#'], denyPrefixes: ['http://www.openlinksw.com/', 'http://localuriqaserver/'] };

function isServerGraph(iri: string): boolean {
  return SERVER_GRAPHS.deny.includes(iri) || SERVER_GRAPHS.denyPrefixes.some((p) => iri.startsWith(p));
}

/** The graph a quad is stored in on the server: the unnamed default graph is the named graph DEFAULT_GRAPH_IRI there. */
function graphName(q: RDF.Quad): string {
  return q.graph.termType === 'DefaultGraph' ? DEFAULT_GRAPH_IRI : q.graph.value;
}

/** Can the server hold this IRI? (One that SPARQL cannot write names nothing stored.) */
function writable(iri: string): boolean {
  try {
    checkIri(iri);
    return true;
  } catch {
    return false;
  }
}

/**
 * A record (triple-store.ts's RecordWrites) on a remote store is a graph of its own,
 * `urn:toxgraph:record:{key}`, holding its bytes as one base64 literal: written and removed in
 * the same update request as the graphs it goes with.
 */
const RECORD_GRAPH = 'urn:toxgraph:record:';
const RECORD_BYTES = df.namedNode('urn:toxgraph:recordBytes');

function recordGraph(key: string): string {
  return checkIri(RECORD_GRAPH + key);
}

/** The graphs of records: one quad each, none for a removed record. */
function recordGraphs(records: RecordWrites | undefined): Record<string, RDF.Quad[]> {
  const graphs: Record<string, RDF.Quad[]> = {};
  for (const [key, bytes] of records ?? []) {
    const g = recordGraph(key);
    graphs[g] = bytes ? [df.quad(df.namedNode(g), RECORD_BYTES, literal(Buffer.from(bytes).toString('base64'), xsd('base64Binary')))] : [];
  }
  return graphs;
}

/** The graph term a stored graph name stands for here. */
function graphTerm(iri: string): RDF.Quad['graph'] {
  return iri === DEFAULT_GRAPH_IRI ? df.defaultGraph() : df.namedNode(iri);
}

const visible = (name: string) => !name.startsWith(HIDDEN_VARIABLE_PREFIX);

async function* mapQuads(quads: AsyncIterable<RDF.Quad>): AsyncIterable<RDF.Quad> {
  for await (const q of quads) yield quadFromServer(q);
}

async function* withoutHidden(solutions: AsyncIterable<Solution>): AsyncIterable<Solution> {
  for await (const s of solutions) {
    const out: Solution = {};
    for (const [k, v] of Object.entries(s)) if (visible(k)) out[k] = fromServer(v);
    yield out;
  }
}

function usesService(query: sparqljs.Query): boolean {
  return JSON.stringify(query.where ?? [], (_k, v) => v).includes('"type":"service"');
}

/** A pattern's WHERE clause, with the terms it binds. The default graph is the named graph DEFAULT_GRAPH_IRI. */
function patternQuery(s: Term, p: Term, o: Term, g: Term): { where: SparqlText; terms: Partial<Record<'s' | 'p' | 'o' | 'g', RDF.Term>> } {
  const terms: Partial<Record<'s' | 'p' | 'o' | 'g', RDF.Term>> = {};
  const bound = (t: Term, name: 's' | 'p' | 'o' | 'g'): RDF.Term => {
    if (!t || t.termType === 'Variable' || t.termType === 'BlankNode') return df.variable(name);
    const term = t.termType === 'DefaultGraph' ? df.namedNode(DEFAULT_GRAPH_IRI) : t;
    terms[name] = term;
    return toServer(term);
  };
  return { where: sparql`GRAPH ${bound(g, 'g')} { ${bound(s, 's')} ${bound(p, 'p')} ${bound(o, 'o')} }`, terms };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Quads in their stored form (exact numbers, literal-transport.ts), GRAPH by GRAPH. */
function graphBlocks(quads: RDF.Quad[]): SparqlText[] {
  const byGraph = new Map<string, RDF.Quad[]>();
  for (const q of quads) {
    const part = byGraph.get(q.graph.value);
    if (part) part.push(q);
    else byGraph.set(q.graph.value, [q]);
  }
  return [...byGraph].map(([g, part]) => sparql`GRAPH ${df.namedNode(g)} { ${dataTriples(part.map((q) => df.quad(q.subject, q.predicate, toServer(q.object), q.graph)))} }`);
}

const hasBlankNode = (q: RDF.Quad) => q.subject.termType === 'BlankNode' || q.object.termType === 'BlankNode';

/**
 * Insert operations for quads: INSERT DATA in parts for quads without blank nodes; the quads
 * with blank nodes all in one `INSERT { } WHERE { }` (INSERT DATA may not hold blank nodes on
 * Virtuoso, and a blank-node label means one node within one operation only).
 */
function insertOperations(quads: RDF.Quad[]): SparqlText[] {
  const operations = chunks(
    quads.filter((q) => !hasBlankNode(q)),
    QUADS_PER_OPERATION,
  ).map((part) => sparql`INSERT DATA { ${graphBlocks(part)} }`);
  const withBlank = quads.filter(hasBlankNode);
  if (withBlank.length) operations.push(sparql`INSERT { ${graphBlocks(withBlank)} } WHERE { }`);
  return operations;
}

function dropGraph(graph: string): SparqlText {
  return sparql`DROP SILENT GRAPH ${df.namedNode(graph)}`;
}

/** Operations as one update request. */
function request(operations: SparqlText[]): SparqlText {
  return new SparqlText(operations.map(String).join(' ;\n'));
}
