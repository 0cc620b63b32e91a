import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createServer } from 'node:http';
import Koa from 'koa';
import type * as RDF from '@rdfjs/types';
import { startTestServer, http, parseRdfXml, parseTurtle, testStore, type TestServer } from '../helpers.ts';

/**
 * These tests put their data into the store directly (the REST input refuses it, or would take
 * minutes). On a remote store that write is itself refused: Virtuoso takes no NUL in a literal and
 * no update over 10 MB. What they check is the server's own writing of answers, which is the same
 * whatever the store; they run on the embedded store.
 */
const embeddedOnly = { skip: testStore ? `data written straight into the store, which ${testStore} does not take (the answers are written the same on every store)` : false };
import { df, dc, literal, xsd } from '../../src/rdf/namespaces.ts';
import { featureGraph } from '../../src/feature/feature-record.ts';
import { datasetMeta, entryQuads, metadataQuads } from '../../src/dataset/dataset-codec.ts';
import { RDF_OUTPUT_TYPES, serializeRdf } from '../../src/rdf/serialize.ts';
import { DATASET_OUTPUT_TYPES } from '../../src/dataset/dataset-views.ts';
import { XLSX_TYPE } from '../../src/dataset/xlsx-table.ts';
import { sendNegotiated } from '../../src/http/respond.ts';
import { errorHandler } from '../../src/http/error-handler.ts';
import { badRequest } from '../../src/core/errors.ts';

/**
 * Issue 52, the output side: no single request stops the server (a dataset of 16,383 columns
 * is written in time slices: a request made while it is written is answered before it ends),
 * and no answer ends early while it says 200 (text XML cannot carry, already in the store, is
 * left out of XML outputs; a body that fails after its status went out breaks the connection).
 */

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const local = (uri: string) => uri.replace(s.base, s.url);

/** A small dataset uploaded over REST: its URI and its compounds. */
async function smallDataset(rows: number): Promise<{ uri: string; compounds: string[] }> {
  const csv = `SMILES,x\n${Array.from({ length: rows }, (_, i) => `${'C'.repeat(i + 1)}O,${i}`).join('\n')}\n`;
  const reply = await http(`${s.url}/dataset?title=seed`, { method: 'POST', body: csv, contentType: 'text/csv' });
  assert.equal(reply.status, 200, reply.text);
  const uri = reply.text.trim();
  const compounds: string[] = [];
  for (const q of await s.services.store.readGraph(`${uri}/entries`)) if (q.predicate.value === 'http://www.opentox.org/api/1.1#compound') compounds.push(q.object.value);
  assert.equal(compounds.length, rows);
  return { uri, compounds };
}

/** One literal of a resource's own graph replaced through the store (as SPARQL Update, the Graph Store or an older server could have written it). */
async function setLiteral(graph: string, subject: string, predicate: RDF.NamedNode, value: string): Promise<void> {
  const quads = (await s.services.store.readGraph(graph)).filter((q) => !(q.subject.value === subject && q.predicate.equals(predicate)));
  await s.services.store.replaceGraphs({ [graph]: [...quads, df.quad(df.namedNode(subject), predicate, literal(value), df.namedNode(graph))] });
}

test('text XML cannot carry, already in the store, never breaks a dataset, its list or a feature in any format', embeddedOnly, async () => {
  const { uri } = await smallDataset(2);
  // U+0000 in the title, other characters XML 1.0 cannot carry in the description and a feature's title
  await setLiteral(uri, uri, dc('title'), 'a\u0000b');
  await setLiteral(uri, uri, dc('description'), 'bell\u0007 form feed\u000c escape\u001b not a character\uFFFE\uFFFF end');
  const feature = (await s.services.store.readGraph(uri)).find((q) => q.predicate.value === 'http://www.opentox.org/api/1.1#feature')!.object.value;
  await setLiteral(feature, feature, dc('title'), 'x\u0000y');

  const xml = await http(local(uri), { accept: 'application/rdf+xml' });
  assert.equal(xml.status, 200, xml.text);
  const quads = await parseRdfXml(xml.text);
  assert.ok(quads.length > 10, 'the whole dataset, not an empty body');
  const title = quads.find((q) => q.subject.value === uri && q.predicate.equals(dc('title')))?.object.value;
  assert.equal(title, 'ab', 'the character XML cannot carry is left out');
  assert.equal(quads.find((q) => q.subject.value === uri && q.predicate.equals(dc('description')))?.object.value, 'bell form feed escape not a character end');
  assert.ok(quads.some((q) => q.subject.value === feature && q.object.value === 'xy'));

  // the list stays readable for everyone
  for (const path of ['/dataset', '/feature']) {
    const list = await http(`${s.url}${path}`, { accept: 'application/rdf+xml' });
    assert.equal(list.status, 200, `${path}: ${list.text.slice(0, 300)}`);
    assert.ok((await parseRdfXml(list.text)).some((q) => q.subject.value === (path === '/dataset' ? uri : feature)));
  }
  const feat = await http(local(feature), { accept: 'application/rdf+xml' });
  assert.equal(feat.status, 200);
  await parseRdfXml(feat.text);

  // the formats that can carry the character keep it, escaped
  const nt = await http(local(uri), { accept: 'application/n-triples' });
  assert.equal(nt.status, 200);
  assert.match(nt.text, /"a\\u0000b"/);
  assert.equal(parseTurtle(nt.text).find((q) => q.subject.value === uri && q.predicate.equals(dc('title')))?.object.value, 'a\u0000b');
  const ttl = await http(local(uri), { accept: 'text/turtle' });
  assert.equal(parseTurtle(ttl.text).find((q) => q.subject.value === uri && q.predicate.equals(dc('title')))?.object.value, 'a\u0000b');
  const jsonld = await http(local(uri), { accept: 'application/ld+json' });
  assert.equal(jsonld.status, 200);
  JSON.parse(jsonld.text);
  const json = await http(local(uri), { accept: 'application/json' });
  assert.equal(JSON.parse(json.text).title, 'a\u0000b');

  // every other representation is whole too (a complete 200 with a body)
  for (const type of DATASET_OUTPUT_TYPES) {
    const reply = await fetch(local(uri), { headers: { accept: type } });
    const body = Buffer.from(await reply.arrayBuffer());
    assert.equal(reply.status, 200, `${type}: ${body.toString().slice(0, 300)}`);
    assert.ok(body.length > 0, type);
    if (type === XLSX_TYPE) assert.equal(body.subarray(0, 2).toString(), 'PK');
    if (type === 'text/html') assert.ok(!body.toString().includes('\u0000'), 'the page leaves it out as XML does');
  }
});

/**
 * A dataset of `columns` numeric features and the compounds' rows, written through the store
 * (what an RDF upload or SPARQL could make; uploads of tables are limited to fewer columns).
 */
async function wideDataset(columns: number, compounds: string[]): Promise<string> {
  const uri = `${s.base}/dataset/wide-${columns}`;
  const features = Array.from({ length: columns }, (_, i) => `${s.base}/feature/wide-${columns}-${i + 1}`);
  const graphs: Record<string, RDF.Quad[]> = {};
  for (const [i, f] of features.entries()) graphs[f] = featureGraph({ uri: f, title: `bit ${i + 1}`, kind: 'numeric', source: uri, accepted: [], sameAs: [] });
  graphs[uri] = metadataQuads(uri, { annotations: [[dc('title'), literal('wide')]], features, warnings: [] });
  graphs[`${uri}/entries`] = compounds.flatMap((c, k) =>
    entryQuads(
      uri,
      `${uri}/entries`,
      k + 1,
      c,
      features.map((f, j): [string, RDF.Literal] => [f, literal(String((j * (k + 1)) % 7), xsd('double'))]),
    ),
  );
  await s.services.store.replaceGraphs(graphs);
  return uri;
}

/** Download `url` as `type` and, once its answer has begun, ask for /health: which finished first. */
async function healthDuring(url: string, type: string): Promise<{ order: string[]; body: Buffer }> {
  const order: string[] = [];
  const download = await fetch(url, { headers: { accept: type } });
  assert.equal(download.status, 200);
  const body = download.arrayBuffer().then((b) => {
    order.push('download');
    return Buffer.from(b);
  });
  const health = fetch(`${s.url}/health`).then(async (r) => {
    assert.equal(r.status, 200);
    await r.text();
    order.push('health');
  });
  const [bytes] = await Promise.all([body, health]);
  return { order, body: bytes };
}

test('a dataset of 16,383 columns is downloaded whole while the server answers other requests', embeddedOnly, async () => {
  const { compounds } = await smallDataset(3);
  const uri = await wideDataset(16_383, compounds);

  const csv = await healthDuring(local(uri), 'text/csv');
  assert.deepEqual(csv.order, ['health', 'download'], 'GET /health was answered while the CSV was written');
  const lines = csv.body.toString().trimEnd().split('\r\n');
  assert.equal(lines.length, 4);
  assert.equal(lines[0].split(',').length, 16_384);
  assert.equal(lines[3].split(',')[16_383], String((16_382 * 3) % 7));

  const xml = await healthDuring(local(uri), 'application/rdf+xml');
  assert.deepEqual(xml.order, ['health', 'download'], 'GET /health was answered while the RDF/XML was written');
  const quads = await parseRdfXml(xml.body.toString());
  assert.equal(quads.filter((q) => q.predicate.value === 'http://www.opentox.org/api/1.1#value').length, 3 * 16_383);

  const ttl = await healthDuring(local(uri), 'text/turtle');
  assert.deepEqual(ttl.order, ['health', 'download'], 'GET /health was answered while the Turtle was written');
  assert.equal(parseTurtle(ttl.body.toString()).filter((q) => q.predicate.value === 'http://www.opentox.org/api/1.1#value').length, 3 * 16_383);

  const xlsx = await healthDuring(local(uri), XLSX_TYPE);
  assert.deepEqual(xlsx.order, ['health', 'download'], 'GET /health was answered while the workbook was written');
  assert.equal(xlsx.body.subarray(0, 2).toString(), 'PK');

  // the list of datasets holds its metadata graph of 49,000 statements: still one answer among others
  const list = await healthDuring(`${s.url}/dataset`, 'application/rdf+xml');
  assert.ok((await parseRdfXml(list.body.toString())).some((q) => q.subject.value === uri));
});

test("a dataset's metadata graph of 16,383 columns is read in one pass, not once per column", () => {
  const uri = 'http://example.org/dataset/1';
  const features = Array.from({ length: 16_383 }, (_, i) => `http://example.org/feature/${i + 1}`);
  const quads = metadataQuads(uri, { annotations: [[dc('title'), literal('wide')]], features, warnings: [] });
  // every statement it looks at, counted (reading it once per column held the event loop for 54 s)
  let reads = 0;
  const counted = new Proxy(quads, {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  assert.deepEqual(datasetMeta(counted, uri)?.features, features);
  assert.ok(reads <= 5 * quads.length, `${reads} reads of ${quads.length} statements`);
});

test('the RDF writers give the event loop its turns while they write a large graph', async () => {
  const quads: RDF.Quad[] = [];
  for (let i = 0; i < 50_000; i++) {
    const s = df.namedNode(`http://example.org/entry/${i}`);
    quads.push(df.quad(s, dc('title'), literal(`entry ${i}`)), df.quad(s, dc('identifier'), literal(i)));
  }
  for (const type of RDF_OUTPUT_TYPES) {
    // what was waiting for the event loop when the writing began is run before it ends
    const order: string[] = [];
    setImmediate(() => order.push('another turn'));
    const text = await serializeRdf(quads, type);
    order.push('written');
    assert.deepEqual(order, ['another turn', 'written'], type);
    assert.ok(text.includes('entry 49999'), type);
  }
});

/** A Koa app that answers every request with `renderers` (through the project's error handler), on a free port. */
async function appAnswering(renderers: Parameters<typeof sendNegotiated>[1]): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  app.silent = true;
  const silent = { info() {}, warn() {}, error() {} };
  app.use(errorHandler('http://localhost', silent));
  app.use((ctx) => sendNegotiated(ctx, renderers));
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

test('a body that fails after its status went out breaks the connection; one that fails at once is an error report', async () => {
  const app = await appAnswering({
    'text/csv': () =>
      Readable.from(
        (async function* () {
          yield 'SMILES,x\r\n';
          yield 'CCO,1\r\n';
          await new Promise((resolve) => setTimeout(resolve, 20));
          throw new Error('the store went away');
        })(),
      ),
    'text/turtle': () =>
      Readable.from(
        (async function* () {
          yield* [];
          throw badRequest('nothing of this can be written');
        })(),
      ),
  });
  try {
    const broken = await fetch(app.url, { headers: { accept: 'text/csv' } });
    assert.equal(broken.status, 200);
    // the client sees a transfer that broke off, not a complete answer
    await assert.rejects(broken.text());

    const refused = await fetch(app.url, { headers: { accept: 'text/turtle' } });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /nothing of this can be written/);
  } finally {
    await app.close();
  }
});
