import type * as RDF from '@rdfjs/types';
import { ClassicLevel } from 'classic-level';
import { ReadableQuadstore } from './readable-quadstore.ts';
import { comunicaEngine, federatedComunicaEngine } from './comunica-engines.ts';
import { df } from '../rdf/namespaces.ts';
import { quadKey, termKey } from '../rdf/terms.ts';
import { INDEXES } from './indexes.ts';
import { BULK_INDEXES, BulkQuadstore, isBulkGraph } from './bulk-partition.ts';
import { boundTerms, singlePattern, solutionOf, type SinglePattern } from './single-pattern.ts';
import { parsedQuery } from './parsed-query.ts';
import { storePlan } from './query-plan.ts';
import { answerPlan, planLimitHint, selectPlan } from './plan-evaluator.ts';
import { templateParse } from './compiled-template.ts';
import { allQuads, answerGraphPattern, boundTerm, graphPatternQuery, selectGraphPattern, type GraphPatternQuery, type QuadFinder, type QuadStream } from './graph-pattern-query.ts';
import { wrap, UnionIterator, type AsyncIterator } from 'asynciterator';
import { evaluateUpdate } from './pending-changes.ts';
import { DeferredFileRemoval } from './deferred-file-removal.ts';
import { quadChars } from './write-size.ts';
import { ScopedSource } from './scoped-source.ts';
import { comunicaQuery } from './comunica-query.ts';
import { comunicaAlgebra } from './comunica-plans.ts';
import { bulkGraphReads } from './bulk-graph-reads.ts';
import { PredicateCache, predicateCacheReads } from './predicate-cache.ts';
import { FirstQuadsCache } from './first-quads-cache.ts';
import { BulkAbsences } from './bulk-absences.ts';
import { allSolutions, solutionsOfArray } from './solution-batches.ts';
import { closingIterators } from './closing-iterators.ts';
import { IndexWriter, RECORD_KEY_PREFIX, recordKey } from './index-writer.ts';
import { TimeSlices } from '../core/time-slices.ts';
import { GraphCache } from './graph-cache.ts';
import type { SparqlText } from './sparql-template.ts';
import { DEFAULT_GRAPH_IRI, type QueryOptions, type QueryResult, type RecordWrites, type Solution, type TripleStore } from './triple-store.ts';

/** The graph term of a graph name: DEFAULT_GRAPH_IRI names the store's unnamed default graph. */
function graphTerm(iri: string): RDF.NamedNode | RDF.DefaultGraph {
  return iri === DEFAULT_GRAPH_IRI ? df.defaultGraph() : df.namedNode(iri);
}

/** The quad in graph `iri` (itself when it is already there). */
function inGraph(iri: string, q: RDF.Quad): RDF.Quad {
  return q.graph.termType === 'NamedNode' && q.graph.value === iri ? q : df.quad(q.subject, q.predicate, q.object, graphTerm(iri));
}

/** Quads and characters (see write-size.ts) of one bulk-load batch. */
const BULK_BATCH = 20000;
const BULK_BATCH_CHARS = 4_000_000;
/** Graphs read by one LevelDB iterator in readEachGraph (a write that replaces many, a dataset's compounds or features). */
const GRAPHS_PER_ITERATOR = 1000;

type Term = RDF.Term | null | undefined;

/**
 * Table files LevelDB keeps open, each mapped into memory (about 2 MiB each). With LevelDB's
 * default of 1,000 the mapped part of resident memory grew with the store: 65 -> 272 MiB over 20
 * cross-validations (the store grows by about 150 MiB with each); with 100 it stayed at 60-80.
 */
const OPEN_TABLE_FILES = 100;

/**
 * The embedded store: quadstore on classic-level (LevelDB), queried by its own evaluators (Comunica,
 * loaded when first needed, for the rest). Two
 * quadstores share the LevelDB: the main one with eight indexes (every pattern exact) and the
 * bulk one with two (see bulk-partition.ts) for graphs named `{uri}/entries`. A write that
 * touches both is still one LevelDB batch.
 */
export class QuadstoreTripleStore implements TripleStore {
  /** Recently read small graphs; every write invalidates what it touches. */
  private readonly cache = new GraphCache();
  /** The quads of predicates queries read across graphs (predicate-cache.ts); writes drop what they touch. */
  private readonly predicates = new PredicateCache();
  /** Subjects found in no bulk graph, until the next write of one (bulk-absences.ts). */
  private readonly bulkAbsences = new BulkAbsences();
  /** The first quads of recent limited reads, until the next write (first-quads-cache.ts). */
  private readonly firstReads = new FirstQuadsCache();
  /** Graphs a pattern was recently read from without the cache holding them (see graphPattern). */
  private readonly missedOnce = new Set<string>();
  /** Writes are serialized so that read-then-patch is atomic with respect to other writes. */
  private writeQueue: Promise<unknown> = Promise.resolve();
  /** Creations of new graphs waiting for the write queue, written as one group (createGraphs). */
  private creations: { added: RDF.Quad[]; records?: RecordWrites; resolve: () => void; reject: (e: unknown) => void }[] = [];

  readonly quadstore: ReadableQuadstore;
  readonly bulk: BulkQuadstore;
  private readonly fileRemoval: DeferredFileRemoval;
  private readonly writer: IndexWriter;
  private constructor(quadstore: ReadableQuadstore, bulk: BulkQuadstore, fileRemoval: DeferredFileRemoval, writer: IndexWriter) {
    this.quadstore = quadstore;
    this.bulk = bulk;
    this.fileRemoval = fileRemoval;
    this.writer = writer;
  }

  static async open(directory: string): Promise<QuadstoreTripleStore> {
    // iterators that close themselves: quadstore leaves them open, which pinned memory for good
    // shared with the writer thread (index-writer.ts)
    const options = { keyEncoding: 'utf8', valueEncoding: 'view', compression: false, maxOpenFiles: OPEN_TABLE_FILES, multithreading: true };
    const backend = closingIterators(new ClassicLevel<string, Uint8Array>(directory, options as any) as any);
    const quadstore = new ReadableQuadstore({ backend: backend as any, dataFactory: df as any, indexes: INDEXES as any });
    const bulk = new BulkQuadstore({ backend: backend as any, dataFactory: df as any, indexes: BULK_INDEXES as any });
    await quadstore.open();
    await bulk.loadPredicates();
    const writer = await IndexWriter.start(directory, options).catch(async (e) => {
      await quadstore.close();
      throw e;
    });
    // beside the store, not in it: the links would count twice in its size
    const fileRemoval = await DeferredFileRemoval.start(directory, `${directory}.trash`);
    return new QuadstoreTripleStore(quadstore, bulk, fileRemoval, writer);
  }

  /**
   * Both partitions as one RDF/JS source. `limit`: at most that many quads from each partition
   * (the index reads no more; an unlimited match reads in batches of hundreds).
   */
  private match(s?: Term, p?: Term, o?: Term, g?: Term, limit?: number) {
    [s, p, o, g] = [s, p, o, g].map(boundTerm);
    const options = limit === undefined ? undefined : { limit };
    if (g && g.termType === 'NamedNode') {
      return isBulkGraph(g.value) ? this.bulk.matchAny(s, p, o, g, options) : wrap<RDF.Quad>(this.quadstore.match(s as any, p as any, o as any, g as any, options) as any);
    }
    const main = wrap<RDF.Quad>(this.quadstore.match(s as any, p as any, o as any, g as any, options) as any);
    if ((g && g.termType === 'DefaultGraph') || !this.bulk.mayHold(p)) return main;
    // a subject over every graph: not looked up graph by graph again where it was found in none
    const subject = s && !g && !o ? termKey(s) : undefined;
    if (subject !== undefined && this.bulkAbsences.has(subject)) return main;
    let bulk = this.bulk.matchAny(s, p, o, g, options);
    if (subject !== undefined && !p) {
      const writes = this.bulkAbsences.writeCount;
      let found = 0;
      bulk = bulk.map((q) => {
        found++;
        return q;
      });
      bulk.on('end', () => {
        if (found === 0) this.bulkAbsences.note(subject, writes);
      });
    }
    return new UnionIterator<RDF.Quad>([main, bulk], { autoStart: false, maxBufferSize: 64 });
  }

  /**
   * The quads of both partitions that match a pattern (the evaluators of graph patterns): of one
   * resource's graph at once (from the graph cache when it holds the graph), else as a stream.
   */
  private readonly find: QuadFinder = (s, p, o, g, limit) => {
    if (g?.termType === 'NamedNode' && !isBulkGraph(g.value)) return this.graphPattern(g.value, s, p, o);
    if (limit !== undefined && g?.termType !== 'NamedNode') return this.keptRead(limit, [s, p, o, g], (...pattern) => this.firstQuads(limit, ...pattern));
    // a subject over every graph (DESCRIBE, a resource's statements in every graph): read at once
    if (s && s.termType !== 'Variable' && g?.termType !== 'NamedNode') return this.keptRead('all', [s, p, o, g], (...pattern) => allQuads(this.match(...pattern) as unknown as QuadStream));
    return this.match(s, p, o, g, limit) as unknown as QuadStream;
  };

  /** A read outside one graph, from the first-quads cache when the same read was made since the last write, else made and kept there when asked again. */
  private async keptRead(limit: number | 'all', terms: Term[], read: (...pattern: (RDF.Term | undefined)[]) => Promise<RDF.Quad[]>): Promise<RDF.Quad[]> {
    const pattern = terms.map(boundTerm);
    const writes = this.writeCount();
    const key = FirstQuadsCache.key(limit, pattern);
    const kept = this.firstReads.get(key, writes);
    if (kept) return kept;
    const quads = await read(...pattern);
    this.firstReads.put(key, quads, writes);
    return quads;
  }

  /**
   * The first `limit` quads of a pattern outside one graph (a LIMIT's few): the main partition's,
   * then the bulk one's only when those are too few (one LevelDB iterator where a union of both
   * partitions opens two).
   */
  private async firstQuads(limit: number, s?: RDF.Term, p?: RDF.Term, o?: RDF.Term, g?: RDF.Term): Promise<RDF.Quad[]> {
    const { items } = await this.quadstore.get({ subject: s, predicate: p, object: o, graph: g } as never, { limit });
    const quads = items as RDF.Quad[];
    if (quads.length >= limit || g?.termType === 'DefaultGraph' || !this.bulk.mayHold(p)) return quads;
    return [...quads, ...(await allQuads(this.bulk.matchAny(s, p, o, g, { limit: limit - quads.length }) as unknown as QuadStream))];
  }

  /** The quads of a pattern in one graph of the main partition. */
  private async graphPattern(iri: string, s?: RDF.Term, p?: RDF.Term, o?: RDF.Term): Promise<RDF.Quad[]> {
    // from the graph cache when it holds the graph. A first miss reads only the pattern (copying
    // a graph's terms to keep costs more than the read); a graph missed again soon (a query asked
    // again, a resource looked at again) is read whole and kept
    let cached = this.cache.get(iri);
    if (!cached && this.missedOnce.delete(iri)) cached = await this.readGraph(iri);
    else if (!cached) {
      this.missedOnce.add(iri);
      if (this.missedOnce.size > MISSES_KEPT) this.missedOnce.delete(this.missedOnce.values().next().value as string);
    }
    if (!cached) return (await this.quadstore.get({ subject: s, predicate: p, object: o, graph: df.namedNode(iri) } as never)).items as RDF.Quad[];
    return cached.filter((q) => (!s || s.equals(q.subject)) && (!p || p.equals(q.predicate)) && (!o || o.equals(q.object)));
  }

  private async count(s?: Term, p?: Term, o?: Term, g?: Term): Promise<number> {
    [s, p, o, g] = [s, p, o, g].map(boundTerm);
    if (g && g.termType === 'NamedNode' && isBulkGraph(g.value)) return this.bulk.countAny(s, p, o, g);
    const main = this.quadstore.countQuads((s ?? undefined) as any, (p ?? undefined) as any, (o ?? undefined) as any, (g ?? undefined) as any);
    if (g || !this.bulk.mayHold(p)) return main;
    // Both estimates at once: Comunica must get the count before the match stream has ended
    // (it waits for the metadata of a stream that already ended otherwise).
    const [a, b] = await Promise.all([main, this.bulk.countAny(s, p, o, g)]);
    return a + b;
  }

  private partitionOf(graphIri: string) {
    return isBulkGraph(graphIri) ? this.bulk : this.quadstore;
  }

  /**
   * One LevelDB batch for all changes, main and bulk store alike, written by the writer thread
   * (index-writer.ts): other requests are answered while a large resource is written, and
   * readers never see half of it.
   */
  private async patch(oldQuads: RDF.Quad[], newQuads: RDF.Quad[], records?: RecordWrites): Promise<void> {
    // nothing changes (a resource written again as it is): no batch, no invalidation
    if (oldQuads.length === 0 && newQuads.length === 0 && !records?.size) return;
    // before the write: a read while it is written may then look in the bulk partition too
    const bulkQuads = newQuads.filter((q) => q.graph.termType === 'NamedNode' && isBulkGraph(q.graph.value));
    this.bulk.notePredicates(bulkQuads);
    const bulkWrite = bulkQuads.length > 0 || oldQuads.some((q) => q.graph.termType === 'NamedNode' && isBulkGraph(q.graph.value));
    if (bulkWrite) this.bulkAbsences.written();
    try {
      await this.writer.write(oldQuads, newQuads, records?.size ? records : undefined);
    } finally {
      if (bulkWrite) this.bulkAbsences.written();
    }
    const touched = new Set<string>();
    // the unnamed default graph is cached under the name that reads it
    const nameOf = (q: RDF.Quad) => (q.graph.termType === 'DefaultGraph' ? DEFAULT_GRAPH_IRI : q.graph.value);
    for (const q of oldQuads) touched.add(nameOf(q));
    for (const q of newQuads) touched.add(nameOf(q));
    this.cache.invalidate(touched);
    this.predicates.invalidate(oldQuads);
    this.predicates.invalidate(newQuads);
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.writeQueue.then(work, work);
    this.writeQueue = run.catch(() => undefined);
    return run;
  }

  async readGraph(graphIri: string): Promise<RDF.Quad[]> {
    const cached = this.cache.get(graphIri);
    if (cached) return cached;
    const epoch = this.cache.epoch;
    const items: RDF.Quad[] = [];
    for await (const batch of this.graphBatches(graphIri)) for (const q of batch) items.push(q);
    this.cache.put(graphIri, items, epoch);
    return items;
  }

  /**
   * Those in the cache from it; the others through one LevelDB iterator per partition and
   * GRAPHS_PER_ITERATOR graphs (ReadableQuadstore.graphsWhole), cached as readGraph caches.
   */
  async readEachGraph(graphIris: string[]): Promise<RDF.Quad[][]> {
    const slices = new TimeSlices();
    const out: RDF.Quad[][] = new Array(graphIris.length);
    const unread = new Map<ReadableQuadstore, number[]>();
    graphIris.forEach((iri, i) => {
      const cached = this.cache.get(iri);
      if (cached) out[i] = cached;
      else {
        const partition = this.partitionOf(iri);
        const positions = unread.get(partition);
        if (positions) positions.push(i);
        else unread.set(partition, [i]);
      }
    });
    for (const [partition, positions] of unread) {
      for (let k = 0; k < positions.length; k += GRAPHS_PER_ITERATOR) {
        const part = positions.slice(k, k + GRAPHS_PER_ITERATOR);
        const epoch = this.cache.epoch;
        const read = await partition.graphsWhole(part.map((i) => graphTerm(graphIris[i])));
        part.forEach((i, j) => {
          out[i] = read[j];
          this.cache.put(graphIris[i], read[j], epoch);
        });
        await slices.pause();
      }
    }
    return out;
  }

  /** The quads of many graphs (a write of thousands of compounds) as one list. */
  private async readGraphs(iris: string[]): Promise<RDF.Quad[]> {
    return (await this.readEachGraph(iris)).flat();
  }

  /** Stream one graph in index order (for a bulk graph: subject by subject). */
  graphBatches(graphIri: string): AsyncIterable<RDF.Quad[]> {
    return this.partitionOf(graphIri).graphBatches(graphTerm(graphIri));
  }

  async hasGraph(graphIri: string): Promise<boolean> {
    const cached = this.cache.get(graphIri);
    if (cached) return cached.length > 0;
    const { items } = await this.partitionOf(graphIri).get({ graph: graphTerm(graphIri) as any }, { limit: 1 });
    return items.length > 0;
  }

  replaceGraphs(graphs: Record<string, RDF.Quad[]>, records?: RecordWrites): Promise<void> {
    return this.exclusive(async () => {
      const slices = new TimeSlices();
      // graphs given no quads lose all they hold, with no difference to compute (what a task that
      // did not complete created, removed in the same write as the task's end)
      const removed = await this.readGraphs(Object.keys(graphs).filter((iri) => graphs[iri].length === 0));
      const entries = Object.entries(graphs).filter(([, quads]) => quads.length > 0);
      const oldQuads = await this.readGraphs(entries.map(([iri]) => iri));
      // write only the difference: quads in both stay untouched (a policy added to the policy
      // graph, a column added to a dataset's rows, cost what changed, not the whole graph);
      // computed in time slices, as large resources have hundreds of thousands of quads
      if (oldQuads.length === 0) {
        // new graphs: everything is added, no difference to compute
        const added: RDF.Quad[] = [];
        for (const [iri, quads] of entries) for (const q of quads) added.push(inGraph(iri, q));
        return this.patch(removed, added, records);
      }
      const before = new Set<string>();
      for (const q of oldQuads) {
        before.add(quadKey(q));
        await slices.pause();
      }
      const after = new Set<string>();
      const added: RDF.Quad[] = [];
      for (const [iri, quads] of entries) {
        for (const q of quads) {
          const quad = inGraph(iri, q);
          const key = quadKey(quad);
          after.add(key);
          if (!before.has(key)) added.push(quad);
          await slices.pause();
        }
      }
      for (const q of oldQuads) {
        if (!after.has(quadKey(q))) removed.push(q);
        await slices.pause();
      }
      await this.patch(removed, added, records);
    });
  }

  /**
   * New graphs are written in groups (group commit): creations that wait for the write queue
   * together are written in one batch when their turn comes, instead of one batch and one
   * round trip to the writer thread each. Each creation is still all or nothing (the group is).
   */
  createGraphs(graphs: Record<string, RDF.Quad[]>, records?: RecordWrites): Promise<void> {
    const added: RDF.Quad[] = [];
    for (const [iri, quads] of Object.entries(graphs)) for (const q of quads) added.push(inGraph(iri, q));
    return new Promise<void>((resolve, reject) => {
      this.creations.push({ added, records, resolve, reject });
      if (this.creations.length > 1) return; // joins the group already waiting for its turn
      this.exclusive(async () => {
        const group = this.creations.splice(0);
        try {
          const records = new Map(group.flatMap((c) => [...(c.records ?? [])]));
          await this.patch([], group.length === 1 ? group[0].added : group.flatMap((c) => c.added), records);
          for (const c of group) c.resolve();
        } catch (e) {
          for (const c of group) c.reject(e);
        }
      });
    });
  }

  deleteGraphs(graphIris: string[], records?: RecordWrites): Promise<void> {
    return this.exclusive(async () => {
      const oldQuads = await this.readGraphs(graphIris);
      await this.patch(oldQuads, [], records);
    });
  }

  async *readRecords(prefix: string): AsyncIterable<[string, Uint8Array]> {
    const from = recordKey(prefix);
    const db = this.quadstore.db as unknown as { iterator(options: object): { nextv(n: number): Promise<[string, Uint8Array][]>; close(): Promise<void> } };
    const it = db.iterator({ gte: from, lt: from + KEY_BOUNDARY, keyEncoding: 'utf8', valueEncoding: 'view' });
    try {
      for (;;) {
        const entries = await it.nextv(RECORDS_PER_READ);
        if (!entries.length) return;
        for (const [key, value] of entries) yield [key.slice(RECORD_KEY_PREFIX.length), value];
      }
    } finally {
      await it.close();
    }
  }

  async query(query: SparqlText | string, options: QueryOptions = {}): Promise<QueryResult> {
    const parsed = this.parsed(query, options);
    // a predicate read across graphs from the predicate cache, else a query that looks up many
    // rows of a dataset reads its rows' graph once instead (bulk-graph-reads.ts); in the scope
    const find = predicateCacheReads(bulkGraphReads(this.find), this.predicates, options.scope);
    // one triple pattern (most named templates): one index match, no query plan
    const single = singlePattern(parsed);
    if (single) return { type: 'bindings', variables: single.variables, solutions: this.solutions(single, find, options.signal) };
    // a basic graph pattern inside one GRAPH (most other templates): index lookups, no query plan
    const shaped = graphPatternQuery(parsed);
    if (shaped) {
      // a few solutions of one pattern: the index asked for no more quads than they need
      const hinted = limitHint(shaped);
      const rows = hinted ? await this.hintedSelect(hinted, shaped.offset, options, (find) => selectGraphPattern(shaped, find, options.signal)) : undefined;
      if (rows) return { type: 'bindings', variables: shaped.variables, solutions: solutionsOfArray(rows) };
      const answer = await answerGraphPattern(shaped, find, options.signal);
      if (answer) return answer;
    }
    // what SPARQL clients send (default graph, joins, FILTER, OPTIONAL, VALUES, ORDER BY, COUNT
    // with GROUP BY, DESCRIBE): the store's own plan (query-plan.ts), made once per parse
    const plan = storePlan(parsed);
    if (plan) {
      const hinted = planLimitHint(plan);
      const rows = hinted && hinted <= HINTED_LIMIT ? await this.hintedSelect(hinted, plan.offset, options, (find) => selectPlan(plan, find, options.signal)) : undefined;
      if (rows) return { type: 'bindings', variables: plan.variables, solutions: solutionsOfArray(rows) };
      const answer = await answerPlan(plan, find, options.signal);
      if (answer) return answer;
    }
    const source = new ScopedSource({ match: (s, p, o, g) => this.match(s, p, o, g), countQuads: (s, p, o, g) => this.count(s, p, o, g) }, options.scope, options.signal);
    const context: Record<string, unknown> = { sources: [source], unionDefaultGraph: true };
    if (options.baseIri) context.baseIRI = options.baseIri;
    if (options.serviceFetch) context.fetch = options.serviceFetch;
    // SERVICE needs the engine build with HTTP and SPARQL-endpoint actors (loaded when first needed)
    const engine = await (options.serviceFetch ? federatedComunicaEngine() : comunicaEngine());
    // a query asked before goes to the engine as the algebra made of it then (comunica-plans.ts)
    const text = String(query);
    const algebra = options.serviceFetch ? undefined : comunicaAlgebra(text, options.baseIri);
    return comunicaQuery(engine, algebra ?? text, context, options.signal);
  }

  /**
   * A SELECT of one pattern with a small LIMIT (`limit`: with the OFFSET), its match limited to
   * the quads the solutions need. Quads a solution cannot use (the default graph's, a scope's
   * hidden graphs, a repeated variable that disagrees) may leave it short: undefined then, when
   * the match was cut, and the query runs unlimited.
   */
  private async hintedSelect(limit: number, offset: number, options: QueryOptions, select: (find: QuadFinder) => AsyncIterable<Solution>): Promise<Solution[] | undefined> {
    let read = 0;
    const counted: QuadFinder = (s, p, o, g) => {
      const found = this.find(s, p, o, g, limit);
      // one graph's quads, or a predicate's from the predicate cache (cut at the limit too)
      if (found instanceof Promise)
        return found.then((list) => {
          read += list.length;
          return list;
        });
      // still a stream read in batches (graph-pattern-query.ts's batchesOf)
      return (found as unknown as AsyncIterator<RDF.Quad>).map((q) => {
        read++;
        return q;
      }) as unknown as QuadStream;
    };
    const find = predicateCacheReads(counted, this.predicates, options.scope);
    const rows = await allSolutions(select(find));
    return rows.length < limit - offset && read >= limit ? undefined : rows;
  }

  /**
   * The query parsed for the store's own evaluators: a template bound into its compiled parse, a
   * text from the parses kept. None for a federated query, nor for one that names the default
   * graph by its IRI (which only the Comunica source maps to the unnamed graph).
   */
  private parsed(query: SparqlText | string, options: QueryOptions): any {
    if (options.serviceFetch || options.engine === 'comunica') return null;
    const text = String(query);
    if (text.includes(DEFAULT_GRAPH_IRI)) return null;
    return (options.baseIri ? undefined : templateParse(query)) ?? parsedQuery(text, options.baseIri);
  }

  private async *solutions(pattern: SinglePattern, find: QuadFinder, signal?: AbortSignal): AsyncIterable<Solution> {
    const seen = pattern.distinct ? new Set<string>() : undefined;
    const found = find(...boundTerms(pattern));
    const quads = found instanceof Promise ? { items: await found, destroy: () => undefined } : { items: found, destroy: () => found.destroy() };
    try {
      for await (const q of quads.items) {
        signal?.throwIfAborted();
        // the index finds numbers by value ("1" finds "1.0E0"^^xsd:double too); a pattern matches terms
        if (pattern.object.termType === 'Literal' && !pattern.object.equals(q.object)) continue;
        const solution = solutionOf(pattern, q);
        if (!solution) continue;
        if (seen) {
          const key = pattern.variables.map((v) => termKey(solution[v])).join(' ');
          if (seen.has(key)) continue;
          seen.add(key);
        }
        yield solution;
      }
    } finally {
      quads.destroy();
    }
  }

  update(update: SparqlText | string, options: { beforeWrite?: (graphs: string[]) => void; unionDefaultGraph?: boolean; baseIri?: string } = {}): Promise<void> {
    return this.exclusive(async () => {
      const pending = await evaluateUpdate(comunicaEngine, String(update), { match: (s, p, o, g) => this.match(s, p, o, g), ...options });
      options.beforeWrite?.([...new Set([...pending.deletions, ...pending.additions].map((q) => q.graph.value))]);
      await this.patch(pending.deletions, pending.additions);
    });
  }

  bulkLoad(quads: AsyncIterable<RDF.Quad> | Iterable<RDF.Quad>): Promise<number> {
    return this.exclusive(async () => {
      let batch: RDF.Quad[] = [];
      let chars = 0;
      let count = 0;
      for await (const q of quads as AsyncIterable<RDF.Quad>) {
        batch.push(q);
        chars += quadChars(q);
        if (batch.length >= BULK_BATCH || chars >= BULK_BATCH_CHARS) {
          await this.patch([], batch);
          count += batch.length;
          batch = [];
          chars = 0;
        }
      }
      if (batch.length) await this.patch([], batch);
      return count + batch.length;
    });
  }

  /**
   * The graph cache's epoch: it grows with every write, once the write is visible (a failed
   * write writes nothing). A reader that saw the old count holds what was there before the
   * write or newer data, never older data under a new count.
   */
  writeCount(): number {
    return this.cache.epoch;
  }

  memoryUsage(): number | undefined {
    try {
      const v = Number((this.quadstore as unknown as { db: { getProperty(p: string): string } }).db.getProperty('leveldb.approximate-memory-usage'));
      return Number.isFinite(v) ? v : undefined;
    } catch {
      return undefined; // closed
    }
  }

  writerHeapUsage(): Promise<number | undefined> {
    return this.writer.heapUsed().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.writeQueue;
    await this.writer.close();
    await this.quadstore.close();
    await this.fileRemoval.stop();
  }
}

/** Records read from LevelDB at a time. */
const RECORDS_PER_READ = 1000;
/** A string above every record key's text (quadstore's boundary). */
const KEY_BOUNDARY = '\uDBFF\uDFFF';

/** Graph names remembered as missed once by the graph cache. */
const MISSES_KEPT = 4096;

/** Solutions at most (OFFSET and LIMIT) for which a one-pattern SELECT limits its index read. */
const HINTED_LIMIT = 1000;

/** The quads a one-pattern SELECT with a LIMIT needs at most, when it may limit its read. */
function limitHint(query: GraphPatternQuery): number | undefined {
  if (query.form !== 'select' || query.patterns.length !== 1 || query.limit === undefined || query.count || query.order || query.distinct) return undefined;
  const needed = query.offset + query.limit;
  return needed > 0 && needed <= HINTED_LIMIT ? needed : undefined;
}
