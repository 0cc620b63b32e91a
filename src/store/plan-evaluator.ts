import type * as RDF from '@rdfjs/types';
import { df, literal } from '../rdf/namespaces.ts';
import { termKey } from '../rdf/terms.ts';
import { matchPatternBatches, matchPatterns, matchPatternsNow, projectBatches, solutionKey, type QuadFinder, type QuadPattern } from './graph-pattern-query.ts';
import type { OrderBy, PlanNode, StorePlan } from './query-plan.ts';
import { sortSolutions } from './solution-order.ts';
import { isNumericType } from './sparql-expressions.ts';
import type { QueryResult, Solution } from './triple-store.ts';
import { SolutionBatches } from './solution-batches.ts';

/**
 * The store's own evaluator of compiled plans (query-plan.ts): the index lookups of
 * graph-pattern-query.ts for the quad patterns, every other part evaluated with the bindings
 * before it substituted. Results are streams where they can be (LIMIT stops the lookups); ORDER
 * BY keeps only the solutions a small LIMIT needs. Undefined when ORDER BY meets terms whose
 * order is the query engine's to decide (solution-order.ts): the query then goes there.
 */
export async function answerPlan(plan: StorePlan, find: QuadFinder, signal?: AbortSignal): Promise<QueryResult | undefined> {
  if (plan.form === 'describe') return { type: 'quads', quads: describe(plan.describe, find, signal) };
  if (plan.form === 'ask') {
    for await (const batch of evaluate(plan.where, {}, find, signal)) if (batch.length) return { type: 'boolean', value: true };
    return { type: 'boolean', value: false };
  }
  let solutions: AsyncIterable<Solution[]> | Iterable<Solution[]> = evaluate(plan.where, {}, find, signal);
  if (plan.group) {
    const groups = await grouped(plan, solutions);
    if (!groups) return undefined;
    solutions = [groups];
  }
  if (plan.order) {
    // DISTINCT counts solutions after projection: only then may the sort keep just the first ones
    const keep = plan.limit !== undefined && !plan.distinct ? plan.offset + plan.limit : undefined;
    const sorted = await ordered(solutions, plan.order, keep);
    if (!sorted) return undefined;
    solutions = [sorted];
  }
  if (plan.form === 'construct') return { type: 'quads', quads: construct(plan, eachOf(solutions)) };
  return { type: 'bindings', variables: plan.variables, solutions: new SolutionBatches(projectBatches(plan, solutions)) };
}

/**
 * The solutions a SELECT of one quad pattern with a LIMIT needs at most (OFFSET and LIMIT), when
 * nothing else (a FILTER, a sort, DISTINCT, groups) may need more: the store may then read no
 * more quads from its index.
 */
export function planLimitHint(plan: StorePlan): number | undefined {
  const { where } = plan;
  if (plan.form !== 'select' || plan.limit === undefined || plan.group || plan.order || plan.distinct) return undefined;
  if (where.type !== 'patterns' || where.patterns.length !== 1 || where.tests?.length) return undefined;
  const needed = plan.offset + plan.limit;
  return needed > 0 ? needed : undefined;
}

/** A SELECT's solutions, for a plan without groups or ORDER BY. */
export function selectPlan(plan: StorePlan, find: QuadFinder, signal?: AbortSignal): SolutionBatches {
  return new SolutionBatches(projectBatches(plan, evaluate(plan.where, {}, find, signal)));
}

/** Each solution of the batches. */
async function* eachOf(batches: AsyncIterable<Solution[]> | Iterable<Solution[]>): AsyncGenerator<Solution> {
  for await (const batch of batches) yield* batch;
}

/** The solutions of a plan node, each extending `binding`, in batches (a promise per batch, not per solution). */
function evaluate(node: PlanNode, binding: Solution, find: QuadFinder, signal?: AbortSignal): AsyncGenerator<Solution[]> {
  switch (node.type) {
    case 'patterns':
      return matchPatternBatches(node.patterns, binding, find, signal, node.tests);
    case 'values':
      return values(node.rows, binding);
    case 'join':
      return join(node.parts, 0, binding, find, signal);
    case 'optional':
      return optional(node, binding, find, signal);
    case 'filter':
      return filter(node, binding, find, signal);
  }
}

async function* values(rows: Solution[], binding: Solution): AsyncGenerator<Solution[]> {
  const out: Solution[] = [];
  for (const row of rows) {
    const merged = merge(binding, row);
    if (merged) out.push(merged);
  }
  yield out;
}

async function* join(parts: PlanNode[], at: number, binding: Solution, find: QuadFinder, signal?: AbortSignal): AsyncGenerator<Solution[]> {
  if (at === parts.length) {
    yield [binding];
    return;
  }
  if (at === parts.length - 1) {
    yield* evaluate(parts[at], binding, find, signal);
    return;
  }
  for await (const batch of evaluate(parts[at], binding, find, signal)) for (const s of batch) yield* join(parts, at + 1, s, find, signal);
}

/** Solutions of an OPTIONAL's right side per left solution, at most, that are found at once when its lookups are in memory (matchPatternsNow). */
const RIGHT_AT_ONCE = 256;

async function* optional(node: Extract<PlanNode, { type: 'optional' }>, binding: Solution, find: QuadFinder, signal?: AbortSignal): AsyncGenerator<Solution[]> {
  const { right } = node;
  for await (const batch of evaluate(node.left, binding, find, signal)) {
    const out: Solution[] = [];
    for (const left of batch) {
      let extended = false;
      const take = (solutions: readonly Solution[]) => {
        for (const s of solutions) {
          if (node.test && !node.test(s)) continue;
          extended = true;
          out.push(s);
        }
      };
      // in memory: the right side's few solutions at once, no generator or promise per left solution
      const now = right.type === 'patterns' ? matchPatternsNow(right.patterns, left, find, RIGHT_AT_ONCE, right.tests) : undefined;
      if (now) take(now);
      else for await (const solutions of evaluate(right, left, find, signal)) take(solutions);
      if (!extended) out.push(left);
    }
    yield out;
  }
}

async function* filter(node: Extract<PlanNode, { type: 'filter' }>, binding: Solution, find: QuadFinder, signal?: AbortSignal): AsyncGenerator<Solution[]> {
  for await (const batch of evaluate(node.input, binding, find, signal)) yield batch.filter((s) => node.tests.every((t) => t.test(s)));
}

/** Two solutions as one, or undefined when they disagree on a variable. */
function merge(a: Solution, b: Solution): Solution | undefined {
  let out = a;
  for (const v in b) {
    const seen = a[v];
    if (seen) {
      if (!seen.equals(b[v])) return undefined;
      continue;
    }
    if (out === a) out = { ...a };
    out[v] = b[v];
  }
  return out;
}

/**
 * GROUP BY's groups (one group without GROUP BY, even of no solutions), each with its aggregates.
 * Undefined when MIN or MAX meets what solution-order.ts leaves to the query engine (terms of
 * different kinds, language-tagged strings), or a solution that leaves its variable unbound.
 */
async function grouped(plan: StorePlan, batches: AsyncIterable<Solution[]> | Iterable<Solution[]>): Promise<Solution[] | undefined> {
  const { by, aggregates } = plan.group ?? { by: [], aggregates: [] };
  type Group = { first: Solution; n: number[]; seen: (Set<string> | undefined)[]; extreme: (RDF.Term | undefined)[] };
  const newGroup = (first: Solution): Group => ({
    first,
    n: aggregates.map(() => 0),
    seen: aggregates.map((a) => (a.kind === 'count' && a.distinct ? new Set<string>() : undefined)),
    extreme: aggregates.map(() => undefined),
  });
  const groups = new Map<string, Group>();
  for await (const batch of batches)
    for (const s of batch) {
      const key = solutionKey(s, by);
      let group = groups.get(key);
      if (!group) groups.set(key, (group = newGroup(s)));
      for (let i = 0; i < aggregates.length; i++) {
        const a = aggregates[i];
        const term = a.of === undefined ? undefined : s[a.of];
        if (a.kind !== 'count') {
          if (term?.termType !== 'Literal') return undefined;
          const extreme = group.extreme[i];
          if (!extreme) group.extreme[i] = term;
          else {
            const sorted = sortSolutions([{ v: extreme }, { v: term }], [{ variable: 'v', descending: a.kind === 'max' }]);
            if (!sorted) return undefined;
            group.extreme[i] = sorted[0].v;
          }
          continue;
        }
        if (a.of !== undefined && !term) continue; // COUNT(?x) counts the solutions binding ?x
        const seen = group.seen[i];
        if (!seen) group.n[i]++;
        else seen.add(term ? termKey(term) : solutionKey(s, Object.keys(s).sort()));
      }
    }
  if (groups.size === 0 && by.length === 0) groups.set('', newGroup({}));
  const out: Solution[] = [];
  for (const { first, n, seen, extreme } of groups.values()) {
    const row: Solution = {};
    for (const v of by) if (first[v]) row[v] = first[v];
    for (const [i, a] of aggregates.entries()) {
      const value = a.kind === 'count' ? literal(seen[i]?.size ?? n[i]) : extreme[i];
      if (value) row[a.as] = value;
    }
    out.push(row);
  }
  return out;
}

/** Solutions kept at most before the top-k of ORDER BY with LIMIT sorts and cuts again. */
const TOP_BUFFER = 256;

/**
 * The solutions in ORDER BY's order (an expression's error sorts as unbound); with `keep`, only
 * the first that many, sorted as they come (a top-k: memory and sorting for `keep` solutions, not
 * all). Undefined when a key holds terms solution-order.ts leaves to the query engine.
 */
async function ordered(batches: AsyncIterable<Solution[]> | Iterable<Solution[]>, order: OrderBy[], keep?: number): Promise<Solution[] | undefined> {
  const names = order.map((_, i) => `k${i}`);
  const keys = order.map((o, i) => ({ variable: names[i], descending: o.descending }));
  // literals of one key must be of one kind (numbers, or one datatype), across all solutions
  const kinds: (string | undefined)[] = order.map(() => undefined);
  const solutionOf = new WeakMap<Solution, Solution>();
  let buffer: Solution[] = [];
  const cut = (size: number): boolean => {
    const sorted = sortSolutions(buffer, keys);
    if (!sorted) return false;
    buffer = sorted.slice(0, size);
    return true;
  };
  for await (const batch of batches)
    for (const s of batch) {
      const key: Solution = {};
      for (const [i, o] of order.entries()) {
        const term = o.evaluate(s);
        if (!term) continue;
        if (term.termType === 'Literal') {
          const l = term as RDF.Literal;
          const kind = isNumericType(l.datatype.value) ? 'number' : `${l.datatype.value}@${l.language}`;
          if (kinds[i] !== undefined && kinds[i] !== kind) return undefined;
          kinds[i] = kind;
        }
        key[names[i]] = term;
      }
      solutionOf.set(key, s);
      buffer.push(key);
      if (keep !== undefined && buffer.length >= keep + TOP_BUFFER) {
        if (!cut(keep)) return undefined;
      }
    }
  if (!cut(keep ?? buffer.length)) return undefined;
  return buffer.map((k) => solutionOf.get(k) as Solution);
}

/** A CONSTRUCT's triples: the template filled by each solution (OFFSET and LIMIT count solutions), leaving out triples it cannot make. */
async function* construct(plan: StorePlan, solutions: AsyncIterable<Solution> | Iterable<Solution>): AsyncGenerator<RDF.Quad> {
  if (plan.limit === 0) return;
  let skipped = 0;
  let given = 0;
  for await (const s of solutions) {
    if (skipped < plan.offset) {
      skipped++;
      continue;
    }
    for (const t of plan.template) {
      const [subject, predicate, object] = t.map((p) => (p.termType === 'Variable' ? s[p.value] : p));
      if (!subject || !predicate || !object || subject.termType === 'Literal' || predicate.termType !== 'NamedNode') continue;
      yield df.quad(subject as RDF.Quad_Subject, predicate, object as RDF.Quad_Object);
    }
    if (plan.limit !== undefined && ++given >= plan.limit) return;
  }
}

/** DESCRIBE of IRIs: the triples with each as subject, in the default graph (as the query engine describes over this store). */
async function* describe(resources: RDF.NamedNode[], find: QuadFinder, signal?: AbortSignal): AsyncGenerator<RDF.Quad> {
  const [p, o] = [df.variable(' p'), df.variable(' o')];
  for (const r of resources) {
    const pattern: QuadPattern = [r, p, o, undefined];
    for await (const s of matchPatterns([pattern], {}, find, signal)) yield df.quad(r, s[p.value] as RDF.Quad_Predicate, s[o.value] as RDF.Quad_Object);
  }
}
