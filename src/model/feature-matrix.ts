import type * as RDF from '@rdfjs/types';
import { TimeSlices } from '../task/time-slices.js';
import type { Matrix } from '../learning/learner.js';
import type { FeatureRecord } from '../feature/feature-record.js';

/**
 * How one independent variable becomes columns of the learning matrix, kept in the model so
 * that prediction builds exactly the same columns: a numeric feature is one column (a missing
 * value becomes the training mean); a fingerprint feature is one 0/1 column per bit.
 */
export type ColumnEncoding = { feature: string; kind: 'numeric'; mean: number; binary: boolean } | { feature: string; kind: 'fingerprint'; bits: number };

/** A value as a number, or NaN. */
export function numberOf(v: RDF.Literal | undefined): number {
  if (!v) return NaN;
  const s = v.value.trim();
  if (s === '') return NaN;
  const n = Number(s);
  return Number.isFinite(n) ? n : NaN;
}

/** Can this feature be an independent variable? */
export function isLearnable(f: FeatureRecord): boolean {
  return f.bits !== undefined || f.numeric;
}

/** Fit the encodings of the independent variables on the training rows. */
export function fitEncodings(features: FeatureRecord[], rows: Map<string, RDF.Literal>[]): ColumnEncoding[] {
  return features.map((f): ColumnEncoding => {
    if (f.bits !== undefined) return { feature: f.uri, kind: 'fingerprint', bits: f.bits };
    let sum = 0;
    let n = 0;
    let binary = true;
    for (const r of rows) {
      const v = numberOf(r.get(f.uri));
      if (Number.isNaN(v)) continue;
      sum += v;
      n++;
      if (v !== 0 && v !== 1) binary = false;
    }
    return { feature: f.uri, kind: 'numeric', mean: n ? sum / n : 0, binary: binary && n > 0 };
  });
}

export function columnCount(encodings: ColumnEncoding[]): number {
  return encodings.reduce((n, e) => n + (e.kind === 'fingerprint' ? e.bits : 1), 0);
}

/** Build the matrix of rows (each a map feature → value) with the encodings. */
export async function encodeRows(encodings: ColumnEncoding[], rows: Map<string, RDF.Literal>[]): Promise<{ x: Matrix; binary: boolean[] }> {
  const cols = columnCount(encodings);
  const data = new Float64Array(rows.length * cols);
  // thousands of rows of fingerprint bits: the event loop stays free every 10 ms
  const slices = new TimeSlices();
  for (const [i, r] of rows.entries()) {
    await slices.pause();
    let c = i * cols;
    for (const e of encodings) {
      if (e.kind === 'numeric') {
        const v = numberOf(r.get(e.feature));
        data[c++] = Number.isNaN(v) ? e.mean : v;
      } else {
        const text = r.get(e.feature)?.value;
        if (text) {
          for (const bit of text.split(/[\s,]+/)) {
            const b = Number(bit);
            if (bit !== '' && Number.isInteger(b) && b >= 0 && b < e.bits) data[c + b] = 1;
          }
        }
        c += e.bits;
      }
    }
  }
  const binary = encodings.flatMap((e) => (e.kind === 'fingerprint' ? new Array<boolean>(e.bits).fill(true) : [e.binary]));
  return { x: { rows: rows.length, cols, data }, binary };
}
