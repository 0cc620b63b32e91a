import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Context } from 'koa';
import { z } from 'zod';
import { param, readParams, taskResponses, type RouteDescription } from '../../src/http/route-description.ts';
import { specParam } from '../../src/algorithm/parameters.ts';
import { openapiDocument } from '../../src/web/openapi.ts';
import type { HttpError } from '../../src/core/errors.ts';

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
