import type * as RDF from '@rdfjs/types';
import { ClassicLevel } from 'classic-level';
import { Quadstore } from 'quadstore';
import { QueryEngine } from '@comunica/query-sparql-rdfjs';
import { df } from '../rdf/namespaces.js';
import { INDEXES } from './indexes.js';
import { PendingChanges } from './pending-changes.js';
import { ScopedSource } from './scoped-source.js';
import type { SparqlText } from './sparql-template.js';
import type { QueryOptions, QueryResult, Solution, TripleStore } from './triple-store.js';

const BULK_BATCH = 2000;

/** The embedded store: quadstore on classic-level (LevelDB), queried through Comunica. */
export class QuadstoreTripleStore implements TripleStore {
  private readonly engine = new QueryEngine();
  /** Writes are serialized so that read-then-patch is atomic with respect to other writes. */
  private writeQueue: Promise<unknown> = Promise.resolve();

  private constructor(readonly quadstore: Quadstore) {}

  static async open(directory: string): Promise<QuadstoreTripleStore> {
    const backend = new ClassicLevel<string, Uint8Array>(directory, { keyEncoding: 'utf8', valueEncoding: 'view' } as any);
    const quadstore = new Quadstore({ backend: backend as any, dataFactory: df as any, indexes: INDEXES as any });
    await quadstore.open();
    return new QuadstoreTripleStore(quadstore);
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.writeQueue.then(work, work);
    this.writeQueue = run.catch(() => undefined);
    return run;
  }

  async readGraph(graphIri: string): Promise<RDF.Quad[]> {
    const { items } = await this.quadstore.get({ graph: df.namedNode(graphIri) as any });
    return items as RDF.Quad[];
  }

  async hasGraph(graphIri: string): Promise<boolean> {
    const { items } = await this.quadstore.get({ graph: df.namedNode(graphIri) as any }, { limit: 1 });
    return items.length > 0;
  }

  replaceGraphs(graphs: Record<string, RDF.Quad[]>): Promise<void> {
    return this.exclusive(async () => {
      const entries = Object.entries(graphs);
      const oldQuads = (await Promise.all(entries.map(([iri]) => this.readGraph(iri)))).flat();
      const newQuads: RDF.Quad[] = [];
      for (const [iri, quads] of entries) {
        const graph = df.namedNode(iri);
        for (const q of quads) newQuads.push(df.quad(q.subject, q.predicate, q.object, graph));
      }
      await this.quadstore.multiPatch(oldQuads as any, newQuads as any);
    });
  }

  deleteGraphs(graphIris: string[]): Promise<void> {
    return this.exclusive(async () => {
      const oldQuads = (await Promise.all(graphIris.map((iri) => this.readGraph(iri)))).flat();
      await this.quadstore.multiDel(oldQuads as any);
    });
  }

  async query(query: SparqlText | string, options: QueryOptions = {}): Promise<QueryResult> {
    const source = new ScopedSource((s, p, o, g) => this.quadstore.match(s as any, p as any, o as any, g as any) as any, this.quadstore, options.scope, options.signal);
    const context: Record<string, unknown> = { sources: [source], unionDefaultGraph: true };
    if (options.baseIri) context.baseIRI = options.baseIri;
    const result = await this.engine.query(String(query), context as any);
    switch (result.resultType) {
      case 'bindings': {
        const stream = await result.execute();
        const metadata = await result.metadata();
        const variables = metadata.variables.map((v: any) => (v.variable ?? v).value as string);
        abortOn(options.signal, stream);
        const solutions = stream.map((bindings: any) => {
          const solution: Solution = {};
          for (const [variable, term] of bindings) solution[variable.value] = term;
          return solution;
        });
        return { type: 'bindings', variables, solutions };
      }
      case 'quads': {
        const stream = await result.execute();
        abortOn(options.signal, stream);
        return { type: 'quads', quads: stream as unknown as AsyncIterable<RDF.Quad> };
      }
      case 'boolean':
        return { type: 'boolean', value: await withAbort(options.signal, result.execute()) };
      default:
        throw new Error('an update cannot be run as a query');
    }
  }

  update(update: SparqlText | string): Promise<void> {
    return this.exclusive(async () => {
      const pending = new PendingChanges({ match: (s, p, o, g) => this.quadstore.match(s as any, p as any, o as any, g as any) as any });
      await this.engine.queryVoid(String(update), { sources: [pending as any], destination: pending as any, unionDefaultGraph: true } as any);
      await this.quadstore.multiPatch(pending.deletions as any, pending.additions as any);
    });
  }

  bulkLoad(quads: AsyncIterable<RDF.Quad> | Iterable<RDF.Quad>): Promise<number> {
    return this.exclusive(async () => {
      let batch: RDF.Quad[] = [];
      let count = 0;
      for await (const q of quads as AsyncIterable<RDF.Quad>) {
        batch.push(q);
        if (batch.length >= BULK_BATCH) {
          await this.quadstore.multiPut(batch as any);
          count += batch.length;
          batch = [];
        }
      }
      if (batch.length) await this.quadstore.multiPut(batch as any);
      return count + batch.length;
    });
  }

  async close(): Promise<void> {
    await this.writeQueue;
    await this.quadstore.close();
  }
}

function abortOn(signal: AbortSignal | undefined, stream: { destroy(cause?: Error): void }): void {
  if (!signal) return;
  const stop = () => stream.destroy(signal.reason instanceof Error ? signal.reason : new Error('query aborted'));
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
}

function withAbort<T>(signal: AbortSignal | undefined, work: Promise<T>): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason instanceof Error ? signal.reason : new Error('query aborted'));
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject);
  });
}
