import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sharedCsv, startTestServer, http, parseTurtle, form, waitForTask, OT, type TestServer } from '../helpers.ts';
import { JsonLdParser } from 'jsonld-streaming-parser';
import type * as RDF from '@rdfjs/types';
import { DATASET_OUTPUT_TYPES } from '../../src/dataset/dataset-views.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

async function parseJsonLd(text: string): Promise<RDF.Quad[]> {
  const parser = new JsonLdParser();
  const quads: RDF.Quad[] = [];
  return new Promise((resolve, reject) => {
    parser.on('data', (q: RDF.Quad) => quads.push(q));
    parser.on('error', reject);
    parser.on('end', () => resolve(quads));
    parser.write(text);
    parser.end();
  });
}

test('resource pages embed their description as JSON-LD, link every representation, name properties by their ontology labels and link local IRIs by path', async () => {
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: sharedCsv('EPAFHM_log10.csv', 5), contentType: 'text/csv', accept: 'text/uri-list' });
  const feature = (await http(`${up.text.trim().replace(s.base, s.url)}/features`, { accept: 'text/uri-list' })).text.trim();
  const path = feature.replace(s.base, '');
  const page = (await http(`${s.url}${path}`, { accept: 'text/html' })).text;
  const jsonld = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(page)?.[1] ?? '';
  const embedded = await parseJsonLd(jsonld);
  const turtle = parseTurtle((await http(`${s.url}${path}`, { accept: 'text/turtle' })).text);
  assert.equal(embedded.length, turtle.length, 'the same statements as the Turtle');
  for (const type of ['application/rdf+xml', 'text/turtle', 'application/ld+json'])
    assert.ok(page.includes(`<link rel="alternate" type="${type}" href="${path}?media=${encodeURIComponent(type)}">`), type);
  // ot:hasSource by its label, the source dataset linked by its path
  assert.match(page, /<span title="ot:hasSource"><a href="\/ontology\/term\?iri=[^"]+">[^<]+<\/a><\/span>/);
  assert.ok(page.includes(`<a href="${up.text.trim().replace(s.base, '')}">`), 'a local IRI browses in place');
  assert.ok(page.includes('<nav class="site"'));
});

test('vocabulary terms have pages of their own; unknown ones answer 404', async () => {
  const r = await http(`${s.url}/ontology/term?iri=${encodeURIComponent(`${OT}Model`)}`, { accept: 'text/turtle' });
  assert.equal(r.status, 200);
  const quads = parseTurtle(r.text);
  assert.ok(quads.some((q) => q.subject.value === `${OT}Model` && q.predicate.value.endsWith('#label')));
  const html = await http(`${s.url}/ontology/term?iri=${encodeURIComponent(`${OT}Model`)}`, { accept: 'text/html' });
  assert.equal(html.status, 200);
  assert.equal((await http(`${s.url}/ontology/term?iri=${encodeURIComponent(`${OT}NoSuchTerm`)}`, { accept: 'text/turtle' })).status, 404);
  assert.equal((await http(`${s.url}/ontology/term?iri=${encodeURIComponent('not an iri <>')}`, { accept: 'text/turtle' })).status, 400);
});

test('the home page counts what the service holds and shows recent tasks', async () => {
  const page = (await http(`${s.url}/`, { accept: 'text/html' })).text;
  const count = (label: string) => Number(new RegExp(`>${label}</a></th><td>(\\d+)<`).exec(page)?.[1]);
  const listed = async (path: string) =>
    (await http(`${s.url}${path}`, { accept: 'text/uri-list' })).text
      .trim()
      .split('\r\n')
      .filter((u) => u).length;
  assert.equal(count('datasets'), await listed('/dataset'));
  assert.equal(count('compounds'), await listed('/compound'));
  assert.ok(count('datasets') > 0);
  assert.match(page, /<h2>Recent tasks<\/h2>/);
  assert.match(page, /curl -H 'Accept: text\/uri-list'/);
  // a path to follow, with the newest dataset already chosen; the service's triples are in its RDF formats, not on the page
  const newest = (await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text.trim().split('\r\n').at(-1)!;
  assert.match(page, /<h2>Start here: from a table to a documented prediction<\/h2>/);
  // and the read-across path, from a compound's page
  assert.match(page, /<h2>Or read across: a data gap filled from similar compounds<\/h2>[\s\S]*<a href="\/compound">Open the compound<\/a>[\s\S]*RAAF/);
  assert.ok(page.includes(`/algorithm?dataset_uri=${encodeURIComponent(newest)}">Train a model</a>`), 'the training step has the newest dataset chosen');
  assert.doesNotMatch(page, /<section/);
  assert.match(page, /<a href="\/\?media=text%2Fturtle" type="text\/turtle">Turtle<\/a>/);
  assert.equal((await http(`${s.url}/favicon.ico`)).status, 301);
});

test('the OpenAPI document describes exactly the routes the server answers, and its answers keep to it', async () => {
  const doc = JSON.parse((await http(`${s.url}/openapi.json`, {})).text);
  assert.equal(doc.openapi, '3.1.0');
  const documented = new Set(Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
  const served = new Set(s.routes.map((r) => `${r.method} ${r.path.replace(/[:*]([A-Za-z_]+)/g, '{$1}')}`));
  assert.deepEqual(
    [...served].filter((r) => !documented.has(r)),
    [],
    'every route is described',
  );
  assert.deepEqual(
    [...documented].filter((r) => !served.has(r)),
    [],
    'every described operation is a route',
  );
  // every GET without path parameters answers one of its documented statuses, in a documented media type
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>)) {
    const get = ops.get;
    if (!get || path.includes('{') || path === '/metrics') continue;
    const r = await http(`${s.url}${path}`, {});
    assert.ok(String(r.status) in get.responses, `GET ${path}: ${r.status} is documented`);
    const type = (r.headers.get('content-type') ?? '').split(';')[0];
    const content = get.responses[String(r.status)].content;
    if (content && type) assert.ok(type in content, `GET ${path}: ${type} is documented for ${r.status}`);
  }
});

test("the OpenAPI document's parameters are the ones the server reads: a form without its required parameters answers 400 naming one of them (or 401 first)", async () => {
  const doc = JSON.parse((await http(`${s.url}/openapi.json`, {})).text);
  let checked = 0;
  const wrong: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { requestBody?: { content: Record<string, { schema?: { required?: string[] } }> } }>>)) {
    const required = ops.post?.requestBody?.content['application/x-www-form-urlencoded']?.schema?.required ?? [];
    if (path.includes('{') || !required.length) continue;
    const r = await http(`${s.url}${path}`, { method: 'POST', body: form({}), accept: 'text/plain' });
    if (r.status === 401) continue; // who may call it is checked before what it is given
    const named = /missing required parameter (\S+)/.exec(r.text)?.[1];
    if (r.status !== 400 || !named || !required.includes(named)) wrong.push(`POST ${path}: ${r.status} ${r.text.slice(0, 120).trim()} (documented as required: ${required.join(', ')})`);
    checked++;
  }
  assert.deepEqual(wrong, []);
  assert.ok(checked >= 8, `${checked} operations checked`);
});

test('the OpenAPI document lists the parameters of routes that read their own input (uploads, the SPARQL protocol, the graph store), and the media types their renderers answer', async () => {
  const doc = JSON.parse((await http(`${s.url}/openapi.json`, {})).text);
  const query = (op: any) => op.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name);
  const form = (op: any) => Object.keys(op.requestBody.content['application/x-www-form-urlencoded'].schema.properties);
  const upload = doc.paths['/dataset'].post;
  for (const name of ['dataset_uri', 'compound_uris', 'feature_uris', 'title', 'license', 'associated_features', 'matcher']) assert.ok(form(upload).includes(name), `POST /dataset: ${name}`);
  for (const type of ['text/csv', 'chemical/x-mdl-sdfile', 'multipart/form-data', 'text/turtle']) assert.ok(type in upload.requestBody.content, `POST /dataset takes ${type}`);
  assert.deepEqual(Object.keys(doc.paths['/dataset/{id}'].get.responses['200'].content).sort(), [...DATASET_OUTPUT_TYPES].sort());
  assert.deepEqual(query(doc.paths['/dataset/{id}'].get), ['compound_uris', 'feature_uris', 'where_feature', 'where_value', 'page', 'pagesize', 'media', 'bom']);
  assert.deepEqual(query(doc.paths['/sparql'].get), ['query', 'default-graph-uri', 'named-graph-uri']);
  const post = doc.paths['/sparql'].post;
  for (const name of ['query', 'update', 'default-graph-uri', 'using-graph-uri']) assert.ok(form(post).includes(name), `POST /sparql: ${name}`);
  assert.ok('application/sparql-query' in post.requestBody.content && 'application/sparql-update' in post.requestBody.content);
  assert.ok('application/sparql-results+json' in doc.paths['/sparql'].get.responses['200'].content);
  // the graph store's parameters are in the query of every method (its body is RDF)
  const put = doc.paths['/graph-store'].put;
  assert.deepEqual(query(put), ['graph', 'default']);
  assert.ok(!('application/x-www-form-urlencoded' in put.requestBody.content));
  assert.deepEqual(doc.paths['/auth/authorize'].post.requestBody.content['application/x-www-form-urlencoded'].schema.required, ['action', 'uri']);
});

/** The hidden and visible fields of the form that posts to `action`, as a browser would send them. */
function formFields(page: string, action: string): URLSearchParams {
  const formHtml = new RegExp(`<form[^>]*action="${action}"[^>]*>([\\s\\S]*?)</form>`).exec(page)?.[1];
  assert.ok(formHtml, `a form posting to ${action}`);
  const fields = new URLSearchParams();
  const decodeEntities = (v: string) =>
    v
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  for (const m of formHtml.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) fields.append(m[1], decodeEntities(m[2]));
  return fields;
}

test("a model's page starts validations of its own recipe (algorithm, parameters, target, training data) and on a test dataset", async () => {
  const rows = Array.from({ length: 24 }, (_, i) => `${'C'.repeat(i + 1)}O,${i},${(i * 7) % 5},${2 * i + ((i * 7) % 5) + 1}`);
  const dataset = (await http(`${s.url}/dataset`, { method: 'POST', body: `SMILES,x1,x2,y\n${rows.join('\n')}\n`, contentType: 'text/csv', accept: 'text/uri-list' })).text.trim();
  const features = (await http(`${dataset.replace(s.base, s.url)}/features`, { accept: 'text/uri-list' })).text.trim().split('\r\n');
  const y = features[2];
  let model = (await http(`${s.url}/algorithm/mlr`, { method: 'POST', body: form({ dataset_uri: dataset, prediction_feature: y, ridge: '0.5' }), accept: 'text/uri-list' })).text.trim();
  if (model.includes('/task/')) model = await waitForTask(s, model);
  const page = (await http(model.replace(s.base, s.url), { accept: 'text/html' })).text;

  for (const action of ['/crossvalidation', '/validation/training_test_split']) {
    const fields = formFields(page, action);
    assert.equal(fields.get('algorithm_params'), 'ridge=0.5', `${action} repeats the model's parameters`);
    assert.equal(fields.get('dataset_uri'), dataset);
    assert.equal(fields.get('prediction_feature'), y);
  }
  // the split validation posted as the page's form: its model was trained with the same parameters
  const split = formFields(page, '/validation/training_test_split');
  const posted = await http(`${s.url}/validation/training_test_split`, { method: 'POST', body: split, accept: 'text/uri-list' });
  const validation = posted.text.trim().includes('/task/') ? await waitForTask(s, posted.text.trim()) : posted.text.trim();
  const validationQuads = parseTurtle((await http(validation.replace(s.base, s.url), { accept: 'text/turtle' })).text);
  const splitModel = validationQuads.find((q) => q.subject.value === validation && q.predicate.value === `${OT}model`)?.object.value;
  assert.ok(splitModel, 'the validation names its model');
  const modelQuads = parseTurtle((await http(splitModel.replace(s.base, s.url), { accept: 'text/turtle' })).text);
  const ridge = modelQuads.find((q) => q.predicate.value === `${OT}paramValue` && q.subject.value.endsWith('#parameter-ridge'))?.object.value;
  assert.equal(Number(ridge), 0.5);

  // the test-set form offers the stored datasets
  assert.match(page, new RegExp(`<form class="run" method="post" action="/validation/test_set_validation">[\\s\\S]*?<option value="${dataset}">`));
  assert.equal(formFields(page, '/validation/test_set_validation').get('model_uri'), model);
});
