import type * as RDF from '@rdfjs/types';
import { TimeSlices } from '../task/time-slices.js';
import type { Matrix } from '../learning/learner.js';
import { ot, rdf, dc } from '../rdf/namespaces.js';
import type { TripleStore } from '../store/triple-store.js';

/** What the store says about a feature that decides how it becomes matrix columns. */
export interface FeatureDescription {
  uri: string;
  title?: string;
  numeric: boolean;
  nominal: boolean;
  /** A fingerprint feature: its length in bits. */
  bits?: number;
  /** ot:hasSource: the algorithm instance or model that made it. */
  source?: string;
  accepted: string[];
  exists: boolean;
}

/**
 * How one independent variable becomes columns of the learning matrix, kept in the model so
 * that prediction builds exactly the same columns: a numeric feature is one column (a missing
 * value becomes the training mean); a fingerprint feature is one 0/1 column per bit.
 */
export type ColumnEncoding = { feature: string; kind: 'numeric'; mean: number; binary: boolean } | { feature: string; kind: 'fingerprint'; bits: number };

export async function describeFeatures(store: TripleStore, uris: string[]): Promise<Map<string, FeatureDescription>> {
  const out = new Map<string, FeatureDescription>();
  await Promise.all(
    uris.map(async (uri) => {
      const quads = (await store.readGraph(uri)).filter((q) => q.subject.value === uri);
      const types = new Set(quads.filter((q) => q.predicate.equals(rdf('type'))).map((q) => q.object.value));
      const value = (p: RDF.NamedNode) => quads.find((q) => q.predicate.equals(p))?.object.value;
      const bits = value(ot('fingerprintBits'));
      out.set(uri, {
        uri,
        title: value(dc('title')),
        numeric: types.has(ot('NumericFeature').value),
        nominal: types.has(ot('NominalFeature').value),
        bits: types.has(ot('FingerprintFeature').value) && bits ? Number(bits) : undefined,
        source: value(ot('hasSource')),
        accepted: quads.filter((q) => q.predicate.equals(ot('acceptValue'))).map((q) => q.object.value),
        exists: quads.length > 0,
      });
    }),
  );
  return out;
}

/** A value as a number, or NaN. */
export function numberOf(v: RDF.Literal | undefined): number {
  if (!v) return NaN;
  const s = v.value.trim();
  if (s === '') return NaN;
  const n = Number(s);
  return Number.isFinite(n) ? n : NaN;
}

/** Can this feature be an independent variable? */
export function isLearnable(f: FeatureDescription): boolean {
  return f.bits !== undefined || f.numeric;
}

/** Fit the encodings of the independent variables on the training rows. */
export function fitEncodings(features: FeatureDescription[], rows: Map<string, RDF.Literal>[]): ColumnEncoding[] {
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
