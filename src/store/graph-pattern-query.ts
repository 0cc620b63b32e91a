import type * as RDF from '@rdfjs/types';
import { df, literal } from '../rdf/namespaces.ts';
import { termKey, termMapKey } from '../rdf/terms.ts';
import type { QueryResult, Solution } from './triple-store.ts';
import { sortSolutions, type OrderKey } from './solution-order.ts';
import { SolutionBatches, solutionsOfArray } from './solution-batches.ts';

export type Position = RDF.Term | RDF.Variable;
export type TriplePattern = [Position, Position, Position];

/** A pattern term as a finder takes it: variables and nulls mean "any" (undefined). */
export const boundTerm = (t: RDF.Term | null | undefined): RDF.Term | undefined => (t && t.termType !== 'Variable' ? t : undefined);

/** A stream of quads that `destroy` ends early. */
export type QuadStream = AsyncIterable<RDF.Quad> & { destroy(): void };

/**
 * The quads that match a pattern (undefined: any term), from every graph of the store: a stream
 * (read as far as needed), or all of them at once (a pattern in one resource's graph, which is
 * small: one read instead of a stream's step per quad). `limit`: a stream may end after that many.
 */
export type QuadFinder = ((s?: RDF.Term, p?: RDF.Term, o?: RDF.Term, g?: RDF.Term, limit?: number) => QuadStream | Promise<RDF.Quad[]>) & {
  /** The same quads at once when they are in memory (the predicate cache holds them), else undefined. Shared: read them, do not change them. */
  now?: (s?: RDF.Term, p?: RDF.Term, o?: RDF.Term, g?: RDF.Term) => readonly RDF.Quad[] | undefined;
};

/**
 * The shape most named templates have: a basic graph pattern inside one `GRAPH` (a named graph,
 * or `?g` over every named graph), answered as a SELECT (variables or `*`, DISTINCT, or one
 * COUNT; ORDER BY variables), a CONSTRUCT or an ASK, with LIMIT and OFFSET. The store evaluates it on its indexes (nested
 * index lookups, the most bound pattern first) instead of through a query engine, whose plan
 * costs more than the lookups. Anything else (FILTER, OPTIONAL, VALUES, ORDER BY, paths, blank
 * nodes in the query, patterns outside GRAPH) is not this shape.
 */
export interface GraphPatternQuery {
  form: 'select' | 'construct' | 'ask';
  /** Projected variables (SELECT). */
  variables: string[];
  distinct: boolean;
  /** `SELECT (COUNT([DISTINCT] *|?of) AS ?as)`. */
  count?: { as: string; of?: string; distinct: boolean };
  graph: Position;
  patterns: TriplePattern[];
  /** CONSTRUCT's template. */
  template: TriplePattern[];
  limit?: number;
  offset: number;
  /** ORDER BY variables (SELECT only): the solutions are sorted before they are projected. */
  order?: OrderKey[];
}

/** The query (as sparqljs parses it, parsed-query.ts) as a GraphPatternQuery, or undefined when it has another shape or did not parse. */
export function graphPatternQuery(parsed: any): GraphPatternQuery | undefined {
  if (parsed?.type !== 'query' || !['SELECT', 'CONSTRUCT', 'ASK'].includes(parsed.queryType)) return undefined;
  if (parsed.from || parsed.values || parsed.group || parsed.having || parsed.reduced || parsed.where?.length !== 1) return undefined;
  const block = parsed.where[0];
  if (block.type !== 'graph' || block.patterns.length !== 1 || block.patterns[0].type !== 'bgp') return undefined;
  const patterns: TriplePattern[] = [];
  for (const t of block.patterns[0].triples) {
    const p = triple(t);
    if (!p) return undefined;
    patterns.push(p);
  }
  const graph = position(block.name);
  if (!graph || patterns.length === 0) return undefined;
  const inWhere = new Set<string>();
  for (const p of [...patterns.flat(), graph]) if (p.termType === 'Variable') inWhere.add(p.value);
  const query: GraphPatternQuery = { form: 'select', variables: [], distinct: !!parsed.distinct, graph, patterns, template: [], limit: parsed.limit, offset: parsed.offset ?? 0 };
  if (parsed.order) {
    if (parsed.queryType !== 'SELECT') return undefined;
    query.order = [];
    for (const o of parsed.order) {
      if (o.expression?.termType !== 'Variable' || !inWhere.has(o.expression.value)) return undefined;
      query.order.push({ variable: o.expression.value, descending: !!o.descending });
    }
  }
  if (parsed.queryType === 'ASK') {
    query.form = 'ask';
    return query;
  }
  if (parsed.queryType === 'CONSTRUCT') {
    query.form = 'construct';
    for (const t of parsed.template ?? []) {
      const p = triple(t);
      if (!p) return undefined;
      query.template.push(p);
    }
    return query;
  }
  const projected = parsed.variables as any[];
  if (projected.length === 1 && projected[0].termType === 'Wildcard') {
    query.variables = [...inWhere];
    return query;
  }
  if (projected.length === 1 && projected[0].expression?.type === 'aggregate') {
    const { expression, variable } = projected[0];
    if (expression.aggregation !== 'count' || parsed.distinct || query.order) return undefined;
    const of = expression.expression;
    if (of.termType !== 'Wildcard' && !(of.termType === 'Variable' && inWhere.has(of.value))) return undefined;
    query.count = { as: variable.value, of: of.termType === 'Variable' ? of.value : undefined, distinct: !!expression.distinct };
    query.variables = [variable.value];
    return query;
  }
  if (!projected.every((v) => v.termType === 'Variable' && inWhere.has(v.value))) return undefined;
  query.variables = projected.map((v) => v.value);
  return query;
}

/**
 * A sparqljs triple as a pattern; undefined for a path or a quoted triple, and for a blank node
 * unless `blanks` names the variables that stand for them (non-distinguished variables).
 */
export function triple(t: any, blanks?: (label: string) => RDF.Variable): TriplePattern | undefined {
  if (t.predicate.type === 'path') return undefined;
  const s = position(t.subject, blanks);
  const p = position(t.predicate, blanks);
  const o = position(t.object, blanks);
  return s && p && o ? [s, p, o] : undefined;
}

export function position(t: any, blanks?: (label: string) => RDF.Variable): Position | undefined {
  if (t.termType === 'Variable') return df.variable(t.value);
  if (t.termType === 'NamedNode' || t.termType === 'Literal') return df.fromTerm(t) as RDF.Term;
  if (t.termType === 'BlankNode' && blanks) return blanks(t.value);
  return undefined; // blank nodes (non-distinguished variables) and quoted triples: not this shape
}

/** The solutions of the WHERE clause, before projection and modifiers. */
function solutionsOf(query: GraphPatternQuery, find: QuadFinder, signal?: AbortSignal): AsyncGenerator<Solution> {
  return matchPatterns(quadPatternsOf(query), {}, find, signal);
}

/** The query's triple patterns in its graph. */
const quadPatternsOf = (query: GraphPatternQuery): QuadPattern[] => query.patterns.map((p) => [...p, query.graph] as QuadPattern);

/**
 * A triple pattern and its graph: a term or variable for `GRAPH` (named graphs only), undefined
 * for the default graph (every graph the finder gives, the unnamed one included: the union
 * default graph the query engine has over this store, one solution per graph holding a triple).
 */
export type QuadPattern = [Position, Position, Position, Position | undefined];

/** A FILTER's test that reads only `variables`, all of them bound in every solution of the patterns. */
export interface PatternTest {
  variables: readonly string[];
  test: (s: Solution) => boolean;
}

/**
 * The solutions of quad patterns joined, each extending `binding`: nested index lookups, the
 * pattern with the most terms bound by then first (the fewest quads to look at). `tests` are
 * checked as soon as their variables are bound (a FILTER cuts the lookups early).
 */
export async function* matchPatterns(patterns: QuadPattern[], binding: Solution, find: QuadFinder, signal?: AbortSignal, tests?: readonly PatternTest[]): AsyncGenerator<Solution> {
  for await (const batch of matchPatternBatches(patterns, binding, find, signal, tests)) for (const s of batch) yield s;
}

/**
 * Solutions passed on from one pattern to the next at a time (a promise per batch, not per
 * solution): FIRST_SOLUTION_BATCH first, doubling up to SOLUTION_BATCH, so that a LIMIT of a
 * few solutions still makes few lookups.
 */
const FIRST_SOLUTION_BATCH = 8;
const SOLUTION_BATCH = 128;

/** A pattern position's term under a binding (undefined: a variable it leaves unbound). */
const termAt = (p: Position | undefined, binding: Solution) => (p === undefined ? undefined : p.termType === 'Variable' ? binding[p.value] : p);

const isReady = (t: PatternTest, s: Solution) => t.variables.every((v) => s[v] !== undefined);

/** Do the tests that the new bindings of `after` make ready pass? (Each test checked once per solution.) */
const testsPass = (tests: readonly PatternTest[] | undefined, before: Solution, after: Solution) => !tests || tests.every((t) => isReady(t, before) || !isReady(t, after) || t.test(after));

/** The pattern to look up next under `binding` (the one with the most terms bound by then) and the others. */
function nextPattern(left: QuadPattern[], binding: Solution): { pattern: QuadPattern; rest: QuadPattern[] } {
  let best = 0;
  let bestBound = -1;
  for (const [i, pattern] of left.entries()) {
    let bound = 0;
    for (const p of pattern) if (termAt(p, binding) !== undefined) bound++;
    if (bound > bestBound) [best, bestBound] = [i, bound];
  }
  return { pattern: left[best], rest: left.filter((_, i) => i !== best) };
}

/** The terms to look a pattern up by under `binding`, or undefined when it can match nothing (a literal subject, a predicate or graph that is no IRI). */
function lookupTerms(pattern: QuadPattern, binding: Solution): (RDF.Term | undefined)[] | undefined {
  const [s, p, o, g] = pattern.map((x) => termAt(x, binding));
  if (s?.termType === 'Literal' || (p && p.termType !== 'NamedNode') || (g && g.termType !== 'NamedNode')) return undefined;
  return [s, p, o, g];
}

/**
 * The solutions of one pattern under its bindings, gathered into batches: FIRST_SOLUTION_BATCH
 * first, doubling up to SOLUTION_BATCH. (A class, not a generator made per lookup: a generator
 * function made anew at each call gets its own hidden class, which the collector keeps until
 * its next full collection.)
 */
class BatchFiller {
  private readonly pattern: QuadPattern;
  private readonly named: boolean;
  private readonly tests?: readonly PatternTest[];
  private out: Solution[] = [];
  private size = FIRST_SOLUTION_BATCH;

  constructor(pattern: QuadPattern, tests?: readonly PatternTest[]) {
    this.pattern = pattern;
    this.named = pattern[3] !== undefined;
    this.tests = tests;
  }

  /**
   * Bind the quads from `from` on under `binding` until a batch is full: that batch, and the
   * index of the next quad to bind (quads.length once all are).
   */
  fill(binding: Solution, quads: readonly RDF.Quad[], from: number): { full?: Solution[]; next: number } {
    for (let i = from; i < quads.length; i++) {
      const quad = quads[i];
      if (this.named && quad.graph.termType !== 'NamedNode') continue; // GRAPH sees named graphs only
      const next = bindQuad(binding, this.pattern, this.named, quad);
      if (!next || !testsPass(this.tests, binding, next)) continue;
      this.out.push(next);
      if (this.out.length >= this.size) {
        const full = this.out;
        this.out = [];
        this.size = Math.min(2 * this.size, SOLUTION_BATCH);
        return { full, next: i + 1 };
      }
    }
    return { next: quads.length };
  }

  /** The batch being filled, however small (what a stream has ready; the end); undefined when empty. */
  takeRest(): Solution[] | undefined {
    if (!this.out.length) return undefined;
    const rest = this.out;
    this.out = [];
    return rest;
  }
}

/** What the lookups of one evaluation share. */
interface Lookups {
  find: QuadFinder;
  signal?: AbortSignal;
  tests?: readonly PatternTest[];
}

/** matchPatterns's solutions in batches of up to SOLUTION_BATCH (fewer as soon as a stream has no more ready). */
export async function* matchPatternBatches(patterns: QuadPattern[], binding: Solution, find: QuadFinder, signal?: AbortSignal, tests?: readonly PatternTest[]): AsyncGenerator<Solution[]> {
  if (tests?.some((t) => isReady(t, binding) && !t.test(binding))) return;
  yield* extendBatches(patterns, [binding], { find, signal, tests });
}

/** The solutions of `left` extending each of `bindings` (all bind the same variables: they come from the same patterns). */
async function* extendBatches(left: QuadPattern[], bindings: Solution[], lookups: Lookups): AsyncGenerator<Solution[]> {
  if (left.length === 0) {
    yield bindings;
    return;
  }
  const { find, signal } = lookups;
  const { pattern, rest } = nextPattern(left, bindings[0]);
  const filler = new BatchFiller(pattern, lookups.tests);
  for (const binding of bindings) {
    const terms = lookupTerms(pattern, binding);
    if (!terms) continue;
    signal?.throwIfAborted();
    const [s, p, o, g] = terms;
    // in memory (no promise), else a list, else a stream
    const listed = find.now?.(s, p, o, g) ?? find(s, p, o, g);
    if (!('destroy' in listed)) {
      const quads = listed instanceof Promise ? await listed : listed;
      for (let i = 0; i < quads.length; ) {
        const { full, next } = filler.fill(binding, quads, i);
        i = next;
        if (full) yield* onward(rest, full, lookups);
      }
      continue;
    }
    // a stream, not a list: with a LIMIT the lookups stop as soon as enough solutions are found
    try {
      for await (const batch of batchesOf(listed)) {
        signal?.throwIfAborted(); // a long scan ends with the abort too
        for (let i = 0; i < batch.length; ) {
          const { full, next } = filler.fill(binding, batch, i);
          i = next;
          if (full) yield* onward(rest, full, lookups);
        }
        // what a stream has ready goes on at once (a LIMIT may need no more)
        const some = filler.takeRest();
        if (some) yield* onward(rest, some, lookups);
      }
    } finally {
      listed.destroy();
    }
  }
  const last = filler.takeRest();
  if (last) yield* onward(rest, last, lookups);
}

/** A batch of solutions passed on: extended by the patterns left, or, after the last pattern, the batch itself. */
async function* onward(rest: QuadPattern[], full: Solution[], lookups: Lookups): AsyncGenerator<Solution[]> {
  if (rest.length) yield* extendBatches(rest, full, lookups);
  else yield full;
}

/**
 * matchPatterns's solutions at once, when every lookup is answered from memory (`find.now`) and
 * they are at most `most`; else undefined (the caller then takes the asynchronous way).
 */
export function matchPatternsNow(patterns: QuadPattern[], binding: Solution, find: QuadFinder, most: number, tests?: readonly PatternTest[]): Solution[] | undefined {
  if (!find.now) return undefined;
  const now = find.now;
  if (tests?.some((t) => isReady(t, binding) && !t.test(binding))) return [];
  const out: Solution[] = [];
  const extend = (left: QuadPattern[], binding: Solution): boolean => {
    if (left.length === 0) {
      out.push(binding);
      return out.length <= most;
    }
    const { pattern, rest } = nextPattern(left, binding);
    const named = pattern[3] !== undefined;
    const terms = lookupTerms(pattern, binding);
    if (!terms) return true;
    const quads = now(...terms);
    if (!quads) return false;
    for (const quad of quads) {
      if (named && quad.graph.termType !== 'NamedNode') continue;
      const next = bindQuad(binding, pattern, named, quad);
      if (next && testsPass(tests, binding, next) && !extend(rest, next)) return false;
    }
    return true;
  };
  return extend(patterns, binding) ? out : undefined;
}

/** The read side of an `asynciterator` stream (what the store's matches are). */
interface Readable {
  read(): RDF.Quad | null;
  readonly done: boolean;
  readonly readable: boolean;
  once(event: 'readable' | 'end' | 'error', listener: (e?: Error) => void): void;
  off(event: 'readable' | 'end' | 'error', listener: (e?: Error) => void): void;
}

/**
 * A stream's quads in the batches it has ready: read synchronously while it has some, waited for
 * only when it has none (a promise per batch, not per quad).
 */
export async function* batchesOf(stream: AsyncIterable<RDF.Quad>): AsyncGenerator<RDF.Quad[]> {
  const it = stream as unknown as Partial<Readable>;
  if (typeof it.read !== 'function' || typeof it.once !== 'function') {
    for await (const quad of stream) yield [quad];
    return;
  }
  const readable = it as Readable;
  for (;;) {
    const batch: RDF.Quad[] = [];
    for (let quad = readable.read(); quad !== null; quad = readable.read()) batch.push(quad);
    if (batch.length) {
      // more may have come while the batch was used (its `readable` event then already passed)
      yield batch;
      continue;
    }
    if (readable.done) return;
    // nothing now, yet not waiting for an event either: look again on the next turn
    if (readable.readable) {
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    await new Promise<void>((resolve, reject) => {
      const settle = (e?: Error) => {
        readable.off('readable', settle);
        readable.off('end', settle);
        readable.off('error', settle);
        if (e instanceof Error) reject(e);
        else resolve();
      };
      readable.once('readable', settle);
      readable.once('end', settle);
      readable.once('error', settle);
    });
  }
}

/** Every quad a finder found, as one list. */
export async function allQuads(found: QuadStream | Promise<RDF.Quad[]>): Promise<RDF.Quad[]> {
  if (found instanceof Promise) return found;
  const quads: RDF.Quad[] = [];
  try {
    for await (const batch of batchesOf(found)) for (const q of batch) quads.push(q);
  } finally {
    found.destroy();
  }
  return quads;
}

/**
 * `binding` extended by the terms a quad gives the pattern's variables (the graph's only when
 * `named`), or undefined when a variable would take two values, or a literal of the pattern is
 * not the quad's term: the index finds numbers by value ("1" finds "1.0E0"^^xsd:double too), a
 * pattern matches terms.
 */
function bindQuad(binding: Solution, pattern: QuadPattern, named: boolean, quad: RDF.Quad): Solution | undefined {
  let out = binding;
  const positions = named ? 4 : 3;
  for (let i = 0; i < positions; i++) {
    const p = pattern[i] as Position;
    const term = i === 0 ? quad.subject : i === 1 ? quad.predicate : i === 2 ? quad.object : quad.graph;
    if (p.termType === 'Literal' && !p.equals(term)) return undefined;
    if (p.termType !== 'Variable') continue;
    const seen = out[p.value];
    if (seen) {
      if (!seen.equals(term)) return undefined;
      continue;
    }
    if (out === binding) out = { ...binding };
    out[p.value] = term;
  }
  return out;
}

/**
 * A SELECT with ORDER BY: every solution, sorted, then projected, DISTINCT, OFFSET and LIMIT.
 * Undefined when the keys hold terms whose order is the query engine's to decide (solution-order.ts).
 */
export async function orderedSelectGraphPattern(query: GraphPatternQuery, find: QuadFinder, signal?: AbortSignal): Promise<Solution[] | undefined> {
  const all: Solution[] = [];
  for await (const s of solutionsOf(query, find, signal)) all.push(s);
  const sorted = sortSolutions(all, query.order ?? []);
  if (!sorted) return undefined;
  const out: Solution[] = [];
  for await (const s of project(query, sorted)) out.push(s);
  return out;
}

/** A SELECT's solutions: projected, DISTINCT or counted, then OFFSET and LIMIT. */
export function selectGraphPattern(query: GraphPatternQuery, find: QuadFinder, signal?: AbortSignal): AsyncIterable<Solution> {
  if (query.count) return project(query, solutionsOf(query, find, signal));
  return new SolutionBatches(projectBatches(query, matchPatternBatches(quadPatternsOf(query), {}, find, signal)));
}

async function* project(query: GraphPatternQuery, solutions: AsyncIterable<Solution> | Iterable<Solution>): AsyncGenerator<Solution> {
  if (query.count) {
    const { of, distinct, as } = query.count;
    const seen = new Set<string>();
    let n = 0;
    for await (const s of solutions) {
      if (!distinct) n++;
      else seen.add(of ? termKey(s[of]) : solutionKey(s, Object.keys(s).sort()));
    }
    if (query.offset === 0 && query.limit !== 0) yield { [as]: literal(distinct ? seen.size : n) };
    return;
  }
  yield* projectSolutions(query, solutions);
}

/** A SELECT's modifiers, for both evaluators: projection, DISTINCT, OFFSET and LIMIT. */
export interface SelectModifiers {
  variables: readonly string[];
  distinct: boolean;
  offset: number;
  limit?: number;
}

/**
 * The modifiers applied one solution at a time: `next` gives the projected solution, or
 * undefined for one that DISTINCT or OFFSET leaves out; `done` once LIMIT solutions were given.
 */
function selectModifiers(modifiers: SelectModifiers): { next(s: Solution): Solution | undefined; done(): boolean } {
  const seen = modifiers.distinct ? new Set<string>() : undefined;
  const { variables, offset, limit } = modifiers;
  let skipped = 0;
  let given = 0;
  return {
    done: () => limit !== undefined && given >= limit,
    next(s) {
      const projected: Solution = {};
      for (const v of variables) if (s[v]) projected[v] = s[v];
      if (seen) {
        const k = solutionKey(projected, variables);
        if (seen.has(k)) return undefined;
        seen.add(k);
      }
      if (skipped < offset) {
        skipped++;
        return undefined;
      }
      given++;
      return projected;
    },
  };
}

/** Solutions projected on `variables`, DISTINCT, then OFFSET and LIMIT (a SELECT's modifiers, for both evaluators). */
export async function* projectSolutions(modifiers: SelectModifiers, solutions: AsyncIterable<Solution> | Iterable<Solution>): AsyncGenerator<Solution> {
  if (modifiers.limit === 0) return;
  const select = selectModifiers(modifiers);
  for await (const s of solutions) {
    const projected = select.next(s);
    if (projected) yield projected;
    if (select.done()) return;
  }
}

/** projectSolutions batch by batch: a promise per batch, not per solution; ends once LIMIT solutions were given. */
export async function* projectBatches(modifiers: SelectModifiers, batches: AsyncIterable<Solution[]> | Iterable<Solution[]>): AsyncGenerator<Solution[]> {
  if (modifiers.limit === 0) return;
  const select = selectModifiers(modifiers);
  for await (const batch of batches) {
    const out: Solution[] = [];
    for (const s of batch) {
      const projected = select.next(s);
      if (projected) out.push(projected);
      if (select.done()) break;
    }
    if (out.length) yield out;
    if (select.done()) return;
  }
}

/** A solution's terms over `variables` as one string (DISTINCT, groups). */
export function solutionKey(s: Solution, variables: readonly string[]): string {
  // one variable: its term's map key (an IRI's value: no new string to hash), never '' when bound
  if (variables.length === 1) return s[variables[0]] ? termMapKey(s[variables[0]]) : '';
  let key = '';
  for (const [i, v] of variables.entries()) key += (i ? ' ' : '') + (s[v] ? termKey(s[v]) : '');
  return key;
}

/** An ASK's answer: whether the pattern has a solution (the lookups stop at the first). */
export async function askGraphPattern(query: GraphPatternQuery, find: QuadFinder, signal?: AbortSignal): Promise<boolean> {
  if (query.limit === 0) return false;
  let seen = 0;
  for await (const _ of solutionsOf(query, find, signal)) if (++seen > query.offset) return true;
  return false;
}

/** A CONSTRUCT's triples (in the default graph): the template filled by each solution, leaving out triples it cannot make. */
export async function* constructGraphPattern(query: GraphPatternQuery, find: QuadFinder, signal?: AbortSignal): AsyncGenerator<RDF.Quad> {
  if (isGraphCopy(query)) {
    yield* copyGraph(query, find, signal);
    return;
  }
  let skipped = 0;
  let given = 0;
  if (query.limit === 0) return;
  for await (const s of solutionsOf(query, find, signal)) {
    // OFFSET and LIMIT apply to the solutions, not to the triples made from them
    if (skipped < query.offset) {
      skipped++;
      continue;
    }
    for (const t of query.template) {
      const [subject, predicate, object] = t.map((p) => (p.termType === 'Variable' ? s[p.value] : p));
      if (!subject || !predicate || !object || subject.termType === 'Literal' || predicate.termType !== 'NamedNode') continue;
      yield df.quad(subject as RDF.Quad_Subject, predicate, object as RDF.Quad_Object);
    }
    if (query.limit !== undefined && ++given >= query.limit) return;
  }
}

/**
 * A CONSTRUCT of a named graph's quads (its template its one pattern, with different variables):
 * every matching quad is a solution, so the quads are answered as triples, with no bindings made.
 */
function isGraphCopy(query: GraphPatternQuery): boolean {
  if (query.form !== 'construct' || query.graph.termType !== 'NamedNode' || query.patterns.length !== 1 || query.template.length !== 1) return false;
  const [pattern] = query.patterns;
  const variables = pattern.filter((t) => t.termType === 'Variable').map((t) => t.value);
  return new Set(variables).size === variables.length && pattern.every((t, i) => t.equals(query.template[0][i]));
}

async function* copyGraph(query: GraphPatternQuery, find: QuadFinder, signal?: AbortSignal): AsyncGenerator<RDF.Quad> {
  const [s, p, o] = query.patterns[0].map((t) => (t.termType === 'Variable' ? undefined : t));
  // a literal subject or a predicate that is no IRI matches nothing, as in solutionsOf
  if (s?.termType === 'Literal' || (p && p.termType !== 'NamedNode') || query.limit === 0) return;
  const end = query.limit === undefined ? Number.POSITIVE_INFINITY : query.offset + query.limit;
  const found = find(s, p, o, query.graph);
  let n = 0;
  const quads = found instanceof Promise ? [await found] : batchesOf(found);
  try {
    for await (const batch of quads) {
      signal?.throwIfAborted();
      for (const q of batch) {
        if (o?.termType === 'Literal' && !o.equals(q.object)) continue; // numbers are found by value
        if (n++ < query.offset) continue;
        yield df.quad(q.subject, q.predicate, q.object);
        if (n >= end) return;
      }
    }
  } finally {
    if (!(found instanceof Promise)) found.destroy();
  }
}

/**
 * The answer of a query of this shape; undefined when its ORDER BY keys hold terms the query
 * engine must order (solution-order.ts).
 */
export async function answerGraphPattern(query: GraphPatternQuery, find: QuadFinder, signal?: AbortSignal): Promise<QueryResult | undefined> {
  if (query.form === 'construct') return { type: 'quads', quads: constructGraphPattern(query, find, signal) };
  if (query.form === 'ask') return { type: 'boolean', value: await askGraphPattern(query, find, signal) };
  if (!query.order) return { type: 'bindings', variables: query.variables, solutions: selectGraphPattern(query, find, signal) };
  const sorted = await orderedSelectGraphPattern(query, find, signal);
  return sorted && { type: 'bindings', variables: query.variables, solutions: solutionsOfArray(sorted) };
}
