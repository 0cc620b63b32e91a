/**
 * Gradient boosting (Friedman 2001) of shallow histogram regression trees: squared loss for
 * regression, log loss for classification (one tree per round on the log-odds for two classes,
 * one per class and round under a softmax for more). Each tree is fitted to the negative
 * gradient by variance reduction; classification leaves then take a Newton step, as in
 * scikit-learn. Rounds are sequential, so training is one `context.run` call.
 */
import type { Learner, LearnerContext, LearningTask, Matrix, ParamValue, ParameterSpec, Prediction, TrainingData } from './learner.ts';
import { Random } from './random.ts';
import { TreeBuilder, binnedLeafOffset, decodeTree, encodeTree, leafOffset, treeSeed, type EncodedTree, type Tree, type TreeOptions } from './histogram-tree.ts';
import { binMatrixTimed, type BinnedMatrix } from './binning.ts';
import { addPhaseTime } from '../core/phase-times.ts';

const PARAMETERS: ParameterSpec[] = [
  { name: 'numTrees', description: 'Boosting rounds (for more than two classes, one tree per class and round).', type: 'integer', default: 100, min: 1, max: 5000 },
  { name: 'learningRate', description: "Shrinkage: each tree's contribution is multiplied by it.", type: 'number', default: 0.1, min: 0.001, max: 1 },
  { name: 'maxDepth', description: 'The depth of each tree (the root is depth 0).', type: 'integer', default: 3, min: 1, max: 30 },
  { name: 'subsample', description: 'Fraction of the rows, drawn without replacement, each tree is fitted on (1 for all: no stochastic boosting).', type: 'number', default: 1.0, min: 0.05, max: 1 },
  { name: 'minSamplesLeaf', description: 'The fewest training rows a leaf may hold.', type: 'integer', default: 1, min: 1, max: 100000 },
];

/** Boosting settings as the worker receives them. */
export interface BoostingSettings {
  task: LearningTask;
  numTrees: number;
  learningRate: number;
  maxDepth: number;
  subsample: number;
  minSamplesLeaf: number;
  seed: number;
}

/** The learner state: JSON. Leaf values already include the learning rate. */
export interface BoostingState {
  kind: 'gradient-boosting';
  task: LearningTask;
  numFeatures: number;
  numClasses: number;
  /** Initial raw scores: [mean] for regression, [log-odds] for two classes, log priors for more. */
  init: number[];
  /** Trees per round: 1, or the number of classes when there are more than two. */
  treesPerRound: number;
  trees: EncodedTree[];
}

/** Worker entry: the matrix binned (and how long that took), then all boosting rounds. */
export function binAndTrainBoosting(x: Matrix, binary: boolean[], y: Float64Array, numClasses: number, settings: BoostingSettings): { init: number[]; trees: EncodedTree[]; binningMs: number } {
  const { bins, binningMs } = binMatrixTimed(x, binary);
  return { ...trainBoosting(bins, y, numClasses, settings), binningMs };
}

/** All boosting rounds on a binned matrix. */
export function trainBoosting(bins: BinnedMatrix, y: Float64Array, numClasses: number, settings: BoostingSettings): { init: number[]; trees: EncodedTree[] } {
  const rows = bins.rows;
  const builder = new TreeBuilder(bins);
  const options: TreeOptions = { mtry: bins.cols, minSamplesLeaf: settings.minSamplesLeaf, maxDepth: settings.maxDepth };
  const weights = new Int32Array(rows);
  const leafOfRow = new Int32Array(rows);
  const gradient = new Float64Array(rows);
  const trees: EncodedTree[] = [];
  const scoresPerRow = settings.task === 'regression' || numClasses === 2 ? 1 : numClasses;
  const init = initialScores(settings.task, y, numClasses);
  const score = new Float64Array(rows * scoresPerRow);
  for (let r = 0; r < rows; r++) score.set(init, r * scoresPerRow);
  const probability = new Float64Array(rows * scoresPerRow);
  const order = Array.from({ length: rows }, (_, i) => i);

  for (let round = 0; round < settings.numTrees; round++) {
    const rng = new Random(treeSeed(settings.seed, round));
    drawSubsample(weights, settings.subsample, order, rng);
    if (settings.task === 'classification') probabilities(score, scoresPerRow, probability);
    for (let k = 0; k < scoresPerRow; k++) {
      // Negative gradient of the loss at the current scores.
      for (let r = 0; r < rows; r++) {
        if (settings.task === 'regression') gradient[r] = y[r] - score[r];
        else {
          const target = scoresPerRow === 1 ? y[r] : y[r] === k ? 1 : 0;
          gradient[r] = target - probability[r * scoresPerRow + k];
        }
      }
      const tree = builder.growRegressor(gradient, weights, options, rng, leafOfRow);
      if (settings.task === 'classification') newtonLeaves(tree, gradient, weights, leafOfRow, scoresPerRow === 1 ? 1 : (numClasses - 1) / numClasses);
      for (let i = 0; i < tree.values.length; i++) tree.values[i] *= settings.learningRate;
      for (let r = 0; r < rows; r++) {
        const leaf = leafOfRow[r] >= 0 ? leafOfRow[r] : binnedLeafOffset(tree, bins, r);
        score[r * scoresPerRow + k] += tree.values[leaf];
      }
      trees.push(encodeTree(tree));
    }
  }
  return { init: Array.from(init), trees };
}

function initialScores(task: LearningTask, y: Float64Array, numClasses: number): Float64Array {
  if (task === 'regression') return Float64Array.of(y.reduce((a, b) => a + b, 0) / y.length);
  const prior = new Float64Array(numClasses);
  for (const v of y) prior[v] += 1 / y.length;
  // Clamped away from 0 and 1 so that a class absent from the training rows stays finite.
  const p = (k: number) => Math.min(1 - 1e-12, Math.max(1e-12, prior[k]));
  if (numClasses === 2) return Float64Array.of(Math.log(p(1) / (1 - p(1))));
  return Float64Array.from(prior, (_, k) => Math.log(p(k)));
}

/** Weights 1 for round(subsample * rows) rows drawn without replacement (all rows for 1), 0 for the rest. */
function drawSubsample(weights: Int32Array, subsample: number, order: number[], rng: Random): void {
  const rows = weights.length;
  if (subsample >= 1) {
    weights.fill(1);
    return;
  }
  const take = Math.max(1, Math.round(subsample * rows));
  weights.fill(0);
  // Partial Fisher–Yates: the first `take` of a random permutation.
  for (let i = 0; i < take; i++) {
    const j = i + rng.int(rows - i);
    const t = order[i];
    order[i] = order[j];
    order[j] = t;
    weights[order[i]] = 1;
  }
}

/** Class probabilities from raw scores: sigmoid of the log-odds (one score per row), else softmax. */
function probabilities(score: Float64Array, perRow: number, out: Float64Array): void {
  if (perRow === 1) {
    for (let r = 0; r < score.length; r++) out[r] = 1 / (1 + Math.exp(-score[r]));
    return;
  }
  for (let o = 0; o < score.length; o += perRow) softmax(score, o, perRow, out);
}

function softmax(score: ArrayLike<number>, offset: number, n: number, out: Float64Array | number[]): void {
  let max = -Infinity;
  for (let k = 0; k < n; k++) max = Math.max(max, score[offset + k]);
  let sum = 0;
  for (let k = 0; k < n; k++) sum += out[offset + k] = Math.exp(score[offset + k] - max);
  for (let k = 0; k < n; k++) out[offset + k] /= sum;
}

/**
 * Replaces each leaf's mean gradient by the Newton step of the log loss:
 * factor * sum(g) / sum(|g| (1 - |g|)) over the leaf's rows (g = target - probability).
 */
function newtonLeaves(tree: Tree, gradient: Float64Array, weights: Int32Array, leafOfRow: Int32Array, factor: number): void {
  const numerator = new Float64Array(tree.values.length);
  const denominator = new Float64Array(tree.values.length);
  for (let r = 0; r < gradient.length; r++) {
    if (weights[r] === 0) continue;
    const g = gradient[r];
    const a = Math.abs(g);
    numerator[leafOfRow[r]] += g;
    denominator[leafOfRow[r]] += a * (1 - a);
  }
  for (let i = 0; i < tree.values.length; i++) tree.values[i] = denominator[i] < 1e-150 ? 0 : (factor * numerator[i]) / denominator[i];
}

async function trainGradientBoosting(task: LearningTask, data: TrainingData, params: Record<string, ParamValue>, context: LearnerContext): Promise<BoostingState> {
  const { x, y } = data;
  if (x.rows < 1) throw new Error('gradient boosting: no training rows');
  const numClasses = task === 'classification' ? data.classes.length : 0;
  if (task === 'classification' && numClasses < 2) throw new Error('gradient boosting classification needs at least two classes');
  const settings: BoostingSettings = {
    task,
    numTrees: Number(params.numTrees),
    learningRate: Number(params.learningRate),
    maxDepth: Number(params.maxDepth),
    subsample: Number(params.subsample),
    minSamplesLeaf: Number(params.minSamplesLeaf),
    seed: context.seed,
  };
  if (!Number.isInteger(settings.numTrees) || settings.numTrees < 1) throw new Error(`numTrees must be a positive integer, not ${params.numTrees}`);
  if (!(settings.learningRate > 0 && settings.learningRate <= 1)) throw new Error(`learningRate must be in (0, 1], not ${params.learningRate}`);
  if (!Number.isInteger(settings.maxDepth) || settings.maxDepth < 1) throw new Error(`maxDepth must be a positive integer, not ${params.maxDepth}`);
  if (!(settings.subsample > 0 && settings.subsample <= 1)) throw new Error(`subsample must be in (0, 1], not ${params.subsample}`);
  if (!Number.isInteger(settings.minSamplesLeaf) || settings.minSamplesLeaf < 1) throw new Error(`minSamplesLeaf must be a positive integer, not ${params.minSamplesLeaf}`);

  context.signal?.throwIfAborted();
  // binned in the same call: a call of its own would wait for another job's whole boosting to end
  const { init, trees, binningMs } = await context.run<{ init: number[]; trees: EncodedTree[]; binningMs: number }>(
    import.meta.url,
    'binAndTrainBoosting',
    [data.x, data.binary, y, numClasses, settings],
    { background: true },
  );
  addPhaseTime('binning', binningMs);
  const treesPerRound = task === 'classification' && numClasses > 2 ? numClasses : 1;
  return { kind: 'gradient-boosting', task, numFeatures: x.cols, numClasses, init, treesPerRound, trees };
}

const decoded = new WeakMap<object, Tree[]>();

function boostedTrees(state: BoostingState): Tree[] {
  let trees = decoded.get(state);
  if (!trees) {
    trees = state.trees.map(decodeTree);
    decoded.set(state, trees);
  }
  return trees;
}

function checkState(state: unknown, task: LearningTask, x: Matrix): BoostingState {
  const s = state as BoostingState;
  if (s?.kind !== 'gradient-boosting' || s.task !== task || !Array.isArray(s.trees)) throw new Error(`not a gradient boosting ${task} model`);
  if (x.cols !== s.numFeatures) throw new Error(`the model expects ${s.numFeatures} columns, the data has ${x.cols}`);
  return s;
}

/** Raw scores of row r: init plus every tree's leaf value, per score. */
function rawScores(s: BoostingState, trees: Tree[], x: Matrix, r: number): number[] {
  const scores = [...s.init];
  for (let t = 0; t < trees.length; t++) scores[t % s.treesPerRound] += trees[t].values[leafOffset(trees[t], x, r)];
  return scores;
}

/** Class probabilities (sigmoid or softmax of the scores); the class of highest probability. */
function predictClassification(state: unknown, x: Matrix): Prediction[] {
  const s = checkState(state, 'classification', x);
  const trees = boostedTrees(s);
  const out: Prediction[] = [];
  for (let r = 0; r < x.rows; r++) {
    const scores = rawScores(s, trees, x, r);
    let p: number[];
    if (s.numClasses === 2) {
      const p1 = 1 / (1 + Math.exp(-scores[0]));
      p = [1 - p1, p1];
    } else {
      p = new Array<number>(s.numClasses);
      softmax(scores, 0, s.numClasses, p);
    }
    let best = 0;
    for (let k = 1; k < p.length; k++) if (p[k] > p[best]) best = k;
    out.push({ value: best, confidence: p[best], probabilities: p });
  }
  return out;
}

/**
 * Sum of the trees. Confidence is a constant 0.5: a boosted sum of trees carries no spread of
 * its own (unlike a forest's trees, its trees do not each predict the target), and we do not
 * fake one.
 */
function predictRegression(state: unknown, x: Matrix): Prediction[] {
  const s = checkState(state, 'regression', x);
  const trees = boostedTrees(s);
  const out: Prediction[] = [];
  for (let r = 0; r < x.rows; r++) out.push({ value: rawScores(s, trees, x, r)[0], confidence: 0.5 });
  return out;
}

/** Gradient boosting regressor: squared loss, shallow trees, shrinkage. */
export const gradientBoostingRegression: Learner = {
  id: 'gradient-boosting-regression',
  title: 'Gradient boosting regression',
  description:
    'Gradient boosting of shallow regression trees on the squared loss (Friedman): each tree fits the residuals of the ones before, scaled by the learning rate; optional row subsampling (stochastic gradient boosting). Features are quantised into at most 256 bins. The confidence is a constant 0.5.',
  task: 'regression',
  types: ['Regression'],
  parameters: PARAMETERS,
  train: (data, params, context) => trainGradientBoosting('regression', data, params, context),
  predict: predictRegression,
};

/** Gradient boosting classifier: log loss, sigmoid for two classes, softmax for more. */
export const gradientBoostingClassification: Learner = {
  id: 'gradient-boosting-classification',
  title: 'Gradient boosting classification',
  description:
    'Gradient boosting of shallow regression trees on the log loss (Friedman): one tree per round on the log-odds for two classes, one per class and round under a softmax for more, each leaf a Newton step scaled by the learning rate. The confidence is the predicted class probability. Features are quantised into at most 256 bins.',
  task: 'classification',
  types: ['Classification'],
  parameters: PARAMETERS,
  train: (data, params, context) => trainGradientBoosting('classification', data, params, context),
  predict: predictClassification,
};
