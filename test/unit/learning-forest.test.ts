import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { runInProcess, type Learner, type Matrix, type RunFunction, type TrainingData } from '../../src/learning/learner.ts';
import { WorkerPool } from '../../src/task/worker-pool.ts';
import { Random } from '../../src/learning/random.ts';
import { randomForestClassification, randomForestRegression, trainForestChunk, type ForestSettings, type ForestState } from '../../src/learning/random-forest.ts';
import { gradientBoostingClassification, gradientBoostingRegression, type BoostingState } from '../../src/learning/gradient-boosting.ts';
import { binMatrix, decodeTree, encodeTree, leafOffset, TreeBuilder } from '../../src/learning/histogram-tree.ts';
import { auc, crossValidate, defaults, foldsOf, loadEpafhm, loadKazius, regressionQuality, selectRows, type QsarData } from '../../bench/learners.ts';

let epafhm: QsarData;
let kazius: QsarData;
before(async () => {
  epafhm = await loadEpafhm();
  kazius = await loadKazius(1024, 3); // every third compound: ~1,360, both classes
});

const context = (seed: number, parallelism = 1) => ({ seed, parallelism, run: runInProcess });
const allRows = (data: QsarData) => Array.from({ length: data.x.rows }, (_, i) => i);

/** A three-class problem no single split separates: the class is the ring a 2-D point lies in; 8 noise columns. */
function rings(n: number, seed: number): TrainingData {
  const rng = new Random(seed);
  const cols = 10;
  const data = new Float64Array(n * cols);
  const y = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < cols; c++) data[r * cols + c] = rng.next() * 2 - 1;
    const radius = Math.hypot(data[r * cols], data[r * cols + 1]);
    y[r] = radius < 0.45 ? 0 : radius < 0.8 ? 1 : 2;
  }
  return { x: { rows: n, cols, data }, binary: new Array(cols).fill(false), y, classes: ['inner', 'middle', 'outer'] };
}

test('regression forest: 5-fold CV of EPAFHM (43 RDKit descriptors) gives Q² > 0.5', async () => {
  assert.equal(epafhm.x.rows, 580);
  assert.equal(epafhm.x.cols, 43);
  const predicted = await crossValidate(randomForestRegression, epafhm, foldsOf(epafhm.x.rows, 5, 7), defaults(randomForestRegression), runInProcess, 1);
  const { q2, rmse } = regressionQuality(
    epafhm.y,
    predicted.map((p) => p.value),
  );
  assert.ok(q2 > 0.5, `Q² ${q2}`);
  assert.ok(rmse < 1.0, `RMSE ${rmse}`);
  for (const p of predicted) assert.ok(p.confidence >= 0 && p.confidence <= 1 && Number.isFinite(p.value));
  // Rows the trees disagree on get less confidence: confidence varies.
  const confidences = new Set(predicted.map((p) => p.confidence.toFixed(3)));
  assert.ok(confidences.size > 50);
});

test('classification forest: 5-fold CV of a Kazius subset (Morgan 1024 bits) beats the majority class clearly', async () => {
  const predicted = await crossValidate(randomForestClassification, kazius, foldsOf(kazius.x.rows, 5, 7, kazius.y), defaults(randomForestClassification), runInProcess, 1);
  const accuracy = predicted.filter((p, i) => p.value === kazius.y[i]).length / predicted.length;
  const mutagenic = kazius.classes.indexOf('mutagenic');
  const majority = Math.max(...[0, 1].map((k) => kazius.y.filter((y) => y === k).length)) / kazius.y.length;
  const area = auc(
    predicted.map((p) => p.probabilities![mutagenic]),
    Array.from(kazius.y, (y) => y === mutagenic),
  );
  assert.ok(majority < 0.6);
  assert.ok(accuracy > 0.76, `accuracy ${accuracy}`);
  assert.ok(area > 0.83, `AUC ${area}`);
  for (const p of predicted) {
    assert.equal(p.probabilities!.length, 2);
    assert.ok(Math.abs(p.probabilities!.reduce((a, b) => a + b, 0) - 1) < 1e-12);
    assert.equal(p.confidence, Math.max(...p.probabilities!));
    assert.equal(p.value, p.probabilities!.indexOf(p.confidence));
    assert.ok(p.confidence >= 0.5 && p.confidence <= 1);
  }
});

test('classification forest: three classes on rings the forest must learn from two of ten columns', async () => {
  const train = rings(1500, 1);
  const holdout = rings(500, 2);
  const state = await randomForestClassification.train(train, defaults(randomForestClassification), context(3));
  const predicted = randomForestClassification.predict(state, holdout.x);
  const accuracy = predicted.filter((p, i) => p.value === holdout.y[i]).length / predicted.length;
  assert.ok(accuracy > 0.85, `accuracy ${accuracy}`);
  for (const p of predicted) assert.ok(Math.abs(p.probabilities!.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  // The informative columns are the ones split on most.
  const uses = new Array(10).fill(0);
  for (const encoded of (state as ForestState).trees) for (const f of decodeTree(encoded).feature) if (f >= 0) uses[f]++;
  const top = uses.map((u, c) => [u, c]).sort((a, b) => b[0] - a[0]);
  assert.deepEqual(new Set([top[0][1], top[1][1]]), new Set([0, 1]));
});

test('same seed, same predictions, whatever the parallelism and in real worker threads; another seed differs', async () => {
  const train = selectRows(
    epafhm,
    allRows(epafhm).filter((i) => i % 2 === 0),
  );
  const held = selectRows(
    epafhm,
    allRows(epafhm).filter((i) => i % 2 === 1),
  ).x;
  const params = { ...defaults(randomForestRegression), numTrees: 30 };
  const regression = async (seed: number, parallelism: number, run: RunFunction = runInProcess) =>
    randomForestRegression.predict(await randomForestRegression.train(train, params, { seed, parallelism, run }), held);
  const a = await regression(11, 1);
  assert.deepEqual(await regression(11, 1), a);
  assert.deepEqual(await regression(11, 2), a);
  assert.deepEqual(await regression(11, 7), a);
  assert.notDeepEqual(await regression(12, 1), a);
  const pool = new WorkerPool(2);
  try {
    assert.deepEqual(await regression(11, 2, (url, fn, args) => pool.run(url, fn, args)), a);
  } finally {
    await pool.close();
  }

  const kaziusTrain = selectRows(
    kazius,
    allRows(kazius).filter((i) => i % 4 !== 0),
  );
  const classification = async (seed: number, parallelism: number) =>
    randomForestClassification.predict(await randomForestClassification.train(kaziusTrain, { ...defaults(randomForestClassification), numTrees: 30 }, context(seed, parallelism)), kazius.x);
  const c = await classification(5, 1);
  assert.deepEqual(await classification(5, 2), c);
  assert.notDeepEqual(await classification(6, 2), c);
});

test("forests whose chunks interleave on one thread (a cross-validation's folds) grow the same trees as each grown alone", () => {
  // six forests of two training sides: more than a thread keeps builders for, so some are let go and made again
  const sides = [0, 1].map((k) =>
    selectRows(
      kazius,
      allRows(kazius).filter((i) => i % 3 !== k),
    ),
  );
  const bins = sides.map((side) => binMatrix(side.x, side.binary));
  const forests = Array.from({ length: 6 }, (_, f) => ({
    side: f % 2,
    settings: { task: 'classification', numTrees: 8, mtry: 32, minSamplesLeaf: 1, maxDepth: 0, bootstrap: true, seed: 40 + f, forest: `interleaved-${f}` } satisfies ForestSettings,
  }));
  const grow = (f: (typeof forests)[number], first: number, count: number, forest?: string) =>
    trainForestChunk(bins[f.side], sides[f.side].y, kazius.classes.length, { ...f.settings, forest }, first, count);
  const alone = forests.map((f) => grow(f, 0, 8));
  const interleaved = forests.map((): ReturnType<typeof grow> => []);
  for (let first = 0; first < 8; first += 2) for (const [i, f] of forests.entries()) interleaved[i].push(...grow(f, first, 2, f.settings.forest));
  assert.deepEqual(interleaved, alone);
});

test('the state is JSON: stringify, parse, predict gives the same predictions; 100 trees stay small', async () => {
  const data = selectRows(kazius, allRows(kazius));
  const state = await randomForestClassification.train(data, defaults(randomForestClassification), context(1, 2));
  const json = JSON.stringify(state);
  const copy = JSON.parse(json);
  assert.deepEqual(randomForestClassification.predict(copy, kazius.x), randomForestClassification.predict(state, kazius.x));
  assert.equal((copy as ForestState).trees.length, 100);
  // 100 trees on ~1,360 rows: about 1 MB (thresholds 0.5 as float32, probabilities as float32).
  assert.ok(json.length < 1.5e6, `${json.length} characters`);

  const regression = await randomForestRegression.train(selectRows(epafhm, allRows(epafhm)), defaults(randomForestRegression), context(1));
  const regressionCopy = JSON.parse(JSON.stringify(regression));
  assert.deepEqual(randomForestRegression.predict(regressionCopy, epafhm.x), randomForestRegression.predict(regression, epafhm.x));
});

test('parameters: declared with defaults and bounds, and each one acts', async () => {
  const names = (l: Learner) => l.parameters.map((p) => p.name);
  for (const learner of [randomForestClassification, randomForestRegression]) {
    assert.deepEqual(names(learner), ['numTrees', 'maxFeatures', 'minSamplesLeaf', 'maxDepth', 'bootstrap']);
    for (const p of learner.parameters) assert.ok(p.description.length > 10);
  }
  const spec = (l: Learner, name: string) => l.parameters.find((p) => p.name === name)!;
  assert.equal(spec(randomForestClassification, 'maxFeatures').default, 'sqrt');
  assert.equal(spec(randomForestRegression, 'maxFeatures').default, 'third');
  assert.equal(spec(randomForestClassification, 'minSamplesLeaf').default, 1);
  assert.equal(spec(randomForestRegression, 'minSamplesLeaf').default, 1);
  assert.deepEqual([spec(randomForestClassification, 'numTrees').min, spec(randomForestClassification, 'numTrees').max], [1, 2000]);
  assert.deepEqual(randomForestClassification.types, ['Classification']);
  assert.deepEqual(randomForestRegression.types, ['Regression']);

  const data = selectRows(epafhm, allRows(epafhm));
  const trees = async (params: Record<string, number | string | boolean>) =>
    ((await randomForestRegression.train(data, { ...defaults(randomForestRegression), ...params }, context(1))) as ForestState).trees.map(decodeTree);

  assert.equal((await trees({ numTrees: 7 })).length, 7);
  // Stumps: one split, two leaves.
  for (const t of await trees({ numTrees: 5, maxDepth: 1 })) assert.equal(t.feature.length, 3);
  // Larger leaves, fewer nodes.
  const nodes = async (minSamplesLeaf: number) => (await trees({ numTrees: 5, minSamplesLeaf })).reduce((n, t) => n + t.feature.length, 0);
  assert.ok((await nodes(20)) < (await nodes(1)) / 5);
  // Without bootstrap and with every column tried, all trees are the same tree (on columns
  // without ties; EPAFHM has duplicate descriptor columns, between which the draw order decides).
  const smooth = rings(400, 4);
  smooth.y = smooth.y.map((_, r) => smooth.x.data[r * 10] * 3 + smooth.x.data[r * 10 + 1]);
  const smoothTrees = async (params: Record<string, number | string | boolean>) =>
    ((await randomForestRegression.train(smooth, { ...defaults(randomForestRegression), ...params }, context(1))) as ForestState).trees.map(decodeTree);
  const bagless = await smoothTrees({ numTrees: 3, bootstrap: false, maxFeatures: 'all', minSamplesLeaf: 5 });
  assert.deepEqual(bagless[1], bagless[0]);
  assert.deepEqual(bagless[2], bagless[0]);
  const bagged = await smoothTrees({ numTrees: 2, maxFeatures: 'all' });
  assert.notDeepEqual(bagged[1].threshold, bagged[0].threshold);
  // log2 tries fewer columns than all: the trees differ although the rows are the same.
  const sampled = await smoothTrees({ numTrees: 2, bootstrap: false, maxFeatures: 'log2' });
  assert.notDeepEqual(sampled[1].feature, sampled[0].feature);

  await assert.rejects(trees({ maxFeatures: 'half' }), /maxFeatures/);
  await assert.rejects(trees({ numTrees: 0 }), /numTrees/);
  const state = await randomForestRegression.train(data, defaults(randomForestRegression), context(1));
  assert.throws(() => randomForestRegression.predict(state, { rows: 1, cols: 3, data: new Float64Array(3) }), /columns/);
  assert.throws(() => randomForestClassification.predict(state, data.x), /not a random forest classification/);
});

test('histogram tree: a single unrestricted tree reproduces distinct training rows exactly', () => {
  const n = 300;
  const cols = 4;
  const rng = new Random(9);
  const x: Matrix = { rows: n, cols, data: Float64Array.from({ length: n * cols }, () => rng.next()) };
  const y = Float64Array.from({ length: n }, (_, r) => Math.sin(6 * x.data[r * cols]) + x.data[r * cols + 1] ** 2);
  const bins = binMatrix(x, new Array(cols).fill(false));
  // 300 distinct values per column: quantised into at most 256 bins.
  for (let c = 0; c < cols; c++) assert.ok(bins.edgeStart[c + 1] - bins.edgeStart[c] <= 255);
  const tree = new TreeBuilder(bins).growRegressor(y, new Int32Array(n).fill(1), { mtry: cols, minSamplesLeaf: 1, maxDepth: 0 }, rng);
  let worst = 0;
  for (let r = 0; r < n; r++) worst = Math.max(worst, Math.abs(tree.values[leafOffset(tree, x, r)] - y[r]));
  // Rows sharing every bin share a leaf: the error is bounded by the target's change within a bin.
  assert.ok(worst < 0.2, `worst error ${worst}`);
  // The compact encoding (preorder, no child links) decodes to the same tree.
  const encoded = encodeTree(tree);
  assert.equal(encoded.thresholdBits, 64);
  assert.deepEqual(decodeTree(JSON.parse(JSON.stringify(encoded))), tree);
  // columns are stored in the narrowest integers that hold them; trees stored before as Int32 still decode
  assert.equal(encoded.featureBits, 8);
  const wide = { ...tree, feature: tree.feature.map((f) => (f < 0 ? f : f + 300)) };
  assert.equal(encodeTree(wide).featureBits, 16);
  assert.deepEqual(decodeTree(encodeTree(wide)).feature, wide.feature);
  const widest = { ...tree, feature: tree.feature.map((f) => (f < 0 ? f : f + 70000)) };
  assert.equal(encodeTree(widest).featureBits, 32);
  assert.deepEqual(decodeTree(encodeTree(widest)).feature, widest.feature);
  const { featureBits: _, ...stored } = encodeTree(widest);
  assert.deepEqual(decodeTree(stored).feature, widest.feature, 'an encoding without featureBits is Int32');
  const binary = binMatrix({ rows: 3, cols: 1, data: Float64Array.of(0, 1, 1) }, [true]);
  assert.deepEqual(Array.from(binary.codes), [0, 1, 1]);
  assert.deepEqual(Array.from(binary.edges), [0.5]);
});

test('histogram tree: counting fingerprint bits all at once gives the same trees as scanning them', () => {
  const data = selectRows(
    kazius,
    allRows(kazius).filter((i) => i % 2 === 0),
  );
  const bins = binMatrix(data.x, data.binary);
  const builder = new TreeBuilder(bins);
  const classOf = Int32Array.from(data.y);
  // A numeric target too: the number of bits set, which many bits explain a little each.
  const target = Float64Array.from({ length: data.x.rows }, (_, r) => data.x.data.subarray(r * data.x.cols, (r + 1) * data.x.cols).reduce((a, b) => a + b, 0));
  for (const [seed, mtry, minSamplesLeaf] of [
    [1, 32, 1],
    [2, 200, 3],
    [3, 1024, 1],
  ]) {
    const rng = new Random(seed);
    const weights = Int32Array.from({ length: data.x.rows }, () => rng.int(3));
    const options = { mtry, minSamplesLeaf, maxDepth: 0 };
    const grow = (sparseCounts: boolean) => builder.growClassifier(classOf, 2, weights, { ...options, sparseCounts }, new Random(seed));
    const sparse = grow(true);
    assert.ok(sparse.feature.length > 50);
    assert.deepEqual(sparse, grow(false));
    const growRegression = (sparseCounts: boolean) => builder.growRegressor(target, weights, { ...options, sparseCounts }, new Random(seed));
    const regression = growRegression(true);
    const scanned = growRegression(false);
    assert.deepEqual(regression.feature, scanned.feature);
    regression.values.forEach((v, i) => assert.ok(Math.abs(v - scanned.values[i]) < 1e-9));
  }
});

// --- Gradient boosting, on the same tree code ---

test('gradient boosting regression: 5-fold CV of EPAFHM gives Q² > 0.5; more rounds fit the training rows closer', async () => {
  const predicted = await crossValidate(gradientBoostingRegression, epafhm, foldsOf(epafhm.x.rows, 5, 7), defaults(gradientBoostingRegression), runInProcess, 1);
  const { q2 } = regressionQuality(
    epafhm.y,
    predicted.map((p) => p.value),
  );
  assert.ok(q2 > 0.5, `Q² ${q2}`);
  for (const p of predicted) assert.equal(p.confidence, 0.5);

  const data = selectRows(epafhm, allRows(epafhm));
  const trainingRmse = async (params: Record<string, number>) => {
    const state = await gradientBoostingRegression.train(data, { ...defaults(gradientBoostingRegression), ...params }, context(1));
    return regressionQuality(
      epafhm.y,
      gradientBoostingRegression.predict(state, epafhm.x).map((p) => p.value),
    ).rmse;
  };
  const few = await trainingRmse({ numTrees: 10 });
  const many = await trainingRmse({ numTrees: 200 });
  const slow = await trainingRmse({ numTrees: 10, learningRate: 0.01 });
  assert.ok(many < few * 0.7, `${many} vs ${few}`);
  assert.ok(few < slow, `${few} vs ${slow}`);
});

test('gradient boosting classification: Kazius subset CV, probabilities, and three classes (softmax) on rings', async () => {
  const predicted = await crossValidate(gradientBoostingClassification, kazius, foldsOf(kazius.x.rows, 5, 7, kazius.y), defaults(gradientBoostingClassification), runInProcess, 1);
  const accuracy = predicted.filter((p, i) => p.value === kazius.y[i]).length / predicted.length;
  const mutagenic = kazius.classes.indexOf('mutagenic');
  const area = auc(
    predicted.map((p) => p.probabilities![mutagenic]),
    Array.from(kazius.y, (y) => y === mutagenic),
  );
  assert.ok(accuracy > 0.72, `accuracy ${accuracy}`);
  assert.ok(area > 0.8, `AUC ${area}`);
  for (const p of predicted) {
    assert.ok(Math.abs(p.probabilities!.reduce((a, b) => a + b, 0) - 1) < 1e-12);
    assert.equal(p.confidence, Math.max(...p.probabilities!));
  }

  const train = rings(1500, 1);
  const holdout = rings(500, 2);
  const state = await gradientBoostingClassification.train(train, defaults(gradientBoostingClassification), context(3));
  assert.equal((state as BoostingState).treesPerRound, 3);
  assert.equal((state as BoostingState).trees.length, 300);
  const ringPredictions = gradientBoostingClassification.predict(state, holdout.x);
  const ringAccuracy = ringPredictions.filter((p, i) => p.value === holdout.y[i]).length / ringPredictions.length;
  assert.ok(ringAccuracy > 0.85, `accuracy ${ringAccuracy}`);
  for (const p of ringPredictions) assert.ok(Math.abs(p.probabilities!.reduce((a, b) => a + b, 0) - 1) < 1e-12);
});

test('gradient boosting: deterministic for a seed, subsampling depends on it, JSON state, parameter checks', async () => {
  const data = selectRows(
    epafhm,
    allRows(epafhm).filter((i) => i % 2 === 0),
  );
  const test = selectRows(
    epafhm,
    allRows(epafhm).filter((i) => i % 2 === 1),
  ).x;
  const params = { ...defaults(gradientBoostingRegression), numTrees: 40, subsample: 0.5 };
  const run = async (seed: number) => gradientBoostingRegression.train(data, params, context(seed, 2));
  const state = await run(4);
  const predicted = gradientBoostingRegression.predict(state, test);
  assert.deepEqual(gradientBoostingRegression.predict(await run(4), test), predicted);
  assert.notDeepEqual(gradientBoostingRegression.predict(await run(5), test), predicted);
  assert.deepEqual(gradientBoostingRegression.predict(JSON.parse(JSON.stringify(state)), test), predicted);

  const names = gradientBoostingClassification.parameters.map((p) => [p.name, p.default]);
  assert.deepEqual(names, [
    ['numTrees', 100],
    ['learningRate', 0.1],
    ['maxDepth', 3],
    ['subsample', 1],
    ['minSamplesLeaf', 1],
  ]);
  for (const tree of (state as BoostingState).trees.map(decodeTree)) assert.ok(tree.feature.length <= 15); // depth 3
  await assert.rejects(gradientBoostingRegression.train(data, { ...params, learningRate: 0 }, context(1)), /learningRate/);
  await assert.rejects(gradientBoostingRegression.train(data, { ...params, subsample: 1.5 }, context(1)), /subsample/);
  const oneClass = { ...data, y: new Float64Array(data.y.length), classes: ['only'] };
  await assert.rejects(gradientBoostingClassification.train(oneClass, defaults(gradientBoostingClassification), context(1)), /two classes/);
});

test('binning sparse rows: the same codes and edges as their dense matrix, numeric and binary columns, a cell listed twice, a value that is not finite', async () => {
  const { SparseBackedMatrix } = await import('../../src/learning/sparse-matrix.ts');
  // rows of [binary, numeric, binary, numeric]; row 1 lists column 1 twice (its last value counts)
  const matrix = (values: number[]) => {
    const sparse = { rows: 3, cols: 4, offsets: Int32Array.from([0, 2, 5, 6]), columns: Int32Array.from([0, 1, 1, 2, 1, 3]), values: Float64Array.from(values) };
    return { sparse: new SparseBackedMatrix(3, 4, sparse), dense: { rows: 3, cols: 4, data: new SparseBackedMatrix(3, 4, sparse).data } };
  };
  const binary = [true, false, true, false];
  const { sparse, dense } = matrix([1, -2.5, Number.NaN, 0.7, 4, 0.25]);
  assert.deepEqual(binMatrix(sparse, binary), binMatrix(dense, binary));
  assert.deepEqual(Array.from(dense.data), [1, -2.5, 0, 0, 0, 4, 0.7, 0, 0, 0, 0, 0.25]);
  // a numeric value that is not finite: the same error, naming the same cell
  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
    const m = matrix([1, -2.5, 3, 0.7, bad, 0.25]);
    assert.throws(() => binMatrix(m.sparse, binary), { message: `column 1, row 1: ${bad} (values must be finite; impute missing values first)` });
    assert.throws(() => binMatrix(m.dense, binary), { message: `column 1, row 1: ${bad} (values must be finite; impute missing values first)` });
  }
});

test('a matrix that travels as sparse rows is made dense in the worker: the same bins and the same forest as from the dense matrix', async () => {
  const { SparseBackedMatrix } = await import('../../src/learning/sparse-matrix.ts');
  const binning = new URL('../../src/learning/binning.ts', import.meta.url).href;
  const data = selectRows(
    kazius,
    allRows(kazius).filter((i) => i % 3 === 0),
  );
  // the sparse rows of the dense matrix
  const { rows, cols } = data.x;
  const offsets = new Int32Array(rows + 1);
  const columns: number[] = [];
  const values: number[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const v = data.x.data[r * cols + c];
      if (v !== 0) {
        columns.push(c);
        values.push(v);
      }
    }
    offsets[r + 1] = columns.length;
  }
  const sparse = new SparseBackedMatrix(rows, cols, { rows, cols, offsets, columns: Int32Array.from(columns), values: Float64Array.from(values) });
  assert.equal('data' in structuredClone({ ...sparse }), false, 'what a worker is sent holds no dense data');
  assert.deepEqual(sparse.data, data.x.data, 'read in this thread, it is made here');
  const pool = new WorkerPool(2);
  try {
    const run: RunFunction = (url, fn, args) => pool.run(url, fn, args);
    const travelled = new SparseBackedMatrix(rows, cols, sparse.sparse);
    const context = { seed: 3, parallelism: 2, run };
    assert.deepEqual(await pool.run(binning, 'binMatrix', [travelled, data.binary]), binMatrix(data.x, data.binary));
    // binned from the sparse rows themselves, in a worker (where the dense data is never read) and here
    assert.deepEqual(binMatrix(new SparseBackedMatrix(rows, cols, sparse.sparse), data.binary), binMatrix(data.x, data.binary));
    const params = { ...defaults(randomForestClassification), numTrees: 20 };
    const fromSparse = await randomForestClassification.train({ ...data, x: travelled }, params, context);
    const fromDense = await randomForestClassification.train(data, params, { ...context, run: runInProcess });
    assert.deepEqual(randomForestClassification.predict(fromSparse, kazius.x), randomForestClassification.predict(fromDense, kazius.x));
    // predicted from the sparse rows row by row: the same predictions, and no dense matrix read (it has none)
    const rowsOnly = { rows, cols, sparse: sparse.sparse } as unknown as Matrix;
    assert.deepEqual(randomForestClassification.predict(fromDense, rowsOnly), randomForestClassification.predict(fromDense, data.x));
    const regressionData = { ...data, y: Float64Array.from(data.y, (v, i) => v + (i % 7) / 10), classes: [] };
    const regression = await randomForestRegression.train(regressionData, { ...defaults(randomForestRegression), numTrees: 10 }, { ...context, run: runInProcess });
    assert.deepEqual(randomForestRegression.predict(regression, rowsOnly), randomForestRegression.predict(regression, data.x));
  } finally {
    await pool.close();
  }
});
