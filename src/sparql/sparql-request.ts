import type { Context } from 'koa';
import sparqljs from 'sparqljs';
import { readText, requestMediaType } from '../http/body.ts';
import { badRequest, unsupportedType } from '../core/errors.ts';
import { parsedQuery } from '../store/parsed-query.ts';

export interface SparqlRequest {
  query?: string;
  /** A SPARQL 1.1 Update request (`update=` or an `application/sparql-update` body). */
  update?: string;
  defaultGraphs: string[];
  namedGraphs: string[];
  /** The protocol's dataset of an update: using-graph-uri, using-named-graph-uri. */
  usingGraphs: string[];
  usingNamedGraphs: string[];
}

export interface PreparedQuery {
  text: string;
  form: 'SELECT' | 'ASK' | 'CONSTRUCT' | 'DESCRIBE';
  /** Has SERVICE clauses (only when federation is allowed). */
  federated: boolean;
}

/** Read a SPARQL 1.1 protocol request: GET ?query=, POST form (query= or update=), POST application/sparql-query or application/sparql-update. */
export async function readSparqlRequest(ctx: Context, bodyLimit: number): Promise<SparqlRequest> {
  const params = new URLSearchParams(ctx.querystring);
  if (ctx.method === 'POST') {
    const type = requestMediaType(ctx);
    if (type === 'application/x-www-form-urlencoded') {
      for (const [k, v] of new URLSearchParams(await readText(ctx, bodyLimit))) params.append(k, v);
    } else if (type === 'application/sparql-query') {
      params.set('query', await readText(ctx, bodyLimit));
    } else if (type === 'application/sparql-update') {
      params.set('update', await readText(ctx, bodyLimit));
    } else {
      throw unsupportedType(`POST a SPARQL query as application/x-www-form-urlencoded or application/sparql-query, not ${type || '(no Content-Type)'}`);
    }
  }
  if (params.has('update') && params.has('query')) throw badRequest('give query or update, not both');
  if (params.getAll('query').length > 1 || params.getAll('update').length > 1) throw badRequest('give one query (or one update), not several');
  if (params.has('update') && ctx.method !== 'POST') throw badRequest('a SPARQL update is sent with POST');
  return {
    query: params.get('query') ?? undefined,
    update: params.get('update') ?? undefined,
    defaultGraphs: params.getAll('default-graph-uri'),
    namedGraphs: params.getAll('named-graph-uri'),
    usingGraphs: params.getAll('using-graph-uri'),
    usingNamedGraphs: params.getAll('using-named-graph-uri'),
  };
}

/**
 * Check a query before it reaches the engine: syntax (400 naming the problem), query forms
 * only, no SERVICE unless enabled; the protocol's default-graph-uri / named-graph-uri replace
 * the query's own FROM / FROM NAMED (SPARQL 1.1 protocol, 2.1.4).
 */
export function prepareQuery(request: SparqlRequest, options: { allowService: boolean; baseIri: string }): PreparedQuery {
  const text = request.query;
  if (!text?.trim()) throw badRequest('missing the query parameter (a SPARQL query)');
  // a query asked again is not parsed again (the parses the store keeps for its own evaluators)
  let parsed = parsedQuery(text, options.baseIri);
  if (!parsed) {
    try {
      new sparqljs.Parser({ baseIRI: options.baseIri }).parse(text);
    } catch (e) {
      throw badRequest(`malformed SPARQL query: ${(e as Error).message.split('\n').slice(0, 4).join(' ')}`);
    }
    throw badRequest('malformed SPARQL query');
  }
  if (parsed.type !== 'query') throw badRequest('this endpoint answers queries only; SPARQL updates are not accepted');
  const federated = isFederated(parsed);
  if (!options.allowService && federated) {
    throw badRequest('SERVICE (federated query to another endpoint) is disabled on this server');
  }
  let out = text;
  if (request.defaultGraphs.length || request.namedGraphs.length) {
    // a parse of its own: the kept one is shared and must not change
    parsed = new sparqljs.Parser({ baseIRI: options.baseIri }).parse(text);
    parsed.from = {
      default: request.defaultGraphs.map((iri) => ({ termType: 'NamedNode', value: iri })),
      named: request.namedGraphs.map((iri) => ({ termType: 'NamedNode', value: iri })),
    };
    foldHaving(parsed);
    out = new sparqljs.Generator().stringify(parsed);
  }
  return { text: out, form: parsed.queryType, federated };
}

/**
 * sparqljs writes several HAVING conditions as one unparsable `HAVING (a b)`; joining them with
 * && first is equivalent (each condition filters the same groups).
 */
function foldHaving(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const n = node as { having?: unknown[] };
  if (Array.isArray(n.having) && n.having.length > 1) {
    n.having = [n.having.reduce((a, b) => ({ type: 'operation', operator: '&&', args: [a, b] }))];
  }
  for (const v of Object.values(node as object)) (Array.isArray(v) ? v : [v]).forEach(foldHaving);
}

/** Whether each parse kept (parsed-query.ts) has a SERVICE: a query asked again is not walked again. */
const federatedParses = new WeakMap<object, boolean>();

function isFederated(parsed: object): boolean {
  let federated = federatedParses.get(parsed);
  if (federated === undefined) federatedParses.set(parsed, (federated = containsService(parsed)));
  return federated;
}

function containsService(node: unknown): boolean {
  if (!node || typeof node !== 'object') return false;
  if ((node as { type?: string }).type === 'service') return true;
  return Object.values(node as object).some((v) => (Array.isArray(v) ? v.some(containsService) : containsService(v)));
}
