import { z } from 'zod';
import { answers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';
import { checkIri } from '../rdf/terms.ts';
import { badRequest, HttpError } from '../core/errors.ts';
import { currentUser } from '../core/request-context.ts';
import { callerTokenOf } from '../auth/caller-token.ts';
import { sendRdf, sendList, sendDone } from '../http/respond.ts';
import { requestMediaType } from '../http/body.ts';
import type { Services } from '../core/services.ts';
import { answerQuery, answerSparql } from '../sparql/sparql-endpoint.ts';
import { PREDEFINED_QUERIES, predefinedQueryQuads } from './predefined-queries.ts';
import { SPARQL_ANSWERS, SPARQL_QUERY_PARAMS } from '../sparql/sparql-routes.ts';
import { prepareQuery, readSparqlRequest } from '../sparql/sparql-request.ts';
import type { OntologyRegistry } from './registry.ts';

/** The ontology service (spec 4.5): SPARQL over the published scope, predefined queries, registration. */
export function ontologyRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'uris' | 'store' | 'published' | 'access'>, registry: OntologyRegistry): void {
  const { config, access } = services;
  // the published scope, narrowed to what the caller may read
  const scope = () => access.scopeFor(currentUser.getStore(), services.published);

  const predefined = (path: string, title: string, what: 'models' | 'algorithms' | 'endpoints', summary: string, aliases?: string[]) => {
    routes.add({ method: 'GET', path, aliases, summary, tag: 'ontology', responses: answers(MEDIA.rdf) }, async (ctx) => sendRdf(ctx, await registry.published(what, scope()), title));
  };
  predefined('/ontology/models', 'Models', 'models', 'Every published model');
  predefined('/ontology/algorithms', 'Algorithms', 'algorithms', 'Every published algorithm');
  predefined('/ontology/endpoints', 'Endpoints', 'endpoints', 'The endpoint ontology', ['/onotlogy/endpoints']); // the reference's spelling

  // queries reviewers ask often (provenance of read-across assessments), over what the caller may read
  const queries = services.uris.ofPath('/ontology/queries');
  routes.add({ method: 'GET', path: '/ontology/queries', summary: 'The predefined queries: title, description, parameter and SPARQL of each', tag: 'ontology', responses: answers(MEDIA.rdf) }, (ctx) =>
    sendRdf(ctx, predefinedQueryQuads(queries), 'Predefined queries'),
  );
  routes.add(
    {
      method: 'GET',
      path: '/ontology/queries/:name',
      summary: 'Run a predefined query with its parameter (an IRI), over the graphs the caller may read',
      tag: 'ontology',
      params: z.object({ assessment: param.optional('The assessment a query is about'), dataset: param.optional('The dataset a query is about') }),
      responses: answers(SPARQL_ANSWERS, 400, 404, 503),
    },
    async (ctx, params) => {
      const q = PREDEFINED_QUERIES.find((x) => x.name === ctx.params.name);
      if (!q) throw new HttpError(404, 'NotFound', `no predefined query ${ctx.params.name}; they are ${PREDEFINED_QUERIES.map((x) => x.name).join(', ')}`);
      const iri = params[q.parameter as 'assessment' | 'dataset']?.trim();
      if (!iri) throw badRequest(`missing required parameter ${q.parameter}`);
      await answerQuery(ctx, services, access.scopeFor(currentUser.getStore()), { text: q.query(checkIri(iri)).toString() }, q.title);
    },
  );

  // a page of its own for every term of the bundled vocabularies (ot:, ota:, otee:): pages link their terms here
  routes.add(
    {
      method: 'GET',
      path: '/ontology/term',
      summary: 'A term of the service’s vocabularies (ot:, ota:, otee:)',
      tag: 'ontology',
      params: z.object({ iri: param.required('The term') }),
      responses: answers(MEDIA.rdf, 400, 404),
    },
    async (ctx, { iri }) => {
      const quads = await registry.term(iri);
      if (!quads.some((q) => q.subject.value === iri)) throw new HttpError(404, 'NotFound', `${iri} is not a term of this service's vocabularies`);
      await sendRdf(ctx, quads, `Term ${iri}`);
    },
  );

  // the protocol's request is read as the protocol says (sparql-request.ts)
  routes.add(
    {
      method: 'GET',
      path: '/ontology',
      summary: 'SPARQL over the published scope (the ontology service)',
      tag: 'ontology',
      params: z.object(SPARQL_QUERY_PARAMS),
      ownInput: true,
      responses: answers(SPARQL_ANSWERS, 400, 503),
    },
    (ctx) => answerSparql(ctx, services, scope(), 'Ontology service'),
  );

  routes.add(
    {
      method: 'POST',
      path: '/ontology',
      summary: 'Register resources (uri[]) and/or query (a form; or a query as application/sparql-query)',
      tag: 'ontology',
      params: z.object({
        uri: param.list('Resources to register (local ones by their owner), harvested from their servers'),
        query: param.optional('A SPARQL query over the published scope (with uri[]: after registering them; a query that fails registers nothing)'),
        'default-graph-uri': SPARQL_QUERY_PARAMS['default-graph-uri'],
        'named-graph-uri': SPARQL_QUERY_PARAMS['named-graph-uri'],
      }),
      body: ['application/sparql-query'],
      responses: answers([...new Set([...SPARQL_ANSWERS, ...MEDIA.uri])], 400, 403, 404, 502, 503),
    },
    async (ctx, params) => {
      // A bare SPARQL query body is the protocol's POST application/sparql-query (the query string's uri is not read then).
      if (requestMediaType(ctx) !== 'application/x-www-form-urlencoded') return answerSparql(ctx, services, scope(), 'Ontology service');
      const uris = (params.uri ?? []).map((u) => checkIri(u.trim()));
      const query = params.query;
      if (!uris.length && !query) throw badRequest('give uri[] (resources to register) and/or query (a SPARQL query)');
      // a protected local resource is published only by its owner
      const user = currentUser.getStore();
      for (const uri of uris) {
        if (access.enabled && access.resourceOf(uri) && !access.allowed(user, uri, 'DELETE')) throw new HttpError(403, 'Forbidden', `only the owner of ${uri} may publish it`);
      }
      if (!uris.length) return answerSparql(ctx, services, scope(), 'Ontology service');
      // register + query is one request: a query that does not parse registers nothing, and one
      // that fails while it runs takes the new registrations back
      if (query) prepareQuery(await readSparqlRequest(ctx, config.bodyLimit), { allowService: config.sparqlService, baseIri: services.uris.endpoint('ontology') });
      const fresh = uris.filter((u) => !registry.isRegistered(u));
      await registry.register(uris, await callerTokenOf(ctx, config.bodyLimit));
      if (query) {
        try {
          return await answerSparql(ctx, services, scope(), 'Ontology service');
        } catch (e) {
          for (const uri of fresh) await registry.deregister(uri);
          throw e;
        }
      }
      await sendList(ctx, uris, () => [], 'Registered');
    },
  );

  routes.add(
    {
      method: 'DELETE',
      path: '/ontology',
      summary: 'Deregister resources',
      tag: 'ontology',
      params: z.object({ uri: param.list('The registered resources to remove') }),
      responses: answers([], 400, 403, 404),
    },
    async (ctx, { uri }) => {
      if (!uri?.length) throw badRequest('give uri (the registered resource to remove)');
      for (const u of uri) await registry.deregister(u);
      sendDone(ctx);
    },
  );
}
