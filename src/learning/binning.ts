/**
 * Quantisation of a training matrix for histogram trees: every column becomes at most 256 bins
 * (one byte per value), with bin edges in the original units so that trees split on them
 * directly. Binary columns take one linear pass; numeric columns are sorted. The learners bin
 * in the worker that grows their trees (random-forest.ts, gradient-boosting.ts), in the same call.
 */
import type { Matrix } from './learner.ts';
import { isSparseRows, type SparseRows } from './sparse-matrix.ts';

/** The most bins a column is quantised into (codes are bytes). */
export const MAX_BINS = 256;

/** A training matrix quantised column by column. */
export interface BinnedMatrix {
  rows: number;
  cols: number;
  /** Column-major bin codes: the bin of row r in column c is codes[c * rows + r]. */
  codes: Uint8Array;
  /**
   * Bin edges of every column, concatenated: column c owns edges[edgeStart[c] .. edgeStart[c + 1]).
   * A value v falls in bin b when edges[b - 1] < v <= edges[b] (the last bin is unbounded above).
   */
  edges: Float64Array;
  edgeStart: Int32Array;
}

/** Binary columns already coded, numeric columns still to bin. */
export interface BinningInput {
  rows: number;
  cols: number;
  binary: boolean[];
  /** Column-major codes, filled in for the binary columns (in shared memory: workers read it without a copy). */
  codes: Uint8Array;
  /** The numeric columns' indices, and their values column by column. */
  numericColumns: Int32Array;
  numericValues: Float64Array;
}

/** The numeric columns binned: codes and edges, column after column. */
export interface NumericBins {
  codes: Uint8Array;
  edges: Float64Array;
  edgeCounts: Int32Array;
}

/** Rows per block when transposing, so that a block's rows stay in cache across columns. */
const BLOCK = 64;

/** The linear part of binning: codes of the binary columns (1 when > 0.5), numeric values column-major. */
export function prepareBinning(x: Matrix, binary: boolean[]): BinningInput {
  const sparse = (x as { sparse?: unknown }).sparse;
  if (isSparseRows(sparse) && sparse.rows === x.rows && sparse.cols === x.cols) {
    const input = prepareSparseBinning(sparse, binary);
    if (input) return input;
  }
  const { rows, cols, data } = x;
  const codes = new Uint8Array(new SharedArrayBuffer(rows * cols));
  const numeric: number[] = [];
  for (let c = 0; c < cols; c++) if (!binary[c]) numeric.push(c);
  const numericColumns = Int32Array.from(numeric);
  const numericValues = new Float64Array(numeric.length * rows);
  for (let r0 = 0; r0 < rows; r0 += BLOCK) {
    const r1 = Math.min(rows, r0 + BLOCK);
    let n = 0;
    for (let c = 0; c < cols; c++) {
      if (binary[c]) {
        const base = c * rows;
        for (let r = r0; r < r1; r++) codes[base + r] = data[r * cols + c] > 0.5 ? 1 : 0;
      } else {
        const base = n++ * rows;
        for (let r = r0; r < r1; r++) {
          const v = data[r * cols + c];
          if (!Number.isFinite(v)) throw new Error(`column ${c}, row ${r}: ${v} (values must be finite; impute missing values first)`);
          numericValues[base + r] = v;
        }
      }
    }
  }
  return { rows, cols, binary, codes, numericColumns, numericValues };
}

/**
 * prepareBinning of a matrix that travels as its sparse rows (fingerprints), from its non-zero
 * cells: the same codes and values as from its dense data (a cell not listed is 0; a cell listed
 * twice is its last value, as in denseMatrix), without making the dense matrix (tens of
 * megabytes for thousands of rows of 1024 bits, made again by every chunk lane of every forest).
 * Undefined when a numeric cell is not finite: the dense pass then reports it, naming the same cell.
 */
function prepareSparseBinning(sparse: SparseRows, binary: boolean[]): BinningInput | undefined {
  const { rows, cols, offsets, columns, values } = sparse;
  const codes = new Uint8Array(new SharedArrayBuffer(rows * cols));
  const numeric: number[] = [];
  const numericIndex = new Int32Array(cols);
  for (let c = 0; c < cols; c++) {
    numericIndex[c] = binary[c] ? -1 : numeric.length;
    if (!binary[c]) numeric.push(c);
  }
  const numericColumns = Int32Array.from(numeric);
  const numericValues = new Float64Array(numeric.length * rows);
  for (let r = 0; r < rows; r++) {
    for (let k = offsets[r]; k < offsets[r + 1]; k++) {
      const c = columns[k];
      const v = values[k];
      const n = numericIndex[c];
      if (n < 0) codes[c * rows + r] = v > 0.5 ? 1 : 0;
      else if (Number.isFinite(v)) numericValues[n * rows + r] = v;
      else return undefined;
    }
  }
  return { rows, cols, binary, codes, numericColumns, numericValues };
}

/**
 * Bins numeric columns given column after column (`rows` values each). A column with at most
 * MAX_BINS distinct values gets one bin per value; one with more gets edges at its quantiles.
 * Edges are midpoints between neighbouring distinct training values.
 */
export function binNumericColumns(values: Float64Array, rows: number): NumericBins {
  const count = rows === 0 ? 0 : values.length / rows;
  const codes = new Uint8Array(values.length);
  const edgeCounts = new Int32Array(count);
  const allEdges: Float64Array[] = [];
  for (let c = 0; c < count; c++) {
    const column = values.subarray(c * rows, (c + 1) * rows);
    const edges = quantileEdges(column);
    allEdges.push(edges);
    edgeCounts[c] = edges.length;
    const out = codes.subarray(c * rows, (c + 1) * rows);
    for (let r = 0; r < rows; r++) out[r] = binOf(edges, column[r]);
  }
  const edges = new Float64Array(edgeCounts.reduce((a, b) => a + b, 0));
  let offset = 0;
  for (const e of allEdges) {
    edges.set(e, offset);
    offset += e.length;
  }
  return { codes, edges, edgeCounts };
}

/** The binned matrix from the prepared binary codes and the binned numeric columns. */
export function assembleBins(input: BinningInput, numeric: NumericBins): BinnedMatrix {
  const { rows, cols, binary, codes, numericColumns } = input;
  const edgeStart = new Int32Array(cols + 1);
  let n = 0;
  for (let c = 0; c < cols; c++) edgeStart[c + 1] = edgeStart[c] + (binary[c] ? 1 : numeric.edgeCounts[n++]);
  const edges = new Float64Array(edgeStart[cols]);
  let numericEdge = 0;
  n = 0;
  for (let c = 0; c < cols; c++) {
    if (binary[c]) {
      edges[edgeStart[c]] = 0.5;
      continue;
    }
    const k = numeric.edgeCounts[n];
    edges.set(numeric.edges.subarray(numericEdge, numericEdge + k), edgeStart[c]);
    codes.set(numeric.codes.subarray(n * rows, (n + 1) * rows), numericColumns[n] * rows);
    numericEdge += k;
    n++;
  }
  return { rows, cols, codes, edges, edgeStart };
}

/** binMatrix, and how long it took (a worker reports it as the learner's binning phase). */
export function binMatrixTimed(x: Matrix, binary: boolean[]): { bins: BinnedMatrix; binningMs: number } {
  const started = performance.now();
  const bins = binMatrix(x, binary);
  return { bins, binningMs: performance.now() - started };
}

/** Quantise every column of `x` in this thread. */
export function binMatrix(x: Matrix, binary: boolean[]): BinnedMatrix {
  const input = prepareBinning(x, binary);
  return assembleBins(input, binNumericColumns(input.numericValues, x.rows));
}

/** The bin of `v`: the first b with v <= edges[b], or edges.length. */
function binOf(edges: Float64Array, v: number): number {
  let lo = 0;
  let hi = edges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (v <= edges[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** At most MAX_BINS - 1 edges splitting the values of a column into bins of similar counts. */
function quantileEdges(column: Float64Array): Float64Array {
  const sorted = Float64Array.from(column).sort();
  const n = sorted.length;
  const distinct: number[] = [];
  const upTo: number[] = []; // how many values are <= distinct[i]
  for (let i = 0; i < n; i++) {
    if (i + 1 === n || sorted[i + 1] !== sorted[i]) {
      distinct.push(sorted[i]);
      upTo.push(i + 1);
    }
  }
  const edges: number[] = [];
  const midpoint = (i: number) => distinct[i] / 2 + distinct[i + 1] / 2;
  if (distinct.length <= MAX_BINS) {
    for (let i = 0; i + 1 < distinct.length; i++) edges.push(midpoint(i));
  } else {
    const perBin = n / MAX_BINS;
    for (let i = 0; i + 1 < distinct.length; i++) {
      if (upTo[i] >= (edges.length + 1) * perBin) edges.push(midpoint(i));
    }
  }
  return Float64Array.from(edges);
}
