import type * as RDF from '@rdfjs/types';
import { EventEmitter } from 'node:events';
import { ArrayIterator, type AsyncIterator, wrap } from 'asynciterator';
import { Store as N3Store } from 'n3';
import { quadKey, matchesPattern } from '../rdf/terms.ts';
import type { QueryEngine } from '@comunica/query-sparql-rdfjs';
import { applyUpdate, storeUpdate } from './update-evaluator.ts';

type Matcher = {
  match(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): RDF.Stream<RDF.Quad> | AsyncIterator<RDF.Quad>;
};

/**
 * The changes of one SPARQL update request, kept in memory until the request has run to the
 * end and then written in one batch. It serves both as the destination of the store's own
 * evaluation (insertQuads, deleteQuads; update-evaluator.ts) or Comunica's (import, remove,
 * deleteGraph) and as its source (match sees the store as changed so far), so the operations
 * of a multi-operation request see each other's effects while nothing reaches disk until all
 * of them succeeded.
 */
export class PendingChanges {
  private readonly added = new N3Store();
  private readonly deleted = new Map<string, RDF.Quad>();

  private readonly base: Matcher;
  constructor(base: Matcher) {
    this.base = base;
  }

  get additions(): RDF.Quad[] {
    return this.added.getQuads(null, null, null, null);
  }

  get deletions(): RDF.Quad[] {
    return [...this.deleted.values()];
  }

  match(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): AsyncIterator<RDF.Quad> {
    const fromBase = wrap<RDF.Quad>(this.base.match(s, p, o, g) as any).filter((q) => !this.deleted.has(quadKey(q)));
    const pattern = [s, p, o, g].map((t) => (t && t.termType !== 'Variable' ? t : null));
    const fromAdded = new ArrayIterator<RDF.Quad>(this.added.getQuads(pattern[0] as any, pattern[1] as any, pattern[2] as any, pattern[3] as any), { autoStart: false });
    // `added` only ever holds quads the base lacks (see import), so nothing is emitted twice.
    return fromBase.append(fromAdded);
  }

  import(stream: RDF.Stream<RDF.Quad>): EventEmitter {
    return this.consume(stream, (q) => this.addOne(q));
  }

  remove(stream: RDF.Stream<RDF.Quad>): EventEmitter {
    return this.consume(stream, async (q) => this.removeOne(q));
  }

  /** Add quads, in order (as import does). */
  async insertQuads(quads: RDF.Quad[]): Promise<void> {
    for (const q of quads) await this.addOne(q);
  }

  /** Remove quads, in order (as remove does). */
  async deleteQuads(quads: RDF.Quad[]): Promise<void> {
    for (const q of quads) this.removeOne(q);
  }

  private async addOne(q: RDF.Quad): Promise<void> {
    this.deleted.delete(quadKey(q));
    if (!(await this.baseHas(q))) this.added.addQuad(q);
  }

  deleteGraph(graph: RDF.Quad_Graph): EventEmitter {
    return this.consume(this.match(null, null, null, graph) as unknown as RDF.Stream<RDF.Quad>, async (q) => this.removeOne(q));
  }

  private removeOne(q: RDF.Quad): void {
    if (this.added.has(q)) this.added.removeQuad(q);
    this.deleted.set(quadKey(q), q);
  }

  private async baseHas(q: RDF.Quad): Promise<boolean> {
    const found = wrap<RDF.Quad>(this.base.match(q.subject, q.predicate, q.object, q.graph) as any).filter((x) => matchesPattern(q.object, x.object));
    const first = await found.take(1).toArray();
    return first.length > 0;
  }

  /**
   * Collect a stream's quads, then apply them in order. Listeners are attached at once, in the
   * caller's tick: Comunica may hand over a stream that is already flowing, and a wrapper that
   * attaches later can miss its end (an update then never finished).
   */
  private consume(stream: RDF.Stream<RDF.Quad>, onQuad: (q: RDF.Quad) => Promise<void> | void): EventEmitter {
    const done = new EventEmitter();
    const quads: RDF.Quad[] = [];
    if ((stream as { done?: boolean }).done) {
      // an iterator that has already ended emits no more events
      setImmediate(() => done.emit('end'));
      return done;
    }
    stream.on('data', (q: RDF.Quad) => quads.push(q));
    stream.on('error', (e: Error) => done.emit('error', e));
    stream.on('end', () => {
      (async () => {
        for (const q of quads) await onQuad(q);
      })().then(
        () => done.emit('end'),
        (e) => done.emit('error', e),
      );
    });
    return done;
  }
}

/** How a store evaluates a SPARQL update: its quads, the default graph's meaning, the base IRI. */
export interface UpdateEvaluation {
  match: Matcher['match'];
  unionDefaultGraph?: boolean;
  baseIri?: string;
  /** `comunica`: run it in Comunica even when the store evaluates its operations itself (the reference of the tests). */
  engine?: 'comunica';
}

/**
 * Run a SPARQL update into pending changes (nothing is written yet): by the store itself
 * (update-evaluator.ts) when it takes the request's operations, else by Comunica, which
 * `comunica` gives only then (Comunica is loaded when a request first needs it).
 */
export async function evaluateUpdate(comunica: () => QueryEngine | Promise<QueryEngine>, update: string, evaluation: UpdateEvaluation): Promise<PendingChanges> {
  const pending = new PendingChanges({ match: evaluation.match });
  const unionDefaultGraph = evaluation.unionDefaultGraph ?? true;
  const own = evaluation.engine === 'comunica' ? undefined : storeUpdate(update, { baseIri: evaluation.baseIri, unionDefaultGraph });
  if (own) {
    await applyUpdate(own, pending, unionDefaultGraph);
    return pending;
  }
  const engine = await comunica();
  await engine.queryVoid(update, {
    sources: [pending as any],
    destination: pending as any,
    unionDefaultGraph,
    ...(evaluation.baseIri ? { baseIRI: evaluation.baseIri } : {}),
  } as any);
  return pending;
}
