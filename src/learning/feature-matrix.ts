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
 * A literal's number, parsed once: a cross-validation hands the same rows (the same literal
 * objects) to ten trainings and predictions, which read each value twice (weakly held: gone
 * with the rows).
 */
const parsedNumbers = new WeakMap<RDF.Literal, number>();
function parsedNumber(literal: RDF.Literal | undefined): number {
  if (!literal) return Number.NaN;
  let n = parsedNumbers.get(literal);
  if (n === undefined) {
    n = numberOf(literal);
    parsedNumbers.set(literal, n);
  }
  return n;
}

/** Fit the encodings of the independent variables on the training rows (the event loop free every 10 ms). */
export async function fitEncodings(features: FeatureRecord[], rows: Map<string, RDF.Literal>[]): Promise<ColumnEncoding[]> {
  const numeric = features.filter((f) => f.bits === undefined);
  const sums = new Float64Array(numeric.length);
  const counts = new Float64Array(numeric.length);
  const binary = numeric.map(() => true);
  const slices = new TimeSlices();
  for (const r of rows) {
    await slices.pause();
    numeric.forEach((f, j) => {
      const v = parsedNumber(r.get(f.uri));
      if (Number.isNaN(v)) return;
      sums[j] += v;
      counts[j]++;
      if (v !== 0 && v !== 1) binary[j] = false;
    });
  }
  return features.map((f): ColumnEncoding => {
    if (f.bits !== undefined) return { feature: f.uri, kind: 'fingerprint', bits: f.bits };
    const j = numeric.indexOf(f);
    const n = counts[j];
    return { feature: f.uri, kind: 'numeric', mean: n ? sums[j] / n : 0, binary: binary[j] && n > 0 };
  });
}

export function columnCount(encodings: ColumnEncoding[]): number {
  return encodings.reduce((n, e) => n + (e.kind === 'fingerprint' ? e.bits : 1), 0);
}

/**
 * Build the matrix of rows (each a map feature → value) with the encodings. The main thread
 * reads the values into sparse rows only (in slices of 10 ms); the dense matrix (8 bytes per
 * cell: 60 MB for 3,600 Morgan fingerprints of 2,048 bits) is made by the worker that learns
 * or predicts from it (see SparseBackedMatrix).
 */
export async function encodeRows(encodings: ColumnEncoding[], rows: Map<string, RDF.Literal>[]): Promise<{ x: Matrix; binary: boolean[] }> {
  const sparse = await sparseRows(encodings, rows);
  const binary = encodings.flatMap((e) => (e.kind === 'fingerprint' ? new Array<boolean>(e.bits).fill(true) : [e.binary]));
  return { x: new SparseBackedMatrix(sparse.rows, sparse.cols, sparse), binary };
}

/** The non-zero cells of the encoded rows (a missing numeric value is the training mean). */
async function sparseRows(encodings: ColumnEncoding[], rows: Map<string, RDF.Literal>[]): Promise<SparseRows> {
  const cols = columnCount(encodings);
  const offsets = new Int32Array(rows.length + 1);
  const columns: number[] = [];
  const values: number[] = [];
  // thousands of rows of fingerprint bits: the event loop stays free every 10 ms
  const slices = new TimeSlices();
  for (const [i, r] of rows.entries()) {
    await slices.pause();
    let c = 0;
    for (const e of encodings) {
      if (e.kind === 'numeric') {
        const v = parsedNumber(r.get(e.feature));
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
