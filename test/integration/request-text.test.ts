import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, http, form, errorReport, featureTurtle, type TestServer } from '../helpers.ts';

/**
 * Issue 52 #8: text that RDF/XML cannot carry (NUL and the other C0 controls but tab, LF and CR;
 * U+FFFE, U+FFFF; lone surrogates) is refused with 400 where it comes in, in every field, and
 * nothing is written.
 */
let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const datasets = async () => (await http(`${s.url}/dataset`, { accept: 'text/uri-list' })).text;

test('a title, a form field, a parameter name or an RDF literal holding NUL, U+FFFE or a lone surrogate is a 400 naming it; nothing is stored', async () => {
  const before = await datasets();
  const query = await http(`${s.url}/dataset?title=a%00b`, { method: 'POST', body: 'SMILES,y\nCCO,1\n', contentType: 'text/csv', accept: 'text/turtle' });
  assert.equal(query.status, 400, query.text);
  assert.match((await errorReport(query)).message ?? '', /parameter title holds the character U\+0000/);
  const named = await http(`${s.url}/dataset?ti%01tle=x`, { method: 'POST', body: 'SMILES,y\nCCO,1\n', contentType: 'text/csv', accept: 'text/turtle' });
  assert.equal(named.status, 400, named.text);
  const upload = await http(`${s.url}/dataset`, { method: 'POST', body: 'SMILES,y\nCCO,1\n', contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(upload.status, 200, upload.text);
  const dataset = upload.text.trim().replace(s.base, s.url);
  for (const title of ['a\uFFFEb', 'a\uFFFFb', 'bell\u0007']) {
    const r = await http(`${dataset}/metadata`, { method: 'PUT', body: form({ title }), accept: 'text/turtle' });
    assert.equal(r.status, 400, `${JSON.stringify(title)}: ${r.text}`);
  }
  for (const [escaped, named] of [
    ['\\u0000', /U\+0000/],
    ['\\uD800', /U\+D800 \(a lone surrogate\)|is not valid/],
  ] as const) {
    const turtle = await http(`${dataset}/metadata`, {
      method: 'PUT',
      body: `<${upload.text.trim()}> <http://purl.org/dc/elements/1.1/title> "a${escaped}b" .`,
      contentType: 'text/turtle',
      accept: 'text/turtle',
    });
    assert.equal(turtle.status, 400, turtle.text);
    assert.match((await errorReport(turtle)).message ?? '', named);
  }
  const feature = await http(`${s.url}/feature`, { method: 'POST', body: featureTurtle('nul\u0000feature'), contentType: 'text/turtle' });
  assert.equal(feature.status, 400, feature.text);
  // the dataset kept its title, and no other dataset was made
  const rdfXml = await http(dataset, { accept: 'application/rdf+xml' });
  assert.equal(rdfXml.status, 200);
  assert.ok(rdfXml.text.length > 0 && !rdfXml.text.includes('\u0000'));
  assert.equal((await datasets()).split('\n').filter(Boolean).length, before.split('\n').filter(Boolean).length + 1);
  // tab, line feed and carriage return are text like any other
  assert.equal((await http(`${dataset}/metadata`, { method: 'PUT', body: form({ title: 'two\tcolumns\r\nand lines' }) })).status, 200);
});
