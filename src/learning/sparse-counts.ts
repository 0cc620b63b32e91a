/**
 * Split statistics of every two-bin column (fingerprint bit) of a node at once, for the
 * histogram trees. Each row lists the two-bin columns in which it has the column's rarer code;
 * going through a node's rows' lists gives, per column, the class weights (or the weight and
 * target sum) of the rows with that code: short contiguous reads instead of one scattered byte
 * per row and column. Statistics live in pooled buffers; when a node splits, the smaller child's
 * rows are moved out of the node's buffer, which then holds the larger child's ("histogram
 * subtraction" at the cost of the smaller child only).
 */
import type { BinnedMatrix } from './binning.ts';

/** The two-bin columns of a binned matrix as per-row lists of their rarer code. */
export interface SparseColumns {
  /** 1 for a column with exactly two bins. */
  twoBin: Uint8Array;
  /** The code (0 or 1) a two-bin column lists: its rarer one. */
  listedCode: Uint8Array;
  /** Row r lists columns[rowStart[r] .. rowStart[r + 1]). */
  rowStart: Int32Array;
  columns: Int32Array;
  twoBinCount: number;
}

export function sparseColumns(bins: BinnedMatrix): SparseColumns {
  const { rows, cols, codes, edgeStart } = bins;
  const twoBin = new Uint8Array(cols);
  const listedCode = new Uint8Array(cols);
  const perRow = new Int32Array(rows);
  let twoBinCount = 0;
  for (let c = 0; c < cols; c++) {
    if (edgeStart[c + 1] - edgeStart[c] !== 1) continue;
    twoBin[c] = 1;
    twoBinCount++;
    const base = c * rows;
    let ones = 0;
    for (let r = 0; r < rows; r++) ones += codes[base + r];
    const listed = 2 * ones <= rows ? 1 : 0;
    listedCode[c] = listed;
    if (listed === 1) for (let r = 0; r < rows; r++) perRow[r] += codes[base + r];
    else for (let r = 0; r < rows; r++) perRow[r] += 1 - codes[base + r];
  }
  const rowStart = new Int32Array(rows + 1);
  for (let r = 0; r < rows; r++) rowStart[r + 1] = rowStart[r] + perRow[r];
  const columns = new Int32Array(rowStart[rows]);
  const fill = rowStart.slice(0, rows);
  for (let c = 0; c < cols; c++) {
    if (!twoBin[c]) continue;
    const base = c * rows;
    const listed = listedCode[c];
    for (let r = 0; r < rows; r++) if (codes[base + r] === listed) columns[fill[r]++] = c;
  }
  return { twoBin, listedCode, rowStart, columns, twoBinCount };
}

/**
 * Pooled per-column statistics over sets of rows. Classification buffers hold, per column c,
 * the weight of each class k at c * numClasses + k; regression buffers hold the weight at 2c and
 * the weighted target sum at 2c + 1. A buffer is zero when acquired and zeroed when released.
 */
export class SparseCounts {
  readonly sparse: SparseColumns;
  private readonly cols: number;
  private classification = true;
  private numClasses = 0;
  private classBuffers: Int32Array[] = [];
  private sumBuffers: Float64Array[] = [];
  /** Per buffer: list entries counted into it, a bound on its non-zero columns. */
  private touched: number[] = [];
  private free: number[] = [];

  constructor(bins: BinnedMatrix) {
    this.sparse = sparseColumns(bins);
    this.cols = bins.cols;
  }

  /** Mean listed entries per row. */
  get listedPerRow(): number {
    return this.sparse.columns.length / Math.max(1, this.sparse.rowStart.length - 1);
  }

  /** Size of one buffer. */
  get bufferSize(): number {
    return this.cols * (this.classification ? this.numClasses : 2);
  }

  /** Starts a tree: every buffer free (and zero). */
  begin(classification: boolean, numClasses: number): void {
    if (classification !== this.classification || numClasses !== this.numClasses) {
      this.classBuffers = [];
      this.sumBuffers = [];
      this.touched = [];
      this.classification = classification;
      this.numClasses = numClasses;
    }
    const count = this.classification ? this.classBuffers.length : this.sumBuffers.length;
    if (this.free.length !== count) {
      // A tree was abandoned half grown: zero everything.
      for (const b of this.classBuffers) b.fill(0);
      for (const b of this.sumBuffers) b.fill(0);
    }
    this.free = Array.from({ length: count }, (_, i) => i);
  }

  classCounts(id: number): Int32Array {
    return this.classBuffers[id];
  }

  sums(id: number): Float64Array {
    return this.sumBuffers[id];
  }

  touchedBy(id: number): number {
    return this.touched[id];
  }

  private acquire(): number {
    const id = this.free.pop();
    if (id !== undefined) return id;
    if (this.classification) this.classBuffers.push(new Int32Array(this.cols * this.numClasses));
    else this.sumBuffers.push(new Float64Array(this.cols * 2));
    this.touched.push(0);
    return this.touched.length - 1;
  }

  /** Class weights of samples[start..end) per listed column, in a new buffer. */
  countClasses(samples: Int32Array, start: number, end: number, weights: Int32Array, classOf: Int32Array): number {
    const id = this.acquire();
    const counts = this.classBuffers[id];
    const K = this.numClasses;
    const { rowStart, columns } = this.sparse;
    let touched = 0;
    for (let i = start; i < end; i++) {
      const r = samples[i];
      const w = weights[r];
      const k = classOf[r];
      const to = rowStart[r + 1];
      for (let j = rowStart[r]; j < to; j++) counts[columns[j] * K + k] += w;
      touched += to - rowStart[r];
    }
    this.touched[id] = touched;
    return id;
  }

  /** Weight and weighted target sum of samples[start..end) per listed column, in a new buffer. */
  countSums(samples: Int32Array, start: number, end: number, weights: Int32Array, weightedTarget: Float64Array): number {
    const id = this.acquire();
    const sums = this.sumBuffers[id];
    const { rowStart, columns } = this.sparse;
    let touched = 0;
    for (let i = start; i < end; i++) {
      const r = samples[i];
      const w = weights[r];
      const wy = weightedTarget[r];
      const to = rowStart[r + 1];
      for (let j = rowStart[r]; j < to; j++) {
        const o = columns[j] << 1;
        sums[o] += w;
        sums[o + 1] += wy;
      }
      touched += to - rowStart[r];
    }
    this.touched[id] = touched;
    return id;
  }

  /**
   * Moves the counts of samples[start..end) (a child's rows) out of buffer `parent` into a new
   * buffer, which it answers: `parent` is left holding the other child's counts. Costs one pass
   * over the moved rows' lists, however many columns there are.
   */
  moveClasses(parent: number, samples: Int32Array, start: number, end: number, weights: Int32Array, classOf: Int32Array): number {
    const id = this.acquire();
    const from = this.classBuffers[parent];
    const to = this.classBuffers[id];
    const K = this.numClasses;
    const { rowStart, columns } = this.sparse;
    let touched = 0;
    for (let i = start; i < end; i++) {
      const r = samples[i];
      const w = weights[r];
      const k = classOf[r];
      const last = rowStart[r + 1];
      for (let j = rowStart[r]; j < last; j++) {
        const o = columns[j] * K + k;
        to[o] += w;
        from[o] -= w;
      }
      touched += last - rowStart[r];
    }
    this.touched[id] = touched;
    this.touched[parent] -= touched;
    return id;
  }

  /** As moveClasses, for weights and weighted target sums. */
  moveSums(parent: number, samples: Int32Array, start: number, end: number, weights: Int32Array, weightedTarget: Float64Array): number {
    const id = this.acquire();
    const from = this.sumBuffers[parent];
    const to = this.sumBuffers[id];
    const { rowStart, columns } = this.sparse;
    let touched = 0;
    for (let i = start; i < end; i++) {
      const r = samples[i];
      const w = weights[r];
      const wy = weightedTarget[r];
      const last = rowStart[r + 1];
      for (let j = rowStart[r]; j < last; j++) {
        const o = columns[j] << 1;
        to[o] += w;
        to[o + 1] += wy;
        from[o] -= w;
        // Weights are integers, so exact; where none is left, so is no sum (not a rounding residue).
        from[o + 1] = from[o] === 0 ? 0 : from[o + 1] - wy;
      }
      touched += last - rowStart[r];
    }
    this.touched[id] = touched;
    this.touched[parent] -= touched;
    return id;
  }

  /** Zeroes and frees a buffer holding the counts of samples[start..end). */
  release(id: number, samples: Int32Array, start: number, end: number): void {
    const size = this.bufferSize;
    if (this.touched[id] * 8 > size) {
      if (this.classification) this.classBuffers[id].fill(0);
      else this.sumBuffers[id].fill(0);
    } else {
      const { rowStart, columns } = this.sparse;
      const width = this.classification ? this.numClasses : 2;
      const buffer = this.classification ? this.classBuffers[id] : this.sumBuffers[id];
      for (let i = start; i < end; i++) {
        const r = samples[i];
        for (let j = rowStart[r]; j < rowStart[r + 1]; j++) {
          const o = columns[j] * width;
          for (let k = 0; k < width; k++) buffer[o + k] = 0;
        }
      }
    }
    this.touched[id] = 0;
    this.free.push(id);
  }
}
