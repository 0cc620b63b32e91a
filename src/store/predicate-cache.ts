import type * as RDF from '@rdfjs/types';
import { df } from '../rdf/namespaces.ts';
import { termKey, termMapKey } from '../rdf/terms.ts';
import { isBulkGraph } from './bulk-partition.ts';
import { copyTerm } from './graph-cache.ts';
import { allQuads, batchesOf, boundTerm as bound, type QuadFinder } from './graph-pattern-query.ts';
import { scopedFinder, scopeTest } from './scoped-finder.ts';
import type { GraphScope } from './triple-store.ts';

/** Lookups (a pattern with its subject or object bound) of one predicate after which its quads are read and kept. */
const LOOKUPS_BEFORE_FILL = 64;
/** A read of all of a predicate's quads counts as this many lookups: the second such read fills. */
const WHOLE_READ_DEMAND = LOOKUPS_BEFORE_FILL / 2 + 1;
/** Predicates whose demand is counted at once (the oldest count is forgotten past it). */
const DEMAND_KEPT = 1024;
/** Scopes (GraphScope.key) whose part of a predicate's quads is kept. */
const SCOPES_KEPT = 4;
/** Charge per quad for the quad, its place in the list, in the lookups by subject and object and in the lists of SCOPES_KEPT scopes. */
const QUAD_CHARGE = 128;

/**
 * The quads of one predicate in every graph of both partitions, with the lookups by subject and
 * by object made when first asked. Terms are copies shared by the quads that name them.
 */
export class PredicateQuads {
  private subjects?: Map<string, RDF.Quad[]>;
  private objects?: Map<string, RDF.Quad[]>;
  private scoped?: Map<string, RDF.Quad[]>;
  /** When the cache last gave it out (its order of use). */
  used = 0;
  readonly quads: RDF.Quad[];
  readonly weight: number;
  constructor(quads: RDF.Quad[], weight: number) {
    this.quads = quads;
    this.weight = weight;
  }

  /**
   * The quads with this subject, object and graph (each undefined for any) that `allows` lets
   * through (`scopeKey`: the scope's key, under which the whole list let through is kept). The
   * list is shared: read it, do not change it.
   */
  matching(s?: RDF.Term, o?: RDF.Term, g?: RDF.Term, limit?: number, allows?: (q: RDF.Quad) => boolean, scopeKey?: string): readonly RDF.Quad[] {
    let from = this.quads;
    if (s) {
      this.subjects ??= byKey(this.quads, (q) => q.subject);
      from = this.subjects.get(termMapKey(s)) ?? [];
    } else if (o) {
      this.objects ??= byKey(this.quads, (q) => q.object);
      from = this.objects.get(termMapKey(o)) ?? [];
    } else if (allows && scopeKey !== undefined && !g) {
      from = this.inScope(scopeKey, allows);
      allows = undefined;
    }
    if (!(s && o) && !g && !allows) return limit === undefined || limit >= from.length ? from : from.slice(0, limit);
    const out: RDF.Quad[] = [];
    for (const q of from) {
      if ((s && o && !o.equals(q.object)) || (g && !g.equals(q.graph)) || (allows && !allows(q))) continue;
      out.push(q);
      if (out.length === limit) break;
    }
    return out;
  }

  /** All the quads a scope lets through, kept for the last few scopes' keys. */
  private inScope(key: string, allows: (q: RDF.Quad) => boolean): RDF.Quad[] {
    this.scoped ??= new Map();
    let list = this.scoped.get(key);
    if (!list) {
      list = this.quads.filter(allows);
      this.scoped.set(key, list);
      if (this.scoped.size > SCOPES_KEPT) this.scoped.delete(this.scoped.keys().next().value as string);
    }
    return list;
  }
}

function byKey(quads: RDF.Quad[], term: (q: RDF.Quad) => RDF.Term): Map<string, RDF.Quad[]> {
  const out = new Map<string, RDF.Quad[]>();
  for (const q of quads) {
    const key = termMapKey(term(q));
    const list = out.get(key);
    if (list) list.push(q);
    else out.set(key, [q]);
  }
  return out;
}

/**
 * The quads of the predicates queries read most across graphs (a FILTER over every SMILES, a
 * COUNT of every dataset's rows, the values of a dataset looked up row by row), kept in memory:
 * a query then costs no LevelDB iterator and no decoding of keys. A predicate is read and kept
 * after a query read all of it twice, or after LOOKUPS_BEFORE_FILL lookups of it, and only
 * while it stays within its share of the budget (one larger is not tried again until a write
 * changes it). Bounded by characters held, like the graph cache (graph-cache.ts): least
 * recently used predicates leave first, so memory does not grow with history. Every write
 * drops the predicates it touches; a read that was still filling when one was written is not kept.
 */
export class PredicateCache {
  private readonly held = new Map<string, PredicateQuads>();
  private weight = 0;
  private uses = 0;
  private readonly fills = new Map<string, Promise<PredicateQuads | undefined>>();
  private readonly demand = new Map<string, number>();
  private readonly tooLarge = new Set<string>();
  /** Characters of distinct term values held in all, plus QUAD_CHARGE per quad. */
  private readonly budget: number;
  private readonly maxShare: number;
  constructor(budget = 16_000_000, maxShare = 1 / 2) {
    this.budget = budget;
    this.maxShare = maxShare;
  }

  /** The quads held of a predicate (then the most recently used: marked, not moved, as it is asked for on every lookup). */
  get(predicate: string): PredicateQuads | undefined {
    const entry = this.held.get(predicate);
    if (entry) entry.used = ++this.uses;
    return entry;
  }

  /** Counts a read of a predicate not held (`whole`: of all its quads); true when it should now be read and kept. */
  wants(predicate: string, whole: boolean): boolean {
    if (this.tooLarge.has(predicate) || this.budget <= 0) return false;
    if (this.fills.has(predicate)) return true;
    const demand = (this.demand.get(predicate) ?? 0) + (whole ? WHOLE_READ_DEMAND : 1);
    this.demand.delete(predicate);
    if (demand > LOOKUPS_BEFORE_FILL) return true;
    this.demand.set(predicate, demand);
    if (this.demand.size > DEMAND_KEPT) this.demand.delete(this.demand.keys().next().value as string);
    return false;
  }

  /** The predicate's quads read by `read` (all of them, any graph) and kept; undefined when they are too many. One read at a time per predicate. */
  fill(predicate: string, read: () => ReturnType<QuadFinder>): Promise<PredicateQuads | undefined> {
    const running = this.fills.get(predicate);
    if (running) return running;
    const filling: Promise<PredicateQuads | undefined> = copied(read(), this.budget * this.maxShare).then(
      (entry) => {
        // a write of the predicate since the read began has taken it out of `fills`
        if (this.fills.get(predicate) !== filling) return entry;
        this.fills.delete(predicate);
        if (entry) this.put(predicate, entry);
        else this.tooLarge.add(predicate);
        return entry;
      },
      (e) => {
        if (this.fills.get(predicate) === filling) this.fills.delete(predicate);
        throw e;
      },
    );
    this.fills.set(predicate, filling);
    return filling;
  }

  /** Drops what a write changed: the predicates of its quads. */
  invalidate(quads: Iterable<RDF.Quad>): void {
    if (this.held.size === 0 && this.fills.size === 0 && this.tooLarge.size === 0) return;
    const seen = new Set<string>();
    for (const q of quads) {
      const p = q.predicate.value;
      if (seen.has(p)) continue;
      seen.add(p);
      this.fills.delete(p);
      this.tooLarge.delete(p);
      const entry = this.held.get(p);
      if (!entry) continue;
      this.held.delete(p);
      this.weight -= entry.weight;
    }
  }

  /** Characters held now (for tests and metrics). */
  get size(): number {
    return this.weight;
  }

  private put(predicate: string, entry: PredicateQuads): void {
    entry.used = ++this.uses;
    this.held.set(predicate, entry);
    this.weight += entry.weight;
    // the least recently used leave first (predicates held are few: tens)
    while (this.weight > this.budget) {
      let oldest: [string, PredicateQuads] | undefined;
      for (const held of this.held) if (!oldest || held[1].used < oldest[1].used) oldest = held;
      if (!oldest) break;
      this.held.delete(oldest[0]);
      this.weight -= oldest[1].weight;
    }
  }
}

/** The quads read, their terms copied once each, or undefined past `most` characters (the read is then stopped). */
async function copied(found: ReturnType<QuadFinder>, most: number): Promise<PredicateQuads | undefined> {
  const terms = new Map<string, RDF.Term>();
  let weight = 0;
  const term = <T extends RDF.Term>(t: T): T => {
    const key = termKey(t);
    let kept = terms.get(key);
    if (!kept) {
      terms.set(key, (kept = copyTerm(t)));
      weight += key.length;
    }
    return kept as T;
  };
  const quads: RDF.Quad[] = [];
  const add = (batch: RDF.Quad[]): boolean => {
    for (const q of batch) {
      weight += QUAD_CHARGE;
      if (weight > most) return false;
      quads.push(copyQuadWith(q, term));
    }
    return true;
  };
  if (found instanceof Promise) return add(await found) ? new PredicateQuads(quads, weight) : undefined;
  try {
    for await (const batch of batchesOf(found)) if (!add(batch)) return undefined;
  } finally {
    found.destroy();
  }
  return new PredicateQuads(quads, weight);
}

const copyQuadWith = (q: RDF.Quad, term: <T extends RDF.Term>(t: T) => T): RDF.Quad => df.quad(term(q.subject), term(q.predicate), term(q.object), term(q.graph));

/**
 * A finder of the quads `scope` allows (all without one) that answers patterns of a bound
 * predicate outside one resource's graph (the default graph's union, a variable graph, a
 * dataset's rows) from the predicate cache: from what it holds, else by reading (with `find`,
 * which sees every graph) and keeping the predicate when the cache wants it. Reads with a limit
 * (a LIMIT's few quads) never fill it. Lists it gives are shared: read them, do not change them.
 */
export function predicateCacheReads(find: QuadFinder, cache: PredicateCache, scope?: GraphScope): QuadFinder {
  const allows = scope ? scopeTest(scope) : undefined;
  const inScope = scope ? scopedFinder(find, scope, allows) : find;
  const scopeKey = scope?.key;
  /** Whether the cache may answer a pattern of this predicate and graph (any graph, or a dataset's rows the scope may see; a resource's own graph is the graph cache's). */
  const answers = (p: RDF.Term | undefined, graph: RDF.Term | undefined): p is RDF.NamedNode =>
    p?.termType === 'NamedNode' && (graph?.termType !== 'NamedNode' || (isBulkGraph(graph.value) && (!scope || scope.allows(graph.value))));
  const reads: QuadFinder = (s, p, o, g, limit) => {
    const graph = bound(g);
    if (!answers(p, graph)) return inScope(s, p, o, g, limit);
    const [subject, object] = [bound(s), bound(o)];
    const held = cache.get(p.value);
    if (held) return Promise.resolve(held.matching(subject, object, graph, limit, allows, scopeKey) as RDF.Quad[]);
    // a read of one dataset's column counts as a lookup: the fill reads every graph's
    if (limit !== undefined || !cache.wants(p.value, !subject && !object && !graph)) return inScope(s, p, o, g, limit);
    const predicate = p;
    return cache
      .fill(predicate.value, () => find(undefined, predicate, undefined, undefined))
      .then((entry) => (entry ? (entry.matching(subject, object, graph, undefined, allows, scopeKey) as RDF.Quad[]) : allQuads(inScope(s, p, o, g))));
  };
  reads.now = (s, p, o, g) => (answers(p, bound(g)) ? cache.get(p.value)?.matching(bound(s), bound(o), bound(g), undefined, allows, scopeKey) : undefined);
  return reads;
}
