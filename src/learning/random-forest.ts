/**
 * Random forests (Breiman 2001) for classification and regression on histogram trees: each tree
 * is grown on a bootstrap sample with a random subset of columns tried at every node. Training
 * runs in chunks of trees through `context.run`; every tree is seeded from the context seed and
 * its own index, so a forest depends on the seed only, never on how many chunks grew it.
 */
import { randomUUID } from 'node:crypto';
import type { Learner, LearnerContext, Matrix, ParamValue, ParameterSpec, Prediction, TrainingData } from './learner.ts';
import { Random } from './random.ts';
import { TreeBuilder, decodeTree, encodeTree, leafOffset, treeSeed, type EncodedTree, type Tree } from './histogram-tree.ts';
import { binMatrixTimed, type BinnedMatrix } from './binning.ts';
import { isSparseRows } from './sparse-matrix.ts';
import { addPhaseTime, timePhase } from '../core/phase-times.ts';

const MAX_FEATURES = ['sqrt', 'log2', 'third', 'all'];

/** Chunks of trees per worker thread. */
const CHUNKS_PER_THREAD = 4;

function forestParameters(task: 'classification' | 'regression'): ParameterSpec[] {
  const classification = task === 'classification';
  return [
    { name: 'numTrees', description: 'Number of trees in the forest.', type: 'integer', default: 100, min: 1, max: 2000 },
    {
      name: 'maxFeatures',
      description: 'Columns tried at each split: sqrt, log2 or a third of the columns, or all of them (bagging).',
      type: 'string',
      default: classification ? 'sqrt' : 'third',
      choices: MAX_FEATURES,
    },
    {
      name: 'minSamplesLeaf',
      // 1 for regression too (scikit-learn's default, not R's 5): on fingerprint bits 5 loses
      // about 0.04 of Q² (EPAFHM, Morgan 2048 bits, 10-fold CV: 0.44 against 0.48)
      description: 'The fewest training samples (counting bootstrap repeats) a leaf may hold.',
      type: 'integer',
      default: 1,
      min: 1,
      max: 100000,
    },
    { name: 'maxDepth', description: 'The deepest a tree may grow (the root is depth 0); 0 for no limit.', type: 'integer', default: 0, min: 0, max: 1000 },
    { name: 'bootstrap', description: 'Grow each tree on a bootstrap sample (otherwise on all rows).', type: 'boolean', default: true },
  ];
}

/** Forest settings as the chunk workers receive them. */
export interface ForestSettings {
  task: 'classification' | 'regression';
  numTrees: number;
  mtry: number;
  minSamplesLeaf: number;
  maxDepth: number;
  bootstrap: boolean;
  seed: number;
  /** One training's id: its chunks on one thread share that thread's tree builder (see builderFor). */
  forest?: string;
}

/** The learner state: JSON. */
export interface ForestState {
  kind: 'random-forest';
  task: 'classification' | 'regression';
  numFeatures: number;
  numClasses: number;
  /** Regression: the standard deviation of the training target (scales the confidence). */
  targetSd: number;
  trees: EncodedTree[];
}

/** The number of columns tried per node for a `maxFeatures` choice. */
export function columnsPerSplit(maxFeatures: string, cols: number): number {
  switch (maxFeatures) {
    case 'sqrt':
      return Math.max(1, Math.floor(Math.sqrt(cols)));
    case 'log2':
      return Math.max(1, Math.floor(Math.log2(cols)));
    case 'third':
      return Math.max(1, Math.floor(cols / 3));
    case 'all':
      return cols;
    default:
      throw new Error(`maxFeatures must be one of ${MAX_FEATURES.join(', ')}, not ${maxFeatures}`);
  }
}

/** Worker entry: the matrix binned (and how long that took), then trees [first, first + count) grown on it. */
export function binAndTrainForestChunk(
  x: Matrix,
  binary: boolean[],
  y: Float64Array,
  numClasses: number,
  settings: ForestSettings,
  first: number,
  count: number,
): { bins: BinnedMatrix; binningMs: number; trees: EncodedTree[] } {
  const { bins, binningMs } = binMatrixTimed(x, binary);
  return { bins, binningMs, trees: trainForestChunk(bins, y, numClasses, settings, first, count) };
}

/** The tree builders of the last forests this thread grew trees of (most recently used last), and when each is let go. */
const kept = new Map<string, { rows: number; cols: number; builder: TreeBuilder; release: ReturnType<typeof setTimeout> | undefined }>();
/** How long a kept builder waits for its forest's next chunk. */
const KEEP_BUILDER_MS = 5000;
/**
 * How many forests' builders a thread keeps: the forests whose chunks interleave on it (a
 * cross-validation trains as many folds at once as there are threads, each fold's forest in
 * chunks on every thread). With one kept, two folds' chunks alternating on a thread made a new
 * builder for most chunks (Kazius, 5 folds on 1024 bits, two threads: 83 builders for 120 chunks
 * of 15 forests, where 30 are needed).
 */
const KEPT_BUILDERS = 4;

/**
 * A tree builder for a chunk of `settings.forest`: the one this thread made for an earlier chunk
 * of the same training (its bins are equal: each is the binning of the same matrix), else a new
 * one, kept for the next chunk. Making one cost a quarter of a chunk's time on fingerprints (the
 * two-bin column lists of sparse-counts.ts over every row and bit); a builder is reused from
 * tree to tree anyway, and a tree does not depend on what the builder grew before (a forest
 * is the same in any number of chunks).
 */
function builderFor(bins: BinnedMatrix, settings: ForestSettings): TreeBuilder {
  const forest = settings.forest;
  if (forest === undefined) return new TreeBuilder(bins);
  let entry = kept.get(forest);
  if (entry) {
    clearTimeout(entry.release);
    kept.delete(forest);
  }
  if (!entry || entry.rows !== bins.rows || entry.cols !== bins.cols) entry = { rows: bins.rows, cols: bins.cols, builder: new TreeBuilder(bins), release: undefined };
  kept.set(forest, entry);
  for (const [oldest, { release }] of kept) {
    if (kept.size <= KEPT_BUILDERS) break;
    clearTimeout(release);
    kept.delete(oldest);
  }
  const current = entry;
  current.release = setTimeout(() => {
    if (kept.get(forest) === current) kept.delete(forest);
  }, KEEP_BUILDER_MS);
  current.release.unref?.();
  return current.builder;
}

/** Worker entry: grow trees [first, first + count) of a forest. */
export function trainForestChunk(bins: BinnedMatrix, y: Float64Array, numClasses: number, settings: ForestSettings, first: number, count: number): EncodedTree[] {
  const rows = bins.rows;
  const builder = builderFor(bins, settings);
  const options = { mtry: settings.mtry, minSamplesLeaf: settings.minSamplesLeaf, maxDepth: settings.maxDepth };
  const classOf = settings.task === 'classification' ? Int32Array.from(y) : undefined;
  const weights = new Int32Array(rows);
  const trees: EncodedTree[] = [];
  for (let t = first; t < first + count; t++) {
    const rng = new Random(treeSeed(settings.seed, t));
    if (settings.bootstrap) {
      weights.fill(0);
      for (let i = 0; i < rows; i++) weights[rng.int(rows)]++;
    } else {
      weights.fill(1);
    }
    const tree = classOf ? builder.growClassifier(classOf, numClasses, weights, options, rng) : builder.growRegressor(y, weights, options, rng);
    trees.push(encodeTree(tree, settings.task === 'classification'));
  }
  return trees;
}

async function trainForest(task: 'classification' | 'regression', data: TrainingData, params: Record<string, ParamValue>, context: LearnerContext): Promise<ForestState> {
  const { x, y } = data;
  if (x.rows < 1) throw new Error('random forest: no training rows');
  const numClasses = task === 'classification' ? data.classes.length : 0;
  if (task === 'classification' && numClasses < 1) throw new Error('random forest classification: no classes');
  const settings: ForestSettings = {
    task,
    numTrees: Number(params.numTrees),
    mtry: columnsPerSplit(String(params.maxFeatures), x.cols),
    minSamplesLeaf: Number(params.minSamplesLeaf),
    maxDepth: Number(params.maxDepth),
    bootstrap: params.bootstrap === true || params.bootstrap === 'true',
    seed: context.seed,
    forest: randomUUID(),
  };
  if (!Number.isInteger(settings.numTrees) || settings.numTrees < 1) throw new Error(`numTrees must be a positive integer, not ${params.numTrees}`);
  if (!Number.isInteger(settings.minSamplesLeaf) || settings.minSamplesLeaf < 1) throw new Error(`minSamplesLeaf must be a positive integer, not ${params.minSamplesLeaf}`);
  if (!Number.isInteger(settings.maxDepth) || settings.maxDepth < 0) throw new Error(`maxDepth must be a non-negative integer, not ${params.maxDepth}`);

  context.signal?.throwIfAborted();
  // a few chunks per thread, one queued per thread at a time: another job's call (a fold's
  // prediction, a request's depiction) waits for one chunk, not for the whole forest. Each lane's
  // first chunk bins the matrix itself and answers the bins for the lane's next chunks: binning
  // as a call of its own waited for a running piece of other work first, every time.
  const lanes = Math.max(1, Math.min(Math.floor(context.parallelism) || 1, settings.numTrees));
  const chunks = Math.min(settings.numTrees, lanes * CHUNKS_PER_THREAD);
  const grown: EncodedTree[][] = new Array(chunks);
  let next = 0;
  let failed = false;
  const lane = async () => {
    let bins: BinnedMatrix | undefined;
    while (next < chunks && !failed) {
      const c = next++;
      const first = Math.floor((c * settings.numTrees) / chunks);
      const last = Math.floor(((c + 1) * settings.numTrees) / chunks);
      try {
        context.signal?.throwIfAborted();
        if (bins) grown[c] = await context.run<EncodedTree[]>(import.meta.url, 'trainForestChunk', [bins, y, numClasses, settings, first, last - first], { background: true });
        else {
          const binned = await context.run<{ bins: BinnedMatrix; binningMs: number; trees: EncodedTree[] }>(
            import.meta.url,
            'binAndTrainForestChunk',
            [x, data.binary, y, numClasses, settings, first, last - first],
            { background: true },
          );
          addPhaseTime('binning', binned.binningMs);
          bins = binned.bins;
          grown[c] = binned.trees;
        }
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await timePhase('tree growth', () => Promise.all(Array.from({ length: lanes }, lane)));
  const trees = grown.flat();
  return { kind: 'random-forest', task, numFeatures: x.cols, numClasses, targetSd: task === 'regression' ? standardDeviation(y) : 0, trees };
}

function standardDeviation(v: Float64Array): number {
  let mean = 0;
  for (let i = 0; i < v.length; i++) mean += v[i];
  mean /= v.length;
  let ss = 0;
  for (let i = 0; i < v.length; i++) ss += (v[i] - mean) ** 2;
  return Math.sqrt(ss / v.length);
}

/** Decoded trees per state object, so that repeated predictions decode once. */
const decoded = new WeakMap<object, Tree[]>();

function forestTrees(state: ForestState): Tree[] {
  let trees = decoded.get(state);
  if (!trees) {
    trees = state.trees.map(decodeTree);
    decoded.set(state, trees);
  }
  return trees;
}

function checkState(state: unknown, task: 'classification' | 'regression', x: Matrix): ForestState {
  const s = state as ForestState;
  if (s?.kind !== 'random-forest' || s.task !== task || !Array.isArray(s.trees)) throw new Error(`not a random forest ${task} model`);
  if (x.cols !== s.numFeatures) throw new Error(`the model expects ${s.numFeatures} columns, the data has ${x.cols}`);
  return s;
}

/**
 * Each row of `x` as a matrix and the row's index in it: a matrix that travels as its sparse rows
 * (fingerprints) one row at a time, made dense in one row's buffer (a cell listed twice is its
 * last value, as in denseMatrix), so that predicting never makes its dense matrix (tens of
 * megabytes for thousands of rows of 1024 bits); any other matrix as it is.
 */
function eachRow(x: Matrix, visit: (matrix: Matrix, r: number) => void): void {
  const sparse = (x as { sparse?: unknown }).sparse;
  if (!isSparseRows(sparse) || sparse.rows !== x.rows || sparse.cols !== x.cols) {
    for (let r = 0; r < x.rows; r++) visit(x, r);
    return;
  }
  const one: Matrix = { rows: 1, cols: x.cols, data: new Float64Array(x.cols) };
  const { offsets, columns, values } = sparse;
  for (let r = 0; r < x.rows; r++) {
    for (let k = offsets[r]; k < offsets[r + 1]; k++) one.data[columns[k]] = values[k];
    visit(one, 0);
    for (let k = offsets[r]; k < offsets[r + 1]; k++) one.data[columns[k]] = 0;
  }
}

/** Mean of the trees' leaf class distributions; the class of highest probability. */
function predictClassification(state: unknown, x: Matrix): Prediction[] {
  const s = checkState(state, 'classification', x);
  const trees = forestTrees(s);
  const K = s.numClasses;
  const out: Prediction[] = [];
  eachRow(x, (x, r) => {
    const p = new Array<number>(K).fill(0);
    for (const tree of trees) {
      const o = leafOffset(tree, x, r);
      for (let k = 0; k < K; k++) p[k] += tree.values[o + k];
    }
    let sum = 0;
    for (let k = 0; k < K; k++) sum += p[k];
    let best = 0;
    for (let k = 0; k < K; k++) {
      p[k] /= sum;
      if (p[k] > p[best]) best = k;
    }
    out.push({ value: best, confidence: p[best], probabilities: p });
  });
  return out;
}

/**
 * Mean of the trees' predictions. Confidence is 1 - min(1, sd_trees / sd_train): the spread of
 * the trees' predictions for the row relative to the spread of the training target, so 1 when
 * the trees agree and 0 when they disagree as much as the training values differ.
 */
function predictRegression(state: unknown, x: Matrix): Prediction[] {
  const s = checkState(state, 'regression', x);
  const trees = forestTrees(s);
  const out: Prediction[] = [];
  eachRow(x, (x, r) => {
    let sum = 0;
    let squares = 0;
    for (const tree of trees) {
      const v = tree.values[leafOffset(tree, x, r)];
      sum += v;
      squares += v * v;
    }
    const mean = sum / trees.length;
    const sd = Math.sqrt(Math.max(0, squares / trees.length - mean * mean));
    const confidence = s.targetSd > 0 ? 1 - Math.min(1, sd / s.targetSd) : 1;
    out.push({ value: mean, confidence, spread: sd });
  });
  return out;
}

/** Random forest classifier: Gini trees, class probability = mean leaf distribution. */
export const randomForestClassification: Learner = {
  id: 'random-forest-classification',
  title: 'Random forest classification',
  description:
    "Breiman random forest of CART classification trees (Gini), each grown on a bootstrap sample with a random subset of columns tried per split; the predicted class probabilities are the mean of the trees' leaf class distributions. Features are quantised into at most 256 bins.",
  task: 'classification',
  types: ['Classification'],
  parameters: forestParameters('classification'),
  train: (data, params, context) => trainForest('classification', data, params, context),
  predict: predictClassification,
};

/** Random forest regressor: variance-reduction trees, prediction = mean over trees. */
export const randomForestRegression: Learner = {
  id: 'random-forest-regression',
  title: 'Random forest regression',
  description:
    'Breiman random forest of CART regression trees (variance reduction), each grown on a bootstrap sample with a random subset of columns tried per split; the prediction is the mean over trees, the confidence 1 - min(1, sd over trees / sd of the training target). Features are quantised into at most 256 bins.',
  task: 'regression',
  types: ['Regression'],
  parameters: forestParameters('regression'),
  train: (data, params, context) => trainForest('regression', data, params, context),
  predict: predictRegression,
};
