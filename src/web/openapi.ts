import { z } from 'zod';
import type { Route } from '../server/app.ts';
import { MEDIA, type RouteDescription } from '../http/route-description.ts';
import { DATASET_OUTPUT_TYPES } from '../dataset/dataset-views.ts';

/**
 * The OpenAPI 3.1 description of the whole interface (`GET /openapi.json`): one entry per route
 * the server really answers, with its parameters, the media types it reads and answers and its
 * status codes: from a route's own description (http/route-description.ts, aliases included),
 * else from the table below for the routes not described yet. A test checks that the routes and
 * this document agree.
 */

const RDF = MEDIA.rdf;
const LIST = MEDIA.list;
const URI = MEDIA.uri;
const ERROR = MEDIA.error;
const FORM = 'application/x-www-form-urlencoded';
const DATASET_IN = ['text/csv', 'chemical/x-mdl-sdfile', 'text/x-arff', 'multipart/form-data', FORM, ...RDF.filter((t) => t !== 'text/html')];
/** What a dataset is answered as: the dataset views' own list. */
const DATASET_OUT = DATASET_OUTPUT_TYPES;
const SPARQL_OUT = ['application/sparql-results+xml', 'application/sparql-results+json', 'text/csv', 'text/tab-separated-values', ...RDF];

interface Operation {
  summary: string;
  tag: string;
  /** Query (GET, DELETE) or form (POST, PUT) parameters; a trailing `!` marks a required one. */
  params?: string[];
  /** Query parameters of a POST or PUT (those of GET and DELETE are `params`). */
  query?: string[];
  /** Request body media types (besides the form of `params`). */
  body?: string[];
  /** Status → media types answered. */
  responses: Record<number, string[]>;
}

const ok = (types: string[], more: Record<number, string[]> = {}) => ({ 200: types, ...more });
const task = (more: Record<number, string[]> = {}) => ({ 202: URI, ...more });
const errors = (...codes: number[]) => Object.fromEntries(codes.map((c) => [c, ERROR]));
const DONE = { 200: [] as string[] };

/** Every canonical route, `METHOD /path` as the router writes it. */
const OPERATIONS: Record<string, Operation> = {
  'POST /auth/authenticate': { summary: 'Log in: a token for a user name and password', tag: 'auth', params: ['username!', 'password!'], responses: { 200: ['text/plain'], ...errors(400, 401, 429) } },
  'POST /auth/isTokenValid': { summary: 'Is a token valid? (none given: false)', tag: 'auth', params: ['tokenid'], responses: { 200: ['text/plain'], ...errors(400, 401) } },
  'POST /auth/authorize': { summary: 'May the token’s user do an action on a URI?', tag: 'auth', params: ['uri!', 'action!', 'subjectid'], responses: { 200: ['text/plain'], ...errors(400, 401) } },
  'POST /auth/logout': { summary: 'Invalidate a token', tag: 'auth', params: ['subjectid'], responses: { 200: ['text/plain'], ...errors(401) } },
  'POST /auth/user': { summary: 'Create a user or set a password (administrators)', tag: 'auth', params: ['username!', 'password!'], responses: { 200: ['text/plain'], ...errors(400, 401, 403) } },
  'DELETE /auth/user/:name': { summary: 'Delete a user (administrators)', tag: 'auth', responses: { ...DONE, ...errors(401, 403, 404) } },
  'POST /auth/group': { summary: 'Create or change a group (administrators)', tag: 'auth', params: ['name!', 'members'], responses: { 200: ['text/plain'], ...errors(400, 401, 403) } },
  'DELETE /auth/group/:name': { summary: 'Delete a group (administrators)', tag: 'auth', responses: { ...DONE, ...errors(401, 403, 404) } },
  'GET /auth/policy': { summary: 'The access policies the caller owns', tag: 'auth', params: ['uri'], responses: { 200: ['application/json', 'text/html'], ...errors(401) } },
  'POST /auth/policy': {
    summary: 'Set a resource’s policy (owner)',
    tag: 'auth',
    params: ['uri!', 'public_read', 'access', 'group'],
    responses: { 200: ['text/plain', 'application/json'], ...errors(400, 401, 403, 404) },
  },
  'DELETE /auth/policy': { summary: 'Remove a resource’s sharing (owner)', tag: 'auth', params: ['uri!'], responses: { ...DONE, ...errors(401, 403, 404) } },

  'GET /dataset': { summary: 'Datasets', tag: 'dataset', responses: ok(LIST) },
  'POST /dataset': {
    summary: 'Upload a dataset (CSV, SDF, ARFF, RDF; large ones as a task), or make one from a subset of another (form)',
    tag: 'dataset',
    params: ['dataset_uri', 'compound_uris[]', 'feature_uris[]', 'title', 'description', 'license', 'associated_features', 'matcher'],
    body: DATASET_IN,
    responses: { ...ok(URI), ...task(), ...errors(400, 404, 413) },
  },
  'GET /dataset/:id': {
    summary: 'A dataset, whole or a subset (compounds, features, page)',
    tag: 'dataset',
    params: ['compound_uris[]', 'feature_uris[]', 'page', 'pagesize', 'media'],
    responses: { ...ok(DATASET_OUT), ...errors(400, 404) },
  },
  'PUT /dataset/:id': { summary: 'Merge rows and columns into a dataset', tag: 'dataset', body: DATASET_IN, responses: { ...DONE, ...ok(URI), ...errors(400, 404) } },
  'DELETE /dataset/:id': { summary: 'Delete a dataset, or some of its compounds or features', tag: 'dataset', params: ['compound_uris[]', 'feature_uris[]'], responses: { ...DONE, ...errors(404) } },
  'GET /dataset/:id/metadata': { summary: 'A dataset’s metadata', tag: 'dataset', responses: { ...ok(RDF), ...errors(404) } },
  'PUT /dataset/:id/metadata': {
    summary: 'Set a dataset’s metadata (Dublin Core parameters or RDF)',
    tag: 'dataset',
    params: ['title', 'description', 'license'],
    body: RDF.filter((t) => t !== 'text/html'),
    responses: { ...DONE, ...errors(400, 404) },
  },
  'POST /dataset/:id/metadata': { summary: 'The same from a page’s form', tag: 'dataset', params: ['title', 'description', 'license'], responses: { ...ok(URI), 303: [], ...errors(400, 404) } },
  'GET /dataset/:id/compounds': { summary: 'The compounds of a dataset', tag: 'dataset', responses: { ...ok(LIST), ...errors(404) } },
  'GET /dataset/:id/features': { summary: 'The features of a dataset', tag: 'dataset', responses: { ...ok(LIST), ...errors(404) } },

  'GET /sparql': {
    summary: 'SPARQL 1.1 query over the whole store the caller may read',
    tag: 'sparql',
    params: ['query', 'default-graph-uri', 'named-graph-uri'],
    responses: { ...ok(SPARQL_OUT), ...errors(400, 503) },
  },
  'POST /sparql': {
    summary: 'SPARQL 1.1 query (form or application/sparql-query)',
    tag: 'sparql',
    params: ['query'],
    body: ['application/sparql-query'],
    responses: { ...ok(SPARQL_OUT), ...errors(400, 503) },
  },
  'GET /graph-store': { summary: 'Graph Store Protocol: read a graph (graph=IRI or default)', tag: 'sparql', params: ['graph', 'default'], responses: { ...ok(RDF), ...errors(400, 404) } },
  'PUT /graph-store': {
    summary: 'Graph Store Protocol: replace a graph',
    tag: 'sparql',
    query: ['graph', 'default'],
    body: RDF.filter((t) => t !== 'text/html'),
    responses: { 201: [], 204: [], ...errors(400, 401, 403, 415) },
  },
  'POST /graph-store': {
    summary: 'Graph Store Protocol: add to a graph (to the store itself: a new graph)',
    tag: 'sparql',
    query: ['graph', 'default'],
    body: RDF.filter((t) => t !== 'text/html'),
    responses: { 201: [], 204: [], ...errors(400, 401, 403, 415) },
  },
  'DELETE /graph-store': { summary: 'Graph Store Protocol: delete a graph', tag: 'sparql', params: ['graph', 'default'], responses: { 204: [], ...errors(400, 401, 403, 404) } },
  'GET /graph-store/*path': { summary: 'Graph Store Protocol, direct identification: read the graph named by this URL', tag: 'sparql', responses: { ...ok(RDF), ...errors(404) } },
  'PUT /graph-store/*path': {
    summary: 'Graph Store Protocol, direct identification: replace the graph',
    tag: 'sparql',
    body: RDF.filter((t) => t !== 'text/html'),
    responses: { 201: [], 204: [], ...errors(400, 401, 403, 415) },
  },
  'POST /graph-store/*path': {
    summary: 'Graph Store Protocol, direct identification: add to the graph',
    tag: 'sparql',
    body: [...RDF.filter((t) => t !== 'text/html'), 'multipart/form-data'],
    responses: { 201: [], 204: [], ...errors(400, 401, 403, 415) },
  },
  'DELETE /graph-store/*path': { summary: 'Graph Store Protocol, direct identification: delete the graph', tag: 'sparql', responses: { 204: [], ...errors(400, 401, 403, 404) } },
  'GET /ontology': { summary: 'SPARQL over the published scope (the ontology service)', tag: 'ontology', params: ['query'], responses: { ...ok(SPARQL_OUT), ...errors(400, 503) } },
  'POST /ontology': {
    summary: 'Register resources (uri[]) and/or query',
    tag: 'ontology',
    params: ['uri[]', 'query'],
    body: ['application/sparql-query'],
    responses: { ...ok([...SPARQL_OUT, ...URI]), ...errors(400, 403, 404, 502) },
  },
  'DELETE /ontology': { summary: 'Deregister a resource', tag: 'ontology', params: ['uri!'], responses: { ...DONE, ...errors(400, 403, 404) } },
};

/** A table route that stands for another (described routes name their aliases themselves). */
function canonical(method: string, path: string): string {
  return `${method} ${path.replace(/^\/dataset\/:id\/feature$/, '/dataset/:id/features')}`;
}

/** The operation a route stands for, or undefined when it is not described. */
export function operationOf(route: Route): Operation | undefined {
  return OPERATIONS[canonical(route.method, route.path)];
}

const openapiPath = (path: string) => path.replace(/[:*]([A-Za-z_]+)/g, '{$1}');

function parameterSchema(name: string): { name: string; required: boolean; schema: { type: string } | { type: string; items: { type: string } } } {
  const required = name.endsWith('!');
  const bare = name.replace(/!$/, '');
  return { name: bare, required, schema: bare.endsWith('[]') ? { type: 'array', items: { type: 'string' } } : { type: 'string' } };
}

/** A parameter schema as JSON Schema says what a request may send (strings, before they are read). */
function inputSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return json;
}

/** The operation of a route described with its route (http/route-description.ts): its parameters from their schema. */
function describedOperation(d: RouteDescription): { op: Operation; params: ReturnType<typeof parameterSchema>[] } {
  const json = d.params ? inputSchema(d.params) : { properties: {}, required: [] };
  const properties = (json.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((json.required ?? []) as string[]);
  const params = Object.entries(properties).map(([name, schema]) => ({
    name,
    required: required.has(name),
    schema: schema as never,
    ...(schema.description ? { description: schema.description as string } : {}),
  }));
  return { op: { summary: d.summary, tag: d.tag, body: d.body, responses: d.responses }, params };
}

/** The document, for the routes the server answers (every one of them described): from the routes' own descriptions, else from the table above. */
export function openapiDocument(routes: Route[], base: string, descriptions: RouteDescription[] = []): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const described = descriptions.find((d) => d.method === route.method && (d.path === route.path || d.aliases?.includes(route.path)));
    const fromDescription = described && describedOperation(described);
    const op = fromDescription?.op ?? operationOf(route);
    if (!op) continue;
    const path = openapiPath(route.path);
    const pathParams = [...route.path.matchAll(/[:*]([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const method = route.method.toLowerCase();
    const formish = method === 'post' || method === 'put';
    const params: { name: string; required: boolean; schema: unknown; description?: string }[] = fromDescription?.params ?? (op.params ?? []).map(parameterSchema);
    const body: Record<string, unknown> = {};
    if (formish && params.length)
      body[FORM] = { schema: { type: 'object', properties: Object.fromEntries(params.map((p) => [p.name, p.schema])), required: params.filter((p) => p.required).map((p) => p.name) } };
    for (const t of op.body ?? []) body[t] = { schema: { type: 'string' } };
    const operation: Record<string, unknown> = {
      summary: op.summary,
      tags: [op.tag],
      operationId: `${method}${path.replace(/[^A-Za-z0-9]+/g, '_')}`,
      parameters: [...pathParams, ...(formish ? [] : params.map((p) => ({ ...p, in: 'query' }))), ...(op.query ?? []).map((q) => ({ ...parameterSchema(q), in: 'query' }))],
      responses: Object.fromEntries(
        Object.entries(op.responses).map(([status, types]) => [
          status,
          { description: DESCRIPTIONS[Number(status)] ?? 'see the interface', ...(types.length ? { content: Object.fromEntries(types.map((t) => [t, {}])) } : {}) },
        ]),
      ),
    };
    if (Object.keys(body).length) operation.requestBody = { content: body };
    if (described ? described.path !== route.path : canonical(route.method, route.path) !== `${route.method} ${route.path}`)
      operation.description = 'An alias (the Ruby service layout or a spelling of the reference) of the same operation.';
    paths[path] = { ...paths[path], [method]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'ToxGraph: the OpenTox interface',
      version: '1.1',
      description: 'Compounds, features, datasets, algorithms, models, validations, reports, QMRF, tasks and SPARQL, as one linked-data service.',
    },
    servers: [{ url: base }],
    components: { securitySchemes: { subjectid: { type: 'apiKey', in: 'header', name: 'subjectid' } } },
    security: [{}, { subjectid: [] }],
    paths,
  };
}

const DESCRIPTIONS: Record<number, string> = {
  200: 'OK',
  202: 'Accepted: a task URI to poll',
  303: 'See Other: a browser form goes on to the resource',
  400: 'Bad request (an ot:ErrorReport naming the parameter)',
  401: 'A token is needed (access control on)',
  403: 'Forbidden',
  404: 'Not found',
  406: 'Not acceptable',
  413: 'Too large',
  429: 'Too many attempts',
  500: 'Error',
  502: 'Another service failed',
  503: 'Unavailable (a cancelled task, a query time-out, starting or stopping)',
};
