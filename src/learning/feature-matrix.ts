import type * as RDF from '@rdfjs/types';
import { numberOf } from '../rdf/terms.ts';
import { TimeSlices } from '../core/time-slices.ts';
import type { Matrix } from './learner.ts';
import { SparseBackedMatrix, type SparseRows } from './sparse-matrix.ts';
import type { FeatureRecord } from '../feature/feature-record.ts';

/**
 * How one independent variable becomes columns of the learning matrix, kept in the model so
 * that prediction builds exactly the same columns: a numeric feature is one column (a missing
 * value becomes the training mean); a fingerprint feature is one 0/1 column per bit.
 */
export type ColumnEncoding = { feature: string; kind: 'numeric'; mean: number; binary: boolean } | { feature: string; kind: 'fingerprint'; bits: number };

/** Can this feature be an independent variable? */
export function isLearnable(f: FeatureRecord): boolean {
  return f.bits !== undefined || f.numeric;
}

/**
 * The numbers of a row's values for a list of numeric features, parsed once per row and list: a
 * cross-validation hands the same rows (the same maps) to ten fits and encodings, which would
 * otherwise parse every value twenty times (weakly held: gone with the rows). A row's values are
 * not changed once it has been encoded (the predictor adds calculated values to copies first).
 */
const rowNumbers = new WeakMap<Map<string, RDF.Literal>, { key: string; numbers: Float64Array }>();

function numbersOf(row: Map<string, RDF.Literal>, features: string[], key: string): Float64Array {
  const cached = rowNumbers.get(row);
  if (cached?.key === key) return cached.numbers;
  const numbers = new Float64Array(features.length);
  for (let j = 0; j < features.length; j++) {
    const literal = row.get(features[j]);
    numbers[j] = literal ? numberOf(literal) : Number.NaN;
  }
  rowNumbers.set(row, { key, numbers });
  return numbers;
}

/** Rows between two looks at the clock (an await each costs more than the row). */
const PAUSE_EVERY = 32;

/** Fit the encodings of the independent variables on the training rows (the event loop free every 10 ms). */
export async function fitEncodings(features: FeatureRecord[], rows: Map<string, RDF.Literal>[]): Promise<ColumnEncoding[]> {
  const numeric = features.filter((f) => f.bits === undefined);
  const uris = numeric.map((f) => f.uri);
  const key = uris.join('\n');
  const sums = new Float64Array(numeric.length);
  const counts = new Float64Array(numeric.length);
  const binary = numeric.map(() => true);
  const slices = new TimeSlices();
  for (const [i, r] of rows.entries()) {
    if (i % PAUSE_EVERY === 0) await slices.pause();
    const numbers = numbersOf(r, uris, key);
    for (let j = 0; j < numbers.length; j++) {
      const v = numbers[j];
      if (Number.isNaN(v)) continue;
      sums[j] += v;
      counts[j]++;
      if (v !== 0 && v !== 1) binary[j] = false;
    }
  }
  const at = new Map(numeric.map((f, j) => [f, j]));
  return features.map((f): ColumnEncoding => {
    if (f.bits !== undefined) return { feature: f.uri, kind: 'fingerprint', bits: f.bits };
    const j = at.get(f)!;
    const n = counts[j];
    return { feature: f.uri, kind: 'numeric', mean: n ? sums[j] / n : 0, binary: binary[j] && n > 0 };
  });
}

export function columnCount(encodings: ColumnEncoding[]): number {
  return encodings.reduce((n, e) => n + (e.kind === 'fingerprint' ? e.bits : 1), 0);
}

/** Per column of the matrix: the index of the independent variable (encoding) it encodes. */
export function columnGroups(encodings: ColumnEncoding[]): number[] {
  return encodings.flatMap((e, i) => new Array<number>(e.kind === 'fingerprint' ? e.bits : 1).fill(i));
}

/**
 * Build the matrix of rows (each a map feature → value) with the encodings. Numeric features
 * only: the dense matrix, one row of parsed numbers at a time. With fingerprints, the main
 * thread reads the values into sparse rows only (in slices of 10 ms); the dense matrix (8 bytes
 * per cell: 60 MB for 3,600 Morgan fingerprints of 2,048 bits) is made by the worker that learns
 * or predicts from it (see SparseBackedMatrix).
 */
export async function encodeRows(encodings: ColumnEncoding[], rows: Map<string, RDF.Literal>[]): Promise<{ x: Matrix; binary: boolean[] }> {
  const binary = encodings.flatMap((e) => (e.kind === 'fingerprint' ? new Array<boolean>(e.bits).fill(true) : [e.binary]));
  if (encodings.every((e) => e.kind === 'numeric')) return { x: await denseRows(encodings as NumericEncoding[], rows), binary };
  const sparse = await sparseRows(encodings, rows);
  return { x: new SparseBackedMatrix(sparse.rows, sparse.cols, sparse), binary };
}

type NumericEncoding = Extract<ColumnEncoding, { kind: 'numeric' }>;

/** The matrix of numeric encodings (a missing value is the training mean). */
async function denseRows(encodings: NumericEncoding[], rows: Map<string, RDF.Literal>[]): Promise<Matrix> {
  const cols = encodings.length;
  const uris = encodings.map((e) => e.feature);
  const key = uris.join('\n');
  const data = new Float64Array(rows.length * cols);
  const slices = new TimeSlices();
  for (const [i, r] of rows.entries()) {
    if (i % PAUSE_EVERY === 0) await slices.pause();
    const numbers = numbersOf(r, uris, key);
    for (let j = 0; j < cols; j++) data[i * cols + j] = Number.isNaN(numbers[j]) ? encodings[j].mean : numbers[j];
  }
  return { rows: rows.length, cols, data };
}

/** The non-zero cells of the encoded rows (a missing numeric value is the training mean). */
async function sparseRows(encodings: ColumnEncoding[], rows: Map<string, RDF.Literal>[]): Promise<SparseRows> {
  const cols = columnCount(encodings);
  const numericUris = encodings.filter((e) => e.kind === 'numeric').map((e) => e.feature);
  const key = numericUris.join('\n');
  const offsets = new Int32Array(rows.length + 1);
  const columns: number[] = [];
  const values: number[] = [];
  // thousands of rows of fingerprint bits: the event loop stays free every 10 ms
  const slices = new TimeSlices();
  for (const [i, r] of rows.entries()) {
    if (i % PAUSE_EVERY === 0) await slices.pause();
    const numbers = numbersOf(r, numericUris, key);
    let c = 0;
    let n = 0;
    for (const e of encodings) {
      if (e.kind === 'numeric') {
        const v = numbers[n++];
        columns.push(c++);
        values.push(Number.isNaN(v) ? e.mean : v);
      } else {
        const text = r.get(e.feature)?.value;
        if (text) {
          for (const bit of text.split(/[\s,]+/)) {
            const b = Number(bit);
            if (bit !== '' && Number.isInteger(b) && b >= 0 && b < e.bits) {
              columns.push(c + b);
              values.push(1);
            }
          }
        }
        c += e.bits;
      }
    }
    offsets[i + 1] = columns.length;
  }
  return { rows: rows.length, cols, offsets, columns: Int32Array.from(columns), values: Float64Array.from(values) };
}
