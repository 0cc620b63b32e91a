import { test } from 'node:test';
import assert from 'node:assert/strict';
import type * as RDF from '@rdfjs/types';
import { encodeRows, fitEncodings } from '../../src/learning/feature-matrix.ts';
import type { FeatureRecord } from '../../src/feature/feature-record.ts';
import { literal, xsd } from '../../src/rdf/namespaces.ts';

const feature = (uri: string, bits?: number) => ({ uri, exists: true, numeric: bits === undefined, nominal: false, bits, sameAs: [] }) as unknown as FeatureRecord;
const num = (v: string) => literal(v, xsd('double'));
const rowOf = (values: Record<string, RDF.Literal>) => new Map(Object.entries(values));

test('numeric features make a dense matrix; a missing or unparseable value is the training mean', async () => {
  const a = feature('http://x/a');
  const b = feature('http://x/b');
  const rows = [rowOf({ 'http://x/a': num('1'), 'http://x/b': num('0') }), rowOf({ 'http://x/a': num('3') }), rowOf({ 'http://x/a': num('oops'), 'http://x/b': num('1') })];
  const encodings = await fitEncodings([a, b], rows);
  assert.deepEqual(encodings, [
    { feature: 'http://x/a', kind: 'numeric', mean: 2, binary: false },
    { feature: 'http://x/b', kind: 'numeric', mean: 0.5, binary: true },
  ]);
  const { x, binary } = await encodeRows(encodings, rows);
  assert.deepEqual([x.rows, x.cols], [3, 2]);
  assert.deepEqual([...x.data], [1, 0, 3, 0.5, 2, 1]);
  assert.deepEqual(binary, [false, true]);
});

test('the same rows encoded for another list of features read that list, not the numbers parsed before', async () => {
  const a = feature('http://x/a');
  const b = feature('http://x/b');
  const rows = [rowOf({ 'http://x/a': num('1'), 'http://x/b': num('10') }), rowOf({ 'http://x/a': num('2'), 'http://x/b': num('20') })];
  const both = await encodeRows(await fitEncodings([a, b], rows), rows);
  assert.deepEqual([...both.x.data], [1, 10, 2, 20]);
  const reversed = await encodeRows(await fitEncodings([b, a], rows), rows);
  assert.deepEqual([...reversed.x.data], [10, 1, 20, 2]);
  const one = await encodeRows(await fitEncodings([b], rows), rows);
  assert.deepEqual([...one.x.data], [10, 20]);
});

test('numbers beside fingerprint bits: the columns in the encodings order, bits set where listed', async () => {
  const a = feature('http://x/a');
  const fp = feature('http://x/fp', 4);
  const rows = [rowOf({ 'http://x/a': num('5'), 'http://x/fp': literal('0 3') }), rowOf({ 'http://x/fp': literal('1,2') })];
  const { x, binary } = await encodeRows(await fitEncodings([fp, a], rows), rows);
  assert.deepEqual([x.rows, x.cols], [2, 5]);
  assert.deepEqual([...x.data], [1, 0, 0, 1, 5, 0, 1, 1, 0, 5]);
  assert.deepEqual(binary, [true, true, true, true, false]);
});
