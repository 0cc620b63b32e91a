import type * as RDF from '@rdfjs/types';
import type sparqljs from 'sparqljs';
import { df } from '../../rdf/namespaces.ts';
import { DEFAULT_GRAPH_IRI, type GraphRestriction } from '../triple-store.ts';
import { exactDatatypes, toServer } from './literal-transport.ts';

/** Names of the variables the rewrite adds (never seen by callers). */
export const HIDDEN_VARIABLE_PREFIX = 'tg_hidden_';

type Pattern = sparqljs.Pattern;
type Expression = sparqljs.Expression;

/**
 * Rewrites a SPARQL query for a remote store so that it means what it means on the embedded
 * one, whatever the server's own default-graph semantics:
 * - the default graph is the union of all named graphs (the unnamed default graph is stored as
 *   the named graph `urn:toxgraph:default-graph`): each triple pattern outside GRAPH becomes
 *   `GRAPH ?hidden { pattern }`;
 * - FROM / FROM NAMED (and the protocol's default-graph-uri / named-graph-uri) become filters
 *   on those graph variables;
 * - a restriction (the caller's graph scope) filters every graph a pattern can read.
 * Blank nodes of query patterns become variables (a pattern split across GRAPH blocks may not
 * share blank-node labels). `SELECT *` is projected on the query's own variables so the hidden
 * ones never show. A property path stays inside one graph (a path across graphs of the union
 * is not followed).
 */
export function rewriteForUnionGraph(query: sparqljs.Query, restriction?: GraphRestriction, dataset?: { default: string[]; named: string[] }): sparqljs.Query {
  let counter = 0;
  const fresh = () => df.variable(`${HIDDEN_VARIABLE_PREFIX}${counter++}`) as sparqljs.VariableTerm;

  const datasetOf = (q: { from?: { default: sparqljs.IriTerm[]; named: sparqljs.IriTerm[] } }) => {
    if (dataset && (dataset.default.length || dataset.named.length)) return dataset;
    if (q.from && (q.from.default.length || q.from.named.length)) return { default: q.from.default.map((t) => t.value), named: q.from.named.map((t) => t.value) };
    return undefined;
  };

  const rewriteQuery = <Q extends sparqljs.Query>(q: Q, outer?: { default: string[]; named: string[] }, inGraph = false): Q => {
    const own = datasetOf(q) ?? outer;
    const out = { ...q } as sparqljs.Query;
    delete out.from;
    if (out.where) out.where = rewritePatterns(out.where, own, inGraph);
    // expressions outside the pattern see stored numbers as numbers too
    if (out.queryType === 'SELECT') {
      out.variables = out.variables.map((v) => ('expression' in v && v.expression ? { ...v, expression: rewriteExpression(v.expression, own, false) } : v)) as typeof out.variables;
      if (out.having) out.having = out.having.map((e) => rewriteExpression(e, own, false));
      if (out.order) out.order = out.order.map((o) => ({ ...o, expression: rewriteExpression(o.expression, own, false) }));
    }
    if (out.queryType === 'SELECT' && out.variables.length === 1 && 'termType' in out.variables[0] && out.variables[0].termType === 'Wildcard') {
      const names = [...visibleVariables(q.where ?? [])];
      out.variables = (names.length ? names.map((n) => df.variable(n)) : [df.variable(`${HIDDEN_VARIABLE_PREFIX}none`)]) as sparqljs.Variable[];
    }
    return out as Q;
  };

  /** The filter a graph term must pass (or undefined when every graph may be read). */
  const graphFilter = (graph: sparqljs.VariableTerm, allowedByDataset?: string[]): Expression | undefined => {
    const conditions: Expression[] = [];
    const inList = (list: readonly string[], negate: boolean): Expression => ({
      type: 'operation',
      operator: negate ? 'notin' : 'in',
      args: [graph, list.map((g) => df.namedNode(g)) as unknown as Expression],
    });
    const allow = intersect(allowedByDataset, restriction?.allow);
    if (allow) conditions.push(allow.length ? inList(allow, false) : { type: 'operation', operator: 'sameterm', args: [graph, df.namedNode('urn:toxgraph:no-graph')] });
    if (restriction?.deny?.length) conditions.push(inList(restriction.deny, true));
    for (const prefix of restriction?.denyPrefixes ?? [])
      conditions.push({
        type: 'operation',
        operator: '!',
        args: [{ type: 'operation', operator: 'strstarts', args: [{ type: 'operation', operator: 'str', args: [graph] }, df.literal(prefix) as sparqljs.LiteralTerm] }],
      });
    if (!conditions.length) return undefined;
    return conditions.reduce((a, b) => ({ type: 'operation', operator: '&&', args: [a, b] }));
  };

  const graphAllowed = (iri: string, allowedByDataset?: string[]): boolean => {
    const allow = intersect(allowedByDataset, restriction?.allow);
    if (allow && !allow.includes(iri)) return false;
    if (restriction?.deny?.includes(iri)) return false;
    return !(restriction?.denyPrefixes ?? []).some((p) => iri.startsWith(p));
  };

  const nothing = (): Pattern => ({ type: 'filter', expression: df.literal('false', df.namedNode('http://www.w3.org/2001/XMLSchema#boolean')) as sparqljs.LiteralTerm });

  const rewritePatterns = (patterns: Pattern[], ds: { default: string[]; named: string[] } | undefined, inGraph = false): Pattern[] => patterns.flatMap((p) => rewritePattern(p, ds, inGraph));

  const rewritePattern = (p: Pattern, ds: { default: string[]; named: string[] } | undefined, inGraph: boolean): Pattern[] => {
    switch (p.type) {
      case 'bgp': {
        const triples = p.triples.map(forServer);
        if (inGraph) return [{ type: 'bgp', triples }];
        return triples.map((t): Pattern => {
          const g = fresh();
          const filter = graphFilter(g, ds?.default);
          const graph: Pattern = { type: 'graph', name: g, patterns: [{ type: 'bgp', triples: [t] }] };
          return filter ? { type: 'group', patterns: [graph, { type: 'filter', expression: filter }] } : graph;
        });
      }
      case 'graph': {
        const inner = rewritePatterns(p.patterns, ds, true);
        if (p.name.termType === 'NamedNode') return graphAllowed(p.name.value, ds?.named) ? [{ ...p, patterns: inner }] : [nothing()];
        // GRAPH ?g ranges over the named graphs: not over the default graph, which the server holds as a named graph
        const named: Expression = { type: 'operation', operator: '!=', args: [p.name, df.namedNode(DEFAULT_GRAPH_IRI)] };
        const filter = graphFilter(p.name, ds?.named);
        // the filter stands beside GRAPH, not in it: inside, ?g is not bound yet (SPARQL joins the graph name after evaluating the inner pattern)
        return [
          {
            type: 'group',
            patterns: [
              { ...p, patterns: inner },
              { type: 'filter', expression: filter ? { type: 'operation', operator: '&&', args: [named, filter] } : named },
            ],
          },
        ];
      }
      case 'group':
      case 'optional':
      case 'minus':
        return [{ ...p, patterns: rewritePatterns(p.patterns, ds, inGraph) }];
      case 'union':
        return [{ ...p, patterns: p.patterns.map((x) => rewritePattern(x, ds, inGraph)).map((x) => (x.length === 1 ? x[0] : { type: 'group', patterns: x })) }];
      case 'filter':
        return [{ ...p, expression: rewriteExpression(p.expression, ds, inGraph) }];
      case 'bind':
        return [{ ...p, expression: rewriteExpression(p.expression, ds, inGraph) }];
      case 'query':
        // a subquery inside GRAPH reads that graph, not the union
        return [rewriteQuery(p, ds, inGraph) as unknown as Pattern];
      case 'values':
        return [{ ...p, values: p.values.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v ? toServer(v) : v]))) as typeof p.values }];
      default:
        return [p]; // SERVICE is refused before a rewrite
    }
  };

  const rewriteExpression = (e: Expression, ds: { default: string[]; named: string[] } | undefined, inGraph: boolean): Expression => {
    if (!e || typeof e !== 'object' || Array.isArray(e)) return Array.isArray(e) ? (e.map((x) => rewriteExpression(x as Expression, ds, inGraph)) as unknown as Expression) : e;
    if ('termType' in e && e.termType === 'Variable') return asNumber(e as sparqljs.VariableTerm);
    if ('type' in e && e.type === 'operation') {
      if (e.operator === 'exists' || e.operator === 'notexists')
        return { ...e, args: e.args.map((a) => (isPattern(a) ? ({ type: 'group', patterns: rewritePattern(a as Pattern, ds, inGraph) } as Pattern) : a)) };
      if (e.operator === 'bound') return e;
      return { ...e, args: e.args.map((a) => rewriteExpression(a as Expression, ds, inGraph)) };
    }
    if ('type' in e && e.type === 'functionCall') return { ...e, args: e.args.map((a) => rewriteExpression(a, ds, inGraph)) };
    if ('type' in e && e.type === 'aggregate') return { ...e, expression: rewriteExpression(e.expression as Expression, ds, inGraph) } as Expression;
    return e;
  };

  return rewriteQuery(query);
}

function isPattern(x: unknown): boolean {
  return (
    typeof x === 'object' && x !== null && 'type' in x && ['group', 'bgp', 'graph', 'optional', 'union', 'minus', 'filter', 'bind', 'values', 'query', 'service'].includes((x as { type: string }).type)
  );
}

function intersect(a?: readonly string[], b?: readonly string[]): string[] | undefined {
  if (!a) return b ? [...b] : undefined;
  if (!b) return [...a];
  const set = new Set(b);
  return a.filter((x) => set.has(x));
}

/** Blank nodes of a query pattern act as variables; as variables they may span GRAPH blocks. */
/** A triple pattern as the server holds it: blank nodes as variables, literals in their stored form. */
function forServer(t: sparqljs.Triple): sparqljs.Triple {
  const swap = <T>(term: T): T => ((term as RDF.Term)?.termType === 'BlankNode' ? (df.variable(`${HIDDEN_VARIABLE_PREFIX}b_${(term as RDF.Term).value.replace(/[^A-Za-z0-9_]/g, '_')}`) as T) : term);
  const object = swap(t.object);
  return { subject: swap(t.subject), predicate: t.predicate, object: (object as RDF.Term).termType === 'Literal' ? toServer(object as RDF.Literal) : object } as sparqljs.Triple;
}

/** A variable in an expression: a stored exact number (literal-transport.ts) becomes its number again. */
function asNumber(v: sparqljs.VariableTerm): Expression {
  let e: Expression = v;
  for (const [stored, original] of exactDatatypes())
    e = {
      type: 'operation',
      operator: 'if',
      args: [
        { type: 'operation', operator: '=', args: [{ type: 'operation', operator: 'datatype', args: [v] }, df.namedNode(stored)] },
        { type: 'functionCall', function: df.namedNode(original), args: [{ type: 'operation', operator: 'str', args: [v] }], distinct: false },
        e,
      ],
    };
  // DATATYPE fails on IRIs and blank nodes: then the variable as it is
  return { type: 'operation', operator: 'coalesce', args: [e, v] };
}

/** The variables `SELECT *` projects: those of the patterns (not inside FILTER, MINUS or subqueries that do not project them). */
function visibleVariables(patterns: Pattern[], out = new Set<string>()): Set<string> {
  const add = (t: unknown) => {
    const term = t as RDF.Term | undefined;
    if (term?.termType === 'Variable') out.add(term.value);
    else if (term && (term as { type?: string }).type === 'path') for (const item of (term as unknown as { items: unknown[] }).items) add(item);
  };
  for (const p of patterns) {
    switch (p.type) {
      case 'bgp':
        for (const t of p.triples) [t.subject, t.predicate, t.object].forEach(add);
        break;
      case 'graph':
        add(p.name);
        visibleVariables(p.patterns, out);
        break;
      case 'group':
      case 'optional':
      case 'union':
        visibleVariables(p.patterns, out);
        break;
      case 'bind':
        add(p.variable);
        break;
      case 'values':
        for (const row of p.values) for (const k of Object.keys(row)) out.add(k.replace(/^\?/, ''));
        break;
      case 'service':
        add(p.name);
        visibleVariables(p.patterns, out);
        break;
      case 'query':
        for (const v of p.variables) {
          if ('termType' in v && v.termType === 'Variable') out.add(v.value);
          else if ('variable' in v) out.add(v.variable.value);
          else visibleVariables(p.where ?? [], out);
        }
        break;
      default:
        break;
    }
  }
  return out;
}
