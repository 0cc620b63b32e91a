import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Context } from 'koa';
import type Router from '@koa/router';
import { z } from 'zod';
import { DescribedRoutes, param, readParams, taskResponses, type RouteDescription } from '../../src/http/route-description.ts';
import { specParam } from '../../src/algorithm/parameters.ts';
import { openapiDocument } from '../../src/web/openapi.ts';
import { HttpError } from '../../src/core/errors.ts';

const search: RouteDescription = {
  method: 'GET',
  path: '/thing',
  aliases: ['/things'],
  summary: 'Things',
  tag: 'thing',
  params: z.object({
    q: param.required('What to look for'),
    kind: param.optional('A kind'),
    uris: param.list('Some URIs'),
    folds: specParam({ name: 'folds', description: 'Folds', type: 'integer', default: 10, min: 2 }),
  }),
  responses: { 200: ['text/uri-list'] },
};

const query = (text: string) => ({ querystring: text }) as unknown as Context;
const refused = (text: string) =>
  readParams(query(text), search, 1000).then(
    () => assert.fail(`${text} was accepted`),
    (e: HttpError) => {
      assert.equal(e.status, 400);
      return e.message;
    },
  );

test('route parameters: read as described (name and name[], lists, defaults, typed by their spec); 400 naming what does not fit', async () => {
  assert.deepEqual(await readParams(query('q=benzene&uris[]=a&uris=b'), search, 1000), { q: 'benzene', uris: ['b', 'a'], folds: 10 });
  assert.deepEqual(await readParams(query('q=x&kind=y&folds=5'), search, 1000), { q: 'x', kind: 'y', folds: 5 });
  assert.equal(await refused(''), 'missing required parameter q');
  assert.equal(await refused('q=%20%20'), 'missing required parameter q');
  assert.equal(await refused('q=x&folds=1'), 'parameter folds is out of range: it must be at least 2 (got 1)');
  assert.match(await refused('q=x&folds=many'), /^parameter folds must be an integer/);
});

test("the OpenAPI document takes a described route's parameters from its schema, its aliases too", () => {
  const start: RouteDescription = {
    ...search,
    method: 'POST',
    path: '/thing/run',
    aliases: undefined,
    params: z.object({ dataset_uri: param.required('The dataset') }),
    responses: taskResponses(400),
  };
  const routes = [
    { method: 'GET', path: '/thing' },
    { method: 'GET', path: '/things' },
    { method: 'POST', path: '/thing/run' },
  ];
  const doc = openapiDocument(routes, 'http://x.test', [search, start]) as { paths: Record<string, Record<string, any>> };
  const get = doc.paths['/thing'].get;
  assert.deepEqual(
    get.parameters.map((p: any) => [p.name, p.in, p.required]),
    [
      ['q', 'query', true],
      ['kind', 'query', false],
      ['uris', 'query', false],
      ['folds', 'query', false],
    ],
  );
  assert.equal(get.parameters[2].schema.type, 'array');
  assert.equal(doc.paths['/things'].get.summary, 'Things');
  assert.match(doc.paths['/things'].get.description, /alias/);
  const post = doc.paths['/thing/run'].post;
  assert.deepEqual(post.requestBody.content['application/x-www-form-urlencoded'].schema.required, ['dataset_uri']);
  assert.ok('202' in post.responses && '400' in post.responses);
});

/** Routes registered on a stand-in router: each registered middleware by `METHOD /path`. */
function registry() {
  const registered = new Map<string, (ctx: Context) => Promise<void>>();
  const router = Object.fromEntries(['get', 'post', 'put', 'delete'].map((m) => [m, (path: string, fn: (ctx: Context) => Promise<void>) => registered.set(`${m.toUpperCase()} ${path}`, fn)]));
  return { routes: new DescribedRoutes(router as unknown as Router, 1000), registered };
}

/** A request: its query, headers, and a form body already read (`ctx.state.rawBody`); a body that is read from the stream fails. */
function request(method: string, querystring: string, headers: Record<string, string> = {}, form?: string): Context {
  const req = {
    [Symbol.asyncIterator]() {
      throw new Error('the body was read');
    },
  };
  const state = form === undefined ? {} : { rawBody: Buffer.from(form) };
  const all: Record<string, string> = form === undefined ? headers : { 'content-type': 'application/x-www-form-urlencoded', ...headers };
  return { method, querystring, state, req, get: (name: string) => all[name.toLowerCase()] ?? '' } as unknown as Context;
}

const status = (run: Promise<unknown>) =>
  run.then(
    () => 200,
    (e: HttpError) => e.status,
  );

test('a guard runs before the parameters are read (401 before 400), and what it answers is the handler’s third argument', async () => {
  const { routes, registered } = registry();
  const seen: unknown[] = [];
  const guard = (ctx: Context) => {
    const user = ctx.get('subjectid');
    if (!user) throw new HttpError(401, 'Unauthorized', 'send a token');
    return Promise.resolve(user);
  };
  routes.add({ method: 'POST', path: '/thing', summary: 'S', tag: 't', guard, params: z.object({ q: param.required('Q') }), responses: { 200: [] } }, (_ctx, p, user) => {
    seen.push([p.q, user.toUpperCase()]);
  });
  const handler = registered.get('POST /thing')!;
  assert.equal(await status(handler(request('POST', ''))), 401, 'no token: 401, though q is missing too');
  assert.equal(await status(handler(request('POST', '', { subjectid: 'alice' }))), 400, 'a token, no q: 400');
  assert.equal(await status(handler(request('POST', '', { subjectid: 'alice' }, 'q=benzene'))), 200);
  assert.deepEqual(seen, [['benzene', 'ALICE']]);
});

test('a route that reads its own input gets no parameters and its body is left to it; parameters in the query are read and documented there', async () => {
  const { routes, registered } = registry();
  const seen: unknown[] = [];
  routes.add(
    { method: 'POST', path: '/raw', summary: 'Raw', tag: 't', params: z.object({ query: param.required('Q') }), ownInput: true, body: ['application/sparql-query'], responses: { 200: [] } },
    (_ctx, p) => {
      seen.push(p);
    },
  );
  routes.add(
    { method: 'PUT', path: '/graph', summary: 'G', tag: 't', params: z.object({ graph: param.optional('G') }), paramsIn: 'query', body: ['text/turtle'], responses: { 204: [] } },
    (_ctx, p) => {
      seen.push(p);
    },
  );
  routes.add({ method: 'POST', path: '/none', summary: 'N', tag: 't', responses: { 200: [] } }, (_ctx, p) => {
    seen.push(p);
  });
  // the streams of these bodies were never read: reading them throws
  await registered.get('POST /raw')!(request('POST', '', { 'content-type': 'application/sparql-query' }));
  await registered.get('PUT /graph')!(request('PUT', 'graph=urn%3Ag', { 'content-type': 'application/x-www-form-urlencoded' }));
  await registered.get('POST /none')!(request('POST', '', { 'content-type': 'application/x-www-form-urlencoded' }));
  assert.deepEqual(seen, [undefined, { graph: 'urn:g' }, {}]);

  const doc = openapiDocument(
    [
      { method: 'POST', path: '/raw' },
      { method: 'PUT', path: '/graph' },
    ],
    'http://x.test',
    routes.descriptions,
  ) as { paths: Record<string, Record<string, any>> };
  const raw = doc.paths['/raw'].post;
  assert.deepEqual(raw.requestBody.content['application/x-www-form-urlencoded'].schema.required, ['query'], 'documented though not read here');
  assert.ok('application/sparql-query' in raw.requestBody.content);
  const put = doc.paths['/graph'].put;
  assert.deepEqual(
    put.parameters.map((p: any) => [p.name, p.in]),
    [['graph', 'query']],
  );
  assert.deepEqual(Object.keys(put.requestBody.content), ['text/turtle']);
});
