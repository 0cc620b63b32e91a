import type { Matrix } from './learner.ts';

/**
 * A matrix by its non-zero cells (compressed sparse rows): the cells of row r are
 * `columns[offsets[r] .. offsets[r + 1])` with their `values`. A few hundred kilobytes where the
 * dense matrix of thousands of fingerprints is tens of megabytes.
 */
export interface SparseRows {
  rows: number;
  cols: number;
  offsets: Int32Array;
  columns: Int32Array;
  values: Float64Array;
}

/** The dense matrix of sparse rows. */
export function denseMatrix(sparse: SparseRows): Matrix {
  const { rows, cols, offsets, columns, values } = sparse;
  const data = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const base = r * cols;
    for (let k = offsets[r]; k < offsets[r + 1]; k++) data[base + columns[k]] = values[k];
  }
  return { rows, cols, data };
}

/**
 * A matrix that travels as its sparse rows: its dense `data` is made where it is first read.
 * Sent to a worker (structured clone copies own fields only: rows, cols, sparse), it arrives
 * without `data`, and `withDenseMatrices` makes it there; so a matrix of 60 MB is never made on
 * the main thread, never copied between threads, and belongs to the worker's heap, which frees
 * it. (Made here and shared, it stayed allocated until the main thread happened to collect.)
 */
export class SparseBackedMatrix implements Matrix {
  #data?: Float64Array;

  readonly rows: number;
  readonly cols: number;
  readonly sparse: SparseRows;
  constructor(rows: number, cols: number, sparse: SparseRows) {
    this.rows = rows;
    this.cols = cols;
    this.sparse = sparse;
  }

  get data(): Float64Array {
    this.#data ??= denseMatrix(this.sparse).data;
    return this.#data;
  }
}

/** The arguments of a worker call with every sparse-backed matrix in them (a few levels deep) given its dense data, made when first read. */
export function withDenseMatrices<T>(value: T, depth = 0): T {
  if (!value || typeof value !== 'object' || ArrayBuffer.isView(value) || depth > 3) return value;
  const v = value as Record<string, unknown>;
  if (isSparseRows(v.sparse) && !('data' in v)) {
    // made where it is first read: binning reads the sparse rows themselves (binning.ts)
    const sparse = v.sparse;
    Object.defineProperty(v, 'data', {
      configurable: true,
      enumerable: true,
      get() {
        const data = denseMatrix(sparse).data;
        Object.defineProperty(v, 'data', { value: data, configurable: true, enumerable: true, writable: true });
        return data;
      },
    });
    return value;
  }
  for (const inner of Array.isArray(value) ? value : Object.values(v)) withDenseMatrices(inner, depth + 1);
  return value;
}

export function isSparseRows(s: unknown): s is SparseRows {
  const r = s as SparseRows | undefined;
  return !!r && typeof r.rows === 'number' && typeof r.cols === 'number' && r.offsets instanceof Int32Array && r.columns instanceof Int32Array && r.values instanceof Float64Array;
}

/** The rows of a matrix at `picked`, in that order: sparse rows stay sparse (their dense data is never made here). */
export function selectedRows(x: Matrix, picked: number[]): Matrix {
  if (x instanceof SparseBackedMatrix) {
    const { offsets, columns, values } = x.sparse;
    const count = picked.reduce((n, r) => n + offsets[r + 1] - offsets[r], 0);
    const sparse: SparseRows = { rows: picked.length, cols: x.cols, offsets: new Int32Array(picked.length + 1), columns: new Int32Array(count), values: new Float64Array(count) };
    let k = 0;
    picked.forEach((r, i) => {
      sparse.columns.set(columns.subarray(offsets[r], offsets[r + 1]), k);
      sparse.values.set(values.subarray(offsets[r], offsets[r + 1]), k);
      k += offsets[r + 1] - offsets[r];
      sparse.offsets[i + 1] = k;
    });
    return new SparseBackedMatrix(picked.length, x.cols, sparse);
  }
  const data = new Float64Array(picked.length * x.cols);
  picked.forEach((r, i) => data.set(x.data.subarray(r * x.cols, (r + 1) * x.cols), i * x.cols));
  return { rows: picked.length, cols: x.cols, data };
}
