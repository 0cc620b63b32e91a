/**
 * What OpenTox 1.x clients send and expect, unchanged (issue 54): the api/1.2 vocabulary read as
 * the 1.1 one, N-Triples as text/plain, every text answer with its charset, and one URI answered
 * so that a shell's `x=$(curl …)` can be used as a URL. Each runs with access control off and on.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, http, form, parseTurtle, errorReport, type TestServer } from '../helpers.ts';

const OT11 = 'http://www.opentox.org/api/1.1#';
const OT12 = 'http://www.opentox.org/api/1.2#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

interface Setting {
  name: string;
  s: TestServer;
  /** Headers of a signed-in caller (none with access control off). */
  as: Record<string, string>;
}
const settings: Setting[] = [];

before(async () => {
  const open = await startTestServer(['--sparql-update']);
  settings.push({ name: 'access control off', s: open, as: {} });
  const closed = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  const login = async (username: string, password: string) =>
    /^token\.id=(\S+)$/m.exec((await http(`${closed.url}/auth/authenticate`, { method: 'POST', body: form({ username, password }) })).text)![1];
  const admin = await login('admin', 'admin-secret-1');
  assert.equal((await http(`${closed.url}/auth/user`, { method: 'POST', body: form({ username: 'alice', password: 'alice-password' }), headers: { subjectid: admin } })).status, 200);
  settings.push({ name: 'access control on', s: closed, as: { subjectid: await login('alice', 'alice-password') } });
});
after(() => Promise.all(settings.map((x) => x.s.stop())));

/** A feature as an OpenTox 1.2 client posts it: RDF/XML typed only in the api/1.2 vocabulary. */
const feature12 = (title: string) => `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ot="${OT12}" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <ot:Feature rdf:about="http://example.org/f"><dc:title>${title}</dc:title><ot:units>mg/L</ot:units></ot:Feature>
</rdf:RDF>`;

test('the api/1.2 vocabulary is read as api/1.1: a feature typed only ot:Feature is accepted with a warning that says so', async () => {
  for (const { name, s, as } of settings) {
    const created = await http(`${s.url}/feature`, { method: 'POST', body: feature12('LC50 of 1.2'), contentType: 'application/rdf+xml', headers: as });
    assert.equal(created.status, 200, `${name}: ${created.text}`);
    assert.match(created.headers.get('warning') ?? '', /^299 - ".*typed only as ot:Feature/, name);
    assert.ok(created.headers.get('warning')?.includes(`<${created.text.trim()}>`), `${name}: the warning names the feature`);
    const uri = created.text.trim().replace(s.base, s.url);
    const quads = parseTurtle((await http(uri, { accept: 'text/turtle', headers: as })).text);
    const types = quads.filter((q) => q.predicate.value === RDF_TYPE).map((q) => q.object.value);
    assert.deepEqual(types, [`${OT11}Feature`], name);
    assert.ok(
      quads.some((q) => q.predicate.value === `${OT11}units` && q.object.value === 'mg/L'),
      `${name}: ot:units of 1.2 kept as 1.1`,
    );
    assert.ok(!quads.some((q) => [q.subject, q.predicate, q.object].some((t) => t.value.startsWith(OT12))), `${name}: nothing of api/1.2 is stored`);
    assert.ok(
      quads.some((q) => q.predicate.value === `${OT11}warning` && /typed only as ot:Feature/.test(q.object.value)),
      `${name}: the warning is kept with the feature`,
    );
    // a typed 1.2 feature is no warning
    const typed = await http(`${s.url}/feature`, {
      method: 'POST',
      body: `<http://example.org/g> a <${OT12}NumericFeature> ; <http://purl.org/dc/elements/1.1/title> "typed" .`,
      contentType: 'text/turtle',
      headers: as,
    });
    assert.equal(typed.status, 200, typed.text);
    assert.equal(typed.headers.get('warning'), null, name);
    // a 1.2 dataset upload (RDF) is read the same way
    const dataset = await http(`${s.url}/dataset`, {
      method: 'POST',
      body: `@prefix ot: <${OT12}> . @prefix dc: <http://purl.org/dc/elements/1.1/> . <http://example.org/d> a ot:Dataset ; dc:title "from 1.2" .`,
      contentType: 'text/turtle',
      headers: as,
    });
    assert.equal(dataset.status, 200, `${name}: ${dataset.text}`);
    const meta = parseTurtle((await http(`${dataset.text.trim().replace(s.base, s.url)}/metadata`, { accept: 'text/turtle', headers: as })).text);
    assert.ok(
      meta.some((q) => q.predicate.value === RDF_TYPE && q.object.value === `${OT11}Dataset`),
      name,
    );
  }
});

test('SPARQL Update: api/1.2 terms are written as their api/1.1 equals', async () => {
  const { s } = settings[0];
  const update = `INSERT DATA { GRAPH <http://example.org/mine> { <http://example.org/x> a <${OT12}Feature> ; <${OT12}units> "mg" } }`;
  assert.equal((await http(`${s.url}/sparql`, { method: 'POST', body: form({ update }) })).status, 204);
  const ask = (type: string) =>
    http(`${s.url}/sparql?query=${encodeURIComponent(`ASK { GRAPH <http://example.org/mine> { <http://example.org/x> a <${type}> } }`)}`, { accept: 'application/sparql-results+json' });
  assert.equal(JSON.parse((await ask(`${OT11}Feature`)).text).boolean, true);
  assert.equal(JSON.parse((await ask(`${OT12}Feature`)).text).boolean, false);
});

test('N-Triples as text/plain: accepted wherever RDF is, answered for Accept: text/plain; a type that cannot be served is 400 naming those that can', async () => {
  for (const { name, s, as } of settings) {
    const nt = `<http://example.org/f> <${RDF_TYPE}> <${OT11}NumericFeature> .\n<http://example.org/f> <http://purl.org/dc/elements/1.1/title> "plain \\u00e9" .\n`;
    const created = await http(`${s.url}/feature`, { method: 'POST', body: nt, contentType: 'text/plain', headers: as });
    assert.equal(created.status, 200, `${name}: ${created.text}`);
    const uri = created.text.trim().replace(s.base, s.url);
    const one = await http(uri, { accept: 'text/plain', headers: as });
    assert.equal(one.status, 200, name);
    assert.equal(one.headers.get('content-type'), 'text/plain; charset=utf-8', name);
    assert.match(one.text, /^<[^>]+> <[^>]+> .+ \.$/m, `${name}: N-Triples`);
    assert.ok(one.text.includes('"plain é"'), name);
    const list = await http(`${s.url}/feature`, { accept: 'text/plain', headers: as });
    assert.equal(list.status, 200, `${name}: ${list.text}`);
    assert.match(list.text, new RegExp(`<${created.text.trim()}> <${RDF_TYPE}>`), name);
    // any type still prefers RDF/XML; text types prefer Turtle
    assert.equal((await http(uri, { accept: '*/*', headers: as })).type, 'application/rdf+xml');
    assert.equal((await http(uri, { accept: 'text/*', headers: as })).type, 'text/turtle');
    const refused = await http(uri, { accept: 'image/png', headers: as });
    assert.equal(refused.status, 400, name);
    assert.match((await errorReport(refused)).message ?? '', /available: .*application\/rdf\+xml.*text\/plain/, name);
    // a dataset posted as text/plain N-Triples
    const dataset = await http(`${s.url}/dataset`, {
      method: 'POST',
      body: `<http://example.org/d> <${RDF_TYPE}> <${OT11}Dataset> .\n<http://example.org/d> <http://purl.org/dc/elements/1.1/title> "nt" .\n`,
      contentType: 'text/plain',
      headers: as,
    });
    assert.equal(dataset.status, 200, `${name}: ${dataset.text}`);
    const broken = await http(`${s.url}/feature`, { method: 'POST', body: 'this is not N-Triples', contentType: 'text/plain', headers: as });
    assert.equal(broken.status, 400, name);
  }
});

test('every text answer names charset=utf-8; a CSV read from Windows-1252 reads back as the same text; the page’s CSV link starts with a byte-order mark', async () => {
  for (const { name, s, as } of settings) {
    const csv = Buffer.from('SMILES;Name;LC50\r\nCCO;Déjà vu €;1,5\r\n', 'latin1');
    // € is 0x80 in Windows-1252, not in Latin-1
    csv[csv.indexOf(Buffer.from('€', 'latin1'))] = 0x80;
    const created = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv; charset=windows-1252', headers: as });
    assert.equal(created.status, 200, `${name}: ${created.text}`);
    assert.equal(created.headers.get('content-type'), 'text/uri-list; charset=utf-8', name);
    const dataset = created.text.trim().replace(s.base, s.url);
    const download = await fetch(dataset, { headers: { accept: 'text/csv', ...as } });
    assert.equal(download.headers.get('content-type'), 'text/csv; charset=utf-8', name);
    // read as a client that honours the charset it is given (Python's requests, Excel with a BOM)
    const charset = /charset=([^;]+)/.exec(download.headers.get('content-type') ?? '')![1];
    const text = new TextDecoder(charset).decode(await download.arrayBuffer());
    assert.ok(text.includes('Déjà vu €'), `${name}: ${text}`);
    const forExcel = Buffer.from(await (await fetch(`${dataset}?media=text%2Fcsv&bom=1`, { headers: as })).arrayBuffer());
    assert.deepEqual([...forExcel.subarray(0, 3)], [0xef, 0xbb, 0xbf], name);
    const page = await http(dataset, { accept: 'text/html', headers: as });
    assert.match(page.text, /\?media=text%2Fcsv&amp;bom=1/, name);
    for (const type of ['text/html', 'text/uri-list', 'text/arff', 'text/turtle', 'text/x-yaml']) {
      const r = await http(dataset, { accept: type, headers: as });
      assert.equal(r.headers.get('content-type'), `${type}; charset=utf-8`, `${name}: ${type}`);
    }
    const error = await http(`${s.url}/feature/999999`, { accept: 'text/plain', headers: as });
    assert.equal(error.headers.get('content-type'), 'text/plain; charset=utf-8', name);
  }
  // the auth service's OpenSSO text answers too
  const { s } = settings[1];
  const token = await http(`${s.url}/auth/authenticate`, { method: 'POST', body: form({ username: 'alice', password: 'alice-password' }) });
  assert.equal(token.headers.get('content-type'), 'text/plain; charset=utf-8');
});

test('one URI answered as text/uri-list works in a shell (x=$(curl …); curl $x); lists keep RFC 2483 CR LF', async () => {
  for (const { name, s, as } of settings) {
    const created = await http(`${s.url}/feature`, { method: 'POST', body: feature12('one'), contentType: 'application/rdf+xml', headers: as });
    assert.equal(created.status, 200, created.text);
    assert.match(created.text, /^\S+\n$/, `${name}: one URI, one plain line end`);
    await http(`${s.url}/feature`, { method: 'POST', body: feature12('two'), contentType: 'application/rdf+xml', headers: as });
    // a list: every URI ends in CR LF (RFC 2483), and a strict reader finds each
    const list = await http(`${s.url}/feature`, { accept: 'text/uri-list', headers: as });
    assert.match(list.text, /^(?:[^\r\n]+\r\n){2,}$/, name);
    const lines = list.text.split('\r\n').slice(0, -1);
    assert.ok(
      lines.every((u) => URL.canParse(u)),
      name,
    );
    if (!existsSync('/usr/bin/curl')) continue;
    // the published scripts: the URI from one curl is the next curl's URL (the base URL here is this server's own)
    const header = as.subjectid ? ['-H', `subjectid: ${as.subjectid}`] : [];
    const script = 'x=$(curl -s -X POST -H "Content-Type: application/rdf+xml" "$@" --data-binary "$BODY" "$URL/feature"); curl -s -o /dev/null -w "%{http_code}" "$@" -H "Accept: text/turtle" $x';
    // asynchronously: the server answering curl runs in this process
    const { stdout: code } = await promisify(execFile)('sh', ['-c', script, 'sh', ...header], { env: { ...process.env, URL: s.url, BODY: feature12('from a shell') }, encoding: 'utf8' });
    assert.equal(code, '200', `${name}: the shell's URI is a URL curl can fetch`);
  }
});

test('the published way of scripting OpenTox: upload, train MLR and follow its task with curl alone, each URI taken from the answer before', {
  skip: !existsSync('/usr/bin/curl') && 'curl is not installed',
}, async () => {
  // AUTH: the subjectid header of a signed-in caller (a harmless header without access control)
  const script = `set -e
follow() { while [ "$(curl -s -o "$DIR/answer" -w '%{http_code}' -H "$AUTH" -H "Accept: text/uri-list" $1)" = 202 ]; do sleep 0.2; done; cat "$DIR/answer"; }
printf 'SMILES,LC50\\nCCO,1.2\\nCCCO,1.9\\nCCCCO,2.4\\nCCCCCO,3.1\\nCCCCCCO,3.5\\nc1ccccc1O,2.2\\n' > "$DIR/train.csv"
dataset=$(curl -sS --fail-with-body -H "$AUTH" -H "Accept: text/uri-list" -F "file=@$DIR/train.csv;type=text/csv" -F "title=Alcohols" "$URL/dataset")
feature=$(curl -sS --fail-with-body -H "$AUTH" -H "Accept: text/uri-list" $dataset/features)
task=$(curl -sS --fail-with-body -H "$AUTH" -X POST -d "dataset_uri=$dataset" -d "descriptors=CrippenClogP" "$URL/algorithm/rdkit-descriptors")
described=$(follow $task)
task=$(curl -sS --fail-with-body -H "$AUTH" -X POST -d "dataset_uri=$described" -d "prediction_feature=$feature" "$URL/algorithm/mlr")
model=$(follow $task)
curl -sS --fail-with-body -H "$AUTH" -o /dev/null $model
echo "$model"`;
  for (const { name, s, as } of settings) {
    const dir = await mkdtemp(join(tmpdir(), 'toxgraph-curl-'));
    try {
      const AUTH = as.subjectid ? `subjectid: ${as.subjectid}` : 'X-Client: sh';
      const { stdout } = await promisify(execFile)('sh', ['-c', script], { env: { ...process.env, URL: s.url, DIR: dir, AUTH }, encoding: 'utf8' });
      assert.match(stdout.trim(), new RegExp(`^${s.base}/model/\\d+$`), name);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
});

test('a dataset uploaded as the Ruby services’ YAML, and an empty dataset filled later, with access control off and on', async () => {
  const yaml = `--- !ruby/object:OpenTox::Dataset
metadata:
  http://purl.org/dc/elements/1.1/title: From a Ruby client
features:
  LC50:
    http://purl.org/dc/elements/1.1/title: LC50
compounds:
  - CCO
  - c1ccccc1
data_entries:
  CCO:
    LC50: [1.5]
  c1ccccc1:
    LC50: [2.5]
`;
  for (const { name, s, as } of settings) {
    const uploaded = await http(`${s.url}/dataset`, { method: 'POST', body: yaml, contentType: 'text/x-yaml', headers: as });
    assert.equal(uploaded.status, 200, `${name}: ${uploaded.text}`);
    const dataset = uploaded.text.trim().replace(s.base, s.url);
    const csv = await http(dataset, { accept: 'text/csv', headers: as });
    assert.match(csv.text, /LC50/, name);
    assert.equal(csv.text.trim().split('\n').length, 3, `${name}: a header and two rows`);
    const empty = await http(`${s.url}/dataset`, { method: 'POST', headers: as });
    assert.equal(empty.status, 200, `${name}: ${empty.text}`);
    const emptyUri = empty.text.trim().replace(s.base, s.url);
    assert.equal((await http(`${emptyUri}/compounds`, { accept: 'text/uri-list', headers: as })).text, '', name);
    const filled = await http(emptyUri, { method: 'PUT', body: 'SMILES,LC50\nCCO,1.5\n', contentType: 'text/csv', headers: as });
    assert.equal(filled.status, 200, `${name}: ${filled.text}`);
    assert.equal((await http(`${emptyUri}/compounds`, { accept: 'text/uri-list', headers: as })).text.trim().split('\n').length, 1, name);
    if (as.subjectid) {
      assert.equal((await http(`${s.url}/dataset`, { method: 'POST' })).status, 401, 'an anonymous caller makes no dataset');
      assert.equal((await http(dataset, { accept: 'text/csv' })).status, 401);
    }
  }
});
