import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestServer, http, form, sharedCsv, parseTurtle, errorReport, OT, type TestServer } from '../helpers.ts';

/**
 * The Model Context Protocol endpoint (issue 42) through the SDK's own client over real HTTP, on a
 * server with access control on: the tools, their answers against the REST interface's, each
 * caller's rights, and malformed arguments.
 */
let s: TestServer;
let alice: string;
let bob: string;
let model: string;
let dataset: string;
let target: string;
const clients: Client[] = [];

async function login(username: string, password: string): Promise<string> {
  const r = await http(`${s.url}/auth/authenticate`, { method: 'POST', body: form({ username, password }) });
  return /^token\.id=(\S+)$/m.exec(r.text)![1];
}

/** An MCP client of the endpoint, sending this token (none: anonymous; `bearer`: as Authorization). */
async function mcp(token?: string, bearer = false): Promise<Client> {
  const headers: Record<string, string> = token ? (bearer ? { Authorization: `Bearer ${token}` } : { subjectid: token }) : {};
  const client = new Client({ name: 'toxgraph-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const structured = (r: CallToolResult) => {
  assert.ok(!r.isError, JSON.stringify(r.content));
  return r.structuredContent as Record<string, any>;
};
const errorText = (r: CallToolResult) => {
  assert.equal(r.isError, true, `a tool error: ${JSON.stringify(r.structuredContent ?? r.content).slice(0, 300)}`);
  return (r.content as { text: string }[]).map((c) => c.text).join(' ');
};

before(async () => {
  s = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  const admin = await login('admin', 'admin-secret-1');
  for (const name of ['alice', 'bob'])
    assert.equal((await http(`${s.url}/auth/user`, { method: 'POST', body: form({ username: name, password: `${name}-password` }), headers: { subjectid: admin } })).status, 200);
  alice = await login('alice', 'alice-password');
  bob = await login('bob', 'bob-password');
  // alice's data and model, through REST
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: sharedCsv('EPAFHM_log10.csv', 60, 9), contentType: 'text/csv', accept: 'text/uri-list', headers: { subjectid: alice } });
  assert.equal(up.status, 200, up.text);
  const raw = up.text.trim();
  target = (await http(`${raw.replace(s.base, s.url)}/features`, { accept: 'text/uri-list', headers: { subjectid: alice } })).text.trim().split('\r\n')[0];
  const described = await http(`${s.url}/algorithm/rdkit-descriptors`, { method: 'POST', body: form({ dataset_uri: raw }), accept: 'text/uri-list', headers: { subjectid: alice } });
  dataset = described.status === 202 ? await waitFor(described.text.trim()) : described.text.trim();
  const trained = await http(`${s.url}/algorithm/random-forest-regression`, {
    method: 'POST',
    body: form({ dataset_uri: dataset, prediction_feature: target, numTrees: '20' }),
    accept: 'text/uri-list',
    headers: { subjectid: alice },
  });
  model = trained.status === 202 ? await waitFor(trained.text.trim()) : trained.text.trim();
  assert.match(model, /\/model\/\d+$/);
});
after(async () => {
  for (const c of clients) await c.close();
  await s.stop();
});

async function waitFor(task: string): Promise<string> {
  for (;;) {
    const r = await http(task.replace(s.base, s.url), { accept: 'text/uri-list', headers: { subjectid: alice } });
    if (r.status === 200 || r.status === 201) return r.text.trim();
    assert.equal(r.status, 202, r.text);
    await new Promise((res) => setTimeout(res, 100));
  }
}

const TOOLS = ['search_compounds', 'get_resource', 'list_models', 'predict', 'upload_dataset', 'train_model', 'cross_validate', 'get_task', 'sparql_query', 'make_qprf', 'read_across'];
const WRITES = new Set(['predict', 'upload_dataset', 'train_model', 'cross_validate', 'make_qprf', 'read_across']);

test('tools/list: the eleven tools by name, each with a JSON schema; the tools that write are marked so; resources and the prompt are listed', async () => {
  const anonymous = await mcp();
  const { tools } = await anonymous.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(t.annotations?.readOnlyHint, !WRITES.has(t.name), `${t.name}: readOnlyHint`);
    assert.ok(t.description && t.description.length > 20, t.name);
  }
  const { prompts } = await anonymous.listPrompts();
  assert.deepEqual(
    prompts.map((p) => p.name),
    ['assess_substance'],
  );
  const prompt = await anonymous.getPrompt({ name: 'assess_substance', arguments: { substance: 'caffeine' } });
  assert.match((prompt.messages[0].content as { text: string }).text, /caffeine[\s\S]*predict[\s\S]*applicability domain[\s\S]*make_qprf/i);
  // resources as the caller may see them: alice's model and dataset, not to an anonymous caller
  const mine = (await (await mcp(alice)).listResources()).resources.map((r) => r.uri);
  assert.ok(mine.includes(model) && mine.includes(dataset), mine.join(' '));
  assert.deepEqual((await anonymous.listResources()).resources, []);
  const read = await (await mcp(alice)).readResource({ uri: model });
  assert.match(String((read.contents[0] as { text: string }).text), /random-forest-regression/);
});

test('predict through MCP answers what POST /model/{id} answers, with the applicability domain and the confidence', async () => {
  const client = await mcp(alice);
  const smiles = 'CCCCCCCCO';
  const raw = await call(client, 'predict', { model, smiles });
  const r = structured(raw);
  assert.equal(r.model, model);
  const links = raw.content.filter((c) => c.type === 'resource_link').map((c) => (c as { uri: string }).uri);
  assert.ok(links.includes(r.prediction_dataset) && links.includes(model), `resource links: ${links.join(' ')}`);
  assert.match(r.compound, /\/compound\/\d+$/);
  const prediction = r.outputs.find((o: { kind: string }) => o.kind === 'prediction');
  assert.equal(typeof prediction.value, 'number');
  assert.ok(
    r.outputs.some((o: { kind: string }) => o.kind === 'confidence'),
    JSON.stringify(r.outputs),
  );
  assert.ok(
    r.outputs.some((o: { kind: string }) => o.kind === 'applicability domain'),
    JSON.stringify(r.outputs),
  );
  assert.equal(typeof r.inside_applicability_domain, 'boolean');
  assert.equal(r.prediction.value, prediction.value);
  assert.equal(r.applicability_domains.length, 1);
  assert.equal(r.nearest_training_compounds.length, 5, 'the nearest training compounds, as on the prediction page');
  for (const n of r.nearest_training_compounds) {
    assert.match(n.uri, /\/compound\/\d+$/);
    assert.ok(n.similarity > 0 && n.similarity <= 1);
    assert.ok(Number.isFinite(Number(n.measured)), JSON.stringify(n));
  }
  const similarities = r.nearest_training_compounds.map((n: { similarity: number }) => n.similarity);
  assert.deepEqual(
    similarities,
    [...similarities].sort((a, b) => b - a),
    'the most similar first',
  );
  // the evidence is the training set's: another user who may use the model but not read its training set does not get it
  const evidence = await http(`${s.url}/reach_report/qprf/evidence?${new URLSearchParams({ model_uri: model, compound_uri: r.compound })}`, {
    accept: 'application/json',
    headers: { subjectid: alice },
  });
  assert.equal(evidence.status, 200, evidence.text);
  assert.equal(JSON.parse(evidence.text).prediction.value, prediction.value, 'made again from the model: the same value');
  assert.match(evidence.headers.get('content-type') ?? '', /^application\/json/);
  // the refusals as ot:ErrorReports (asked for in Turtle, as the helper reads them)
  const ask = (params: Record<string, string>) => http(`${s.url}/reach_report/qprf/evidence?${new URLSearchParams(params)}`, { accept: 'text/turtle', headers: { subjectid: alice } });
  for (const [params, status] of [
    [{ model_uri: model }, 400],
    [{ model_uri: model, compound_uri: `${s.base}/compound/999999` }, 404],
    [{ model_uri: `${s.base}/model/999999`, compound_uri: r.compound }, 404],
    [{ dataset_uri: dataset, compound_uri: r.compound }, 400],
  ] as const) {
    const bad = await ask(params);
    assert.equal(bad.status, status, `${JSON.stringify(params)}: ${bad.text}`);
    assert.ok((await errorReport(bad)).message, 'an ot:ErrorReport');
  }
  const bare = structured(await call(client, 'predict', { model, smiles, neighbours: false }));
  assert.equal(bare.nearest_training_compounds, null);
  assert.equal(bare.outputs.find((o: { kind: string }) => o.kind === 'prediction').value, prediction.value);
  // the same prediction through REST
  const rest = await http(model.replace(s.base, s.url), { method: 'POST', body: form({ smiles }), accept: 'text/turtle', headers: { subjectid: alice } });
  assert.equal(rest.status, 200, rest.text);
  const quads = parseTurtle(rest.text);
  // the value node of the prediction's feature (not the column node that also names it)
  const values = quads
    .filter((q) => q.predicate.value === `${OT}feature` && q.object.value === prediction.feature)
    .flatMap((f) => quads.filter((q) => q.subject.equals(f.subject) && q.predicate.value === `${OT}value`));
  assert.equal(values.length, 1, 'the REST answer has one value of the same feature');
  assert.equal(Number(values[0].object.value), prediction.value);
});

test('sparql_query: each user sees only the graphs they may read; updates are refused', async () => {
  const ask = `ASK { GRAPH <${dataset}> { ?s ?p ?o } }`;
  assert.equal(structured(await call(await mcp(alice), 'sparql_query', { query: ask })).results.boolean, true);
  assert.equal(structured(await call(await mcp(bob), 'sparql_query', { query: ask })).results.boolean, false, "bob does not see alice's dataset");
  const count = `SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } FILTER(STRSTARTS(STR(?g), "${s.base}/model/")) }`;
  const models = async (token: string) => Number(structured(await call(await mcp(token), 'sparql_query', { query: count })).results.results.bindings[0].n.value);
  assert.ok((await models(alice)) >= 1);
  assert.equal(await models(bob), 0);
  assert.match(errorText(await call(await mcp(alice), 'sparql_query', { query: `DROP GRAPH <${dataset}>` })), /^query: 400/);
});

test('a read-only key reads through the tools but cannot write; an anonymous caller is told to sign in; list_models is per caller', async () => {
  const r = await http(`${s.url}/auth/key`, { method: 'POST', body: form({ name: 'agent', scope: 'read' }), accept: 'application/json', headers: { subjectid: alice } });
  assert.equal(r.status, 201, r.text);
  const key = (JSON.parse(r.text) as { key: string }).key;
  const reader = await mcp(key, true);
  const listed = structured(await call(reader, 'list_models', {}));
  assert.equal(listed.models.length, 1);
  assert.equal(listed.models[0].model, model);
  assert.equal(listed.models[0].training_dataset, dataset);
  assert.equal(listed.models[0].training_set_size, 60);
  assert.match(listed.models[0].learner, /random-forest-regression/);
  assert.match(errorText(await call(reader, 'train_model', { algorithm: 'random-forest-regression', dataset, target })), /403/);
  assert.match(errorText(await call(reader, 'upload_dataset', { content: 'SMILES,y\nCCO,1\n', format: 'csv' })), /403/);
  assert.equal(structured(await call(await mcp(bob), 'list_models', {})).models.length, 0, "bob sees none of alice's models");
  assert.match(errorText(await call(await mcp(), 'get_resource', { uri: model })), /401/);
});

test('train_model, cross_validate and get_task: a task followed to its model and cross-validation; make_qprf answers the report', async () => {
  const client = await mcp(alice);
  const started = structured(await call(client, 'train_model', { algorithm: 'mlr', dataset, target }));
  let state = { status: 'Running' } as Record<string, any>;
  if (started.task) {
    while (state.status !== 'Completed' && state.status !== 'Error') state = structured(await call(client, 'get_task', { task: started.task }));
    assert.equal(state.status, 'Completed', JSON.stringify(state));
  }
  const trained = started.model ?? state.result;
  assert.match(trained, /\/model\/\d+$/);
  const cv = structured(await call(client, 'cross_validate', { algorithm: 'mlr', dataset, target, folds: 3 }));
  assert.match(cv.task, /\/task\//);
  const compound = structured(await call(client, 'search_compounds', { smiles: 'CCCCCCCCO' })).compounds[0].compound;
  const qprf = structured(await call(client, 'make_qprf', { model, compound }));
  assert.match(qprf.qprf, /\/reach_report\/qprf\/\d+$/);
  const page = await http(qprf.qprf.replace(s.base, s.url), { accept: 'text/html', headers: { subjectid: alice } });
  assert.equal(page.status, 200);
});

test('read_across: analogues from the data the caller may read, the gap filled side by side, and a draft assessment of the caller’s', async () => {
  const client = await mcp(alice);
  const octanol = structured(await call(client, 'search_compounds', { smiles: 'CCCCCCCCO' })).compounds[0].compound;
  const answer = structured(await call(client, 'read_across', { target: octanol, endpoint: target, similarity: 0.1, k: 5 }));
  assert.ok(answer.analogues.length >= 1 && answer.analogues.length <= 5, JSON.stringify(answer.analogues).slice(0, 200));
  assert.ok(answer.analogues.every((a: { similarity: number }) => a.similarity >= 0.1));
  const [filled] = answer.gapFilling;
  assert.equal(filled.kind, 'numeric');
  assert.ok(Number.isFinite(filled.readAcross.value), JSON.stringify(filled.readAcross));
  assert.match(answer.assessment, /\/assessment\/\d+$/);
  // the assessment is alice's draft: bob cannot read it
  assert.equal((await http(answer.assessment.replace(s.base, s.url), { accept: 'text/turtle', headers: { subjectid: alice } })).status, 200);
  assert.ok([403, 404].includes((await http(answer.assessment.replace(s.base, s.url), { accept: 'text/turtle', headers: { subjectid: bob } })).status));
  // bob reads none of alice's data: no analogue for him
  assert.match(errorText(await call(await mcp(bob), 'read_across', { target: octanol, endpoint: target })), /^(endpoint|target): /);
});

test('every tool answers malformed arguments with a tool error naming the argument, never a crash', async () => {
  const client = await mcp(alice);
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['search_compounds', { limit: 'many', text: 'x' }, /limit/],
    ['search_compounds', {}, /^text: /],
    ['search_compounds', { smarts: '[[[' }, /^smarts: /],
    ['get_resource', { uri: 'http://elsewhere.example/model/1' }, /^uri: /],
    ['get_resource', {}, /uri/],
    ['list_models', { limit: 0 }, /limit/],
    ['predict', { model, smiles: 'C1CC(' }, /^smiles: /],
    ['predict', { model }, /^smiles: /],
    ['predict', { model: `${s.base}/dataset/1`, smiles: 'CCO' }, /^model: /],
    ['upload_dataset', { content: 'SMILES,y\nCCO,1\n', format: 'xls' }, /format/],
    ['upload_dataset', { content: 'not a table at all', format: 'sdf' }, /^content: /],
    ['train_model', { algorithm: 'no-such-learner', dataset, target }, /^algorithm: /],
    ['train_model', { algorithm: 'mlr', dataset: 'nonsense', target }, /^dataset: /],
    ['cross_validate', { algorithm: 'mlr', dataset, target, folds: 1 }, /folds/],
    ['get_task', { task: `${s.base}/task/no-such-task` }, /task/],
    ['sparql_query', { query: 'SELEC * WHERE' }, /^query: /],
    ['sparql_query', { query: 42 }, /query/],
    ['make_qprf', { model: 'x', compound: 'y' }, /^model: /],
    ['read_across', { target: 'x', endpoint: target }, /^target: /],
    ['read_across', { target: `${s.base}/compound/1`, endpoint: 'http://example.org/no-such-endpoint' }, /^endpoint: /],
  ];
  for (const [tool, args, argument] of bad) assert.match(errorText(await call(client, tool, args)), argument, `${tool} ${JSON.stringify(args)}`);
  // the service still answers
  assert.equal(structured(await call(client, 'get_resource', { uri: model })).uri, model);
});

test('DNS rebinding: a POST to /mcp with a foreign Host header is refused (403); GET and DELETE answer 405 (stateless)', async () => {
  const url = new URL(`${s.url}/mcp`);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: { Host: 'evil.example', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  assert.equal(status, 403);
  // one message per request; a token that is given must be good
  const batch = await http(`${s.url}/mcp`, { method: 'POST', body: `[${body},${body}]`, contentType: 'application/json', accept: 'application/json, text/event-stream' });
  assert.equal(batch.status, 400);
  assert.match(batch.text, /batches are not accepted/);
  const forged = await http(`${s.url}/mcp`, { method: 'POST', body, contentType: 'application/json', accept: 'application/json, text/event-stream', headers: { subjectid: 'forged-token' } });
  assert.equal(forged.status, 401);
  assert.equal((await http(`${s.url}/mcp`)).status, 405);
  assert.equal((await http(`${s.url}/mcp`, { method: 'DELETE' })).status, 405);
});

test('a model shared for predictions, not its training set: its predictions through MCP leave out the training compounds (403 on the evidence)', async () => {
  assert.equal((await http(`${s.url}/auth/policy`, { method: 'POST', body: form({ uri: model, public_read: 'true' }), headers: { subjectid: alice } })).status, 200);
  const r = structured(await call(await mcp(bob), 'predict', { model, smiles: 'CCCCCO' }));
  assert.equal(typeof r.outputs.find((o: { kind: string }) => o.kind === 'prediction').value, 'number', 'bob predicts with the shared model');
  assert.equal(r.nearest_training_compounds, null);
  assert.match(r.evidence, /^403: .*training dataset/);
  assert.match(errorText(await call(await mcp(bob), 'make_qprf', { model, compound: r.compound })), /403: .*training dataset/, 'nor in a QPRF');
  const withTraining = structured(await call(await mcp(alice), 'predict', { model, smiles: 'CCCCCO' }));
  assert.equal(withTraining.nearest_training_compounds.length, 5, 'its owner still gets them');
});

test('list_models under access control: the cross-validation of a model’s recipe is listed to who may read it, with its pooled statistics and baseline (issue 55 item 6), beside the model’s own validation', async () => {
  const cv = await waitFor(
    (
      await http(`${s.url}/crossvalidation`, {
        method: 'POST',
        body: form({ dataset_uri: dataset, algorithm_uri: `${s.base}/algorithm/random-forest-regression`, prediction_feature: target, algorithm_params: 'numTrees=20', num_folds: '3' }),
        accept: 'text/uri-list',
        headers: { subjectid: alice },
      })
    ).text.trim(),
  );
  // and a validation of the model itself on its training set: both are listed, each once
  const validated = await http(`${s.url}/validation/test_set_validation`, {
    method: 'POST',
    body: form({ model_uri: model, test_dataset_uri: dataset }),
    accept: 'text/uri-list',
    headers: { subjectid: alice },
  });
  const validation = validated.status === 202 ? await waitFor(validated.text.trim()) : validated.text.trim();
  const mine = structured(await call(await mcp(alice), 'list_models', {})).models.find((m: { model: string }) => m.model === model);
  const listed = mine.validations.find((v: { validation: string }) => v.validation === cv);
  assert.equal(listed?.kind, 'crossvalidation', JSON.stringify(mine.validations));
  assert.equal(listed.folds, 3);
  assert.equal(typeof listed.statistics.rootMeanSquaredError, 'number');
  assert.equal(listed.statistics.numInstances, 60, 'the statistics pooled over the folds, not a fold’s');
  assert.equal(listed.baseline.kind, 'mean predictor');
  const own = mine.validations.find((v: { validation: string }) => v.validation === validation);
  assert.equal(own?.kind, 'validation', JSON.stringify(mine.validations));
  assert.equal(own.statistics.numInstances, 60);
  assert.equal(own.baseline.rows, 60);
  assert.equal(new Set(mine.validations.map((v: { validation: string }) => v.validation)).size, mine.validations.length, 'each validation once');
  // bob may use the (now public) model but not read alice's cross-validation
  const his = structured(await call(await mcp(bob), 'list_models', {})).models.find((m: { model: string }) => m.model === model);
  assert.ok(!his || !his.validations.some((v: { validation: string }) => v.validation === cv));
});
