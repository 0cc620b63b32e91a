/**
 * Shared helpers of the learners in this folder: column statistics, standardisation, dropping
 * constant columns, and compact JSON encodings of numeric arrays (base64 of typed arrays, and
 * bit-packed 0/1 columns) for model states.
 */
import type { Matrix, TrainingData } from './learner.ts';

/** Relative variance below which a column counts as constant. */
const CONSTANT_EPS = 1e-12;

export interface ColumnStats {
  mean: Float64Array;
  /** Sample standard deviation (n - 1). */
  sd: Float64Array;
}

export function columnStats(x: Matrix): ColumnStats {
  const { rows, cols, data } = x;
  const mean = new Float64Array(cols);
  const sd = new Float64Array(cols);
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    for (let c = 0; c < cols; c++) mean[c] += data[o + c];
  }
  for (let c = 0; c < cols; c++) mean[c] /= Math.max(1, rows);
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    for (let c = 0; c < cols; c++) {
      const d = data[o + c] - mean[c];
      sd[c] += d * d;
    }
  }
  for (let c = 0; c < cols; c++) sd[c] = Math.sqrt(sd[c] / Math.max(1, rows - 1));
  return { mean, sd };
}

/** Indices of the columns whose values vary (relative to their magnitude). */
export function varyingColumns(x: Matrix, stats = columnStats(x)): number[] {
  const keep: number[] = [];
  for (let c = 0; c < x.cols; c++) {
    const scale = Math.max(1, Math.abs(stats.mean[c]));
    if (stats.sd[c] > CONSTANT_EPS * scale) keep.push(c);
  }
  return keep;
}

/** The chosen columns of x as a new matrix. */
export function selectColumns(x: Matrix, columns: readonly number[]): Matrix {
  const out = new Float64Array(x.rows * columns.length);
  for (let r = 0; r < x.rows; r++) {
    const o = r * x.cols;
    const p = r * columns.length;
    for (let j = 0; j < columns.length; j++) out[p + j] = x.data[o + columns[j]];
  }
  return { rows: x.rows, cols: columns.length, data: out };
}

/**
 * A standardiser over a chosen subset of the input columns: z_j = (x[columns[j]] - mean_j) / sd_j.
 * Columns with zero spread are never chosen, so sd_j > 0. JSON-serialisable as it is.
 */
export interface Scaler {
  columns: number[];
  mean: number[];
  sd: number[];
}

/** A scaler over the varying columns of x (all of them when `columns` is given). */
export function fitScaler(x: Matrix, columns?: number[], scale = true): Scaler {
  const stats = columnStats(x);
  const keep = columns ?? varyingColumns(x, stats);
  return {
    columns: keep,
    mean: keep.map((c) => stats.mean[c]),
    sd: keep.map((c) => (scale && stats.sd[c] > 0 ? stats.sd[c] : 1)),
  };
}

/** Standardised rows of x over the scaler's columns (row-major, rows × columns.length). */
export function applyScaler(s: Scaler, x: Matrix): Matrix {
  const p = s.columns.length;
  const out = new Float64Array(x.rows * p);
  for (let r = 0; r < x.rows; r++) {
    const o = r * x.cols;
    const q = r * p;
    for (let j = 0; j < p; j++) out[q + j] = (x.data[o + s.columns[j]] - s.mean[j]) / s.sd[j];
  }
  return { rows: x.rows, cols: p, data: out };
}

/**
 * A linear model on standardised columns, value = intercept + Σⱼ beta[j] · zⱼ, as intercept and
 * coefficients of all `cols` unscaled input columns (0 for the columns the scaler dropped).
 */
export function unscaledLinearForm(s: Scaler, beta: ArrayLike<number>, intercept: number, cols: number): { intercept: number; coefficients: number[] } {
  const coefficients = new Array<number>(cols).fill(0);
  let b0 = intercept;
  s.columns.forEach((c, j) => {
    coefficients[c] = beta[j] / s.sd[j];
    b0 -= (beta[j] * s.mean[j]) / s.sd[j];
  });
  return { intercept: b0, coefficients };
}

/** Rows of a matrix as arrays (what the ml.js libraries take). */
export function toRows(x: Matrix): number[][] {
  const rows: number[][] = new Array(x.rows);
  for (let r = 0; r < x.rows; r++) rows[r] = Array.from(x.data.subarray(r * x.cols, (r + 1) * x.cols));
  return rows;
}

export function mean(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i];
  return values.length ? s / values.length : 0;
}

export function sampleSd(values: ArrayLike<number>): number {
  const m = mean(values);
  let s = 0;
  for (let i = 0; i < values.length; i++) s += (values[i] - m) ** 2;
  return Math.sqrt(s / Math.max(1, values.length - 1));
}

export function clamp01(v: number): number {
  return Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0;
}

/**
 * The spread-based confidence of a regression prediction shared by MLR, PLS and SVR:
 * 1 - se / sdY, clamped to [0, 1], where se is the standard error of the prediction and sdY the
 * standard deviation of the training target. It is the part of the target's spread that the
 * model's uncertainty leaves: 0 when the prediction is no better than guessing the mean, near 1
 * for a precise prediction inside the training domain.
 */
export function spreadConfidence(se: number, sdY: number): number {
  if (!(sdY > 0)) return 0;
  return clamp01(1 - se / sdY);
}

/** The number of classes of a classification data set (at least the largest index + 1). */
export function classCount(data: TrainingData): number {
  let k = data.classes.length;
  for (const v of data.y) k = Math.max(k, v + 1);
  return k;
}

/** Normalises non-negative scores to probabilities (uniform when they are all zero). */
export function normalise(scores: number[]): number[] {
  let s = 0;
  for (const v of scores) s += v;
  if (!(s > 0) || !Number.isFinite(s)) return scores.map(() => 1 / scores.length);
  return scores.map((v) => v / s);
}

/** Probabilities from log-scores (log-sum-exp). */
export function softmax(logs: number[]): number[] {
  let m = -Infinity;
  for (const v of logs) if (v > m) m = v;
  if (!Number.isFinite(m)) return logs.map(() => 1 / logs.length);
  const e = logs.map((v) => Math.exp(v - m));
  return normalise(e);
}

export function argmax(values: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

// ---- Compact encodings for states ---------------------------------------------------------

/** A typed array as base64 of its (little-endian) bytes. */
export function toBase64(a: Int8Array | Int16Array | Int32Array | Uint32Array | Float32Array | Float64Array): string {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
}

/** The decoded bytes in a fresh (hence aligned) ArrayBuffer. */
export function fromBase64(s: string): ArrayBuffer {
  const bytes = Buffer.from(s, 'base64');
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy.buffer;
}

export function encodeF64(a: ArrayLike<number>): string {
  return toBase64(a instanceof Float64Array ? a : Float64Array.from(a));
}

export function decodeF64(s: string): Float64Array {
  return new Float64Array(fromBase64(s));
}

export function encodeF32(a: ArrayLike<number>): string {
  return toBase64(a instanceof Float32Array ? a : Float32Array.from(a));
}

export function decodeF32(s: string): Float32Array {
  return new Float32Array(fromBase64(s));
}

/** Words (32 bits) per row of `bits` bits. */
export function wordsPerRow(bits: number): number {
  return Math.ceil(bits / 32);
}

/** Packs rows of 0/1 values (nonzero counts as 1) into 32-bit words, row after row. */
export function packBits(values: ArrayLike<number>, rows: number, cols: number): Uint32Array {
  const w = wordsPerRow(cols);
  const out = new Uint32Array(rows * w);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (values[r * cols + c] !== 0) out[r * w + (c >>> 5)] |= 1 << (c & 31);
    }
  }
  return out;
}

export function encodeU32(a: Uint32Array): string {
  return toBase64(a);
}

export function decodeU32(s: string): Uint32Array {
  return new Uint32Array(fromBase64(s));
}

export function popcount(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * A cache of values decoded from a state object (keyed by the object itself): `predict` stays a
 * pure function of the state while repeated calls on one state skip the decoding.
 */
export function decodedCache<S extends object, D>(decode: (state: S) => D): (state: S) => D {
  const cache = new WeakMap<S, D>();
  return (state) => {
    let d = cache.get(state);
    if (d === undefined) {
      d = decode(state);
      cache.set(state, d);
    }
    return d;
  };
}
