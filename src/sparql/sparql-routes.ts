import { z } from 'zod';
import type { Services } from '../core/services.ts';
import { answerSparql } from './sparql-endpoint.ts';
import { currentUser } from '../core/request-context.ts';
import { answers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';
import { RESULT_TYPES } from './results-format.ts';

/** What a SPARQL endpoint answers: result documents (plain JSON and XML too), RDF of CONSTRUCT and DESCRIBE, the query form. */
export const SPARQL_ANSWERS = [...new Set([...RESULT_TYPES, 'application/json', 'application/xml', ...MEDIA.rdf])];

/** The protocol's parameters of a query (sparql-request.ts reads them). */
export const SPARQL_QUERY_PARAMS = {
  query: param.optional('A SPARQL 1.1 query (none: the service description, or the query form for a browser)'),
  'default-graph-uri': param.list('The default graph of the query (replaces its FROM)'),
  'named-graph-uri': param.list('A named graph of the query (replaces its FROM NAMED)'),
};

/** `/sparql`: the whole store, SPARQL 1.1 protocol: queries, and updates for those allowed (see sparql-update.ts). */
export function sparqlRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'uris' | 'store' | 'published' | 'access'>): void {
  // the caller's scope: never the access-control graphs; with access control on, readable resources only
  const scope = () => services.access.scopeFor(currentUser.getStore());
  // the protocol's request is read as the protocol says (sparql-request.ts): GET ?query=, a form, or a raw query or update body
  routes.add(
    {
      method: 'GET',
      path: '/sparql',
      summary: 'SPARQL 1.1 query over the whole store the caller may read',
      tag: 'sparql',
      params: z.object(SPARQL_QUERY_PARAMS),
      ownInput: true,
      responses: answers(SPARQL_ANSWERS, 400, 503),
    },
    (ctx) => answerSparql(ctx, services, scope(), 'SPARQL endpoint', { updates: true }),
  );
  routes.add(
    {
      method: 'POST',
      path: '/sparql',
      summary: 'SPARQL 1.1 query or update (a form, application/sparql-query or application/sparql-update; updates for administrators, when allowed)',
      tag: 'sparql',
      params: z.object({
        ...SPARQL_QUERY_PARAMS,
        query: param.optional('A SPARQL 1.1 query (or update, not both)'),
        update: param.optional('A SPARQL 1.1 update'),
        'using-graph-uri': param.list('An update: the default graph of its WHERE (replaces its USING)'),
        'using-named-graph-uri': param.list('An update: a named graph of its WHERE (replaces its USING NAMED)'),
      }),
      ownInput: true,
      body: ['application/sparql-query', 'application/sparql-update'],
      responses: { ...answers(SPARQL_ANSWERS, 400, 401, 403, 503), 204: [] },
    },
    (ctx) => answerSparql(ctx, services, scope(), 'SPARQL endpoint', { updates: true }),
  );
}
