import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classPValues, confidenceLevels, conformalQuantile, partOutput, predictionSet, pValue, regressionIntervals, setLabel, type ConformalState } from '../../src/learning/conformal.ts';
import { calibrationFolds, calibrationSplit, calibrationWarnings, conformalRequest, rowsNeeded, trainConformal } from '../../src/model/conformal-training.ts';
import { predictConformal } from '../../src/model/predict-in-worker.ts';
import { runInProcess, type Learner, type TrainingData } from '../../src/learning/learner.ts';
import { multipleLinearRegression } from '../../src/learning/linear-regression.ts';
import { randomForestClassification, randomForestRegression } from '../../src/learning/random-forest.ts';
import { Random } from '../../src/learning/random.ts';
import { setStatistics } from '../../src/validation/conformal-statistics.ts';
import { validationQuads, validationRecord, type ValidationRecord } from '../../src/validation/validation-record.ts';
import type { ClassificationStatistics } from '../../src/validation/statistics.ts';

test('the conformal quantile is the ⌈(n+1)(1−α)⌉-th smallest score, unbounded when that rank exceeds n', () => {
  const nine = [1, 2, 3, 4, 5, 6, 7, 8, 9];
  assert.equal(conformalQuantile(nine, 0.1), 9); // ⌈10 · 0.9⌉ = 9
  assert.equal(conformalQuantile(nine, 0.2), 8); // ⌈10 · 0.8⌉ = 8
  assert.equal(conformalQuantile(nine, 0.25), 8); // ⌈7.5⌉ = 8
  assert.equal(conformalQuantile(nine, 0.5), 5); // ⌈5⌉ = 5
  assert.equal(conformalQuantile(nine, 0.05), Number.POSITIVE_INFINITY); // ⌈9.5⌉ = 10 > 9
  assert.equal(conformalQuantile([0.1, 0.2, 0.5, 0.9], 0.5), 0.5); // ⌈2.5⌉ = 3
  assert.equal(conformalQuantile([0.1, 0.2, 0.5, 0.9], 0.2), 0.9); // ⌈4⌉ = 4
  assert.equal(conformalQuantile([0.1, 0.2, 0.5, 0.9], 0.19), Number.POSITIVE_INFINITY); // ⌈4.05⌉ = 5
  const nineteen = Array.from({ length: 19 }, (_, i) => i + 1);
  assert.equal(conformalQuantile(nineteen, 0.05), 19); // exactly n: (19 + 1) · 0.95 = 19
  assert.equal(conformalQuantile([], 0.1), Number.POSITIVE_INFINITY);
});

test('p-values count the calibration scores at least as large, plus one, over n + 1 (ties count)', () => {
  assert.equal(pValue([1, 2, 3, 4], 2.5), 3 / 5);
  assert.equal(pValue([1, 2, 3, 4], 2), 4 / 5);
  assert.equal(pValue([1, 2, 3, 4], 5), 1 / 5);
  assert.equal(pValue([1, 2, 3, 4], 0), 1);
  assert.equal(pValue([], 0.3), 1);
});

test('split intervals are the prediction ± σ · the quantile; cv+ intervals use each fold model and its own rows', () => {
  const split: ConformalState = { method: 'split', task: 'regression', levels: [0.8, 0.9], normalisation: 'none', calibrationRows: 9, parts: [{ scores: [1, 2, 3, 4, 5, 6, 7, 8, 9] }] };
  assert.deepEqual(regressionIntervals(split, [{ values: [10] }], 0), [
    [2, 18],
    [1, 19],
  ]);
  assert.deepEqual(regressionIntervals(split, [{ values: [10], sigma: [2] }], 0), [
    [-6, 26],
    [-8, 28],
  ]);
  // cv+: fold A (scores 1, 3) predicts 10, fold B (scores 2, 4) predicts 20; n = 4, α = 0.4:
  // lower: ⌊0.4 · 5⌋ = 2nd smallest of {9, 7, 18, 16} = 9; upper: ⌈0.6 · 5⌉ = 3rd smallest of {11, 13, 22, 24} = 22
  const cv: ConformalState = { method: 'cv+', task: 'regression', levels: [0.6], normalisation: 'none', calibrationRows: 4, parts: [{ scores: [1, 3] }, { scores: [2, 4] }] };
  assert.deepEqual(regressionIntervals(cv, [{ values: [10] }, { values: [20] }], 0), [[9, 22]]);
  // too few rows for the level: unbounded
  const tight: ConformalState = { ...cv, levels: [0.95] };
  assert.deepEqual(regressionIntervals(tight, [{ values: [10] }, { values: [20] }], 0), [[Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY]]);
  // aggregated: the medians of the parts' bounds
  const aggregated: ConformalState = {
    method: 'aggregated',
    task: 'regression',
    levels: [0.5],
    normalisation: 'none',
    calibrationRows: 9,
    parts: [{ scores: [1, 1, 1] }, { scores: [2, 2, 2] }, { scores: [9, 9, 9] }],
  };
  assert.deepEqual(regressionIntervals(aggregated, [{ values: [0] }, { values: [0] }, { values: [0] }], 0), [[-2, 2]]);
});

test('Mondrian p-values use only the calibration rows of the class; sets keep the classes above α', () => {
  // class 0 scores {0.1, 0.2, 0.6}, class 1 scores {0.3, 0.4}; a compound with p̂ = (0.7, 0.3): scores 0.3 and 0.7
  const state: ConformalState = {
    method: 'split',
    task: 'classification',
    levels: [0.7, 0.9],
    normalisation: 'none',
    calibrationRows: 5,
    parts: [
      {
        classScores: [
          [0.1, 0.2, 0.6],
          [0.3, 0.4],
        ],
      },
    ],
  };
  const outputs = [partOutput(state, [{ value: 0, probabilities: [0.7, 0.3] }], undefined, undefined, 2)];
  const p = classPValues(state, outputs, 0, 2);
  assert.deepEqual(p, [2 / 4, 1 / 3]); // class 0: #{0.6} + 1 over 4; class 1: #{} + 1 over 3
  assert.deepEqual(predictionSet(p, 0.7), [0, 1]); // α = 0.3: both above
  assert.deepEqual(predictionSet(p, 0.6), [0]); // α = 0.4: 1/3 is not above
  assert.deepEqual(predictionSet(p, 0.5), []); // α = 0.5: 0.5 is not above either
  assert.deepEqual(predictionSet([0.01, 0.02], 0.9), []);
  assert.equal(setLabel([0, 1], ['active', 'inactive']), '{active, inactive}');
  assert.equal(setLabel([], ['active', 'inactive']), '{}');
  // cross-conformal (cv+): counts summed over the folds, n of the class over all of them
  const cv: ConformalState = { ...state, method: 'cv+', parts: [{ classScores: [[0.1], [0.3]] }, { classScores: [[0.2, 0.6], [0.4]] }] };
  const fold = (p0: number) => partOutput(cv, [{ value: 0, probabilities: [p0, 1 - p0] }], undefined, undefined, 2);
  // fold 1 scores class 0 at 0.3 (#{} of {0.1}), fold 2 at 0.5 (#{0.6}): (0 + 1 + 1) / 4
  assert.equal(classPValues(cv, [fold(0.7), fold(0.5)], 0, 2)[0], 2 / 4);
});

test('set statistics: coverage and efficiency over all rows and per class (the rows whose true class it is), and they round-trip through the validation graph', () => {
  const row = (actual: string, a: number, b: number) => ({
    actual,
    observation: {
      pValues: new Map([
        ['a', a],
        ['b', b],
      ]),
    },
  });
  // at 0.8 (α = 0.2): a → {a}, {a, b}, {}; b → {a, b}, {a}
  const rows = [row('a', 0.5, 0.1), row('a', 0.5, 0.3), row('a', 0.1, 0.04), row('b', 0.3, 0.9), row('b', 0.25, 0.15), { actual: undefined, observation: undefined }];
  const [eighty, ninetyFive] = setStatistics(rows, [0.8, 0.95], ['a', 'b']);
  assert.deepEqual(eighty, {
    confidenceLevel: 0.8,
    numInstances: 5,
    coverage: 3 / 5,
    singletonRate: 2 / 5,
    emptySetRate: 1 / 5,
    meanSetSize: 6 / 5,
    classes: [
      { classValue: 'a', numInstances: 3, coverage: 2 / 3, singletonRate: 1 / 3, emptySetRate: 1 / 3, meanSetSize: 3 / 3 },
      { classValue: 'b', numInstances: 2, coverage: 1 / 2, singletonRate: 1 / 2, emptySetRate: 0, meanSetSize: 3 / 2 },
    ],
  });
  // at 0.95 (α = 0.05): a → {a, b}, {a, b}, {a}; b → {a, b}, {a, b}
  assert.deepEqual(ninetyFive.classes, [
    { classValue: 'a', numInstances: 3, coverage: 1, singletonRate: 1 / 3, emptySetRate: 0, meanSetSize: 5 / 3 },
    { classValue: 'b', numInstances: 2, coverage: 1, singletonRate: 0, emptySetRate: 0, meanSetSize: 2 },
  ]);
  // a class without test rows has its count and no rates
  assert.deepEqual(setStatistics(rows.slice(0, 3), [0.8], ['a', 'b'])[0].classes![1], { classValue: 'b', numInstances: 0 });
  const uri = 'http://localhost/validation/1';
  const record: ValidationRecord = {
    validationType: 'test_set_validation',
    predictionFeature: 'http://localhost/feature/1',
    realRuntimeMs: 10,
    date: new Date('2026-11-26T06:00:00.000Z'),
    statistics: { kind: 'classification', values: { numInstances: 5, accuracy: 0.6, confusionMatrix: {}, classValueStatistics: {} } as unknown as ClassificationStatistics },
    conformal: [eighty, ninetyFive],
  };
  assert.deepEqual(validationRecord(validationQuads(uri, record), uri)?.conformal, [eighty, ninetyFive]);
});

test('confidence levels: comma-separated numbers strictly between 0 and 1, at most nine', () => {
  assert.deepEqual(confidenceLevels('0.9'), [0.9]);
  assert.deepEqual(confidenceLevels(' 0.95, 0.8,0.9,0.8 '), [0.8, 0.9, 0.95]);
  for (const bad of ['', '1', '0', '90', 'abc', '0.9;0.8', '-0.1', 'Infinity', '0x1']) assert.throws(() => confidenceLevels(bad), RangeError, bad);
  assert.throws(() => confidenceLevels('0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,0.95'), /at most 9/);
});

test('the conformal request is checked against the learner', () => {
  const forest = { id: 'random-forest-regression', task: 'regression' as const };
  assert.equal(conformalRequest(forest, { conformal: 'none' }), undefined);
  assert.deepEqual(conformalRequest(forest, { conformal: 'cv+', confidence_level: '0.8,0.9', calibration_sets: 5, calibration_fraction: 0.3, conformal_normalisation: 'spread' }), {
    method: 'cv+',
    levels: [0.8, 0.9],
    fraction: 0.3,
    sets: 5,
    normalisation: 'spread',
  });
  assert.throws(() => conformalRequest({ id: 'pls-regression', task: 'regression' }, { conformal: 'split', conformal_normalisation: 'spread' }), /pls-regression is neither \(use knn\)/);
  assert.throws(() => conformalRequest({ id: 'naive-bayes', task: 'classification' }, { conformal: 'split', conformal_normalisation: 'knn' }), /applies to regression/);
});

/** y = 2·x₀ − x₁ + noise (standard normal), on uniform x in [0, 10)². */
function linearData(n: number, seed: number): TrainingData {
  const random = new Random(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
  const x = new Float64Array(n * 2);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[2 * i] = 10 * random.next();
    x[2 * i + 1] = 10 * random.next();
    y[i] = 2 * x[2 * i] - x[2 * i + 1] + normal();
  }
  return { x: { rows: n, cols: 2, data: x }, binary: [false, false], y, classes: [] };
}

test('split and cv+ intervals of a linear model cover new values at the nominal rate (in process, 2,000 test rows)', async () => {
  const context = { seed: 3, parallelism: 1, run: runInProcess };
  const train = linearData(400, 1);
  const fresh = linearData(2000, 2);
  for (const method of ['split', 'cv+', 'aggregated'] as const) {
    const request = { method, levels: [0.8, 0.9], fraction: 0.3, sets: 5, normalisation: 'none' as const };
    const { state, conformal } = await trainConformal(multipleLinearRegression, train, {}, context, request);
    const { answers } = predictConformal(multipleLinearRegression.id, state, conformal, fresh.x, 0);
    request.levels.forEach((level, l) => {
      const inside = answers.filter((a, i) => a.intervals![l][0] <= fresh.y[i] && fresh.y[i] <= a.intervals![l][1]).length / fresh.y.length;
      // the noise's own quantiles: a 90 % interval is about ±1.645 wide on each side
      assert.ok(Math.abs(inside - level) < 0.04, `${method} at ${level}: coverage ${inside}`);
    });
  }
});

test('Mondrian sets of a forest cover each class at the nominal rate, however unbalanced the classes', async () => {
  // class 1 (20 %) where x₀ + noise is large
  const random = new Random(5);
  const make = (n: number): TrainingData => {
    const x = new Float64Array(n * 2);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      x[2 * i] = random.next();
      x[2 * i + 1] = random.next();
      y[i] = x[2 * i] + 0.3 * (random.next() - 0.5) > 0.8 ? 1 : 0;
    }
    return { x: { rows: n, cols: 2, data: x }, binary: [false, false], y, classes: ['inactive', 'active'] };
  };
  const train = make(600);
  const fresh = make(3000);
  const context = { seed: 1, parallelism: 1, run: runInProcess };
  const { state, conformal } = await trainConformal(randomForestClassification, train, { numTrees: 30, maxFeatures: 'all', minSamplesLeaf: 1, maxDepth: 0, bootstrap: true }, context, {
    method: 'split',
    levels: [0.9],
    fraction: 0.3,
    sets: 5,
    normalisation: 'none',
  });
  const { answers } = predictConformal(randomForestClassification.id, state, conformal, fresh.x, 2);
  for (const k of [0, 1]) {
    const rows = [...fresh.y.keys()].filter((i) => fresh.y[i] === k);
    const covered = rows.filter((i) => answers[i].sets![0].includes(k)).length / rows.length;
    // at least the level (within a binomial tolerance); more where the forest's probabilities tie (the p-values are conservative)
    assert.ok(covered >= 0.9 - 3 * Math.sqrt((0.9 * 0.1) / rows.length), `class ${k} (${rows.length} rows): coverage ${covered}`);
  }
  // and not by answering both classes: most sets hold one
  const single = answers.filter((a) => a.sets![0].length === 1).length / answers.length;
  assert.ok(single > 0.6, `single-label sets: ${single}`);
});

test('calibration splits and folds are stratified by class and the same for the same seed', () => {
  const y = Float64Array.from({ length: 100 }, (_, i) => (i < 20 ? 1 : 0));
  const data: TrainingData = { x: { rows: 100, cols: 1, data: new Float64Array(100) }, binary: [false], y, classes: ['a', 'b'] };
  const split = calibrationSplit(data, 0.25, 4);
  assert.equal(split.calibration.length, 25);
  assert.equal(split.calibration.filter((r) => y[r] === 1).length, 5);
  assert.deepEqual(calibrationSplit(data, 0.25, 4), split);
  assert.notDeepEqual(calibrationSplit(data, 0.25, 5), split);
  assert.deepEqual(
    [...split.training, ...split.calibration].sort((a, b) => a - b),
    [...Array(100).keys()],
  );
  const folds = calibrationFolds(data, 5, 1);
  assert.deepEqual(
    folds.map((f) => f.filter((r) => y[r] === 1).length),
    [4, 4, 4, 4, 4],
  );
  assert.deepEqual(
    folds.flat().sort((a, b) => a - b),
    [...Array(100).keys()],
  );
});

test('no part ever learns from the rows that calibrate it (a real learner, its training rows recorded)', async () => {
  const data = linearData(200, 9);
  // each row's target is unique: the rows a training saw are known by their targets
  const seen: Set<number>[] = [];
  const recording: Learner = {
    ...multipleLinearRegression,
    train: (d, params, context) => {
      seen.push(new Set(d.y));
      return multipleLinearRegression.train(d, params, context);
    },
  };
  const context = { seed: 2, parallelism: 1, run: runInProcess };
  for (const method of ['split', 'cv+', 'aggregated'] as const) {
    seen.length = 0;
    const { conformal } = await trainConformal(recording, data, {}, context, { method, levels: [0.9], fraction: 0.25, sets: 4, normalisation: 'none' });
    const parts = method === 'split' ? 1 : 4;
    assert.equal(seen.length, method === 'split' ? 1 : parts + 1, `${method}: the parts, then the model on all rows`);
    assert.equal(conformal.parts.length, parts);
    // a part's calibration rows are the rows its training did not see: as many scores as unseen rows
    conformal.parts.forEach((part, i) => assert.equal(part.scores!.length, data.y.length - seen[i].size, `${method} part ${i}`));
    if (method === 'cv+') assert.equal(conformal.calibrationRows, data.y.length, 'cv+: every row calibrates once');
  }
});

test('normalised intervals keep their coverage; the forest spread widens them where the noise is, the k-NN distance away from the training compounds', async () => {
  // noise sd grows with x₀: 0.2 at x₀ = 0 to 4.2 at x₀ = 10
  const random = new Random(11);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
  const make = (n: number): TrainingData => {
    const x = new Float64Array(n * 2);
    const y = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      x[2 * i] = 10 * random.next();
      x[2 * i + 1] = 10 * random.next();
      y[i] = x[2 * i + 1] + (0.2 + 0.4 * x[2 * i]) * normal();
    }
    return { x: { rows: n, cols: 2, data: x }, binary: [false, false], y, classes: [] };
  };
  const train = make(800);
  const fresh = make(2000);
  const context = { seed: 4, parallelism: 1, run: runInProcess };
  const forest = { numTrees: 60, maxFeatures: 'all', minSamplesLeaf: 10, maxDepth: 0, bootstrap: true };
  for (const normalisation of ['spread', 'knn', 'none'] as const) {
    const { state, conformal } = await trainConformal(randomForestRegression, train, forest, context, { method: 'split', levels: [0.9], fraction: 0.3, sets: 5, normalisation });
    const { answers } = predictConformal(randomForestRegression.id, state, conformal, fresh.x, 0);
    const inside = answers.filter((a, i) => a.intervals![0][0] <= fresh.y[i] && fresh.y[i] <= a.intervals![0][1]).length / fresh.y.length;
    assert.ok(Math.abs(inside - 0.9) < 3 * Math.sqrt(0.09 * (1 / 2000 + 1 / 240)), `${normalisation}: coverage ${inside}`);
    const width = (i: number) => answers[i].intervals![0][1] - answers[i].intervals![0][0];
    const rows = [...fresh.y.keys()];
    const mean = (xs: number[]) => xs.reduce((a, b) => a + width(b), 0) / xs.length;
    const noisy = mean(rows.filter((i) => fresh.x.data[2 * i] > 7));
    const quiet = mean(rows.filter((i) => fresh.x.data[2 * i] < 3));
    if (normalisation === 'none') assert.ok(Math.abs(noisy / quiet - 1) < 1e-9, 'without normalisation every interval is as wide');
    if (normalisation === 'spread') assert.ok(noisy > 1.3 * quiet, `spread: intervals where the noise is large (${noisy.toFixed(2)}) wider than where it is small (${quiet.toFixed(2)})`);
    if (normalisation === 'knn') {
      // a compound far from every training compound against one among them
      const far = predictConformal(randomForestRegression.id, state, conformal, { rows: 2, cols: 2, data: Float64Array.from([5, 5, 25, 25]) }, 0).answers.map(
        (a) => a.intervals![0][1] - a.intervals![0][0],
      );
      assert.ok(far[1] > 3 * far[0], `knn: far from the training compounds ${far[1].toFixed(2)}, among them ${far[0].toFixed(2)}`);
    }
  }
});

test('a calibration too small for a level is said on the model: rows needed are ⌈level / (1 − level)⌉', () => {
  assert.equal(rowsNeeded(0.8), 4);
  assert.equal(rowsNeeded(0.9), 9);
  assert.equal(rowsNeeded(0.95), 19);
  assert.equal(rowsNeeded(0.99), 99);
  // 9 scores: ⌈10 · 0.9⌉ = 9 is finite, ⌈10 · 0.95⌉ = 10 is not
  const nine = { scores: [1, 2, 3, 4, 5, 6, 7, 8, 9] };
  const regression: ConformalState = { method: 'split', task: 'regression', levels: [0.9, 0.95], normalisation: 'none', calibrationRows: 9, parts: [nine] };
  assert.deepEqual(calibrationWarnings(regression, []), ['conformal: the calibration has 9 row(s) per calibration set, fewer than the 19 the 95 % level needs: its intervals are unbounded']);
  assert.equal(conformalQuantile(nine.scores, 0.1), 9);
  assert.equal(conformalQuantile(nine.scores, 0.05), Number.POSITIVE_INFINITY);
  // cv+ counts every fold's rows; classes are counted one by one
  const classes: ConformalState = {
    method: 'cv+',
    task: 'classification',
    levels: [0.8],
    normalisation: 'none',
    calibrationRows: 7,
    parts: [
      { classScores: [[0.1, 0.2], [0.3]] },
      {
        classScores: [
          [0.4, 0.5],
          [0.6, 0.7],
        ],
      },
    ],
  };
  assert.deepEqual(calibrationWarnings(classes, ['a', 'b']), ['conformal: the calibration has 3 row(s) of class b, fewer than the 4 the 80 % level needs: its sets always hold that class']);
});

test('too few training rows to hold out a calibration set: a 400 naming it, nothing trained', async () => {
  const { HttpError } = await import('../../src/core/errors.ts');
  const tiny = linearData(2, 3);
  await assert.rejects(
    trainConformal(multipleLinearRegression, tiny, {}, { seed: 1, parallelism: 1, run: runInProcess }, { method: 'split', levels: [0.9], fraction: 0.25, sets: 5, normalisation: 'none' }),
    (e: unknown) => e instanceof HttpError && e.status === 400 && /2 training rows are too few to hold out calibration rows/.test(e.message),
  );
});
