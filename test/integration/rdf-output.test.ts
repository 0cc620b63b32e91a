import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startTestServer, http, errorReport, featureTurtle, TTL_PREFIXES, parseRdfXml, parseTurtle, checkRdfXml, hasRapper, RAPPER_NOTE, rapper, type TestServer } from '../helpers.ts';
import { serializeRdf } from '../../src/rdf/serialize.ts';
import { parseRdf } from '../../src/rdf/parse.ts';
import { df } from '../../src/rdf/namespaces.ts';

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

test('a predicate RDF/XML cannot express answers a clear 400, and Turtle still serves it', async () => {
  const noQName = `${TTL_PREFIXES}[] a ot:NumericFeature ; dc:title "t" ; <http://example.org/props/123> "v" .`;
  const a = (await http(`${s.url}/feature`, { method: 'POST', body: noQName, contentType: 'text/turtle' })).text.trim().replace(s.base, s.url);
  const xmlA = await http(a, { accept: 'application/rdf+xml' });
  assert.equal(xmlA.status, 400);
  assert.equal((await errorReport(await http(a, { accept: 'application/rdf+xml;q=1, text/turtle;q=0.1', headers: {} }))).code, 'NotRepresentable');
  assert.equal((await http(a, { accept: 'text/turtle' })).status, 200);
  // the list of features holds it: the list leaves out the statement it cannot express, for everyone
  const list = await http(`${s.url}/feature`, { accept: 'application/rdf+xml' });
  assert.equal(list.status, 200);
  const listed = await checkRdfXml(list.text);
  assert.ok(listed.some((q) => q.subject.value === a.replace(s.url, s.base) && q.predicate.value === 'http://purl.org/dc/elements/1.1/title'));
  assert.ok(!listed.some((q) => q.predicate.value === 'http://example.org/props/123'));
});

test('text and IRIs XML cannot carry, stored through SPARQL or by an older server, are written by every RDF writer', async () => {
  const odd = 'nul\u0000 bell\u0007 vt\u000b ff\u000c esc\u001b us\u001f fffe\ufffe ffff\uffff high\ud800 low\udc00 pair😀 end';
  const quads = [
    df.quad(df.namedNode('http://example.org/a'), df.namedNode('http://purl.org/dc/elements/1.1/title'), df.literal(odd)),
    df.quad(df.namedNode('http://example.org/a'), df.namedNode('http://purl.org/dc/elements/1.1/description'), df.literal(odd, 'en')),
    df.quad(df.namedNode('http://example.org/b\u0000 c'), df.namedNode('http://purl.org/dc/elements/1.1/source'), df.namedNode('http://example.org/d\u0007"e\ud800')),
  ];
  // RDF/XML and other XML: the characters are left out, the rest is kept; IRIs percent-encoded
  const xml = await checkRdfXml(await serializeRdf(quads, 'application/rdf+xml'));
  assert.equal(xml.length, 3);
  assert.equal(xml.find((q) => q.predicate.value.endsWith('title'))?.object.value, 'nul bell vt ff esc us fffe ffff high low pair😀 end');
  assert.ok(xml.some((q) => q.subject.value === 'http://example.org/b%00%20c' && q.object.value === 'http://example.org/d%07%22e%EF%BF%BD'));
  // Turtle and N-Triples escape them: the text comes back as it was (but lone surrogates, which UTF-8 cannot carry)
  for (const type of ['text/turtle', 'application/n-triples']) {
    const back = parseTurtle(Buffer.from(await serializeRdf(quads, type)).toString());
    assert.equal(back.length, 3, type);
    assert.equal(back.find((q) => q.predicate.value.endsWith('title'))?.object.value, odd.replace('\ud800', '\ufffd').replace('\udc00', '\ufffd'), type);
  }
  const jsonld = JSON.parse(await serializeRdf(quads, 'application/ld+json'));
  assert.equal(jsonld['@graph'].length, 2);
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
