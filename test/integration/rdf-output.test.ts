import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startTestServer, http, errorReport, featureTurtle, TTL_PREFIXES, parseRdfXml, hasRapper, RAPPER_NOTE, rapper, type TestServer } from '../helpers.ts';
import { serializeRdf } from '../../src/rdf/serialize.ts';
import { parseRdf } from '../../src/rdf/parse.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

test('RDF/XML output with markup, quotes, newlines and non-ASCII text is accepted by Raptor', { skip: !hasRapper && RAPPER_NOTE }, async () => {
  const title = 'Ames <test> & "quotes" \'apos\'\nline two — ü ß 日本 𝔘';
  const uri = (await http(`${s.url}/feature`, { method: 'POST', body: featureTurtle(title, '; <http://purl.org/dc/elements/1.1/description> "x"@en-GB '), contentType: 'text/turtle' })).text.trim();
  const xml = await http(uri.replace(s.base, s.url), { accept: 'application/rdf+xml' });
  const lines = rapper(xml.text);
  assert.equal(lines.length, (await parseRdfXml(xml.text)).length);
  assert.ok(lines.some((l) => /@en-gb/i.test(l)));
  const roundTrip = await parseRdfXml(xml.text);
  assert.ok(roundTrip.some((q) => q.object.value === title));
});

test('content RDF/XML cannot carry answers a clear 400, and Turtle still serves it', async () => {
  const noQName = `${TTL_PREFIXES}[] a ot:NumericFeature ; dc:title "t" ; <http://example.org/props/123> "v" .`;
  const a = (await http(`${s.url}/feature`, { method: 'POST', body: noQName, contentType: 'text/turtle' })).text.trim().replace(s.base, s.url);
  const xmlA = await http(a, { accept: 'application/rdf+xml' });
  assert.equal(xmlA.status, 400);
  assert.equal((await errorReport(await http(a, { accept: 'application/rdf+xml;q=1, text/turtle;q=0.1', headers: {} }))).code, 'NotRepresentable');
  assert.equal((await http(a, { accept: 'text/turtle' })).status, 200);

  const control = `${TTL_PREFIXES}[] a ot:NumericFeature ; dc:title "bell\\u0007here" .`;
  const b = (await http(`${s.url}/feature`, { method: 'POST', body: control, contentType: 'text/turtle' })).text.trim().replace(s.base, s.url);
  const xmlB = await http(b, { accept: 'application/rdf+xml' });
  assert.equal(xmlB.status, 400);
  assert.match(xmlB.text, /XML 1\.0/);
  assert.ok(!xmlB.text.includes('\u0007'));
  assert.equal((await http(b, { accept: 'application/n-triples' })).status, 200);
});

test('the RDF/XML writer round-trips the W3C RDF/XML positive tests through Raptor', { skip: !hasRapper && RAPPER_NOTE }, async () => {
  const root = resolve('../shared/w3c/rdf/rdf11/rdf-xml');
  const manifest = readFileSync(join(root, 'manifest.ttl'), 'utf8');
  // positive evaluation tests: the .rdf action files listed with rdft:TestXMLEval
  const positive = [...manifest.matchAll(/a rdft:TestXMLEval[\s\S]*?mf:action <([^>]+)>/g)].map((m) => m[1]);
  assert.ok(positive.length > 100, `found ${positive.length} tests`);
  let written = 0;
  for (const rel of positive) {
    const file = join(root, rel);
    if (!existsSync(file)) continue;
    const base = `http://www.w3.org/2013/RDFXMLTests/${rel}`;
    const quads = await parseRdf(readFileSync(file, 'utf8'), 'application/rdf+xml', base);
    let xml: string;
    try {
      xml = await serializeRdf(quads, 'application/rdf+xml');
    } catch (e) {
      // the writer refuses only what RDF/XML cannot express, and says so
      assert.match((e as Error).message, /cannot be written as application\/rdf\+xml/, rel);
      continue;
    }
    const back = rapper(xml);
    assert.equal(back.length, new Set(quads.map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.termType}:${q.object.value}`)).size, rel);
    written++;
  }
  assert.ok(written >= positive.length - 5, `${written} of ${positive.length} written`);
});
