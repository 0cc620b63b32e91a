import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compoundOf, featureRef, isConformer, parseDatasetRef, UriScheme } from '../../src/core/uri-scheme.ts';
import { Params } from '../../src/http/params.ts';
import type { HttpError } from '../../src/core/errors.ts';

const uris = new UriScheme('http://toxgraph.test');

test('URI scheme: items, subgraphs and reports are built and taken apart the same way', () => {
  const dataset = uris.item('dataset', 7);
  assert.equal(dataset, 'http://toxgraph.test/dataset/7');
  assert.equal(uris.idIn('dataset', dataset), '7');
  assert.equal(uris.subgraph(dataset, 'entries'), `${dataset}/entries`);
  assert.equal(uris.resourceOf(uris.subgraph(dataset, 'entries')), dataset);
  assert.equal(uris.idIn('dataset', `${dataset}/entries`), undefined, 'below an item is no id');
  assert.equal(uris.idIn('model', dataset), undefined);
  assert.equal(uris.idIn('dataset', 'http://toxgraph.test/dataset/%E0%A4%A'), undefined, 'a broken percent-encoding is no id of ours');
  assert.equal(uris.item('feature', 'a b/c'), 'http://toxgraph.test/feature/a%20b%2Fc');
  assert.equal(uris.idIn('feature', uris.item('feature', 'a b/c')), 'a b/c');
  const report = uris.report('crossvalidation', 3);
  assert.equal(uris.resourceOf(`${report}/content`), report);
  assert.ok(uris.isReport(report));
  // the Ruby layout names the same resources; the validation services are no resources
  assert.equal(uris.resourceOf('http://toxgraph.test/validation/crossvalidation/5'), 'http://toxgraph.test/crossvalidation/5');
  assert.equal(uris.resourceOf('http://toxgraph.test/validation/training_test_split'), undefined);
  assert.equal(uris.resourceOf('http://toxgraph.test/dataset'), undefined, 'a collection is no resource');
  assert.equal(uris.resourceOf('http://elsewhere.test/dataset/7'), undefined);
  assert.equal(uris.isLocal('http://toxgraph.test.evil/dataset/7'), false, 'a longer host is not this server');
});

test('URI scheme: dataset references and structures', () => {
  const ref = parseDatasetRef('http://toxgraph.test/dataset/7?feature_uris[]=http%3A%2F%2Ftoxgraph.test%2Ffeature%2F1&feature_uris=http://toxgraph.test/feature/2&compound_uris[]=x&page=2');
  assert.equal(ref.uri, 'http://toxgraph.test/dataset/7');
  assert.deepEqual(ref.features.sort(), ['http://toxgraph.test/feature/1', 'http://toxgraph.test/feature/2']);
  assert.deepEqual(ref.compounds, ['x']);
  assert.equal(ref.query.get('page'), '2');
  const back = parseDatasetRef(featureRef('http://toxgraph.test/dataset/7', ['http://toxgraph.test/feature/1?x=1&y=2']));
  assert.deepEqual(back.features, ['http://toxgraph.test/feature/1?x=1&y=2'], 'a feature URI with its own query survives');
  assert.equal(featureRef('http://toxgraph.test/dataset/7', []), 'http://toxgraph.test/dataset/7');
  const conformer = uris.conformer(uris.item('compound', 4), 2);
  assert.ok(isConformer(conformer));
  assert.equal(compoundOf(conformer), 'http://toxgraph.test/compound/4');
  assert.equal(compoundOf('http://toxgraph.test/compound/4'), 'http://toxgraph.test/compound/4');
});

test('parameters: name and name[] are one parameter; required refuses absent and blank values with 400', () => {
  const p = new Params(new URLSearchParams('a=1&b[]=2&b=3&blank=%20&c[]=x'));
  assert.equal(p.get('a'), '1');
  assert.deepEqual(p.all('b').sort(), ['2', '3']);
  assert.equal(p.get('c'), 'x');
  assert.ok(p.has('c') && !p.has('d'));
  assert.equal(p.get('d'), undefined);
  for (const name of ['d', 'blank']) {
    assert.throws(
      () => p.required(name),
      (e: HttpError) => e.status === 400 && e.message === `missing required parameter ${name}`,
    );
  }
  assert.deepEqual(Params.fromEntries(p.entries()).entries(), p.entries(), 'entries round-trip (a queued job carries them)');
});
