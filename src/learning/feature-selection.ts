/**
 * Feature selection (spec 2.4 `FeatureSelection`): which columns of a matrix to keep, without a
 * target (drop near-constant and highly inter-correlated columns) or with one (rank by the
 * absolute Pearson correlation, or by mutual information). `selectColumns` is a pure function of
 * plain data, so the server runs it on the worker pool.
 */
import type { Matrix, ParameterSpec, ParamValue } from './learner.ts';

export interface SelectionMethod {
  /** The algorithm id under /algorithm/. */
  id: string;
  title: string;
  description: string;
  parameters: ParameterSpec[];
  /** Supervised methods need `prediction_feature`. */
  supervised: boolean;
}

const NUM_TO_SELECT: ParameterSpec = { name: 'numToSelect', description: 'How many features to keep at most (0: every feature that passes)', type: 'integer', default: 10, min: 0, max: 100_000 };

export const SELECTION_METHODS: SelectionMethod[] = [
  {
    id: 'fs-variance-correlation',
    title: 'Unsupervised feature selection: near-constant and inter-correlated features removed',
    description:
      'Drops numeric features whose most common value covers at least maxFrequency of the rows (near-constant), then, of every pair correlated beyond maxCorrelation (absolute Pearson r), the one that comes later in the dataset. Keeps at most numToSelect, in dataset order.',
    parameters: [
      { name: 'maxFrequency', description: 'A feature whose most common value covers this fraction of the rows or more is near-constant', type: 'number', default: 0.95, greaterThan: 0, max: 1 },
      { name: 'maxCorrelation', description: 'Of two features correlated beyond this absolute Pearson r, the later one is dropped', type: 'number', default: 0.95, greaterThan: 0, max: 1 },
      { ...NUM_TO_SELECT, default: 0 },
    ],
    supervised: false,
  },
  {
    id: 'fs-correlation',
    title: 'Supervised feature selection by correlation with the target',
    description: 'Ranks numeric features by the absolute Pearson correlation of their values with the numeric prediction_feature and keeps the numToSelect best (constant features are never kept).',
    parameters: [NUM_TO_SELECT],
    supervised: true,
  },
  {
    id: 'fs-mutual-information',
    title: 'Supervised feature selection by mutual information with the target',
    description:
      'Ranks numeric features by their mutual information (in bits) with prediction_feature: features and a numeric target are split into `bins` bins of equal counts, a nominal target is used as it is. Keeps the numToSelect best (features with none are never kept).',
    parameters: [NUM_TO_SELECT, { name: 'bins', description: 'Bins of equal counts for numeric values', type: 'integer', default: 10, min: 2, max: 100 }],
    supervised: true,
  },
];

/**
 * The columns to keep, best first for the supervised methods and in column order otherwise.
 * `y` is the target (a number per row; class indices when `nominal`), rows without one NaN.
 */
export function selectColumns(methodId: string, x: Matrix, y: Float64Array | null, nominal: boolean, params: Record<string, ParamValue>): number[] {
  const limit = Number(params.numToSelect) || Infinity;
  const columns = Array.from({ length: x.cols }, (_, c) => column(x, c));
  switch (methodId) {
    case 'fs-variance-correlation': {
      const kept: number[] = [];
      for (const [c, values] of columns.entries()) {
        if (topFrequency(values) >= Number(params.maxFrequency)) continue;
        if (kept.some((k) => Math.abs(pearson(columns[k], values)) > Number(params.maxCorrelation))) continue;
        kept.push(c);
        if (kept.length >= limit) break;
      }
      return kept;
    }
    case 'fs-correlation':
    case 'fs-mutual-information': {
      if (!y) throw new RangeError('prediction_feature is needed');
      const rows = [...y.keys()].filter((r) => !Number.isNaN(y[r]));
      const target = Float64Array.from(rows, (r) => y[r]);
      const score = (values: Float64Array) => {
        const v = Float64Array.from(rows, (r) => values[r]);
        return methodId === 'fs-correlation' ? Math.abs(pearson(v, target)) : mutualInformation(bins(v, Number(params.bins)), nominal ? Array.from(target) : bins(target, Number(params.bins)));
      };
      return columns
        .map((values, c) => ({ c, score: score(values) }))
        .filter((s) => Number.isFinite(s.score) && s.score > 1e-12)
        .sort((a, b) => b.score - a.score || a.c - b.c)
        .slice(0, limit)
        .map((s) => s.c);
    }
    default:
      throw new RangeError(`no feature selection method ${methodId}`);
  }
}

function column(x: Matrix, c: number): Float64Array {
  return Float64Array.from({ length: x.rows }, (_, r) => x.data[r * x.cols + c]);
}

/** The share of the rows taken by the most common value. */
function topFrequency(values: Float64Array): number {
  const counts = new Map<number, number>();
  let top = 0;
  for (const v of values) {
    const n = (counts.get(v) ?? 0) + 1;
    counts.set(v, n);
    top = Math.max(top, n);
  }
  return values.length ? top / values.length : 1;
}

/** Pearson's r; NaN when either side is constant. */
function pearson(a: Float64Array, b: Float64Array): number {
  const n = a.length;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i];
    mb += b[i];
  }
  ma /= n;
  mb /= n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : NaN;
}

/** Bin index of each value: `count` bins of (about) equal counts; equal values share a bin. */
function bins(values: Float64Array, count: number): number[] {
  const sorted = Float64Array.from(values).sort();
  const edges: number[] = [];
  for (let b = 1; b < count; b++) {
    const edge = sorted[Math.floor((b * sorted.length) / count)];
    if (edges.length === 0 || edge > edges[edges.length - 1]) edges.push(edge);
  }
  return Array.from(values, (v) => {
    let k = 0;
    while (k < edges.length && v >= edges[k]) k++;
    return k;
  });
}

/** Mutual information of two discrete variables, in bits. */
function mutualInformation(a: number[], b: number[]): number {
  const n = a.length;
  const joint = new Map<string, number>();
  const pa = new Map<number, number>();
  const pb = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    joint.set(`${a[i]} ${b[i]}`, (joint.get(`${a[i]} ${b[i]}`) ?? 0) + 1);
    pa.set(a[i], (pa.get(a[i]) ?? 0) + 1);
    pb.set(b[i], (pb.get(b[i]) ?? 0) + 1);
  }
  let mi = 0;
  for (const [key, count] of joint) {
    const [x, y] = key.split(' ').map(Number);
    mi += (count / n) * Math.log2((count * n) / (pa.get(x)! * pb.get(y)!));
  }
  return mi;
}
