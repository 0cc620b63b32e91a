import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, http, parseRdfXml, parseTurtle, errorReport, featureTurtle, TTL_PREFIXES, OT, type TestServer } from '../helpers.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--body-limit', '20000']);
});
after(() => s.stop());

async function postFeature(body: string, contentType = 'text/turtle') {
  return http(`${s.url}/feature`, { method: 'POST', body, contentType, accept: 'text/uri-list' });
}

test('POST a feature answers its new URI; GET serves it in every RDF type', async () => {
  const created = await postFeature(featureTurtle('LC50 fathead minnow'));
  assert.equal(created.status, 200);
  assert.equal(created.type, 'text/uri-list');
  const uri = created.text.trim();
  assert.match(uri, new RegExp(`^${s.base}/feature/\\d+$`));

  const xml = await http(uri.replace(s.base, s.url), { accept: 'application/rdf+xml' });
  assert.equal(xml.status, 200);
  assert.equal(xml.type, 'application/rdf+xml');
  const quads = await parseRdfXml(xml.text);
  const has = (p: string, o: string) => quads.some((q) => q.subject.value === uri && q.predicate.value === p && q.object.value === o);
  assert.ok(has('http://www.w3.org/1999/02/22-rdf-syntax-ns#type', `${OT}Feature`));
  assert.ok(has('http://www.w3.org/1999/02/22-rdf-syntax-ns#type', `${OT}NumericFeature`));
  assert.ok(has('http://purl.org/dc/elements/1.1/title', 'LC50 fathead minnow'));
  assert.ok(has(`${OT}units`, 'mg/L'));
  assert.ok(has('http://www.w3.org/2002/07/owl#sameAs', 'http://www.opentox.org/echaEndpoints.owl#LC50'));

  for (const type of ['text/turtle', 'application/n-triples', 'text/n3']) {
    const r = await http(uri.replace(s.base, s.url), { accept: type });
    assert.equal(r.type, type);
    assert.equal(parseTurtle(r.text).length, quads.length, type);
  }
  const jsonld = await http(uri.replace(s.base, s.url), { accept: 'application/ld+json' });
  assert.equal(jsonld.type, 'application/ld+json');
  assert.ok(JSON.stringify(JSON.parse(jsonld.text)).includes('LC50 fathead minnow'));
  const html = await http(uri.replace(s.base, s.url), { accept: 'text/html' });
  assert.equal(html.type, 'text/html');
  assert.match(html.text, /LC50 fathead minnow/);
  const list = await http(uri.replace(s.base, s.url), { accept: 'text/uri-list' });
  assert.equal(list.text.trim(), uri);
  // no Accept and */* both give RDF/XML
  assert.equal((await http(uri.replace(s.base, s.url))).type, 'application/rdf+xml');
  assert.equal((await http(uri.replace(s.base, s.url), { accept: '*/*' })).type, 'application/rdf+xml');
});

test('features can be posted in RDF/XML, N-Triples and JSON-LD', async () => {
  const rdfxml = `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ot="${OT}" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:owl="http://www.w3.org/2002/07/owl#">
    <ot:Feature rdf:about="http://example.org/f"><dc:title>from xml</dc:title><owl:sameAs rdf:resource="http://www.opentox.org/echaEndpoints.owl#LC50"/></ot:Feature></rdf:RDF>`;
  const jsonld = JSON.stringify({ '@id': '_:f', '@type': `${OT}StringFeature`, 'http://purl.org/dc/elements/1.1/title': 'from json-ld' });
  const nt = `_:f <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <${OT}NominalFeature> .\n_:f <http://purl.org/dc/elements/1.1/title> "from nt" .\n`;
  for (const [body, type, title] of [
    [rdfxml, 'application/rdf+xml', 'from xml'],
    [jsonld, 'application/ld+json', 'from json-ld'],
    [nt, 'application/n-triples', 'from nt'],
  ]) {
    const r = await postFeature(body, type);
    assert.equal(r.status, 200, `${type}: ${r.text}`);
    const got = await http(r.text.trim().replace(s.base, s.url), { accept: 'text/turtle' });
    assert.ok(got.text.includes(title), type);
    // the posted node's own IRI is not kept: the feature lives at its minted URI only
    assert.ok(!got.text.includes('http://example.org/f'));
  }
});

test('GET /feature lists features; ?query= filters by owl:sameAs and answers 404 when none match', async () => {
  await postFeature(featureTurtle('listed one'));
  const list = await http(`${s.url}/feature`, { accept: 'text/uri-list' });
  assert.equal(list.status, 200);
  const uris = list.text.trim().split(/\r\n/);
  assert.ok(uris.length >= 2);
  const filtered = await http(`${s.url}/feature?query=${encodeURIComponent('http://www.opentox.org/echaEndpoints.owl#LC50')}`, { accept: 'text/uri-list' });
  assert.equal(filtered.status, 200);
  assert.ok(filtered.text.trim().split(/\r\n/).length >= 2);
  const none = await http(`${s.url}/feature?query=${encodeURIComponent('http://example.org/nothing')}`, { accept: 'text/turtle' });
  assert.equal(none.status, 404);
  assert.equal((await errorReport(none)).code, 'NotFound');
  const rdf = await http(`${s.url}/feature`, { accept: 'application/rdf+xml' });
  assert.ok((await parseRdfXml(rdf.text)).some((q) => q.object.value === `${OT}Feature`));
});

test('PUT replaces a feature; DELETE removes it; both answer 404 for an unknown feature', async () => {
  const uri = (await postFeature(featureTurtle('before'))).text.trim();
  const local = uri.replace(s.base, s.url);
  const put = await http(local, { method: 'PUT', body: featureTurtle('after'), contentType: 'text/turtle' });
  assert.equal(put.status, 200);
  const got = await http(local, { accept: 'text/turtle' });
  assert.ok(got.text.includes('"after"'));
  assert.ok(!got.text.includes('"before"'));
  assert.equal((await http(local, { method: 'DELETE' })).status, 200);
  assert.equal((await http(local, { accept: 'text/turtle' })).status, 404);
  assert.equal((await http(local, { method: 'DELETE' })).status, 404);
  assert.equal((await http(local, { method: 'PUT', body: featureTurtle('x'), contentType: 'text/turtle' })).status, 404);
});

test('bad input answers 4xx with an ErrorReport and stores nothing', async () => {
  const before = (await http(`${s.url}/feature`, { accept: 'text/uri-list' })).text;
  const cases: [string, string, number, RegExp][] = [
    ['this is not turtle {', 'text/turtle', 400, /not valid/],
    ['<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><unclosed>', 'application/rdf+xml', 400, /not valid/],
    ['{"@id": ', 'application/ld+json', 400, /not valid/],
    [featureTurtle('x'), 'text/csv', 400, /not an RDF type/],
    // text/plain is N-Triples (OpenTox 1.x clients): Turtle in it is a syntax error
    [featureTurtle('x'), 'text/plain', 400, /text\/plain body is not valid/],
    [`${TTL_PREFIXES}<http://x/a> dc:title "no type" .`, 'text/turtle', 400, /describes no feature/],
    [`${TTL_PREFIXES}[] a ot:Feature ; dc:title "a" . [] a ot:Feature ; dc:title "b" .`, 'text/turtle', 400, /2 features/],
    [`${TTL_PREFIXES}[] a ot:Feature ; dc:title "one", "two" ; owl:sameAs otee:LC50 .`, 'text/turtle', 400, /shape/],
    [`${TTL_PREFIXES}[] a ot:Feature ; dc:title "bad sameAs" ; owl:sameAs "LC50" .`, 'text/turtle', 400, /shape/],
    ['', 'text/turtle', 400, /empty/],
  ];
  for (const [body, type, status, message] of cases) {
    const r = await http(`${s.url}/feature`, { method: 'POST', body, contentType: type, accept: 'text/turtle' });
    assert.equal(r.status, status, `${type} ${body.slice(-40)} → ${r.text}`);
    const report = await errorReport(r);
    assert.match(report.message ?? '', message);
    assert.equal(report.status, String(status));
    assert.ok(!r.text.includes('    at '), 'no stack trace');
  }
  const big = featureTurtle('x'.repeat(30000));
  const tooBig = await http(`${s.url}/feature`, { method: 'POST', body: big, contentType: 'text/turtle', accept: 'text/turtle' });
  assert.equal(tooBig.status, 413);
  assert.equal((await errorReport(tooBig)).code, 'PayloadTooLarge');
  assert.equal((await http(`${s.url}/feature`, { accept: 'text/uri-list' })).text, before);
});

test('content negotiation honours q-values and refuses what it cannot serve', async () => {
  const uri = (await postFeature(featureTurtle('negotiated'))).text.trim().replace(s.base, s.url);
  assert.equal((await http(uri, { accept: 'application/rdf+xml;q=0.5, text/turtle;q=0.9' })).type, 'text/turtle');
  assert.equal((await http(uri, { accept: 'text/turtle;q=0.1, application/n-triples' })).type, 'application/n-triples');
  assert.equal((await http(uri, { accept: 'text/*;q=0.8, application/rdf+xml;q=0.2' })).type, 'text/turtle');
  assert.equal((await http(uri, { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' })).type, 'text/html');
  const refused = await http(uri, { accept: 'image/png' });
  assert.equal(refused.status, 400);
  assert.equal((await errorReport(refused)).code, 'NotAcceptable');
  const zero = await http(uri, { accept: 'application/rdf+xml;q=0, text/turtle' });
  assert.equal(zero.type, 'text/turtle');
});

test('quotes, braces, DROP ALL and newlines in titles and parameters are data, never query text', async () => {
  const evil = 'x" } ; DROP ALL ; INSERT DATA { <a:b> <c:d> "e" } #\n\'\\';
  const uri = (await postFeature(featureTurtle(evil))).text.trim();
  const got = parseTurtle((await http(uri.replace(s.base, s.url), { accept: 'text/turtle' })).text);
  assert.ok(got.some((q) => q.object.value === evil));
  // a hostile sameAs filter is refused as an IRI, and nothing is dropped
  const r = await http(`${s.url}/feature?query=${encodeURIComponent('http://x> } DROP ALL { <y')}`, { accept: 'text/turtle' });
  assert.equal(r.status, 400);
  const r2 = await http(`${s.url}/feature?query=${encodeURIComponent('http://x/"a"\n')}`, { accept: 'text/turtle' });
  assert.equal(r2.status, 400);
  assert.equal((await http(uri.replace(s.base, s.url), { accept: 'text/turtle' })).status, 200);
  // an id with SPARQL in it is just an unknown feature
  assert.equal((await http(`${s.url}/feature/${encodeURIComponent('1> } DROP ALL {')}`, { accept: 'text/turtle' })).status, 404);
  const count = await http(`${s.url}/sparql`, { method: 'POST', body: new URLSearchParams({ query: 'ASK { <a:b> <c:d> "e" }' }), accept: 'application/sparql-results+json' });
  assert.equal(JSON.parse(count.text).boolean, false);
});

test('unknown routes answer 404 and unknown methods 405, each with an ErrorReport', async () => {
  const r = await http(`${s.url}/no/such/thing`, { accept: 'text/turtle' });
  assert.equal(r.status, 404);
  assert.equal((await errorReport(r)).code, 'NotFound');
  const m = await http(`${s.url}/feature/1`, { method: 'PATCH', accept: 'text/turtle' });
  assert.equal(m.status, 405);
  assert.match(m.headers.get('allow') ?? '', /GET/);
  assert.equal((await errorReport(m)).code, 'MethodNotAllowed');
});
