/**
 * Applicability-domain methods (spec 2.5, OECD principle 3): where a model built on a training
 * set may be trusted. Each method is fitted on the training set's matrix and then gives every
 * new row a metric and a membership decision. `fitDomain` and `estimateDomain` are pure
 * functions of plain data, so the server runs them on the worker pool.
 */
import { Matrix as MlMatrix, pseudoInverse } from 'ml-matrix';
import type { Matrix, ParameterSpec, ParamValue } from './learner.ts';

export interface DomainMethod {
  /** The algorithm id under /algorithm/. */
  id: string;
  title: string;
  description: string;
  parameters: ParameterSpec[];
  /** Which features the method reads: numeric descriptors or fingerprints (its matrix holds only those). */
  columns: 'numeric' | 'fingerprint';
  /** What the metric feature holds (its title) and which way is inside. */
  metric: string;
}

export interface DomainEstimate {
  metric: number;
  inside: boolean;
}

/** The most descriptors leverage takes: (XᵀX)⁺ has their count squared entries. */
export const MAX_LEVERAGE_COLUMNS = 500;

export const DOMAIN_METHODS: DomainMethod[] = [
  {
    id: 'ad-leverage',
    title: 'Leverage (hat matrix) applicability domain',
    description:
      "The leverage of a compound, h = x'(X'X)⁺x with the intercept column, on the training set's descriptors (the diagonal of the hat matrix for training compounds; a pseudo-inverse when X'X is ill-conditioned). Inside the domain when h ≤ h* = 3p'/n (p' descriptors plus the intercept, n training compounds).",
    parameters: [],
    columns: 'numeric',
    metric: 'leverage',
  },
  {
    id: 'ad-euclidean-knn',
    title: 'Euclidean distance to the k nearest training compounds',
    description:
      "The mean Euclidean distance, on descriptors standardised by the training set, to the k nearest training compounds. Inside the domain when it is at most the training set's own threshold: the mean plus Z standard deviations of each training compound's mean distance to its k nearest other training compounds.",
    parameters: [
      { name: 'k', description: 'Number of nearest training compounds', type: 'integer', default: 5, min: 1, max: 100 },
      { name: 'Z', description: 'Standard deviations above the mean training distance that still count as inside', type: 'number', default: 1.645, min: 0, max: 10 },
    ],
    columns: 'numeric',
    metric: 'mean distance to the k nearest training compounds',
  },
  {
    id: 'ad-tanimoto',
    title: 'Tanimoto similarity to the most similar training compound',
    description: 'The largest Tanimoto similarity, on fingerprint bits, between a compound and any training compound. Inside the domain when it is at least the threshold.',
    parameters: [{ name: 'threshold', description: 'Smallest similarity to a training compound that counts as inside', type: 'number', default: 0.3, min: 0, max: 1 }],
    columns: 'fingerprint',
    metric: 'Tanimoto similarity to the most similar training compound',
  },
  {
    id: 'ad-ranges',
    title: 'Descriptor ranges (bounding box) applicability domain',
    description: "The number of descriptors whose value lies outside the training set's range (its minimum to its maximum). Inside the domain when every descriptor is in range.",
    parameters: [],
    columns: 'numeric',
    metric: 'descriptors outside the training range',
  },
];

/**
 * The applicability domain a training request may ask for (`applicability_domain`): `auto`
 * (Tanimoto similarity on fingerprints, else the Euclidean distance to the nearest training
 * compounds on the numeric features), `none`, or one of the domain algorithms, by id or URI,
 * with its default parameters. Fitted on the model's own independent variables, never the target.
 */
export const DOMAIN_OPTION: ParameterSpec = {
  name: 'applicability_domain',
  description: `The applicability domain the model carries, fitted on its own independent variables (never the target); each prediction then states whether the compound is inside it, and its metric. auto (by the features: Tanimoto similarity on fingerprints, else the Euclidean distance to the 5 nearest training compounds), none, or one of ${DOMAIN_METHODS.map((m) => m.id).join(', ')} (id or URI) with its default parameters`,
  type: 'string',
  default: 'auto',
  choices: ['auto', 'none', ...DOMAIN_METHODS.map((m) => m.id)],
};

type Standardisation = { columns: number[]; mean: number[]; sd: number[] };

export type DomainState =
  | { kind: 'ad-leverage'; columns: number[]; mean: number[]; sd: number[]; inverse: number[][]; n: number; threshold: number }
  | { kind: 'ad-euclidean-knn'; columns: number[]; mean: number[]; sd: number[]; training: number[][]; k: number; threshold: number }
  | { kind: 'ad-tanimoto'; columns: number[]; training: number[][]; threshold: number }
  | { kind: 'ad-ranges'; columns: number[]; min: number[]; max: number[] };

/** Fit a method on the training matrix (its columns are the features the method reads). */
export function fitDomain(methodId: string, x: Matrix, params: Record<string, ParamValue>): DomainState {
  if (x.rows < 2) throw new RangeError('an applicability domain needs at least 2 training compounds');
  const all = Array.from({ length: x.cols }, (_, c) => c);
  switch (methodId) {
    case 'ad-leverage': {
      const s = standardisation(x, all);
      if (!s.columns.length) throw new RangeError('leverage needs numeric descriptors that vary over the training set');
      if (s.columns.length > MAX_LEVERAGE_COLUMNS)
        throw new RangeError(`leverage takes at most ${MAX_LEVERAGE_COLUMNS} descriptors (the dataset has ${s.columns.length} that vary); select features first`);
      const z = new MlMatrix(Array.from({ length: x.rows }, (_, r) => standardised(x, r, s)));
      const inverse = pseudoInverse(z.transpose().mmul(z)).to2DArray();
      const p = s.columns.length + 1;
      return { kind: 'ad-leverage', ...s, inverse, n: x.rows, threshold: (3 * p) / x.rows };
    }
    case 'ad-euclidean-knn': {
      const s = standardisation(x, all);
      // kept to 7 significant digits: the training rows are the bulk of the stored model
      const training = Array.from({ length: x.rows }, (_, r) => standardised(x, r, s).map((v) => Number(v.toPrecision(7))));
      const k = Math.min(Number(params.k), x.rows - 1);
      const own = training.map((t, r) => meanNearest(t, training, k, r));
      const mean = own.reduce((a, b) => a + b, 0) / own.length;
      const sd = Math.sqrt(own.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, own.length - 1));
      return { kind: 'ad-euclidean-knn', ...s, training, k, threshold: mean + Number(params.Z) * sd };
    }
    case 'ad-tanimoto': {
      const training = Array.from({ length: x.rows }, (_, r) => onBits(x, r, all));
      return { kind: 'ad-tanimoto', columns: all, training, threshold: Number(params.threshold) };
    }
    case 'ad-ranges': {
      const min = all.map((c) => columnValues(x, c).reduce((a, b) => Math.min(a, b), Infinity));
      const max = all.map((c) => columnValues(x, c).reduce((a, b) => Math.max(a, b), -Infinity));
      return { kind: 'ad-ranges', columns: all, min, max };
    }
    default:
      throw new RangeError(`no applicability-domain method ${methodId}`);
  }
}

/** The metric and membership of each row of `x` (the same columns as the training matrix). */
export function estimateDomain(state: DomainState, x: Matrix): DomainEstimate[] {
  const out: DomainEstimate[] = [];
  for (let r = 0; r < x.rows; r++) {
    switch (state.kind) {
      case 'ad-leverage': {
        const z = standardised(x, r, state);
        let h = 1 / state.n;
        for (let i = 0; i < z.length; i++) {
          let s = 0;
          for (let j = 0; j < z.length; j++) s += state.inverse[i][j] * z[j];
          h += z[i] * s;
        }
        out.push({ metric: h, inside: h <= state.threshold });
        break;
      }
      case 'ad-euclidean-knn': {
        const d = meanNearest(standardised(x, r, state), state.training, state.k);
        out.push({ metric: d, inside: d <= state.threshold });
        break;
      }
      case 'ad-tanimoto': {
        const bits = new Set(onBits(x, r, state.columns));
        let best = 0;
        for (const t of state.training) best = Math.max(best, tanimoto(bits, t));
        out.push({ metric: best, inside: best >= state.threshold });
        break;
      }
      case 'ad-ranges': {
        let outside = 0;
        state.columns.forEach((c, i) => {
          const v = x.data[r * x.cols + c];
          if (v < state.min[i] || v > state.max[i]) outside++;
        });
        out.push({ metric: outside, inside: outside === 0 });
        break;
      }
    }
  }
  return out;
}

function columnValues(x: Matrix, c: number): number[] {
  return Array.from({ length: x.rows }, (_, r) => x.data[r * x.cols + c]);
}

/** Mean and standard deviation of the given columns, keeping only those that vary. */
function standardisation(x: Matrix, candidates: number[]): Standardisation {
  const s: Standardisation = { columns: [], mean: [], sd: [] };
  for (const c of candidates) {
    const v = columnValues(x, c);
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, v.length - 1));
    if (!(sd > 1e-12)) continue;
    s.columns.push(c);
    s.mean.push(mean);
    s.sd.push(sd);
  }
  return s;
}

function standardised(x: Matrix, r: number, s: Standardisation): number[] {
  return s.columns.map((c, i) => (x.data[r * x.cols + c] - s.mean[i]) / s.sd[i]);
}

/** Mean distance from `point` to its k nearest rows of `training` (leaving out row `self`). */
function meanNearest(point: number[], training: number[][], k: number, self = -1): number {
  const nearest: number[] = [];
  for (const [i, t] of training.entries()) {
    if (i === self) continue;
    let d = 0;
    for (let j = 0; j < t.length; j++) d += (t[j] - point[j]) ** 2;
    if (nearest.length < k) {
      nearest.push(d);
      nearest.sort((a, b) => a - b);
    } else if (d < nearest[k - 1]) {
      nearest[k - 1] = d;
      nearest.sort((a, b) => a - b);
    }
  }
  return nearest.length ? nearest.reduce((a, d) => a + Math.sqrt(d), 0) / nearest.length : 0;
}

function onBits(x: Matrix, r: number, columns: number[]): number[] {
  return columns.filter((c) => x.data[r * x.cols + c] !== 0);
}

function tanimoto(a: Set<number>, b: number[]): number {
  let common = 0;
  for (const bit of b) if (a.has(bit)) common++;
  const union = a.size + b.length - common;
  return union === 0 ? 1 : common / union;
}
