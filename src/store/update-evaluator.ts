import type * as RDF from '@rdfjs/types';
import { randomBytes } from 'node:crypto';
import { df } from '../rdf/namespaces.ts';
import type { Position, QuadFinder, QuadStream } from './graph-pattern-query.ts';
import { parsedQuery } from './parsed-query.ts';
import { selectPlan } from './plan-evaluator.ts';
import { storePlan, type PlanNode, type StorePlan } from './query-plan.ts';
import { DEFAULT_GRAPH_IRI, type Solution } from './triple-store.ts';

/**
 * SPARQL 1.1 Update evaluated by the store itself, for the operations its services send: INSERT
 * DATA, DELETE DATA, DELETE WHERE and DELETE/INSERT … WHERE (templates in the default graph, in
 * `GRAPH <iri>` or `GRAPH ?g`; the WHERE compiled by query-plan.ts), in sequences separated by `;`.
 * Each operation computes all the solutions of its WHERE over the store as changed by the
 * operations before it, then deletes, then inserts (SPARQL 1.1 Update 3.1.3). A template triple
 * with an unbound variable, or that would not be RDF (a literal subject, a predicate that is no
 * IRI, a graph that is no IRI), is left out; blank nodes of an INSERT template are new ones for
 * each solution, never seen in the store before.
 *
 * Anything else (LOAD, CLEAR, DROP, CREATE, ADD, MOVE, COPY, WITH, USING, a BASE in the text, the
 * default graph named by its IRI, a WHERE the store's plans do not take, a text that does not
 * parse): storeUpdate answers undefined and the request goes to the query engine whole.
 */
export interface StoreUpdate {
  operations: UpdateOperation[];
}

/** A quad of a template: undefined graph for the default graph. */
type TemplateQuad = [Position, Position, Position, Position | undefined];

/** One operation: delete the templates' quads, then insert, for each solution of `where` (none: the one empty solution). */
export interface UpdateOperation {
  where?: StorePlan;
  /** `where` with its default graph the unnamed graph (see inUnnamedGraph); undefined when it cannot be written so. */
  whereInUnnamedGraph?: StorePlan;
  delete: TemplateQuad[];
  insert: TemplateQuad[];
}

/** What an update changes: the store seen with the changes so far, and the changes (pending-changes.ts). */
export interface UpdateTarget {
  match(s?: RDF.Term | null, p?: RDF.Term | null, o?: RDF.Term | null, g?: RDF.Term | null): unknown;
  deleteQuads(quads: RDF.Quad[]): Promise<void>;
  insertQuads(quads: RDF.Quad[]): Promise<void>;
}

/** Compiled updates, by the parse they were made of (parses are kept and never changed: parsed-query.ts). */
const compiled = new WeakMap<object, StoreUpdate | null>();

/** `BASE <…>` in a text (or something that looks like it, in a literal: then the query engine's too). */
const BASE_DECLARATION = /(^|[^\w:-])base\s*</i;

/** How an update is evaluated: the base IRI of its text, and whether the default graph of a WHERE is the union of all graphs. */
export interface UpdateDataset {
  baseIri?: string;
  unionDefaultGraph: boolean;
}

/** The update text as the store evaluates it; undefined when it goes to the query engine. */
export function storeUpdate(text: string, dataset: UpdateDataset): StoreUpdate | undefined {
  // the default graph by its IRI, the marker of the unnamed graph below, BASE: the query engine's
  if (text.includes(DEFAULT_GRAPH_IRI) || text.includes(DEFAULT_MARK.value) || BASE_DECLARATION.test(text)) return undefined;
  const update = compiledUpdate(parsedQuery(text, dataset.baseIri));
  if (!update || (!dataset.unionDefaultGraph && update.operations.some((op) => op.where && !op.whereInUnnamedGraph))) return undefined;
  return update;
}

/** A parsed update (sparqljs) as the store evaluates it, made once per parse; undefined when it goes to the query engine. */
export function compiledUpdate(parsed: any): StoreUpdate | undefined {
  if (!parsed || typeof parsed !== 'object' || parsed.type !== 'update') return undefined;
  let update = compiled.get(parsed);
  if (update === undefined) {
    update = compileUpdate(parsed) ?? null;
    compiled.set(parsed, update);
  }
  return update ?? undefined;
}

/** Whether the store evaluates this update text itself (see storeUpdate). */
export function takesUpdate(text: string, dataset: UpdateDataset = { unionDefaultGraph: true }): boolean {
  return storeUpdate(text, dataset) !== undefined;
}

class Unsupported extends Error {}
const unsupported = (): never => {
  throw new Unsupported();
};

function compileUpdate(parsed: any): StoreUpdate | undefined {
  try {
    return { operations: (parsed.updates as any[]).map(compileOperation) };
  } catch (e) {
    if (e instanceof Unsupported) return undefined;
    throw e;
  }
}

function compileOperation(op: any): UpdateOperation {
  switch (op.updateType) {
    case 'insert':
      only(op, ['updateType', 'insert']);
      return { delete: [], insert: template(op.insert, true) };
    case 'delete':
      only(op, ['updateType', 'delete']);
      return { delete: template(op.delete, false), insert: [] };
    case 'deletewhere': {
      only(op, ['updateType', 'delete']);
      // its quad patterns are its WHERE too
      const where = (op.delete as any[]).map((item) => (item.type === 'graph' ? { type: 'graph', name: item.name, patterns: [{ type: 'bgp', triples: item.triples }] } : item));
      return { ...wherePlans(where), delete: template(op.delete, false), insert: [] };
    }
    case 'insertdelete':
      // WITH (`graph`) and USING (`using`) change the dataset: the query engine's
      only(op, ['updateType', 'insert', 'delete', 'where']);
      return { ...wherePlans(op.where ?? []), delete: template(op.delete ?? [], false), insert: template(op.insert ?? [], true) };
    default:
      return unsupported(); // LOAD, CLEAR, DROP, CREATE, ADD, MOVE, COPY
  }
}

/** Refuse an operation with fields this evaluator does not know (a later parser's). */
function only(op: object, keys: string[]): void {
  for (const [k, v] of Object.entries(op)) if (v !== undefined && !keys.includes(k)) unsupported();
}

/** The WHERE as a SELECT * the store's plans take (query-plan.ts), or unsupported; and the same over the unnamed default graph. */
function wherePlans(where: any[]): Pick<UpdateOperation, 'where' | 'whereInUnnamedGraph'> {
  const plan = storePlan({ type: 'query', queryType: 'SELECT', variables: [{ termType: 'Wildcard' }], where, prefixes: {} }) ?? unsupported();
  const unnamed = inUnnamedGraph(plan.where);
  return { where: plan, whereInUnnamedGraph: unnamed && { ...plan, where: unnamed } };
}

/** A template's quads; blank nodes are refused in DELETE (a syntax error the query engine reports). */
function template(items: any[], blanksAllowed: boolean): TemplateQuad[] {
  const out: TemplateQuad[] = [];
  for (const item of items) {
    if (item.type !== 'bgp' && item.type !== 'graph') unsupported();
    const graph = item.type === 'graph' ? templateTerm(item.name, false) : undefined;
    if (graph && graph.termType !== 'NamedNode' && graph.termType !== 'Variable') unsupported();
    for (const t of item.triples) {
      if (t.predicate.type === 'path') unsupported();
      out.push([templateTerm(t.subject, blanksAllowed), templateTerm(t.predicate, blanksAllowed), templateTerm(t.object, blanksAllowed), graph]);
    }
  }
  return out;
}

function templateTerm(t: any, blanksAllowed: boolean): Position {
  switch (t?.termType) {
    case 'Variable':
      return df.variable(t.value);
    case 'NamedNode':
    case 'Literal':
      return df.fromTerm(t) as RDF.Term;
    case 'BlankNode':
      return blanksAllowed ? df.blankNode(t.value) : unsupported();
    default:
      return unsupported(); // quoted triples
  }
}

/**
 * Apply an update to `target`, operation by operation. `unionDefaultGraph`: the default graph of
 * a WHERE is the union of all graphs (else the unnamed graph); templates without GRAPH always
 * mean the unnamed graph.
 */
export async function applyUpdate(update: StoreUpdate, target: UpdateTarget, unionDefaultGraph: boolean): Promise<void> {
  const find = finder(target, unionDefaultGraph);
  for (const op of update.operations) {
    // every solution first: the changes of this operation must not change what its WHERE sees
    const solutions: Solution[] = [];
    if (!op.where) solutions.push({});
    else {
      const plan = unionDefaultGraph ? op.where : op.whereInUnnamedGraph;
      if (!plan) throw new Error('update-evaluator: this WHERE has no plan over the unnamed default graph (storeUpdate refuses it)');
      for await (const s of selectPlan(plan, find)) solutions.push(s);
    }
    if (op.delete.length) await target.deleteQuads(instantiate(op.delete, solutions));
    if (op.insert.length) await target.insertQuads(instantiate(op.insert, solutions));
  }
}

/** The template's quads for each solution, leaving out those with an unbound variable or that are not RDF. */
function instantiate(template: TemplateQuad[], solutions: Solution[]): RDF.Quad[] {
  const out: RDF.Quad[] = [];
  for (const s of solutions) {
    const fresh = new Map<string, RDF.BlankNode>();
    const value = (p: Position | undefined): RDF.Term | undefined => {
      if (p === undefined) return df.defaultGraph();
      if (p.termType === 'Variable') return s[p.value];
      if (p.termType !== 'BlankNode') return p;
      let b = fresh.get(p.value);
      if (!b) fresh.set(p.value, (b = freshBlankNode()));
      return b;
    };
    for (const t of template) {
      const [subject, predicate, object, graph] = [value(t[0]), value(t[1]), value(t[2]), value(t[3])];
      if (!subject || !predicate || !object || !graph) continue;
      if ((subject.termType !== 'NamedNode' && subject.termType !== 'BlankNode') || predicate.termType !== 'NamedNode') continue;
      if (object.termType !== 'NamedNode' && object.termType !== 'BlankNode' && object.termType !== 'Literal') continue;
      if (graph.termType !== 'NamedNode' && graph.termType !== 'DefaultGraph') continue;
      out.push(df.quad(subject, predicate, object, graph));
    }
  }
  return out;
}

/**
 * Blank nodes no store holds yet: a prefix random to this process (blank nodes written by other
 * processes, or before a restart, have others) and a count.
 */
const BLANK_PREFIX = `u${randomBytes(6).toString('hex')}_`;
let blankCount = 0;
function freshBlankNode(): RDF.BlankNode {
  return df.blankNode(`${BLANK_PREFIX}${blankCount++}`);
}

/** The target's quads as the plan evaluator finds them; the marker graph below is the unnamed graph. */
function finder(target: UpdateTarget, unionDefaultGraph: boolean): QuadFinder {
  return (s, p, o, g) => {
    if (!unionDefaultGraph && g?.equals(DEFAULT_MARK)) {
      const found = target.match(s, p, o, df.defaultGraph()) as QuadStream & { map(f: (q: RDF.Quad) => RDF.Quad): QuadStream };
      return found.map((q) => df.quad(q.subject, q.predicate, q.object, DEFAULT_MARK));
    }
    return target.match(s, p, o, g) as QuadStream;
  };
}

/**
 * The plan evaluator's default graph is the union of all graphs; SPARQL 1.1 Update's (without
 * `unionDefaultGraph`) is the unnamed graph. Its patterns are given a graph of their own, a marker
 * that the finder answers with the unnamed graph's quads.
 */
const DEFAULT_MARK = df.namedNode('urn:toxgraph:update-evaluator:unnamed-graph');

/** The plan node with its default graph the marker; undefined for a kind of node this rewrite does not know. */
function inUnnamedGraph(node: PlanNode): PlanNode | undefined {
  const all = (nodes: PlanNode[]) => {
    const out = nodes.map(inUnnamedGraph);
    return out.every((n) => n !== undefined) ? (out as PlanNode[]) : undefined;
  };
  switch (node.type) {
    case 'patterns':
      return { ...node, patterns: node.patterns.map(([s, p, o, g]) => [s, p, o, g ?? DEFAULT_MARK]) };
    case 'values':
      return node;
    case 'join': {
      const parts = all(node.parts);
      return parts && { ...node, parts };
    }
    case 'optional': {
      const [left, right] = all([node.left, node.right]) ?? [];
      return left && right && { ...node, left, right };
    }
    case 'filter': {
      const input = inUnnamedGraph(node.input);
      return input && { ...node, input };
    }
    default:
      return undefined; // a kind of node this rewrite does not know would read the union
  }
}
