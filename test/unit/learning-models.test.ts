/**
 * The learners besides the forests (MLR, PLS, SVR, kNN, SVC, logistic regression, naive Bayes,
 * PLS-DA) on real data: EPAFHM fish toxicity with the 43 RDKit.js descriptors, and a Kazius
 * mutagenicity subset with descriptors and Morgan fingerprints. The quality thresholds sit a
 * margin below the values measured with these folds.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import initRDKitModule from '@rdkit/rdkit';
import { runInProcess, type Learner, type Matrix, type Prediction, type TrainingData } from '../../src/learning/learner.ts';
import { LEARNERS } from '../../src/learning/learners.ts';
import { multipleLinearRegression } from '../../src/learning/linear-regression.ts';
import { logisticRegression } from '../../src/learning/logistic-regression.ts';
import { naiveBayes } from '../../src/learning/naive-bayes.ts';
import { knnClassification, knnRegression } from '../../src/learning/nearest-neighbours.ts';
import { plsDiscriminantAnalysis, plsRegression } from '../../src/learning/pls.ts';
import { supportVectorClassification, supportVectorRegression } from '../../src/learning/svm.ts';
import { WorkerPool } from '../../src/task/worker-pool.ts';
import { auc, crossValidate, defaults, foldsOf, loadEpafhm, regressionQuality, selectRows, type QsarData } from '../../bench/learners.ts';

const MINE = [multipleLinearRegression, plsRegression, supportVectorRegression, knnRegression, supportVectorClassification, logisticRegression, knnClassification, naiveBayes, plsDiscriminantAnalysis];

interface Molecule {
  is_valid(): boolean;
  get_descriptors(): string;
  get_morgan_fp(details: string): string;
  delete(): void;
}

/** A Kazius subset (every 7th compound, ~580) as descriptors, fingerprints, and both. */
interface Kazius {
  descriptors: QsarData;
  fingerprints: QsarData;
  both: QsarData;
}

async function loadKaziusSubset(every: number): Promise<Kazius> {
  const rdkit = await (initRDKitModule as unknown as () => Promise<{ get_mol(s: string): Molecule | null }>)();
  const records = parseCsv(readFileSync(new URL('../../../shared/data/kazius.csv', import.meta.url)), { from_line: 2 }) as string[][];
  const desc: number[][] = [];
  const fp: number[][] = [];
  const labels: string[] = [];
  for (const [smiles, label] of records.filter((_, i) => i % every === 0)) {
    const mol = rdkit.get_mol(smiles);
    if (!mol) continue;
    try {
      if (!mol.is_valid()) continue;
      const d = Object.values(JSON.parse(mol.get_descriptors()) as Record<string, number>);
      if (d.some((v) => !Number.isFinite(v))) continue;
      desc.push(d);
      fp.push(Array.from(mol.get_morgan_fp(JSON.stringify({ radius: 2, nBits: 1024 })), (c) => (c === '1' ? 1 : 0)));
      labels.push(label.trim());
    } finally {
      mol.delete();
    }
  }
  const classes = [...new Set(labels)].sort();
  const y = Float64Array.from(labels, (l) => classes.indexOf(l));
  const table = (rows: number[][], binary: boolean[]): QsarData => ({ x: matrix(rows), binary, y, classes, skipped: 0 });
  return {
    descriptors: table(desc, new Array(desc[0].length).fill(false)),
    fingerprints: table(fp, new Array(1024).fill(true)),
    both: table(
      desc.map((d, i) => [...d, ...fp[i]]),
      [...new Array(desc[0].length).fill(false), ...new Array(1024).fill(true)],
    ),
  };
}

function matrix(rows: number[][]): Matrix {
  const cols = rows[0].length;
  const data = new Float64Array(rows.length * cols);
  rows.forEach((r, i) => data.set(r, i * cols));
  return { rows: rows.length, cols, data };
}

/** The table with extra columns appended: each a function of the row. */
function withColumns<T extends TrainingData>(d: T, extra: ((row: Float64Array) => number)[]): T {
  const cols = d.x.cols + extra.length;
  const data = new Float64Array(d.x.rows * cols);
  for (let r = 0; r < d.x.rows; r++) {
    const row = d.x.data.subarray(r * d.x.cols, (r + 1) * d.x.cols);
    data.set(row, r * cols);
    extra.forEach((f, j) => (data[r * cols + d.x.cols + j] = f(row)));
  }
  return { ...d, x: { rows: d.x.rows, cols, data }, binary: [...d.binary, ...extra.map(() => false)] };
}

const context = (seed = 1) => ({ seed, parallelism: 1, run: runInProcess });
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const roundTrip = (state: unknown) => JSON.parse(JSON.stringify(state));

let epafhm: QsarData;
let kazius: Kazius;
/** EPAFHM as three classes (tertiles of -log10 LC50). */
let tertiles: QsarData;

before(async () => {
  epafhm = await loadEpafhm();
  kazius = await loadKaziusSubset(7);
  const sorted = Array.from(epafhm.y).sort((a, b) => a - b);
  const cut1 = sorted[Math.floor(sorted.length / 3)];
  const cut2 = sorted[Math.floor((2 * sorted.length) / 3)];
  tertiles = { ...epafhm, y: epafhm.y.map((v) => (v < cut1 ? 0 : v < cut2 ? 1 : 2)), classes: ['high', 'low', 'medium'] };
});

async function cvRegression(learner: Learner, params = defaults(learner)) {
  const predicted = await crossValidate(learner, epafhm, foldsOf(epafhm.x.rows, 5, 7), params, runInProcess, 1);
  const quality = regressionQuality(
    epafhm.y,
    predicted.map((p) => p.value),
  );
  for (const p of predicted) {
    assert.ok(Number.isFinite(p.value), `${learner.id}: value ${p.value}`);
    assert.ok(p.confidence >= 0 && p.confidence <= 1, `${learner.id}: confidence ${p.confidence}`);
  }
  // The confidence means something: the more confident half of the predictions is more accurate.
  const order = range(predicted.length).sort((a, b) => predicted[a].confidence - predicted[b].confidence);
  const half = Math.floor(order.length / 2);
  const mae = (rows: number[]) => rows.reduce((s, i) => s + Math.abs(epafhm.y[i] - predicted[i].value), 0) / rows.length;
  return { ...quality, maeLow: mae(order.slice(0, half)), maeHigh: mae(order.slice(half)) };
}

async function cvClassification(learner: Learner, data: QsarData, params = defaults(learner)) {
  const predicted = await crossValidate(learner, data, foldsOf(data.x.rows, 5, 7, data.y), params, runInProcess, 1);
  checkClassifications(predicted, data.classes.length);
  const accuracy = predicted.filter((p, i) => p.value === data.y[i]).length / predicted.length;
  const counts = data.classes.map((_, k) => data.y.filter((y) => y === k).length);
  const majority = Math.max(...counts) / data.y.length;
  const area =
    data.classes.length === 2
      ? auc(
          predicted.map((p) => p.probabilities![1]),
          Array.from(data.y, (y) => y === 1),
        )
      : NaN;
  return { accuracy, majority, auc: area };
}

function checkClassifications(predicted: Prediction[], classes: number): void {
  for (const p of predicted) {
    assert.equal(p.probabilities!.length, classes);
    const sum = p.probabilities!.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 1e-9, `probabilities sum to ${sum}`);
    for (const q of p.probabilities!) assert.ok(q >= 0 && q <= 1, `probability ${q}`);
    assert.ok(Number.isInteger(p.value) && p.value >= 0 && p.value < classes);
    assert.equal(p.confidence, p.probabilities![p.value]);
    assert.equal(p.confidence, Math.max(...p.probabilities!));
  }
}

// ---- Quality under 5-fold cross-validation ------------------------------------------------

test('mlr: 5-fold CV of EPAFHM, Q² > 0.57; confident predictions are the better ones', async () => {
  const r = await cvRegression(multipleLinearRegression);
  assert.ok(r.q2 > 0.57, `Q² ${r.q2}`);
  assert.ok(r.rmse < 0.9, `RMSE ${r.rmse}`);
  assert.ok(r.maeHigh < 0.85 * r.maeLow, `MAE ${r.maeHigh} vs ${r.maeLow}`);
});

test('pls: 5-fold CV of EPAFHM, Q² > 0.57 with 5 latent vectors', async () => {
  const r = await cvRegression(plsRegression);
  assert.ok(r.q2 > 0.57, `Q² ${r.q2}`);
  assert.ok(r.maeHigh < 0.95 * r.maeLow, `MAE ${r.maeHigh} vs ${r.maeLow}`);
});

test('svr: 5-fold CV of EPAFHM, Q² > 0.58', async () => {
  const r = await cvRegression(supportVectorRegression);
  assert.ok(r.q2 > 0.58, `Q² ${r.q2}`);
  assert.ok(r.maeHigh < 0.85 * r.maeLow, `MAE ${r.maeHigh} vs ${r.maeLow}`);
});

test('knn-regression: 5-fold CV of EPAFHM, Q² > 0.52', async () => {
  const r = await cvRegression(knnRegression);
  assert.ok(r.q2 > 0.52, `Q² ${r.q2}`);
  assert.ok(r.maeHigh < 0.85 * r.maeLow, `MAE ${r.maeHigh} vs ${r.maeLow}`);
});

test('svc: 5-fold CV of Kazius (descriptors) beats the majority class', async () => {
  const r = await cvClassification(supportVectorClassification, kazius.descriptors);
  assert.ok(r.majority < 0.6);
  assert.ok(r.accuracy > 0.68, `accuracy ${r.accuracy}`);
  assert.ok(r.auc > 0.75, `AUC ${r.auc}`);
});

test('logistic-regression: 5-fold CV of Kazius (descriptors) beats the majority class', async () => {
  const r = await cvClassification(logisticRegression, kazius.descriptors);
  assert.ok(r.accuracy > 0.64, `accuracy ${r.accuracy}`);
  assert.ok(r.auc > 0.7, `AUC ${r.auc}`);
});

test('knn-classification: 5-fold CV of Kazius (Morgan bits, Tanimoto) beats the majority class', async () => {
  const r = await cvClassification(knnClassification, kazius.fingerprints);
  assert.ok(r.accuracy > 0.7, `accuracy ${r.accuracy}`);
  assert.ok(r.auc > 0.76, `AUC ${r.auc}`);
});

test('naive-bayes: 5-fold CV of Kazius, Bernoulli on bits and Gaussian + Bernoulli on descriptors with bits', async () => {
  const bits = await cvClassification(naiveBayes, kazius.fingerprints);
  assert.ok(bits.accuracy > 0.69, `accuracy ${bits.accuracy}`);
  assert.ok(bits.auc > 0.74, `AUC ${bits.auc}`);
  const mixed = await cvClassification(naiveBayes, kazius.both);
  assert.ok(mixed.accuracy > 0.62, `accuracy ${mixed.accuracy}`);
  assert.ok(mixed.auc > 0.72, `AUC ${mixed.auc}`);
});

test('pls-da: 5-fold CV of Kazius (descriptors) beats the majority class', async () => {
  const r = await cvClassification(plsDiscriminantAnalysis, kazius.descriptors);
  assert.ok(r.accuracy > 0.61, `accuracy ${r.accuracy}`);
  assert.ok(r.auc > 0.67, `AUC ${r.auc}`);
});

test('three classes (EPAFHM tertiles): every classifier beats chance, probabilities over three classes', async () => {
  for (const learner of [supportVectorClassification, logisticRegression, knnClassification, naiveBayes, plsDiscriminantAnalysis]) {
    const r = await cvClassification(learner, tertiles);
    assert.ok(r.accuracy > 0.5, `${learner.id}: accuracy ${r.accuracy}`);
  }
});

// ---- Contracts shared by every learner ----------------------------------------------------

test('every learner: same seed gives the same state, which survives a JSON round trip, with valid predictions', async () => {
  // 240 rows to train (descriptors with fingerprint bits for the classifiers), 120 to predict.
  const rows = range(360);
  const trainRows = rows.filter((i) => i % 3 !== 0);
  const testRows = rows.filter((i) => i % 3 === 0);
  for (const learner of MINE) {
    const data = learner.task === 'regression' ? epafhm : kazius.both;
    const train = selectRows(data, trainRows);
    const held = selectRows(data, testRows).x;
    const a = await learner.train(train, defaults(learner), context(5));
    const b = await learner.train(train, defaults(learner), context(5));
    const text = JSON.stringify(a);
    assert.equal(JSON.stringify(b), text, `${learner.id}: deterministic`);
    assert.ok(!text.includes('null'), `${learner.id}: no NaN or infinity in the state`);
    const direct = learner.predict(a, held);
    const restored = learner.predict(roundTrip(a), held);
    assert.deepEqual(restored, direct, `${learner.id}: round trip`);
    assert.equal(direct.length, held.rows);
    for (const p of direct) {
      assert.ok(Number.isFinite(p.value) && p.confidence >= 0 && p.confidence <= 1, `${learner.id}: ${JSON.stringify(p)}`);
    }
    if (learner.task === 'classification') checkClassifications(direct, data.classes.length);
  }
});

test('every learner is registered in the catalogue with valid parameter specifications', () => {
  for (const learner of MINE) {
    assert.equal(
      LEARNERS.find((l) => l.id === learner.id),
      learner,
    );
    assert.ok(learner.types.includes(learner.task === 'regression' ? 'Regression' : 'Classification'));
    assert.equal(learner.types.includes('LazyLearning'), learner.id.startsWith('knn'));
    for (const p of learner.parameters) {
      if (p.type === 'string') assert.ok(p.choices?.includes(String(p.default)), `${learner.id}.${p.name}`);
      else if (p.type !== 'boolean') assert.ok(Number(p.default) >= p.min! && Number(p.default) <= p.max!, `${learner.id}.${p.name}`);
    }
  }
});

test('constant and duplicated columns, and more columns than rows, give no NaN', async () => {
  // A constant column, an exact copy and an exact linear combination of descriptors.
  const awkward = withColumns(epafhm, [() => 3, (r) => r[0], (r) => r[1] - 2 * r[2]]);
  for (const learner of MINE) {
    const data = learner.task === 'regression' ? awkward : { ...awkward, y: tertiles.y, classes: tertiles.classes };
    const state = await learner.train(data, defaults(learner), context());
    const predicted = learner.predict(state, data.x);
    for (const p of predicted) assert.ok(Number.isFinite(p.value) && Number.isFinite(p.confidence), `${learner.id}: ${JSON.stringify(p)}`);
  }
  // MLR and PLS: the redundant columns change nothing (beyond rounding).
  for (const learner of [multipleLinearRegression, plsRegression]) {
    const plain = learner.predict(await learner.train(epafhm, defaults(learner), context()), epafhm.x);
    const extra = learner.predict(await learner.train(awkward, defaults(learner), context()), awkward.x);
    if (learner === multipleLinearRegression) plain.forEach((p, i) => assert.ok(Math.abs(p.value - extra[i].value) < 1e-6, `${p.value} ${extra[i].value}`));
    else
      assert.ok(
        regressionQuality(
          epafhm.y,
          extra.map((p) => p.value),
        ).q2 > 0.6,
      );
  }
  // 30 rows, 46 columns: rank deficient.
  const few = selectRows(awkward, range(30));
  for (const learner of [multipleLinearRegression, plsRegression, supportVectorRegression]) {
    const state = await learner.train(few, defaults(learner), context());
    for (const p of learner.predict(state, awkward.x)) assert.ok(Number.isFinite(p.value) && p.confidence >= 0 && p.confidence <= 1, learner.id);
  }
});

test('mlr and pls: the linear form (PMML) in unscaled columns reproduces the predictions', async () => {
  const data = withColumns(epafhm, [() => 7]);
  for (const learner of [multipleLinearRegression, plsRegression]) {
    const state = await learner.train(data, defaults(learner), context());
    const form = learner.linearForm!(state)!;
    assert.equal(form.coefficients.length, data.x.cols);
    assert.equal(form.coefficients[data.x.cols - 1], 0);
    const predicted = learner.predict(state, data.x);
    for (let r = 0; r < data.x.rows; r++) {
      let v = form.intercept;
      for (let c = 0; c < data.x.cols; c++) v += form.coefficients[c] * data.x.data[r * data.x.cols + c];
      assert.ok(Math.abs(v - predicted[r].value) < 1e-8 * Math.max(1, Math.abs(v)), `${learner.id} row ${r}: ${v} vs ${predicted[r].value}`);
    }
  }
  assert.equal(plsDiscriminantAnalysis.linearForm, undefined);
});

test('mlr: confidence falls for compounds far outside the training domain', async () => {
  const state = await multipleLinearRegression.train(epafhm, defaults(multipleLinearRegression), context());
  const inside = multipleLinearRegression.predict(state, selectRows(epafhm, [0]).x)[0];
  const far = withColumns(selectRows(epafhm, [0]), []);
  for (let c = 0; c < far.x.cols; c++) far.x.data[c] *= 10;
  const outside = multipleLinearRegression.predict(state, far.x)[0];
  assert.ok(outside.confidence < inside.confidence / 2, `${outside.confidence} vs ${inside.confidence}`);
});

test('knn: Tanimoto on fingerprints (auto), neighbours and similarities as computed by hand', async () => {
  const data = kazius.fingerprints;
  const train = selectRows(data, range(400));
  const query = selectRows(data, [450, 451, 452]).x;
  const state = (await knnRegression.train(train, { k: 1, distance: 'auto' }, context())) as { metric: string };
  assert.equal(state.metric, 'tanimoto');
  // Bit-packed: far smaller than 400 × 1024 numbers.
  assert.ok(JSON.stringify(state).length < 80_000, `state ${JSON.stringify(state).length} characters`);
  const predicted = knnRegression.predict(state, query);
  for (let q = 0; q < 3; q++) {
    const a = query.data.subarray(q * 1024, (q + 1) * 1024);
    let best = -1;
    let bestIndex = -1;
    for (let r = 0; r < 400; r++) {
      const b = train.x.data.subarray(r * 1024, (r + 1) * 1024);
      let both = 0;
      let either = 0;
      for (let c = 0; c < 1024; c++) {
        both += a[c] & b[c];
        either += a[c] | b[c];
      }
      const s = either ? both / either : 1;
      if (s > best) [best, bestIndex] = [s, r];
    }
    assert.ok(Math.abs(predicted[q].confidence - best) < 1e-12, `${predicted[q].confidence} vs ${best}`);
    assert.equal(predicted[q].value, train.y[bestIndex]);
  }
  // A training compound is its own nearest neighbour; descriptors choose the Euclidean distance.
  const own = knnRegression.predict(state, selectRows(data, [7]).x)[0];
  assert.equal(own.confidence, 1);
  const euclidean = (await knnClassification.train(selectRows(kazius.descriptors, range(400)), { k: 5, distance: 'auto' }, context())) as { metric: string };
  assert.equal(euclidean.metric, 'euclidean');
  await assert.rejects(knnRegression.train(epafhm, { k: 5, distance: 'tanimoto' }, context()), /binary/);
});

test('svm: training in a worker thread gives the state trained in-process; libsvm leaves no process listener', async () => {
  const listeners = process.listeners('unhandledRejection').length;
  const pool = new WorkerPool(1);
  try {
    const data = selectRows(kazius.descriptors, range(300));
    const inWorker = await supportVectorClassification.train(data, defaults(supportVectorClassification), {
      seed: 1,
      parallelism: 1,
      run: (url, fn, args) => pool.run(url, fn, args),
    });
    const inProcess = await supportVectorClassification.train(data, defaults(supportVectorClassification), context());
    assert.equal(JSON.stringify(inWorker), JSON.stringify(inProcess));
    const x = selectRows(kazius.descriptors, range(20)).x;
    const predictedInWorker = await pool.run<Prediction[]>(new URL('../../src/model/predict-in-worker.ts', import.meta.url).href, 'predictWith', ['svc', inWorker, x]);
    assert.deepEqual(predictedInWorker, supportVectorClassification.predict(inWorker, x));
  } finally {
    await pool.close();
  }
  assert.equal(process.listeners('unhandledRejection').length, listeners);
});
