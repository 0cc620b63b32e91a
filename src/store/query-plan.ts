import type * as RDF from '@rdfjs/types';
import { df } from '../rdf/namespaces.ts';
import { position, triple, type PatternTest, type Position, type QuadPattern, type TriplePattern } from './graph-pattern-query.ts';
import { compileExpression, compileFilter, expressionVariables, type Evaluate } from './sparql-expressions.ts';
import type { Solution } from './triple-store.ts';

/**
 * The queries SPARQL clients send, compiled for the store's own evaluator (plan-evaluator.ts): a
 * small algebra of its own, made of sparqljs's parse once per parsed query.
 *
 * - `patterns`: quad patterns joined (basic graph patterns of the default graph, the union of the
 *   graphs the caller may see, and of `GRAPH <iri>` / `GRAPH ?g`, named graphs only);
 * - `values`: inline data (VALUES, UNDEF left unbound);
 * - `join` of a group's parts in their order, `optional` (a left join, its FILTER its condition),
 *   `filter` (a group's FILTERs, over the whole group; each conjunct is moved to where its
 *   variables are first bound for certain, into the index lookups when it can);
 * and above them grouping with COUNT, MIN and MAX, ORDER BY, projection, DISTINCT, OFFSET and
 * LIMIT, or a CONSTRUCT template, an ASK, a DESCRIBE of IRIs.
 *
 * Parts are evaluated by substitution (each part sees the bindings of those before it: index
 * lookups with those terms bound), which is the algebra's bottom-up join only where no FILTER or
 * OPTIONAL inside a part could see a variable bound outside it that the part itself may leave
 * unbound; a query where it could (rare: nested OPTIONALs, FILTERs in nested groups over outer
 * variables) is not compiled. Neither is anything else: paths, UNION, MINUS, BIND, subqueries,
 * SERVICE, FROM, HAVING, expressions in SELECT, aggregates other than COUNT, MIN and MAX of a
 * variable: storePlan answers undefined and the query goes to the query engine.
 */
export type PlanNode =
  | { type: 'patterns'; patterns: QuadPattern[]; tests?: PatternTest[] }
  | { type: 'values'; rows: Solution[] }
  | { type: 'join'; parts: PlanNode[] }
  | { type: 'optional'; left: PlanNode; right: PlanNode; test?: (s: Solution) => boolean; reads: Set<string> }
  | { type: 'filter'; input: PlanNode; tests: PatternTest[]; reads: Set<string> };

/** `(COUNT([DISTINCT] *|?v) AS ?as)`, `(MIN(?v) AS ?as)`, `(MAX(?v) AS ?as)`. */
export interface Aggregate {
  kind: 'count' | 'min' | 'max';
  as: string;
  of?: string;
  distinct: boolean;
}

export interface OrderBy {
  evaluate: Evaluate;
  descending: boolean;
}

export interface StorePlan {
  form: 'select' | 'construct' | 'ask' | 'describe';
  where: PlanNode;
  /** Projected variables (SELECT). */
  variables: string[];
  distinct: boolean;
  /** GROUP BY variables (none: one group) and the aggregates of each group. */
  group?: { by: string[]; aggregates: Aggregate[] };
  order?: OrderBy[];
  limit?: number;
  offset: number;
  /** CONSTRUCT's template. */
  template: TriplePattern[];
  /** DESCRIBE's resources. */
  describe: RDF.NamedNode[];
}

/** Compiled plans, by the parse they were made of (parses are kept and never changed: parsed-query.ts). */
const plans = new WeakMap<object, StorePlan | null>();

/** The plan of a parsed query (sparqljs), made once per parse; undefined when the evaluator does not take its shape. */
export function storePlan(parsed: any): StorePlan | undefined {
  if (!parsed || typeof parsed !== 'object') return undefined;
  let plan = plans.get(parsed);
  if (plan === undefined) {
    plan = compileQuery(parsed) ?? null;
    plans.set(parsed, plan);
  }
  return plan ?? undefined;
}

/** A compiled part and the variables it binds in every solution (`certain`) and in some (`maybe`). */
interface Part {
  node: PlanNode;
  certain: Set<string>;
  maybe: Set<string>;
}

/** Blank nodes of the query are variables no solution shows (a name no SPARQL variable can have). */
const BLANK = ' blank ';
const blankVariable = (label: string) => df.variable(`${BLANK}${label}`);
export const isBlankVariable = (name: string) => name.startsWith(BLANK);

class Unsupported extends Error {}
const unsupported = (): never => {
  throw new Unsupported();
};

function compileQuery(parsed: any): StorePlan | undefined {
  try {
    return compileQueryOrThrow(parsed);
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

function compileQueryOrThrow(parsed: any): StorePlan {
  if (parsed.type !== 'query' || parsed.from || parsed.having || parsed.reduced) unsupported();
  const form = ({ SELECT: 'select', CONSTRUCT: 'construct', ASK: 'ask', DESCRIBE: 'describe' } as const)[parsed.queryType as string];
  if (!form) return unsupported();
  const plan: StorePlan = { form, where: { type: 'join', parts: [] }, variables: [], distinct: !!parsed.distinct, limit: parsed.limit, offset: parsed.offset ?? 0, template: [], describe: [] };
  if (form === 'describe') {
    // DESCRIBE <iri> …: the triples with each as subject, in the default graph (what the engine answers)
    if (parsed.where?.length || parsed.values || parsed.order || parsed.limit !== undefined || parsed.offset !== undefined) unsupported();
    for (const v of parsed.variables) {
      if (v.termType !== 'NamedNode') unsupported();
      plan.describe.push(df.namedNode(v.value));
    }
    return plan;
  }
  let where = compileGroup(parsed.where ?? [], undefined);
  if (parsed.values) {
    // VALUES after the query: joined with the WHERE clause, first when the WHERE clause may see its bindings
    const values = valuesPart(parsed.values, undefined);
    where = safe(where.node, values.maybe) ? joinParts([values, where]) : joinParts([where, values]);
  }
  if (!safe(where.node, new Set())) unsupported();
  plan.where = pushFilters(where.node);
  const inScope = [...where.maybe].filter((v) => !isBlankVariable(v));
  if (form === 'ask') return plan;
  if (form === 'construct') {
    if (parsed.order) unsupported();
    for (const t of parsed.template ?? []) plan.template.push(triple(t) ?? unsupported());
    return plan;
  }
  const projected = parsed.variables as any[];
  const aggregated = parsed.group || projected.some((v) => v.expression);
  if (!aggregated) {
    plan.variables = projected.length === 1 && projected[0].termType === 'Wildcard' ? inScope : projected.map((v) => (v.termType === 'Variable' ? v.value : unsupported()));
  } else {
    const by: string[] = [];
    for (const g of parsed.group ?? []) {
      if (g.expression?.termType !== 'Variable' || g.variable) unsupported();
      by.push(g.expression.value);
    }
    const aggregates: Aggregate[] = [];
    for (const v of projected) {
      if (v.termType === 'Variable') {
        if (!by.includes(v.value)) unsupported();
        plan.variables.push(v.value);
        continue;
      }
      const { expression, variable } = v;
      const kind = expression?.aggregation;
      if (expression?.type !== 'aggregate' || !['count', 'min', 'max'].includes(kind) || !variable) unsupported();
      const of = expression.expression;
      if (of.termType === 'Wildcard' && expression.distinct && [...where.maybe].some(isBlankVariable)) unsupported();
      if (!(of.termType === 'Variable' || (of.termType === 'Wildcard' && kind === 'count'))) unsupported();
      aggregates.push({ kind, as: variable.value, of: of.termType === 'Variable' ? of.value : undefined, distinct: !!expression.distinct });
      plan.variables.push(variable.value);
    }
    plan.group = { by, aggregates };
  }
  if (parsed.order) {
    // after grouping, keys may read only what the groups have
    const visible = plan.group ? new Set([...plan.group.by, ...plan.group.aggregates.map((a) => a.as)]) : undefined;
    plan.order = parsed.order.map((o: any) => {
      if (visible && [...expressionVariables(o.expression)].some((v) => !visible.has(v))) unsupported();
      return { evaluate: compileExpression(o.expression) ?? unsupported(), descending: !!o.descending };
    });
  }
  return plan;
}

/**
 * A group graph pattern (`{ … }`) in a graph context: `graph` undefined for the default graph,
 * else the IRI or variable of the GRAPH it is in.
 */
function compileGroup(items: any[], graph: Position | undefined): Part {
  const parts: Part[] = [];
  const filters: any[] = [];
  const add = (part: Part) => {
    const last = parts.at(-1);
    // quad patterns next to each other are one part: the lookups pick the best of all of them
    if (last?.node.type === 'patterns' && part.node.type === 'patterns') {
      parts[parts.length - 1] = {
        node: { type: 'patterns', patterns: [...last.node.patterns, ...part.node.patterns] },
        certain: union(last.certain, part.certain),
        maybe: union(last.maybe, part.maybe),
      };
    } else parts.push(part);
  };
  for (const item of items) {
    switch (item.type) {
      case 'bgp': {
        const patterns: QuadPattern[] = item.triples.map((t: any) => [...(triple(t, blankVariable) ?? unsupported()), graph] as QuadPattern);
        if (patterns.length) add(patternsPart(patterns));
        break;
      }
      case 'graph': {
        if (graph !== undefined) unsupported(); // GRAPH inside GRAPH
        const name = position(item.name) ?? unsupported();
        const inner = compileGroup(item.patterns, name);
        if (inner.node.type === 'join' && inner.node.parts.length === 0) unsupported();
        // the variable is bound by the inner group's patterns, never read before (17.4: GRAPH ?g
        // evaluates its group in each named graph, then binds ?g)
        if (name.termType === 'Variable' && (!inner.certain.has(name.value) || readsGraphVariable(inner.node, name.value))) unsupported();
        add(inner);
        break;
      }
      case 'group':
        add(compileGroup(item.patterns, graph));
        break;
      case 'values':
        add(valuesPart(item.values, graph));
        break;
      case 'optional': {
        const inner = item.patterns.filter((p: any) => p.type !== 'filter');
        const conditions = item.patterns.filter((p: any) => p.type === 'filter').map((p: any) => p.expression);
        const right = compileGroup(inner, graph);
        const left = joinParts(parts.splice(0));
        const test = conditions.length ? (compileFilter(conditions) ?? unsupported()) : undefined;
        const read = new Set<string>();
        for (const c of conditions) expressionVariables(c, read);
        parts.push({ node: { type: 'optional', left: left.node, right: right.node, test, reads: read }, certain: left.certain, maybe: union(left.maybe, right.maybe) });
        break;
      }
      case 'filter':
        filters.push(item.expression);
        break;
      default:
        unsupported();
    }
  }
  const joined = joinParts(parts);
  if (!filters.length) return joined;
  // one test per conjunct of the FILTERs: each is checked as early as its variables are bound (pushFilters)
  const tests = filters.flatMap(conjuncts).map((c) => ({ variables: [...expressionVariables(c)], test: compileFilter([c]) ?? unsupported() }));
  const reads = new Set(tests.flatMap((t) => t.variables));
  return { node: { type: 'filter', input: joined.node, tests, reads }, certain: joined.certain, maybe: joined.maybe };
}

function patternsPart(patterns: QuadPattern[]): Part {
  const vars = new Set<string>();
  for (const p of patterns) for (const t of p) if (t?.termType === 'Variable') vars.add(t.value);
  return { node: { type: 'patterns', patterns }, certain: vars, maybe: vars };
}

function valuesPart(values: any[], graph: Position | undefined): Part {
  const rows: Solution[] = [];
  const maybe = new Set<string>();
  for (const row of values) {
    const solution: Solution = {};
    for (const [key, term] of Object.entries(row) as [string, any][]) {
      const name = key.replace(/^\?/, '');
      maybe.add(name);
      if (term) solution[name] = df.fromTerm(term) as RDF.Term;
    }
    rows.push(solution);
  }
  if (graph?.termType === 'Variable' && maybe.has(graph.value)) unsupported();
  const certain = new Set([...maybe].filter((v) => rows.every((r) => r[v])));
  return { node: { type: 'values', rows }, certain, maybe };
}

function joinParts(parts: Part[]): Part {
  if (parts.length === 1) return parts[0];
  let certain = new Set<string>();
  let maybe = new Set<string>();
  for (const p of parts) {
    certain = union(certain, p.certain);
    maybe = union(maybe, p.maybe);
  }
  return { node: { type: 'join', parts: parts.map((p) => p.node) }, certain, maybe };
}

function union(a: Set<string>, b: Set<string>): Set<string> {
  return new Set([...a, ...b]);
}

/** What a node binds in every solution, and in some. */
function bindsOf(node: PlanNode): { certain: Set<string>; maybe: Set<string> } {
  switch (node.type) {
    case 'patterns':
      return patternsPart(node.patterns);
    case 'values': {
      const maybe = new Set(node.rows.flatMap((r) => Object.keys(r)));
      return { maybe, certain: new Set([...maybe].filter((v) => node.rows.every((r) => r[v]))) };
    }
    case 'join': {
      const all = node.parts.map(bindsOf);
      return { certain: new Set(all.flatMap((b) => [...b.certain])), maybe: new Set(all.flatMap((b) => [...b.maybe])) };
    }
    case 'optional': {
      const left = bindsOf(node.left);
      return { certain: left.certain, maybe: union(left.maybe, bindsOf(node.right).maybe) };
    }
    case 'filter':
      return bindsOf(node.input);
  }
}

/** Every variable a node binds or reads. */
function mentionedBy(node: PlanNode): Set<string> {
  switch (node.type) {
    case 'patterns':
    case 'values':
      return bindsOf(node).maybe;
    case 'join':
      return new Set(node.parts.flatMap((p) => [...mentionedBy(p)]));
    case 'optional':
      return new Set([...mentionedBy(node.left), ...mentionedBy(node.right), ...node.reads]);
    case 'filter':
      return union(mentionedBy(node.input), node.reads);
  }
}

/**
 * Whether evaluating `node` with the bindings of `outer` (variables bound by what comes before
 * it) substituted gives the algebra's join of the two: a FILTER or OPTIONAL in it must not see an
 * outer variable that the node itself may leave unbound there.
 */
function safe(node: PlanNode, outer: Set<string>): boolean {
  switch (node.type) {
    case 'patterns':
    case 'values':
      return true;
    case 'join': {
      let seen = outer;
      for (const part of node.parts) {
        if (!safe(part, seen)) return false;
        seen = union(seen, bindsOf(part).maybe);
      }
      return true;
    }
    case 'filter': {
      const certain = bindsOf(node.input).certain;
      return safe(node.input, outer) && [...node.reads].every((v) => !outer.has(v) || certain.has(v));
    }
    case 'optional': {
      const left = bindsOf(node.left);
      if (!safe(node.left, outer) || !safe(node.right, union(outer, left.maybe))) return false;
      return [...mentionedBy(node.right), ...node.reads].every((v) => !outer.has(v) || left.certain.has(v));
    }
  }
}

/** Whether a FILTER or an OPTIONAL's condition inside reads the graph variable (unbound there in the algebra). */
function readsGraphVariable(node: PlanNode, name: string): boolean {
  switch (node.type) {
    case 'join':
      return node.parts.some((p) => readsGraphVariable(p, name));
    case 'optional':
      return node.reads.has(name) || readsGraphVariable(node.left, name) || readsGraphVariable(node.right, name);
    case 'filter':
      return node.reads.has(name) || readsGraphVariable(node.input, name);
    default:
      return false;
  }
}

/** The operands of a conjunction (a FILTER keeps a solution when each is true), or the expression itself. */
function conjuncts(e: any): any[] {
  return e?.type === 'operation' && e.operator === '&&' && e.args.length === 2 ? [...conjuncts(e.args[0]), ...conjuncts(e.args[1])] : [e];
}

/**
 * The plan with each FILTER test moved to where its variables are first bound for certain: into
 * the index lookups of quad patterns (checked as soon as a quad binds them), or onto the left of
 * an OPTIONAL. A filtered group keeps a solution only if each test is true, and the parts after
 * that point only extend solutions, so cutting them early answers the same.
 */
function pushFilters(node: PlanNode): PlanNode {
  switch (node.type) {
    case 'join':
      return { ...node, parts: node.parts.map(pushFilters) };
    case 'optional':
      return { ...node, left: pushFilters(node.left), right: pushFilters(node.right) };
    case 'filter': {
      let input = pushFilters(node.input);
      const kept: PatternTest[] = [];
      for (const t of node.tests) {
        const pushed = pushTest(input, t, new Set());
        if (pushed) input = pushed;
        else kept.push(t);
      }
      return kept.length ? { ...node, input, tests: kept } : input;
    }
    default:
      return node;
  }
}

/** `node` checking `t` as early as it can, given the variables bound for certain before it; undefined when `t` may read a variable the node leaves unbound. */
function pushTest(node: PlanNode, t: PatternTest, before: Set<string>): PlanNode | undefined {
  const certain = bindsOf(node).certain;
  if (!t.variables.every((v) => before.has(v) || certain.has(v))) return undefined;
  const wrapped = (input: PlanNode): PlanNode => ({ type: 'filter', input, tests: [t], reads: new Set(t.variables) });
  switch (node.type) {
    case 'patterns':
      return { ...node, tests: [...(node.tests ?? []), t] };
    case 'join': {
      let seen = before;
      for (const [i, part] of node.parts.entries()) {
        const pushed = pushTest(part, t, seen);
        if (pushed) return { ...node, parts: node.parts.map((p, j) => (j === i ? pushed : p)) };
        seen = union(seen, bindsOf(part).certain);
      }
      return wrapped(node);
    }
    case 'optional':
      return { ...node, left: pushTest(node.left, t, before) ?? wrapped(node.left) };
    case 'filter':
      return { ...node, input: pushTest(node.input, t, before) ?? wrapped(node.input) };
    case 'values':
      return wrapped(node);
  }
}
