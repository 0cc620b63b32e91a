/**
 * The named SPARQL templates of work records (validations and cross-validations, validation and
 * QMRF reports, tasks, access control, the shared id counters), run without HTTP on a real
 * embedded store whose graphs the components' own encoders wrote. Answers are compared as exact
 * sets, and each SELECT and ASK also through Comunica (see query-template-support.ts); updates
 * are checked by reading back every graph they may touch. The resource components' templates are
 * in query-templates.test.ts.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type * as RDF from '@rdfjs/types';
import { df, literal, ot } from '../../src/rdf/namespaces.ts';
import { classificationStatistics, regressionStatistics } from '../../src/validation/statistics.ts';
import { crossvalidationQuads, validationQuads, type ValidationRecord } from '../../src/validation/validation-record.ts';
import { reportQuads, type ReportRecord } from '../../src/report/report-codec.ts';
import { qmrfQuads, type QmrfRecord } from '../../src/qmrf/qmrf-codec.ts';
import { TASK_RUNNER, mintedQuads, taskQuads, type TaskRecord } from '../../src/task/task-codec.ts';
import { POLICIES_GRAPH, TOKENS_GRAPH, USERS_GRAPH, policiesFrom, policyQuads, tokensFrom, tokensQuads, usersQuads, type Policy, type Tokens } from '../../src/auth/auth-codec.ts';
import { validationQueries } from '../../src/validation/validation-queries.ts';
import { reportQueries } from '../../src/report/report-queries.ts';
import { qmrfQueries } from '../../src/qmrf/qmrf-queries.ts';
import { taskQueries } from '../../src/task/task-queries.ts';
import { authQueries } from '../../src/auth/auth-queries.ts';
import { idQueries } from '../../src/store/id-queries.ts';
import { serviceQueries } from '../../src/service/service-queries.ts';
import { HttpError } from '../../src/core/errors.ts';
import { sparql } from '../../src/store/sparql-template.ts';
import { EVIL, openStore, refusesBadIris, sorted, tripleKey, uris } from './query-template-support.ts';

let db: Awaited<ReturnType<typeof openStore>>;
const rows: typeof db.rows = (...args) => db.rows(...args);
const col: typeof db.col = (...args) => db.col(...args);
const yes: typeof db.yes = (...args) => db.yes(...args);

const D = (id: number) => uris.item('dataset', id);
const F = (id: number) => uris.item('feature', id);
const M = (id: number) => uris.item('model', id);
const V = (id: number) => uris.item('validation', id);
const CV = (id: number) => uris.item('crossvalidation', id);
const T = (id: number) => uris.item('task', id);
const statisticsOf = (cv: string) => uris.subgraph(cv, 'statistics');
const KNN = uris.item('algorithm', 'knn-classification');
const MLR = uris.item('algorithm', 'mlr');
const MUT = 'http://www.opentox.org/echaEndpoints.owl#Mutagenicity';
/** The counters of the id minter (id-minter.ts). */
const COUNTERS_GRAPH = 'urn:toxgraph:counters';
const USER_GRAPH = 'http://user.example/notes';

const classification = () => ({
  kind: 'classification' as const,
  values: classificationStatistics(
    [
      { actual: 'active', predicted: 'active', confidence: 0.9 },
      { actual: 'active', predicted: 'inactive', confidence: 0.6 },
      { actual: 'inactive', predicted: 'inactive', confidence: 0.8 },
      { actual: undefined, predicted: 'active', confidence: 0.5 },
    ],
    ['active', 'inactive'],
  ),
});
const regression = () => ({
  kind: 'regression' as const,
  values: regressionStatistics([
    { actual: 2.13, predicted: 2.0, confidence: 1 },
    { actual: -0.31, predicted: -0.1, confidence: 1 },
    { actual: 1.5, predicted: 1.4, confidence: 1 },
  ]),
});
const validation = (parts: Omit<ValidationRecord, 'realRuntimeMs' | 'date' | 'predictionFeature'> & { predictionFeature?: string }): ValidationRecord => ({
  predictionFeature: F(2),
  realRuntimeMs: 1234,
  date: new Date('2026-05-01T00:00:00Z'),
  ...parts,
});

/** A cross-validation's graph and its pooled statistics (`{uri}/statistics`), as CrossValidation writes them. */
function crossvalidation(uri: string, algorithm: string, dataset: string, folds: string[], statistics: ValidationRecord['statistics']): Record<string, RDF.Quad[]> {
  const pooled = validationQuads(statisticsOf(uri), {
    validationType: 'crossvalidation',
    algorithm,
    testDataset: dataset,
    testTargetDataset: dataset,
    predictionFeature: F(2),
    randomSeed: 1,
    crossvalidation: { uri, fold: 0 },
    realRuntimeMs: 99,
    date: new Date('2026-05-02T00:00:00Z'),
    statistics,
    pooled: true,
  }).filter((q) => !q.predicate.equals(ot('crossvalidationFold')));
  const own = crossvalidationQuads(uri, {
    algorithm,
    algorithmParams: 'k=3',
    predictionFeature: F(2),
    dataset,
    numFolds: folds.length,
    stratified: 'true',
    randomSeed: 1,
    leaveOneOut: false,
    folds,
    date: new Date('2026-05-02T00:00:00Z'),
  });
  return { [uri]: own, [statisticsOf(uri)]: pooled };
}

const report = (type: ReportRecord['type'], id: number, parts: Partial<ReportRecord>): [string, RDF.Quad[]] => {
  const uri = uris.report(type, id);
  return [uri, reportQuads({ uri, type, title: `report ${id}`, date: new Date('2026-05-03T00:00:00Z'), validations: [], identifiers: [], models: [], algorithms: [], ...parts })];
};
const qmrf = (id: number, parts: Partial<QmrfRecord>): [string, RDF.Quad[]] => {
  const uri = uris.reachReport('qmrf', id);
  const date = new Date('2026-05-04T00:00:00Z');
  return [
    uri,
    qmrfQuads({ uri, title: `QMRF ${id}`, created: date, modified: date, datasets: [], validations: [], authors: [{ name: 'A. Author', email: 'a@example.org' }], checklist: [], ...parts }),
  ];
};

const TASK_TIMES: Record<number, string> = {
  1: '2026-03-01T10:00:00Z',
  2: '2026-03-01T09:00:00Z',
  3: '2026-03-01T11:00:00Z',
  4: '2026-02-28T00:00:00Z',
  5: '2026-03-02T00:00:00Z',
  6: '2026-03-03T00:00:00Z',
};
const task = (id: number, parts: Partial<TaskRecord> & Pick<TaskRecord, 'status'>) => {
  const created = new Date(TASK_TIMES[id]);
  return taskQuads({ uri: T(id), title: `task ${id}`, percent: 0, created, modified: created, ...parts });
};

// access control: a fixed "now"; token hashes as the server keeps them (SHA-256 of the token)
const NOW = Date.parse('2026-06-01T12:00:00Z');
const HOUR = 3_600_000;
const hash = (token: string) => createHash('sha256').update(token).digest('hex');
const [H_ALICE_1, H_ALICE_2, H_BOB, H_OLD, H_EVIL, H_X, H_NEW] = ['alice-1', 'alice-2', 'bob', 'old', 'evil', 'x', 'new'].map(hash);
const LIVE: Tokens = new Map([
  [H_ALICE_1, { user: 'alice', expires: NOW + HOUR }],
  [H_ALICE_2, { user: 'alice', expires: NOW + 2 * HOUR }],
  [H_BOB, { user: 'bob', expires: NOW + HOUR }],
  [H_EVIL, { user: EVIL, expires: NOW + HOUR }],
  [H_X, { user: 'x', expires: NOW + HOUR }],
]);
/** The tokens graph: the live tokens, and one that expired an hour ago (written while it was live). */
const tokensGraph = () => [...tokensQuads(LIVE, NOW), ...tokensQuads(new Map([[H_OLD, { user: 'carol', expires: NOW - HOUR }]]), NOW - 2 * HOUR)];
const POLICIES: Policy[] = [
  { resource: D(1), owner: 'alice', publicRead: false, readers: ['lab'] },
  { resource: M(1), owner: 'bob', publicRead: true, readers: [] },
];
const USERS = usersQuads(
  [
    { name: 'alice', hash: 'scrypt$16384$8$1$c2FsdA$aGFzaA', admin: true },
    { name: 'bob', hash: 'scrypt$16384$8$1$c2FsdDI$aGFzaDI', admin: false },
  ],
  new Map([['lab', new Set(['alice', 'bob'])]]),
);

const graphs: Record<string, RDF.Quad[]> = {};
before(async () => {
  Object.assign(
    graphs,
    {
      [V(1)]: validationQuads(V(1), validation({ validationType: 'test_set_validation', model: M(1), algorithm: KNN, trainingDataset: D(1), testDataset: D(2), statistics: classification() })),
      [V(2)]: validationQuads(
        V(2),
        validation({ validationType: 'test_set_validation', model: M(2), algorithm: MLR, trainingDataset: D(1), testDataset: D(1), predictionFeature: F(1), statistics: regression() }),
      ),
      [V(3)]: validationQuads(
        V(3),
        validation({
          validationType: 'crossvalidation',
          model: M(7),
          algorithm: KNN,
          trainingDataset: D(11),
          testDataset: D(12),
          crossvalidation: { uri: CV(1), fold: 1 },
          statistics: classification(),
        }),
      ),
      [V(4)]: validationQuads(
        V(4),
        validation({ validationType: 'crossvalidation', model: M(8), algorithm: MLR, trainingDataset: D(13), testDataset: D(14), crossvalidation: { uri: CV(2), fold: 1 }, statistics: regression() }),
      ),
    },
    crossvalidation(CV(1), KNN, D(1), [V(3)], classification()),
    crossvalidation(CV(2), MLR, D(1), [V(4)], regression()),
    crossvalidation(CV(3), KNN, D(2), [], classification()),
    Object.fromEntries([
      report('validation', 1, { validations: [V(1)], models: [M(1)], algorithms: [KNN] }),
      report('crossvalidation', 2, { validations: [CV(1)], algorithms: [KNN] }),
      report('algorithm_comparison', 3, { validations: [CV(1), CV(2)], identifiers: ['kNN', 'MLR'], algorithms: [KNN, MLR] }),
      qmrf(1, { model: M(1), algorithm: KNN, endpoint: MUT, datasets: [D(1)], validations: [V(1)] }),
      qmrf(2, { model: M(2), algorithm: MLR, validations: [V(2)] }),
    ]),
    {
      [T(1)]: task(1, { status: 'Completed', creator: 'alice', percent: 100, resultUri: D(7) }),
      [T(2)]: task(2, { status: 'Running', percent: 40, runner: 'host-a:1234' }),
      [T(3)]: task(3, { status: 'Queued' }),
      [T(4)]: task(4, { status: 'Error', runner: 'host-b:77', error: { status: 400, code: 'InvalidInput', message: 'no "prediction_feature" {given}' } as never }),
      [T(5)]: task(5, { status: 'Queued', runner: 'queue' }),
      [T(6)]: task(6, { status: 'Cancelled', runner: 'host-a:1234' }),
      [uris.subgraph(T(2), 'minted')]: mintedQuads(T(2), [D(7), F(30)]),
      [uris.subgraph(T(4), 'minted')]: mintedQuads(T(4), [M(9)]),
      // a graph written through SPARQL Update that speaks of a task: not the task's record
      [USER_GRAPH]: [df.quad(df.namedNode(T(3)), ot('hasStatus'), literal('Completed')), df.quad(df.namedNode(T(3)), TASK_RUNNER, literal('forged'))],
    },
    {
      [USERS_GRAPH]: USERS,
      [TOKENS_GRAPH]: tokensGraph(),
      [POLICIES_GRAPH]: POLICIES.flatMap(policyQuads),
      [COUNTERS_GRAPH]: [df.quad(df.namedNode(uris.collection('feature')), ot('lastId'), literal(100)), df.quad(df.namedNode(uris.collection('dataset')), ot('lastId'), literal(20))],
    },
  );
  db = await openStore('work-templates');
  await db.store.replaceGraphs(graphs);
  // SPARQL Update may write the unnamed default graph: no record's graph, so no template's answer
  await db.store.update(
    sparql`INSERT DATA { ${df.namedNode(T(6))} ${ot('minted')} ${df.namedNode(D(8))} . ${df.namedNode(V(9))} a ${ot('Validation')} ; ${ot('model')} ${df.namedNode(M(1))} . ${df.namedNode(T(7))} a ${ot('Task')} ; ${ot('hasStatus')} "Running" }`,
    { unionDefaultGraph: false },
  );
});
after(() => db?.close());

test('service count of work records: each in its own graph', async () => {
  const count = async (type: string) => (await rows(serviceQueries.count(ot(type)), ['n']))[0];
  assert.equal(await count('Validation'), 'n="7"^^integer', 'four validations and the pooled statistics of three cross-validations');
  assert.equal(await count('Crossvalidation'), 'n="3"^^integer');
  assert.equal(await count('ValidationReport'), 'n="3"^^integer');
  assert.equal(await count('QMRFReport'), 'n="2"^^integer');
  assert.equal(await count('Task'), 'n="6"^^integer');
});

test('validation validations: by model, algorithm and datasets; pooled statistics are validations too', async () => {
  const list = (filter: Parameters<typeof validationQueries.validations>[0]) => col(validationQueries.validations(filter), 'r');
  const pooled = [CV(1), CV(2), CV(3)].map((cv) => `${statisticsOf(cv).slice(uris.base.length)}`);
  assert.deepEqual(await list({}), sorted(['/validation/1', '/validation/2', '/validation/3', '/validation/4', ...pooled]), 'not the cross-validations, reports or the fold info nodes');
  assert.deepEqual(await list({ model: M(1) }), ['/validation/1'], 'not the reports about model 1, not validation 9 of the default graph');
  assert.deepEqual(await list({ model: M(9) }), []);
  assert.deepEqual(await list({ algorithm: KNN }), sorted(['/validation/1', '/validation/3', pooled[0], pooled[2]]));
  assert.deepEqual(await list({ algorithm: KNN, testDataset: D(1) }), [pooled[0]]);
  assert.deepEqual(await list({ trainingDataset: D(1) }), ['/validation/1', '/validation/2']);
  assert.deepEqual(await list({ trainingDataset: D(1), testDataset: D(2) }), ['/validation/1']);
  assert.deepEqual(await list({ trainingDataset: D(2), testDataset: D(1) }), [], 'the sides are not interchangeable');
  assert.deepEqual(await list({ model: undefined, algorithm: MLR }), sorted(['/validation/2', '/validation/4', pooled[1]]), 'an undefined filter is no filter');
  refusesBadIris((iri) => validationQueries.validations({ model: iri }));
  refusesBadIris((iri) => validationQueries.validations({ algorithm: KNN, testDataset: iri }));
});

test('validation crossvalidations: by algorithm and dataset', async () => {
  const list = (filter: Parameters<typeof validationQueries.crossvalidations>[0]) => col(validationQueries.crossvalidations(filter), 'r');
  assert.deepEqual(await list({}), ['/crossvalidation/1', '/crossvalidation/2', '/crossvalidation/3'], 'not the fold validations that name them, not the pooled statistics');
  assert.deepEqual(await list({ algorithm: KNN }), ['/crossvalidation/1', '/crossvalidation/3']);
  assert.deepEqual(await list({ algorithm: KNN, dataset: D(1) }), ['/crossvalidation/1']);
  assert.deepEqual(await list({ dataset: D(2) }), ['/crossvalidation/3']);
  assert.deepEqual(await list({ algorithm: MLR, dataset: D(2) }), []);
  refusesBadIris((iri) => validationQueries.crossvalidations({ algorithm: iri }));
  refusesBadIris((iri) => validationQueries.crossvalidations({ dataset: iri }));
});

test('validation classificationStatistics: whether a graph holds classification statistics', async () => {
  const expected: [string, boolean][] = [
    [V(1), true],
    [V(2), false],
    [V(3), true],
    [V(4), false],
    [statisticsOf(CV(1)), true],
    [statisticsOf(CV(2)), false],
    [CV(1), false],
    [uris.report('validation', 1), false],
    [V(99), false],
  ];
  for (const [graph, answer] of expected) assert.equal(await yes(validationQueries.classificationStatistics(graph)), answer, graph);
  refusesBadIris((iri) => validationQueries.classificationStatistics(iri));
});

test('report reports: validation reports, optionally about a validation or cross-validation', async () => {
  const list = (v?: string) => col(reportQueries.reports(v), 'r');
  assert.deepEqual(await list(), ['/report/algorithm_comparison/3', '/report/crossvalidation/2', '/report/validation/1'], 'not the QMRF reports');
  assert.deepEqual(await list(V(1)), ['/report/validation/1'], 'not QMRF report 1, which attaches the same validation');
  assert.deepEqual(await list(CV(1)), ['/report/algorithm_comparison/3', '/report/crossvalidation/2']);
  assert.deepEqual(await list(CV(2)), ['/report/algorithm_comparison/3']);
  assert.deepEqual(await list(V(2)), []);
  assert.deepEqual(await list(''), await list(), 'an empty filter is no filter');
  refusesBadIris((iri) => reportQueries.reports(iri));
});

test('qmrf reports: QMRF reports, optionally about a model', async () => {
  assert.deepEqual(await col(qmrfQueries.reports(), 'r'), ['/reach_report/qmrf/1', '/reach_report/qmrf/2'], 'not the validation reports');
  assert.deepEqual(await col(qmrfQueries.reports(M(1)), 'r'), ['/reach_report/qmrf/1'], 'not validation report 1, which is about model 1 too');
  assert.deepEqual(await col(qmrfQueries.reports(M(2)), 'r'), ['/reach_report/qmrf/2']);
  assert.deepEqual(await col(qmrfQueries.reports(M(3)), 'r'), []);
  refusesBadIris((iri) => qmrfQueries.reports(iri));
});

test('task all: every task, oldest first', async () => {
  assert.deepEqual(
    await rows(taskQueries.all(), ['t', 'created'], { ordered: true }),
    [
      'task/4 created="2026-02-28T00:00:00.000Z"^^dateTime',
      'task/2 created="2026-03-01T09:00:00.000Z"^^dateTime',
      'task/1 created="2026-03-01T10:00:00.000Z"^^dateTime',
      'task/3 created="2026-03-01T11:00:00.000Z"^^dateTime',
      'task/5 created="2026-03-02T00:00:00.000Z"^^dateTime',
      'task/6 created="2026-03-03T00:00:00.000Z"^^dateTime',
    ].map((r) => `t=/${r}`),
  );
});

test('task unfinished and withMintedRecord', async () => {
  assert.deepEqual(
    sorted(await rows(taskQueries.unfinished(), ['t', 'runner'])),
    ['t=/task/2 runner="host-a:1234"', 't=/task/3 runner=-', 't=/task/5 runner="queue"'],
    'not the finished ones, whatever runner they name',
  );
  assert.deepEqual(await col(taskQueries.withMintedRecord(), 't'), ['/task/2', '/task/4'], 'not task 6, which only the default graph says minted something');
});

test('task status and runner: of one task, in its own graph', async () => {
  const status = (t: string) => col(taskQueries.status(t), 'status');
  assert.deepEqual(await status(T(1)), ['"Completed"']);
  assert.deepEqual(await status(T(3)), ['"Queued"'], 'not what another graph says of it');
  assert.deepEqual(await status(T(4)), ['"Error"']);
  assert.deepEqual(await status(T(99)), []);
  assert.deepEqual(await status(uris.subgraph(T(2), 'minted')), []);
  const runner = (t: string) => col(taskQueries.runner(t), 'runner');
  assert.deepEqual(await runner(T(2)), ['"host-a:1234"']);
  assert.deepEqual(await runner(T(3)), [], 'not what another graph says of it');
  assert.deepEqual(await runner(T(5)), ['"queue"']);
  refusesBadIris((iri) => taskQueries.status(iri));
  refusesBadIris((iri) => taskQueries.runner(iri));
});

// --- access control: each test starts from the fixture's tokens and policies

const tokens = async () => db.read(TOKENS_GRAPH);
const expectTokens = (live: Tokens) => sorted(tokensQuads(live, NOW).map(tripleKey));
const without = (...hashes: string[]) => new Map([...LIVE].filter(([h]) => !hashes.includes(h)));
const BAD_HASHES = ['abc>def', 'abc def', 'abc"def', 'abc{def}', 'abc\\u003e'];
const resetAuth = () => db.store.replaceGraphs({ [TOKENS_GRAPH]: tokensGraph(), [POLICIES_GRAPH]: POLICIES.flatMap(policyQuads) });
const usersUntouched = async () => assert.deepEqual(await db.read(USERS_GRAPH), sorted(USERS.map(tripleKey)));

test('auth token: the user and expiry of one token (expired ones too: the caller checks)', async () => {
  await resetAuth();
  const token = (h: string) => rows(authQueries.token(h), ['user', 'expires']);
  assert.deepEqual(await token(H_ALICE_2), [`user="alice" expires="${new Date(NOW + 2 * HOUR).toISOString()}"^^dateTime`]);
  assert.deepEqual(await token(H_OLD), [`user="carol" expires="${new Date(NOW - HOUR).toISOString()}"^^dateTime`]);
  assert.deepEqual(await token(H_EVIL), [`user=${JSON.stringify(EVIL)} expires="${new Date(NOW + HOUR).toISOString()}"^^dateTime`]);
  assert.deepEqual(await token(H_NEW), []);
  assert.deepEqual(await token(H_BOB.slice(0, 32)), [], 'no prefix match');
  for (const bad of BAD_HASHES)
    assert.throws(
      () => authQueries.token(bad),
      (e) => e instanceof HttpError && e.status === 400,
      bad,
    );
});

test('auth addToken: adds one token and drops every expired one', async () => {
  await resetAuth();
  await db.store.update(authQueries.addToken(H_NEW, { user: 'dave', expires: NOW + 3 * HOUR }, NOW));
  assert.deepEqual(await tokens(), expectTokens(new Map([...LIVE, [H_NEW, { user: 'dave', expires: NOW + 3 * HOUR }]])), "carol's expired token is gone, the live ones stay");
  // a hostile user name is stored as it is, and a later add (an hour on: alice's first token has expired) drops only what expired
  const later = NOW + HOUR + 1;
  await db.store.update(authQueries.addToken(hash('evil-2'), { user: EVIL, expires: later + HOUR }, later));
  const live = new Map([...without(H_ALICE_1, H_BOB, H_EVIL, H_X), [H_NEW, { user: 'dave', expires: NOW + 3 * HOUR }], [hash('evil-2'), { user: EVIL, expires: later + HOUR }]]);
  assert.deepEqual(await tokens(), sorted(tokensQuads(live, later).map(tripleKey)));
  assert.deepEqual(tokensFrom(await db.store.readGraph(TOKENS_GRAPH), later), live);
  for (const bad of BAD_HASHES)
    assert.throws(
      () => authQueries.addToken(bad, { user: 'dave', expires: NOW + HOUR }, NOW),
      (e) => e instanceof HttpError && e.status === 400,
      bad,
    );
  await usersUntouched();
  await db.untouched();
});

test('auth removeToken and removeTokensOf: exactly the token, exactly the user', async () => {
  await resetAuth();
  await db.store.update(authQueries.removeToken(H_BOB));
  await db.store.update(authQueries.removeToken(H_NEW));
  assert.deepEqual(await tokens(), sorted([...expectTokens(without(H_BOB)), ...tokensQuads(new Map([[H_OLD, { user: 'carol', expires: NOW - HOUR }]]), NOW - 2 * HOUR).map(tripleKey)]));
  await resetAuth();
  const old = tokensQuads(new Map([[H_OLD, { user: 'carol', expires: NOW - HOUR }]]), NOW - 2 * HOUR).map(tripleKey);
  for (const name of ['Alice', 'alic', 'alice" || true || "', `${EVIL}x`, '']) await db.store.update(authQueries.removeTokensOf(name));
  assert.deepEqual(await tokens(), sorted([...expectTokens(LIVE), ...old]), 'no other name matches, not even a prefix');
  await db.store.update(authQueries.removeTokensOf('x'));
  assert.deepEqual(await tokens(), sorted([...expectTokens(without(H_X)), ...old]), "x's token only, not the hostile name's (which starts with x)");
  await db.store.update(authQueries.removeTokensOf('alice'));
  assert.deepEqual(await tokens(), sorted([...expectTokens(without(H_X, H_ALICE_1, H_ALICE_2)), ...old]));
  await db.store.update(authQueries.removeTokensOf(EVIL));
  assert.deepEqual(await tokens(), sorted([...expectTokens(without(H_X, H_ALICE_1, H_ALICE_2, H_EVIL)), ...old]));
  for (const bad of BAD_HASHES)
    assert.throws(
      () => authQueries.removeToken(bad),
      (e) => e instanceof HttpError && e.status === 400,
      bad,
    );
  await usersUntouched();
  await db.untouched();
});

test('auth setPolicy: replaces one resource policy, the others untouched', async () => {
  await resetAuth();
  const policies = async () => policiesFrom(await db.store.readGraph(POLICIES_GRAPH));
  const changed: Policy = { resource: D(1), owner: 'alice', publicRead: true, readers: [] };
  await db.store.update(authQueries.setPolicy(changed));
  assert.deepEqual(
    await policies(),
    new Map([
      [D(1), changed],
      [M(1), POLICIES[1]],
    ]),
  );
  const hostile: Policy = { resource: V(1), owner: EVIL, publicRead: false, readers: [EVIL, 'lab'] };
  await db.store.update(authQueries.setPolicy(hostile));
  const read = await policies();
  assert.deepEqual({ ...read.get(V(1))!, readers: sorted(read.get(V(1))!.readers) }, { ...hostile, readers: sorted(hostile.readers) });
  assert.deepEqual([...read.keys()].sort(), [D(1), M(1), V(1)].sort());
  assert.deepEqual(await db.read(POLICIES_GRAPH), sorted([changed, POLICIES[1], hostile].flatMap(policyQuads).map(tripleKey)));
  refusesBadIris((iri) => authQueries.setPolicy({ ...changed, resource: iri }));
  await usersUntouched();
  await db.untouched();
});

test('id raiseCounter: raises a collection counter, never lowers it (numbers, not text)', async () => {
  const counters = () => db.read(COUNTERS_GRAPH);
  const counter = (collection: string, n: number) => tripleKey(df.quad(df.namedNode(uris.collection(collection as never)), ot('lastId'), literal(n)));
  const raise = (collection: string, end: number) => db.store.update(idQueries.raiseCounter(COUNTERS_GRAPH, uris.collection(collection as never), end));
  await raise('feature', 64); // "64" > "100" as text
  await raise('feature', 100);
  assert.deepEqual(await counters(), sorted([counter('feature', 100), counter('dataset', 20)]));
  await raise('feature', 164);
  assert.deepEqual(await counters(), sorted([counter('feature', 164), counter('dataset', 20)]), 'one counter per collection');
  await raise('feature', 50);
  assert.deepEqual(await counters(), sorted([counter('feature', 164), counter('dataset', 20)]), 'a lower end leaves the counter');
  await raise('model', 32);
  assert.deepEqual(await counters(), sorted([counter('feature', 164), counter('dataset', 20), counter('model', 32)]), 'a new collection starts its counter');
  refusesBadIris((iri) => idQueries.raiseCounter(COUNTERS_GRAPH, iri, 1));
  refusesBadIris((iri) => idQueries.raiseCounter(iri, uris.collection('feature'), 1));
});
