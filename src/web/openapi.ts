import { z } from 'zod';
import type { Route } from '../server/app.ts';
import { MEDIA, type RouteDescription } from '../http/route-description.ts';

/**
 * The OpenAPI 3.1 description of the whole interface (`GET /openapi.json`): one entry per route
 * the server really answers, with its parameters, the media types it reads and answers and its
 * status codes, all from the routes' own descriptions (http/route-description.ts, aliases
 * included). A test checks that the routes and this document agree.
 */

const FORM = 'application/x-www-form-urlencoded';

interface Parameter {
  name: string;
  required: boolean;
  schema: unknown;
  description?: string;
}

const openapiPath = (path: string) => path.replace(/[:*]([A-Za-z_]+)/g, '{$1}');

/** A parameter schema as JSON Schema says what a request may send (strings, before they are read). */
function inputSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return json;
}

/** A described route's parameters, from their schema. */
function parametersOf(d: RouteDescription): Parameter[] {
  const json = d.params ? inputSchema(d.params) : { properties: {}, required: [] };
  const properties = (json.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    required: required.has(name),
    schema,
    ...(schema.description ? { description: schema.description as string } : {}),
  }));
}

/** The document, for the routes the server answers (every one of them described), from the routes' own descriptions. */
export function openapiDocument(routes: Route[], base: string, descriptions: RouteDescription[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const d = descriptions.find((x) => x.method === route.method && (x.path === route.path || x.aliases?.includes(route.path)));
    if (!d) continue;
    const path = openapiPath(route.path);
    const pathParams = [...route.path.matchAll(/[:*]([A-Za-z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const method = route.method.toLowerCase();
    // a POST or PUT takes its parameters as a form, unless they are in its query (its body is something else)
    const formish = (method === 'post' || method === 'put') && d.paramsIn !== 'query';
    const params = parametersOf(d);
    const body: Record<string, unknown> = {};
    if (formish && params.length)
      body[FORM] = { schema: { type: 'object', properties: Object.fromEntries(params.map((p) => [p.name, p.schema])), required: params.filter((p) => p.required).map((p) => p.name) } };
    for (const t of d.body ?? []) body[t] = { schema: { type: 'string' } };
    const operation: Record<string, unknown> = {
      summary: d.summary,
      tags: [d.tag],
      operationId: `${method}${path.replace(/[^A-Za-z0-9]+/g, '_')}`,
      parameters: [...pathParams, ...(formish ? [] : params.map((p) => ({ ...p, in: 'query' })))],
      responses: Object.fromEntries(
        // a route that starts a job answers 429 over the caller's job quota
        Object.entries(d.startsJob ? { ...d.responses, 429: d.responses[429] ?? MEDIA.error } : d.responses).map(([status, types]) => [
          status,
          { description: DESCRIPTIONS[Number(status)] ?? 'see the interface', ...(types.length ? { content: Object.fromEntries(types.map((t) => [t, {}])) } : {}) },
        ]),
      ),
    };
    if (Object.keys(body).length) operation.requestBody = { content: body };
    if (d.path !== route.path) operation.description = 'An alias (the Ruby service layout or a spelling of the reference) of the same operation.';
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
  201: 'Created',
  202: 'Accepted: a task URI to poll',
  204: 'No content',
  303: 'See Other: a browser form goes on to the resource',
  400: 'Bad request (an ot:ErrorReport naming the parameter)',
  401: 'A token is needed (access control on)',
  403: 'Forbidden',
  404: 'Not found',
  406: 'Not acceptable',
  413: 'Too large',
  429: 'Too many requests (a job quota, waiting previews, failed logins): Retry-After says when to try again',
  500: 'Error',
  502: 'Another service failed',
  503: 'Unavailable (a cancelled task, a query time-out, starting or stopping)',
};
