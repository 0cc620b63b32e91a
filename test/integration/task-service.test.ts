import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, http, form, errorReport, parseTurtle, valuesOf, OT, type TestServer } from '../helpers.ts';

// Tasks that other services run themselves (issue 54): POST /task, then PUT of their state, as the
// OpenTox task service took them from its clients (opentox-ruby's OpenTox::Task, opentox-client).

const DC = 'http://purl.org/dc/elements/1.1/';
/** One base URL for the server and its restart on the same store (the port changes). */
const FLAGS = ['--base-url', 'http://toxgraph.test'];
let dir: string;
let s: TestServer;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toxgraph-task-service-'));
  s = await startTestServer(FLAGS, dir);
});
after(async () => {
  await s.stop();
  await rm(dir, { recursive: true, force: true });
});

const local = (server: TestServer, uri: string) => uri.replace(server.base, server.url);

/** A task as Turtle: its status code, and one value of a property of the task (or of its error report). */
async function read(server: TestServer, uri: string, headers: Record<string, string> = {}) {
  const r = await http(local(server, uri), { accept: 'text/turtle', headers });
  const quads = parseTurtle(r.text);
  const value = (p: string) => valuesOf(quads, uri, p)[0];
  const error = (local: string) => quads.find((q) => q.subject.value === `${uri}#error` && q.predicate.value === `${OT}${local}`)?.object.value;
  return { status: r.status, text: r.text, location: r.headers.get('location'), value, error };
}

async function create(server: TestServer, fields: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<string> {
  const r = await http(`${server.url}/task`, { method: 'POST', body: form(fields), accept: 'text/uri-list', headers });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.type, 'text/uri-list');
  const uri = r.text.trim();
  assert.equal(r.headers.get('location'), uri);
  assert.match(uri, new RegExp(`^${server.base}/task/`));
  return uri;
}

const put = (server: TestServer, path: string, body?: URLSearchParams | string, contentType?: string, headers: Record<string, string> = {}) =>
  http(`${server.url}${path}`, { method: 'PUT', body, contentType, accept: 'text/turtle', headers });
const pathOf = (server: TestServer, uri: string) => uri.slice(server.base.length);

test('POST /task makes a Running task that is never run here; PUT Running with progress, then Completed with its result (GET: 202, then 200 with Location)', async () => {
  const uri = await create(s, { title: 'external training', description: 'fold 1 of 5', creator: 'http://other.example/algorithm/svm' });
  assert.deepEqual(s.services.tasks.counts(), { queued: 0, running: 0 }, 'the runner took nothing');
  let t = await read(s, uri);
  assert.equal(t.status, 202);
  assert.equal(t.value(`${OT}hasStatus`), 'Running');
  assert.equal(t.value(`${DC}title`), 'external training');
  assert.equal(t.value(`${DC}creator`), 'http://other.example/algorithm/svm');
  assert.equal(t.value(`${DC}description`), 'fold 1 of 5');
  assert.ok((await http(`${s.url}/task`, { accept: 'text/uri-list' })).text.includes(uri));

  assert.equal((await put(s, pathOf(s, uri), form({ hasStatus: 'Running', percentageCompleted: '40', description: 'fold 3 of 5' }))).status, 200);
  t = await read(s, uri);
  assert.equal(t.status, 202);
  assert.equal(Number(t.value(`${OT}percentageCompleted`)), 40);
  assert.equal(t.value(`${DC}description`), 'fold 3 of 5');

  // opentox-ruby's form: PUT {task}/Completed with resultURI
  const done = await put(s, `${pathOf(s, uri)}/Completed`, form({ resultURI: 'http://other.example/model/7' }));
  assert.equal(done.status, 200, done.text);
  t = await read(s, uri);
  assert.equal(t.status, 200);
  assert.equal(t.location, 'http://other.example/model/7');
  assert.equal(t.value(`${OT}hasStatus`), 'Completed');
  assert.equal(Number(t.value(`${OT}percentageCompleted`)), 100);
  const list = await http(local(s, uri), { accept: 'text/uri-list' });
  assert.equal(list.text.trim(), 'http://other.example/model/7');
  // a browser following the task is not sent on to another site (no open redirect): the page links the result
  const page = await http(`${local(s, uri)}?follow=1`, { accept: 'text/html' });
  assert.ok(!/http-equiv="refresh"/i.test(page.text), 'no refresh to another site');
  assert.ok(page.text.includes('http://other.example/model/7'), 'the result is linked');
});

test('a PUT to a state that does not follow is 400 naming both states, and writes nothing', async () => {
  const uri = await create(s);
  assert.equal((await put(s, pathOf(s, uri), form({ hasStatus: 'Completed', resultURI: 'https://other.example/dataset/1' }))).status, 200);
  const before = await read(s, uri);
  for (const next of ['Running', 'Queued', 'Cancelled', 'Completed']) {
    const fields: Record<string, string> = { hasStatus: next, ...(next === 'Completed' ? { resultURI: 'https://other.example/dataset/2' } : {}) };
    const r = await put(s, pathOf(s, uri), form(fields));
    assert.equal(r.status, 400, `${next} after Completed`);
    const report = await errorReport(r);
    assert.match(report.message ?? '', new RegExp(`${next} does not follow from Completed`));
  }
  const error = await put(s, `${pathOf(s, uri)}/Error`, form({ message: 'too late', statusCode: '500' }));
  assert.equal(error.status, 400);
  assert.equal((await read(s, uri)).text, before.text, 'nothing was written');

  // a Cancelled task stays Cancelled; a Running one does not go back to Queued
  const cancelled = await create(s);
  assert.equal((await put(s, `${pathOf(s, cancelled)}/Cancelled`, form({ cannot_be: 'empty' }))).status, 200);
  assert.equal((await read(s, cancelled)).status, 503);
  const late = await put(s, pathOf(s, cancelled), form({ hasStatus: 'Running' }));
  assert.equal(late.status, 400);
  assert.match((await errorReport(late)).message ?? '', /Running does not follow from Cancelled/);
  const running = await create(s);
  const back = await put(s, pathOf(s, running), form({ hasStatus: 'Queued' }));
  assert.equal(back.status, 400);
  assert.match((await errorReport(back)).message ?? '', /Queued does not follow from Running/);
});

test('what goes with a state is checked: a result that is not an absolute http(s) URI, a progress out of range, an unknown state, an error status that is not one', async () => {
  const uri = await create(s);
  const before = await read(s, uri);
  const refused: [string, Record<string, string>, RegExp][] = [
    ['', { hasStatus: 'Completed' }, /missing required parameter resultURI/],
    ['/Completed', { resultURI: 'dataset/1' }, /absolute http\(s\) URI/],
    ['/Completed', { resultURI: 'ftp://other.example/x' }, /absolute http\(s\) URI/],
    ['/Completed', { resultURI: 'http://other.example/a b' }, /absolute http\(s\) URI/],
    ['', { hasStatus: 'Running', percentageCompleted: '150' }, /percentageCompleted must be a number from 0 to 100/],
    ['', { hasStatus: 'Running', percentageCompleted: 'NaN' }, /percentageCompleted/],
    ['', { hasStatus: 'Finished' }, /hasStatus must be one of Queued, Running, Completed, Cancelled, Error/],
    ['', {}, /missing required parameter hasStatus/],
    ['/Running', { hasStatus: 'Cancelled' }, /the path says Running, hasStatus says Cancelled/],
    ['/Running', { resultURI: 'http://other.example/x' }, /resultURI goes with Completed, not with Running/],
    ['/Error', {}, /an Error needs its ot:ErrorReport/],
    ['/Error', { message: 'x', statusCode: '200' }, /statusCode must be an HTTP error status/],
    ['/Error', { message: 'x', actor: 'not a uri' }, /actor must be an absolute http\(s\) URI/],
    ['/Error', { errorReport: '- just\n- a list\n' }, /errorReport must be a YAML mapping/],
    ['/Error', { errorReport: '['.repeat(20_000) }, /errorReport may be at most 8192 characters/],
    ['/Error', { errorReport: 'a: &x [1]\nb: *x\n' }, /errorReport is not YAML/],
  ];
  for (const [suffix, fields, message] of refused) {
    const r = await put(s, `${pathOf(s, uri)}${suffix}`, form(fields));
    assert.equal(r.status, 400, `${suffix} ${JSON.stringify(fields)}: ${r.text}`);
    assert.match((await errorReport(r)).message ?? '', message);
  }
  const notRdf = await put(s, pathOf(s, uri), '{"hasStatus":"Completed"}', 'application/json');
  assert.equal(notRdf.status, 400);
  assert.equal((await errorReport(notRdf)).code, 'UnsupportedMediaType');
  assert.equal((await read(s, uri)).text, before.text, 'nothing was written');
  // a new task starts Running or Queued, nothing else
  const tasks = (await http(`${s.url}/task`, { accept: 'text/uri-list' })).text;
  const ended = await http(`${s.url}/task`, { method: 'POST', body: form({ hasStatus: 'Completed' }), accept: 'text/turtle' });
  assert.equal(ended.status, 400);
  assert.match((await errorReport(ended)).message ?? '', /a new task is Running or Queued, not Completed/);
  assert.equal((await http(`${s.url}/task`, { accept: 'text/uri-list' })).text, tasks, 'no task was made');
  assert.equal((await put(s, '/task/no-such-task/Cancelled')).status, 404);
});

test('Error with its ot:ErrorReport: as form fields, as opentox-ruby YAML, as RDF; GET answers the report’s status', async () => {
  const fields = await create(s);
  const r = await put(
    s,
    `${pathOf(s, fields)}/Error`,
    form({ errorCode: 'NotFound', message: 'the training dataset is gone', statusCode: '404', actor: 'http://other.example/algorithm/svm', errorCause: 'GET answered 404' }),
  );
  assert.equal(r.status, 200, r.text);
  let t = await read(s, fields);
  assert.equal(t.status, 404);
  assert.equal(t.value(`${OT}hasStatus`), 'Error');
  assert.equal(t.error('errorCode'), 'NotFound');
  assert.equal(t.error('message'), 'the training dataset is gone');
  assert.equal(t.error('actor'), 'http://other.example/algorithm/svm');
  assert.equal(t.error('errorCause'), 'GET answered 404');

  // OpenTox::Task#error of opentox-ruby: the report as YAML of the Ruby object, in the field errorReport
  const yaml = await create(s);
  const ruby = '--- !ruby/object:OpenTox::ErrorReport \nhttp_code: 422\nerrorType: OpenTox::BadRequestError\nmessage: no feature values\nactor: http://other.example/model/3\nerrorCause: \n';
  assert.equal((await put(s, `${pathOf(s, yaml)}/Error`, form({ errorReport: ruby }))).status, 200);
  t = await read(s, yaml);
  assert.equal(t.status, 422);
  assert.equal(t.error('errorCode'), 'OpenTox::BadRequestError');
  assert.equal(t.error('message'), 'no feature values');

  // RDF: the task with its state and an ot:ErrorReport (a report without a status is a 500)
  const rdf = await create(s);
  const turtle = `@prefix ot: <${OT}> . <> ot:hasStatus "Error" ; ot:error <#e> . <#e> a ot:ErrorReport ; ot:errorCode "LearnerFailed" ; ot:message "singular matrix" .`;
  assert.equal((await put(s, pathOf(s, rdf), turtle, 'text/turtle')).status, 200);
  t = await read(s, rdf);
  assert.equal(t.status, 500);
  assert.equal(t.error('errorCode'), 'LearnerFailed');
  assert.equal(t.error('actor'), rdf, 'without an actor of its own the report names the task');
});

test('PUT of RDF and a POST of RDF; the Ruby clients’ {task}/pid changes nothing; DELETE cancels a running task', async () => {
  const made = await http(`${s.url}/task`, {
    method: 'POST',
    body: `@prefix ot: <${OT}> . @prefix dc: <${DC}> . <> a ot:Task ; dc:title "from RDF" ; ot:hasStatus "Queued" .`,
    contentType: 'text/turtle',
    accept: 'text/uri-list',
  });
  assert.equal(made.status, 200, made.text);
  const uri = made.text.trim();
  let t = await read(s, uri);
  assert.equal(t.value(`${OT}hasStatus`), 'Queued');
  assert.equal(t.value(`${DC}title`), 'from RDF');
  assert.equal((await put(s, `${pathOf(s, uri)}/pid`, form({ pid: '4711' }))).status, 200);
  assert.equal((await read(s, uri)).text, t.text, 'a pid changes nothing');
  const running = await put(s, pathOf(s, uri), `@prefix ot: <${OT}> . <> ot:hasStatus "Running" ; ot:percentageCompleted 12.5 .`, 'text/turtle');
  assert.equal(running.status, 200, running.text);
  t = await read(s, uri);
  assert.equal(t.status, 202);
  assert.equal(Number(t.value(`${OT}percentageCompleted`)), 12.5);
  // DELETE cancels it (its runner's next PUT is refused); DELETE of an ended task removes it
  assert.equal((await http(local(s, uri), { method: 'DELETE' })).status, 200);
  assert.equal((await read(s, uri)).status, 503);
  assert.equal((await put(s, `${pathOf(s, uri)}/Completed`, form({ resultURI: 'http://other.example/x' }))).status, 400);
  assert.equal((await http(local(s, uri), { method: 'DELETE' })).status, 200);
  assert.equal((await read(s, uri)).status, 404);
});

test('a task this server runs takes no PUT (405, Allow: GET, DELETE)', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const own = await s.services.tasks.submit('our own work', async () => {
    await gate;
    return `${s.base}/feature/1`;
  });
  const r = await put(s, `${pathOf(s, own)}/Completed`, form({ resultURI: 'http://other.example/x' }));
  assert.equal(r.status, 405);
  assert.equal(r.headers.get('allow'), 'GET, DELETE');
  assert.match((await errorReport(r)).message ?? '', /is run by this server/);
  release();
  await s.services.tasks.settled(own);
  assert.equal((await read(s, own)).location, `${s.base}/feature/1`);
});

test('a restart leaves a task another service runs as it was (it is not "interrupted"): its runner completes it afterwards', async () => {
  const uri = await create(s, { title: 'survives' });
  assert.equal((await put(s, pathOf(s, uri), form({ hasStatus: 'Running', percentageCompleted: '60' }))).status, 200);
  await s.stop();
  s = await startTestServer(FLAGS, dir);
  const t = await read(s, uri);
  assert.equal(t.status, 202, t.text);
  assert.equal(t.value(`${OT}hasStatus`), 'Running');
  assert.equal(Number(t.value(`${OT}percentageCompleted`)), 60);
  assert.equal((await put(s, `${pathOf(s, uri)}/Completed`, form({ resultURI: 'http://other.example/model/8' }))).status, 200);
  assert.equal((await read(s, uri)).status, 200);
});

test('with access control on: a signed-in caller creates a task it owns; another user cannot change or delete it (403), nor anyone without a token (401)', async () => {
  const a = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  try {
    const login = async (username: string, password: string) => /^token\.id=(\S+)$/m.exec((await http(`${a.url}/auth/authenticate`, { method: 'POST', body: form({ username, password }) })).text)![1];
    const admin = await login('admin', 'admin-secret-1');
    for (const name of ['alice', 'bob'])
      assert.equal((await http(`${a.url}/auth/user`, { method: 'POST', body: form({ username: name, password: `${name}-password` }), headers: { subjectid: admin } })).status, 200);
    const alice = { subjectid: await login('alice', 'alice-password') };
    const bob = { subjectid: await login('bob', 'bob-password') };

    const anonymous = await http(`${a.url}/task`, { method: 'POST', body: form({ title: 'x' }), accept: 'text/turtle' });
    assert.equal(anonymous.status, 401);
    assert.equal((await errorReport(anonymous)).code, 'Unauthorized');
    const uri = await create(a, { title: 'alice’s' }, alice);
    assert.equal((await read(a, uri, alice)).value(`${DC}creator`), 'alice', 'the creator is the signed-in user when not given');
    const before = (await read(a, uri, alice)).text;

    const byBob = await put(a, `${pathOf(a, uri)}/Completed`, form({ resultURI: 'http://other.example/x' }), undefined, bob);
    assert.equal(byBob.status, 403);
    assert.equal((await errorReport(byBob)).code, 'Forbidden');
    assert.equal((await http(local(a, uri), { method: 'DELETE', headers: bob })).status, 403);
    assert.equal((await put(a, `${pathOf(a, uri)}/Cancelled`)).status, 401);
    assert.equal((await read(a, uri, alice)).text, before, 'neither changed it');

    assert.equal((await put(a, pathOf(a, uri), form({ hasStatus: 'Running', percentageCompleted: '50' }), undefined, alice)).status, 200);
    assert.equal((await put(a, `${pathOf(a, uri)}/Completed`, form({ resultURI: 'http://other.example/x' }), undefined, alice)).status, 200);
    assert.equal((await read(a, uri, alice)).status, 200);
  } finally {
    await a.stop();
  }
});
