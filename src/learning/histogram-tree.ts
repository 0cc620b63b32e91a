/**
 * CART decision trees grown on binned features, the building block of the random forest and
 * of gradient boosting.
 *
 * Each column is quantised once into at most 256 bins (binning.ts); a tree is then grown
 * depth first over an index array that is partitioned in place, node by node, and the best
 * split of a candidate column is found from a per-node histogram of its bins (class weights
 * for Gini, weight and weighted target sum for variance reduction), or, for fingerprint bits,
 * from counts of all bits at once (sparse-counts.ts). Trees are flat typed
 * arrays whose thresholds are in the original feature units, so prediction needs no bins.
 */
import type { Matrix } from './learner.ts';
import type { Random } from './random.ts';
import { MAX_BINS, type BinnedMatrix } from './binning.ts';
import { SparseCounts } from './sparse-counts.ts';
import { fromBase64, toBase64 } from './scaling.ts';

export { binMatrix, type BinnedMatrix } from './binning.ts';

/** A grown tree, as flat arrays indexed by node (the root is node 0). */
export interface Tree {
  /** The column a node splits on, or -1 for a leaf. */
  feature: Int32Array;
  /** A row goes left when its value of `feature` is <= threshold (original units). */
  threshold: Float64Array;
  /** Internal node: the left child. Leaf: the offset of its output in `values`. */
  left: Int32Array;
  /** Internal node: the right child. Leaf: -1. */
  right: Int32Array;
  /** Leaf outputs, `width` numbers per leaf (class probabilities, or one value). */
  values: Float64Array;
  width: number;
}

export interface TreeOptions {
  /** Columns drawn per node (see `TreeBuilder` for how constant columns count). */
  mtry: number;
  /** The least total sample weight of a leaf. */
  minSamplesLeaf: number;
  /** The deepest a leaf may be (the root has depth 0); 0 for unlimited. */
  maxDepth: number;
  /**
   * Whether two-bin columns are counted all at once (sparse-counts.ts) or scanned one by one
   * like the others; both give the same splits. Left out, it is chosen by how sparse they are.
   */
  sparseCounts?: boolean;
}

const CLASSIFICATION = 0;
const REGRESSION = 1;
/** Stack entry: start, end, depth, parent, side (0 left, 1 right), known constant columns, counts buffer. */
const STACK_ENTRY = 7;
/**
 * Grows trees on one binned matrix, reusing its buffers from tree to tree (one builder per
 * thread). Sample weights are integers (bootstrap counts; 0 leaves a row out).
 *
 * Column sampling follows scikit-learn: per node, `mtry` columns are drawn without replacement;
 * drawn columns that are constant in the node count towards `mtry` but are not split on, and
 * when every drawn column is constant the drawing goes on until one is not. Columns found
 * constant are remembered for the node's descendants so that they are never scanned again.
 */
export class TreeBuilder {
  private readonly samples: Int32Array;
  private readonly scratch: Int32Array;
  private readonly featureOrder: Int32Array;
  private readonly constantFeatures: Int32Array;
  private readonly stack: Int32Array;
  private nodeFeature: Int32Array;
  private nodeThreshold: Float64Array;
  private nodeLeft: Int32Array;
  private nodeRight: Int32Array;
  private leafValues: Float64Array;
  private nodeCount = 0;
  private valueCount = 0;

  // Per-tree inputs of the current growth.
  private mode = CLASSIFICATION;
  private numClasses = 0;
  private classOf: Int32Array = new Int32Array(0);
  private target: Float64Array = new Float64Array(0);
  private weightedTarget = new Float64Array(0);
  private weights: Int32Array = new Int32Array(0);
  private options: TreeOptions = { mtry: 1, minSamplesLeaf: 1, maxDepth: 0 };

  // Histograms and node statistics.
  private classHist = new Int32Array(0);
  private classTotals = new Int32Array(0);
  private classLeft = new Int32Array(0);
  private readonly binWeight = new Int32Array(MAX_BINS);
  private readonly binSum = new Float64Array(MAX_BINS);
  private nodeWeight = 0;
  private nodeSum = 0;

  // Two-bin columns counted all at once (see sparse-counts.ts): the buffer of the current node,
  // -1 until counted.
  private readonly counts: SparseCounts;
  private useSparse = false;
  private nodeCounts = -1;
  private leftCounts = -1;
  private rightCounts = -1;

  // The best split found so far in the current node.
  private bestProxy = 0;
  private bestFeature = -1;
  private bestEdge = -1;

  private readonly bins: BinnedMatrix;
  constructor(bins: BinnedMatrix) {
    this.bins = bins;
    const { rows, cols } = bins;
    this.samples = new Int32Array(rows);
    this.scratch = new Int32Array(rows);
    this.featureOrder = new Int32Array(cols);
    this.constantFeatures = new Int32Array(cols);
    this.stack = new Int32Array(STACK_ENTRY * (2 * rows + 2));
    const capacity = 2 * rows + 1;
    this.nodeFeature = new Int32Array(capacity);
    this.nodeThreshold = new Float64Array(capacity);
    this.nodeLeft = new Int32Array(capacity);
    this.nodeRight = new Int32Array(capacity);
    this.leafValues = new Float64Array(rows + 1);
    this.counts = new SparseCounts(bins);
  }

  /** A classification tree (Gini); leaves hold the class distribution of their samples. */
  growClassifier(classOf: Int32Array, numClasses: number, weights: Int32Array, options: TreeOptions, rng: Random): Tree {
    this.mode = CLASSIFICATION;
    this.classOf = classOf;
    this.numClasses = numClasses;
    if (this.classTotals.length !== numClasses) {
      this.classHist = new Int32Array(MAX_BINS * numClasses);
      this.classTotals = new Int32Array(numClasses);
      this.classLeft = new Int32Array(numClasses);
    }
    return this.grow(weights, options, rng, numClasses, undefined);
  }

  /**
   * A regression tree (variance reduction); leaves hold the weighted mean target. When
   * `leafOfRow` is given, it receives the leaf index (value offset) of every row of weight > 0,
   * and -1 for the others.
   */
  growRegressor(target: Float64Array, weights: Int32Array, options: TreeOptions, rng: Random, leafOfRow?: Int32Array): Tree {
    this.mode = REGRESSION;
    this.target = target;
    if (this.weightedTarget.length !== target.length) this.weightedTarget = new Float64Array(target.length);
    for (let r = 0; r < target.length; r++) this.weightedTarget[r] = weights[r] * target[r];
    return this.grow(weights, options, rng, 1, leafOfRow);
  }

  private grow(weights: Int32Array, options: TreeOptions, rng: Random, width: number, leafOfRow: Int32Array | undefined): Tree {
    const { rows, cols } = this.bins;
    this.weights = weights;
    this.options = options;
    this.nodeCount = 0;
    this.valueCount = 0;
    if (this.leafValues.length < (rows + 1) * width) this.leafValues = new Float64Array((rows + 1) * width);
    for (let c = 0; c < cols; c++) this.featureOrder[c] = c;
    if (leafOfRow) leafOfRow.fill(-1);
    // Count two-bin columns all at once when a row lists fewer of them than a node is expected to
    // draw (twice over: drawing goes on past mtry in nodes where the drawn columns are constant).
    const counts = this.counts;
    this.useSparse = counts.sparse.twoBinCount > 0 && (options.sparseCounts ?? counts.listedPerRow <= (2 * options.mtry * counts.sparse.twoBinCount) / cols + 1);
    counts.begin(this.mode === CLASSIFICATION, this.numClasses);

    let n = 0;
    for (let r = 0; r < rows; r++) if (weights[r] > 0) this.samples[n++] = r;

    const stack = this.stack;
    let top = this.push(0, 0, n, 0, -1, 0, 0, -1);
    while (top > 0) {
      top -= STACK_ENTRY;
      const start = stack[top],
        end = stack[top + 1],
        depth = stack[top + 2];
      const parent = stack[top + 3],
        side = stack[top + 4],
        knownConstants = stack[top + 5];
      this.nodeCounts = stack[top + 6];
      const node = this.nodeCount++;
      if (parent >= 0) {
        if (side === 0) this.nodeLeft[parent] = node;
        else this.nodeRight[parent] = node;
      }
      const splittable = this.nodeStatistics(start, end) && (options.maxDepth <= 0 || depth < options.maxDepth) && this.nodeWeight >= 2 * options.minSamplesLeaf && end - start >= 2;
      const constants = splittable ? this.findSplit(start, end, knownConstants, rng) : knownConstants;
      if (!splittable || this.bestFeature < 0) {
        this.makeLeaf(node, start, end, leafOfRow);
        if (this.nodeCounts >= 0) counts.release(this.nodeCounts, this.samples, start, end);
        continue;
      }
      const f = this.bestFeature;
      const edge = this.bestEdge;
      this.nodeFeature[node] = f;
      this.nodeThreshold[node] = this.bins.edges[this.bins.edgeStart[f] + edge];
      const mid = this.partition(start, end, f, edge);
      this.childCounts(start, mid, end);
      top = this.push(top, mid, end, depth + 1, node, 1, constants, this.rightCounts);
      top = this.push(top, start, mid, depth + 1, node, 0, constants, this.leftCounts);
    }

    const count = this.nodeCount;
    return {
      feature: this.nodeFeature.slice(0, count),
      threshold: this.nodeThreshold.slice(0, count),
      left: this.nodeLeft.slice(0, count),
      right: this.nodeRight.slice(0, count),
      values: this.leafValues.slice(0, this.valueCount),
      width,
    };
  }

  /** Pushes a node to grow (rows samples[start..end), the buffer of its two-bin counts or -1); answers the new top. */
  private push(top: number, start: number, end: number, depth: number, parent: number, side: number, knownConstants: number, counts: number): number {
    const stack = this.stack;
    stack[top] = start;
    stack[top + 1] = end;
    stack[top + 2] = depth;
    stack[top + 3] = parent;
    stack[top + 4] = side;
    stack[top + 5] = knownConstants;
    stack[top + 6] = counts;
    return top + STACK_ENTRY;
  }

  /**
   * Two-bin counts for the children of a split node whose own counts are known: the smaller
   * child's rows are moved out into a buffer of their own, the node's buffer keeps the larger
   * child's. Sets leftCounts and rightCounts (-1: the child will count for itself).
   */
  private childCounts(start: number, mid: number, end: number): void {
    const own = this.nodeCounts;
    this.leftCounts = -1;
    this.rightCounts = -1;
    if (own < 0) return;
    const leftSmaller = mid - start <= end - mid;
    const from = leftSmaller ? start : mid;
    const to = leftSmaller ? mid : end;
    const smaller =
      this.mode === CLASSIFICATION
        ? this.counts.moveClasses(own, this.samples, from, to, this.weights, this.classOf)
        : this.counts.moveSums(own, this.samples, from, to, this.weights, this.weightedTarget);
    this.leftCounts = leftSmaller ? smaller : own;
    this.rightCounts = leftSmaller ? own : smaller;
  }

  private countNode(start: number, end: number): number {
    return this.mode === CLASSIFICATION
      ? this.counts.countClasses(this.samples, start, end, this.weights, this.classOf)
      : this.counts.countSums(this.samples, start, end, this.weights, this.weightedTarget);
  }

  /** Totals of the node's samples; answers false when the node is pure (nothing to split). */
  private nodeStatistics(start: number, end: number): boolean {
    const samples = this.samples;
    const weights = this.weights;
    if (this.mode === CLASSIFICATION) {
      const totals = this.classTotals;
      const classOf = this.classOf;
      totals.fill(0);
      let total = 0;
      for (let i = start; i < end; i++) {
        const r = samples[i];
        totals[classOf[r]] += weights[r];
        total += weights[r];
      }
      this.nodeWeight = total;
      for (let k = 0; k < totals.length; k++) if (totals[k] === total) return false;
      return true;
    }
    const target = this.target;
    let total = 0;
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let i = start; i < end; i++) {
      const r = samples[i];
      const v = target[r];
      total += weights[r];
      sum += this.weightedTarget[r];
      if (v < min) min = v;
      if (v > max) max = v;
    }
    this.nodeWeight = total;
    this.nodeSum = sum;
    return min < max;
  }

  /**
   * Draws columns as scikit-learn does (see the class comment) and keeps the best split in
   * bestFeature/bestEdge (-1 when no column gives a valid split). Answers how many columns are
   * known to be constant in the node's children.
   */
  private findSplit(start: number, end: number, knownConstants: number, rng: Random): number {
    const order = this.featureOrder;
    const mtry = this.options.mtry;
    this.bestFeature = -1;
    this.bestEdge = -1;
    this.bestProxy = -Infinity;
    let undrawn = this.bins.cols; // order[undrawn..] are drawn, non-constant columns
    let drawnConstants = 0;
    let foundConstants = 0;
    let visited = 0;
    while (undrawn > knownConstants + foundConstants && (visited < mtry || visited <= foundConstants + drawnConstants)) {
      visited++;
      let j = drawnConstants + rng.int(undrawn - foundConstants - drawnConstants);
      if (j < knownConstants) {
        swap(order, drawnConstants, j);
        drawnConstants++;
        continue;
      }
      j += foundConstants;
      const f = order[j];
      let constant: boolean;
      if (this.useSparse && this.counts.sparse.twoBin[f] === 1) {
        if (this.nodeCounts < 0) this.nodeCounts = this.countNode(start, end);
        constant = this.mode === CLASSIFICATION ? this.sparseClassification(f) : this.sparseRegression(f);
      } else {
        constant = this.mode === CLASSIFICATION ? this.scanClassification(f, start, end) : this.scanRegression(f, start, end);
      }
      if (constant) {
        swap(order, knownConstants + foundConstants, j);
        foundConstants++;
        continue;
      }
      undrawn--;
      swap(order, undrawn, j);
    }
    // Restore the known constants at the front (their draws reordered them) and remember the new ones.
    order.set(this.constantFeatures.subarray(0, knownConstants), 0);
    this.constantFeatures.set(order.subarray(knownConstants, knownConstants + foundConstants), knownConstants);
    return knownConstants + foundConstants;
  }

  /** Histogram of column f by class, then every cut between non-empty bins. Answers true when f is constant here. */
  private scanClassification(f: number, start: number, end: number): boolean {
    const K = this.numClasses;
    const hist = this.classHist;
    const samples = this.samples;
    const classOf = this.classOf;
    const weights = this.weights;
    const codes = this.bins.codes;
    const base = f * this.bins.rows;
    let lo = MAX_BINS;
    let hi = -1;
    for (let i = start; i < end; i++) {
      const r = samples[i];
      const b = codes[base + r];
      hist[b * K + classOf[r]] += weights[r];
      if (b < lo) lo = b;
      if (b > hi) hi = b;
    }
    if (lo === hi) {
      for (let k = 0; k < K; k++) hist[lo * K + k] = 0;
      return true;
    }
    const left = this.classLeft;
    left.fill(0);
    const total = this.nodeWeight;
    const minLeaf = this.options.minSamplesLeaf;
    let leftWeight = 0;
    let previous = -1;
    for (let b = lo; b <= hi; b++) {
      const o = b * K;
      let binWeight = 0;
      for (let k = 0; k < K; k++) binWeight += hist[o + k];
      if (binWeight === 0) continue;
      if (previous >= 0 && leftWeight >= minLeaf && total - leftWeight >= minLeaf) this.considerClassSplit(f, (previous + b - 1) >> 1, leftWeight);
      for (let k = 0; k < K; k++) {
        left[k] += hist[o + k];
        hist[o + k] = 0;
      }
      leftWeight += binWeight;
      previous = b;
    }
    return false;
  }

  /** Keeps the split of column f at `edge` when its Gini decrease is the best so far; classLeft holds the left class weights. */
  private considerClassSplit(f: number, edge: number, leftWeight: number): void {
    const left = this.classLeft;
    const totals = this.classTotals;
    let leftSquares = 0;
    let rightSquares = 0;
    for (let k = 0; k < left.length; k++) {
      const l = left[k];
      const r = totals[k] - l;
      leftSquares += l * l;
      rightSquares += r * r;
    }
    // Gini decrease is maximal where sum_k(l_k^2)/L + sum_k(r_k^2)/R is.
    const proxy = leftSquares / leftWeight + rightSquares / (this.nodeWeight - leftWeight);
    if (proxy > this.bestProxy) {
      this.bestProxy = proxy;
      this.bestFeature = f;
      this.bestEdge = edge;
    }
  }

  /** Keeps the split of column f at `edge` when its variance reduction is the best so far. */
  private considerRegressionSplit(f: number, edge: number, leftWeight: number, leftSum: number): void {
    const rightSum = this.nodeSum - leftSum;
    // Variance reduction is maximal where S_L^2/W_L + S_R^2/W_R is.
    const proxy = (leftSum * leftSum) / leftWeight + (rightSum * rightSum) / (this.nodeWeight - leftWeight);
    if (proxy > this.bestProxy) {
      this.bestProxy = proxy;
      this.bestFeature = f;
      this.bestEdge = edge;
    }
  }

  /** The split of two-bin column f from the sparse counts. Answers true when f is constant here. */
  private sparseClassification(f: number): boolean {
    const K = this.numClasses;
    const counts = this.counts.classCounts(this.nodeCounts);
    const o = f * K;
    let listedWeight = 0;
    for (let k = 0; k < K; k++) listedWeight += counts[o + k];
    const total = this.nodeWeight;
    if (listedWeight === 0 || listedWeight === total) return true;
    const left = this.classLeft; // bin 0
    const listedLeft = this.counts.sparse.listedCode[f] === 0;
    for (let k = 0; k < K; k++) left[k] = listedLeft ? counts[o + k] : this.classTotals[k] - counts[o + k];
    const leftWeight = listedLeft ? listedWeight : total - listedWeight;
    const minLeaf = this.options.minSamplesLeaf;
    if (leftWeight >= minLeaf && total - leftWeight >= minLeaf) this.considerClassSplit(f, 0, leftWeight);
    return false;
  }

  /** The split of two-bin column f from the sparse sums. Answers true when f is constant here. */
  private sparseRegression(f: number): boolean {
    const sums = this.counts.sums(this.nodeCounts);
    const listedWeight = sums[2 * f];
    const listedSum = sums[2 * f + 1];
    const total = this.nodeWeight;
    if (listedWeight === 0 || listedWeight === total) return true;
    const listedLeft = this.counts.sparse.listedCode[f] === 0;
    const leftWeight = listedLeft ? listedWeight : total - listedWeight;
    const leftSum = listedLeft ? listedSum : this.nodeSum - listedSum;
    const minLeaf = this.options.minSamplesLeaf;
    if (leftWeight >= minLeaf && total - leftWeight >= minLeaf) this.considerRegressionSplit(f, 0, leftWeight, leftSum);
    return false;
  }

  /** Histogram of column f by weight and weighted target, then every cut. Answers true when f is constant here. */
  private scanRegression(f: number, start: number, end: number): boolean {
    const binWeight = this.binWeight;
    const binSum = this.binSum;
    const samples = this.samples;
    const weights = this.weights;
    const weightedTarget = this.weightedTarget;
    const codes = this.bins.codes;
    const base = f * this.bins.rows;
    let lo = MAX_BINS;
    let hi = -1;
    for (let i = start; i < end; i++) {
      const r = samples[i];
      const b = codes[base + r];
      binWeight[b] += weights[r];
      binSum[b] += weightedTarget[r];
      if (b < lo) lo = b;
      if (b > hi) hi = b;
    }
    if (lo === hi) {
      binWeight[lo] = 0;
      binSum[lo] = 0;
      return true;
    }
    const total = this.nodeWeight;
    const minLeaf = this.options.minSamplesLeaf;
    let leftWeight = 0;
    let leftSum = 0;
    let previous = -1;
    for (let b = lo; b <= hi; b++) {
      const w = binWeight[b];
      if (w === 0) continue;
      if (previous >= 0 && leftWeight >= minLeaf && total - leftWeight >= minLeaf) this.considerRegressionSplit(f, (previous + b - 1) >> 1, leftWeight, leftSum);
      leftWeight += w;
      leftSum += binSum[b];
      binWeight[b] = 0;
      binSum[b] = 0;
      previous = b;
    }
    return false;
  }

  /** Stable partition of samples[start..end) on codes <= edge; answers where the right part starts. */
  private partition(start: number, end: number, f: number, edge: number): number {
    const samples = this.samples;
    const scratch = this.scratch;
    const codes = this.bins.codes;
    const base = f * this.bins.rows;
    let l = start;
    let r = 0;
    for (let i = start; i < end; i++) {
      const s = samples[i];
      if (codes[base + s] <= edge) samples[l++] = s;
      else scratch[r++] = s;
    }
    samples.set(scratch.subarray(0, r), l);
    return l;
  }

  private makeLeaf(node: number, start: number, end: number, leafOfRow: Int32Array | undefined): void {
    const offset = this.valueCount;
    this.nodeFeature[node] = -1;
    this.nodeThreshold[node] = 0;
    this.nodeLeft[node] = offset;
    this.nodeRight[node] = -1;
    const total = this.nodeWeight;
    if (this.mode === CLASSIFICATION) {
      for (let k = 0; k < this.numClasses; k++) this.leafValues[offset + k] = this.classTotals[k] / total;
      this.valueCount += this.numClasses;
    } else {
      this.leafValues[offset] = this.nodeSum / total;
      this.valueCount += 1;
    }
    if (leafOfRow) for (let i = start; i < end; i++) leafOfRow[this.samples[i]] = offset;
  }
}

function swap(a: Int32Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}

/** A well-mixed 32-bit seed for tree `index` of a forest seeded with `seed`. */
export function treeSeed(seed: number, index: number): number {
  let h = Math.imul((seed | 0) ^ 0x85ebca6b, 0xc2b2ae35) ^ Math.imul(index + 1, 0x27d4eb2f);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  h = Math.imul(h, 0x297a2d39);
  h ^= h >>> 15;
  return h >>> 0;
}

/** The offset in tree.values of the leaf that row `r` of `x` falls in. */
export function leafOffset(tree: Tree, x: Matrix, r: number): number {
  const { feature, threshold, left, right } = tree;
  const data = x.data;
  const base = r * x.cols;
  let node = 0;
  let f = feature[0];
  while (f >= 0) {
    node = data[base + f] <= threshold[node] ? left[node] : right[node];
    f = feature[node];
  }
  return left[node];
}

/**
 * The offset in tree.values of the leaf that row `r` of the training matrix falls in, from its
 * bins: a row goes left when the upper edge of its bin is <= the threshold (thresholds are edges).
 */
export function binnedLeafOffset(tree: Tree, bins: BinnedMatrix, r: number): number {
  const { feature, threshold, left, right } = tree;
  const { codes, edges, edgeStart, rows } = bins;
  let node = 0;
  let f = feature[0];
  while (f >= 0) {
    const edge = edgeStart[f] + codes[f * rows + r];
    const upper = edge < edgeStart[f + 1] ? edges[edge] : Infinity;
    node = upper <= threshold[node] ? left[node] : right[node];
    f = feature[node];
  }
  return left[node];
}

/**
 * A tree as JSON, compactly: nodes in preorder (a node's left child follows it, so children are
 * implied by which nodes are leaves), each typed array as base64 of its little-endian bytes.
 */
export interface EncodedTree {
  /** Per node: the split column, or -1 for a leaf (Int8, Int16 or Int32: the narrowest that holds every column). */
  feature: string;
  /** Absent in trees stored before 2026-11-26: 32. */
  featureBits?: 8 | 16 | 32;
  /** Per internal node, in order: the threshold, Float32 when every one is exactly a float32, else Float64. */
  threshold: string;
  thresholdBits: 32 | 64;
  /** Leaf outputs, `width` per leaf in preorder (Float32 or Float64). */
  values: string;
  valueBits: 32 | 64;
  width: number;
}

/**
 * Encodes a tree grown by TreeBuilder (whose nodes are numbered in preorder). `float32Values`
 * stores leaf outputs as float32 (enough for class probabilities).
 */
export function encodeTree(tree: Tree, float32Values = false): EncodedTree {
  const n = tree.feature.length;
  const thresholds: number[] = [];
  for (let i = 0; i < n; i++) {
    if (tree.feature[i] < 0) continue;
    if (tree.left[i] !== i + 1) throw new Error('tree nodes are not in preorder');
    thresholds.push(tree.threshold[i]);
  }
  const exact32 = thresholds.every((t) => Math.fround(t) === t);
  let widest = 0;
  for (let i = 0; i < n; i++) widest = Math.max(widest, tree.feature[i]);
  const featureBits = widest < 2 ** 7 ? 8 : widest < 2 ** 15 ? 16 : 32;
  return {
    feature: toBase64(featureBits === 8 ? Int8Array.from(tree.feature) : featureBits === 16 ? Int16Array.from(tree.feature) : tree.feature),
    featureBits,
    threshold: toBase64(exact32 ? Float32Array.from(thresholds) : Float64Array.from(thresholds)),
    thresholdBits: exact32 ? 32 : 64,
    values: toBase64(float32Values ? Float32Array.from(tree.values) : tree.values),
    valueBits: float32Values ? 32 : 64,
    width: tree.width,
  };
}

/** The tree of an encoding, with its child links rebuilt from the preorder. */
export function decodeTree(encoded: EncodedTree): Tree {
  const bytes = fromBase64(encoded.feature);
  const feature = encoded.featureBits === 8 ? Int32Array.from(new Int8Array(bytes)) : encoded.featureBits === 16 ? Int32Array.from(new Int16Array(bytes)) : new Int32Array(bytes);
  const thresholds = encoded.thresholdBits === 32 ? new Float32Array(fromBase64(encoded.threshold)) : new Float64Array(fromBase64(encoded.threshold));
  const values = encoded.valueBits === 32 ? Float64Array.from(new Float32Array(fromBase64(encoded.values))) : new Float64Array(fromBase64(encoded.values));
  const n = feature.length;
  const threshold = new Float64Array(n);
  const left = new Int32Array(n);
  const right = new Int32Array(n).fill(-1);
  // Preorder: after an internal node comes its left child; after a leaf comes the right child
  // of the deepest internal node still waiting for one.
  const waiting: number[] = [];
  let internal = 0;
  let leafOffset = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0) {
      if (feature[i - 1] >= 0) left[i - 1] = i;
      else {
        const parent = waiting.pop();
        if (parent === undefined) throw new Error('malformed tree');
        right[parent] = i;
      }
    }
    if (feature[i] >= 0) {
      threshold[i] = thresholds[internal++];
      waiting.push(i);
    } else {
      left[i] = leafOffset;
      leafOffset += encoded.width;
    }
  }
  if (waiting.length > 0 || internal !== thresholds.length || leafOffset !== values.length) throw new Error('malformed tree');
  return { feature, threshold, left, right, values, width: encoded.width };
}
