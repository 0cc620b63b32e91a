import { test } from 'node:test';
import { throughText } from './through-text.ts';
import assert from 'node:assert/strict';
import { taskQuads, taskRecord, type TaskRecord } from '../../src/task/task-codec.ts';
import { reportQuads, reportRecord, type ReportRecord } from '../../src/report/report-codec.ts';
import { policiesFrom, policyQuads, usersFrom, usersQuads, type User } from '../../src/auth/auth-codec.ts';
import { datasetMeta, entryIri, entryNumber, metadataQuads, parseRowRuns, rowRuns } from '../../src/dataset/dataset-codec.ts';

const BASE = 'http://toxgraph.test';

test('task codec: a record round-trips through its quads, with and without the optional parts', async () => {
  const created = new Date('2026-11-26T03:00:00.000Z');
  const full: TaskRecord = {
    uri: `${BASE}/task/1`,
    title: 'Cross-validation of "kNN" <on> a dataset',
    creator: 'alice',
    status: 'Error',
    percent: 37.5,
    created,
    modified: new Date(created.getTime() + 1234),
    resultUri: `${BASE}/validation/9`,
    runner: 'queue',
    // the report's actor: the task, unless a client's report named its own
    error: { status: 400, code: 'InvalidInput', message: 'missing prediction_feature', details: 'a line\nand another', actor: `${BASE}/task/1` } as never,
  };
  assert.deepEqual(taskRecord(await throughText(taskQuads(full)), full.uri), full);
  const bare: TaskRecord = { uri: `${BASE}/task/2`, title: '', status: 'Running', percent: 0, created, modified: created };
  assert.deepEqual(taskRecord(await throughText(taskQuads(bare)), bare.uri), { ...bare, creator: undefined, resultUri: undefined, runner: undefined, error: undefined });
  assert.equal(taskRecord(await throughText(taskQuads(bare)), `${BASE}/task/3`), undefined, 'no record for another subject');
});

test('report codec: validations keep their order, an algorithm comparison its identifiers', async () => {
  const comparison: ReportRecord = {
    uri: `${BASE}/report/algorithm_comparison/4`,
    type: 'algorithm_comparison',
    title: 'kNN against a forest',
    date: new Date('2026-01-02T03:04:05.000Z'),
    validations: [`${BASE}/crossvalidation/12`, `${BASE}/crossvalidation/3`, `${BASE}/crossvalidation/7`],
    identifiers: ['kNN', 'forest', 'kNN, k=3'],
    models: [],
    algorithms: [`${BASE}/algorithm/knn`, `${BASE}/algorithm/random-forest`],
  };
  const back = reportRecord(await throughText(reportQuads(comparison)), comparison.uri);
  assert.deepEqual(back.validations, comparison.validations);
  assert.deepEqual(back.identifiers, comparison.identifiers);
  assert.deepEqual({ ...back, algorithms: [...back.algorithms].sort() }, comparison);
  const single: ReportRecord = {
    ...comparison,
    uri: `${BASE}/report/validation/5`,
    type: 'validation',
    validations: [`${BASE}/validation/1`],
    identifiers: [],
    models: [`${BASE}/model/2`],
    algorithms: [],
  };
  assert.deepEqual(reportRecord(await throughText(reportQuads(single)), single.uri), single);
});

test('access-control codec: users with their groups, and policies, round-trip', async () => {
  const users: User[] = [
    { name: 'alice', hash: 'scrypt$16384$8$1$c2FsdA$aGFzaA', admin: false },
    { name: 'admin', hash: 'scrypt$16384$8$1$c2FsdDI$aGFzaDI', admin: true },
  ];
  const groups = new Map([['reviewers', new Set(['alice', 'admin'])]]);
  const read = usersFrom(await throughText(usersQuads(users, groups)));
  assert.deepEqual(
    [...read.users.values()].sort((a, b) => a.name.localeCompare(b.name)),
    [...users].sort((a, b) => a.name.localeCompare(b.name)),
  );
  assert.deepEqual(read.groups, groups);
  const policies = [
    { resource: `${BASE}/dataset/1`, owner: 'alice', publicRead: false, readers: ['reviewers'] },
    { resource: `${BASE}/model/2`, owner: 'admin', publicRead: true, readers: [] },
  ];
  const back = policiesFrom(await throughText(policies.flatMap(policyQuads)));
  assert.deepEqual([...back.values()], policies);
});

test('a dataset keeps its first 500 warnings and counts the rest; a count kept before is counted on when more come', async () => {
  const { keptWarnings, MAX_WARNINGS } = await import('../../src/dataset/dataset-codec.ts');
  const few = ['row 1: a', 'row 2: b'];
  assert.deepEqual(keptWarnings(few), few);
  const many = Array.from({ length: 100_000 }, (_, i) => `row ${i + 1}: no structure`);
  const kept = keptWarnings(many);
  assert.equal(kept.length, MAX_WARNINGS + 1);
  assert.equal(kept[MAX_WARNINGS - 1], `row ${MAX_WARNINGS}: no structure`);
  assert.equal(kept[MAX_WARNINGS], `${100_000 - MAX_WARNINGS} more warning(s) not kept`);
  // a merge adds warnings after the count
  const again = keptWarnings([...kept, 'row 100001: no structure', 'row 100002: no structure']);
  assert.equal(again[MAX_WARNINGS], `${100_002 - MAX_WARNINGS} more warning(s) not kept`);
  const quads = metadataQuads('http://x.test/dataset/1', { annotations: [], features: [], warnings: many });
  assert.equal(quads.filter((q) => q.predicate.value === 'http://www.opentox.org/api/1.1#warning').length, MAX_WARNINGS + 1);
});

test('an Excel download is refused when its rows or columns do not fit one sheet', async () => {
  const { sheetTooLarge, SHEET_MAX_ROWS, SHEET_MAX_COLUMNS } = await import('../../src/dataset/xlsx-table.ts');
  assert.equal(sheetTooLarge(SHEET_MAX_ROWS, SHEET_MAX_COLUMNS), undefined);
  assert.match(sheetTooLarge(SHEET_MAX_ROWS + 1, 3) ?? '', /^1048576 rows of 3 columns do not fit an Excel sheet/);
  assert.match(sheetTooLarge(10, SHEET_MAX_COLUMNS + 1) ?? '', /16385 columns/);
});

test("a selection's rows as runs of entry numbers round-trip, in their order, repeats kept; runs not written by the server are skipped", () => {
  const cases = [[], [7], [1, 2, 3, 5, 8, 9, 10], [4, 2, 2, 3, 1], [3, 4, 5, 5, 6]];
  for (const numbers of cases) assert.deepEqual(parseRowRuns(rowRuns(numbers)), numbers, JSON.stringify(numbers));
  assert.equal(rowRuns([1, 2, 3, 5, 8, 9, 10]), '1-3 5 8-10');
  assert.deepEqual(parseRowRuns(' 2-4  x 0 5-3 -1 9 '), [2, 3, 4, 9]);
  assert.deepEqual(parseRowRuns('1-999999999999'), [], 'a run beyond the limit is not expanded');
  const meta = datasetMeta(metadataQuads('http://x/dataset/2', { annotations: [], features: [], warnings: [], rowsOf: 'http://x/dataset/1', selectedRows: '1-3 5' }), 'http://x/dataset/2');
  assert.equal(meta?.rowsOf, 'http://x/dataset/1');
  assert.equal(meta?.selectedRows, '1-3 5');
  assert.equal(entryNumber(entryIri('http://x/dataset/1', 12)), 12);
});

test('long text stored deflated comes back whole from its chunks in any order; chunks stored as plain text still read', async () => {
  const { deflatedChunkQuads, textChunkQuads, textOfChunks } = await import('../../src/rdf/text-chunks.ts');
  const { ot } = await import('../../src/rdf/namespaces.ts');
  const text = JSON.stringify({ trees: Array.from({ length: 300 }, (_, i) => ({ feature: Buffer.from(String(i).repeat(40)).toString('base64'), values: [i / 7, 1 - i / 7] })), name: 'één model' });
  const packed = deflatedChunkQuads(`${BASE}/model/1`, ot('modelContent'), text);
  assert.ok(packed.length > 1, 'several chunks');
  assert.ok(packed.every((q) => q.object.termType === 'Literal' && q.object.datatype.value === 'http://www.w3.org/2001/XMLSchema#base64Binary'));
  assert.ok(packed.reduce((n, q) => n + q.object.value.length, 0) < text.length / 2, 'smaller than the text');
  assert.equal(textOfChunks([...packed].reverse()), text);
  const plain = textChunkQuads(`${BASE}/model/2`, ot('modelContent'), text);
  assert.equal(textOfChunks([...plain].reverse()), text);
});
