/**
 * Multiple linear regression (`mlr`).
 *
 * Own least-squares code on ml-matrix's SVD rather than ml-regression-multivariate-linear: that
 * library inverts XᵀX, which squares the condition number of collinear descriptor sets (RDKit's
 * MolWt/ExactMolWt/HeavyAtomMolWt are near-duplicates) and gives no leverage for a
 * per-prediction standard error. Here constant columns are dropped, the others standardised,
 * and the minimum-norm least-squares solution is taken from the SVD of the standardised matrix
 * Z = U S Vᵀ, ignoring singular values below 1e-8 · s_max (so exact collinearity or more
 * columns than rows cannot break it): β = V diag(s / (s² + λ)) Uᵀ (y - ȳ), with the optional
 * ridge penalty λ (0 by default: ordinary least squares).
 *
 * Confidence: the standard error of the prediction, se(x) = σ √(1 + h(x)), with σ² = RSS /
 * (n - df - 1) and the leverage h(x) = 1/n + ‖Mᵀz‖², M = V diag(s / (s² + λ)) (for λ = 0 the
 * usual zᵀ(ZᵀZ)⁺z), mapped by `spreadConfidence`: 1 - se / sd(y), clamped to [0, 1].
 */
import { Matrix, SVD } from 'ml-matrix';
import type { Learner, Matrix as DataMatrix, ParamValue, Prediction, TrainingData } from './learner.ts';
import { applyScaler, decodeF64, decodedCache, encodeF64, fitScaler, mean, sampleSd, spreadConfidence, toRows, unscaledLinearForm, type Scaler } from './scaling.ts';

/** Singular values below this fraction of the largest are treated as zero. */
const RANK_TOLERANCE = 1e-8;

interface MlrState {
  kind: 'mlr';
  /** The number of input columns. */
  cols: number;
  scaler: Scaler;
  intercept: number;
  /** Coefficients of the standardised columns (base64 Float64). */
  beta: string;
  /** M (p × r, row-major, base64 Float64) of the leverage ‖Mᵀz‖². */
  leverage: string;
  rank: number;
  n: number;
  sigma: number;
  sdY: number;
}

/** Pure training function (run off the main thread by `context.run`). */
export function trainMlr(data: TrainingData, ridge: number): MlrState {
  const scaler = fitScaler(data.x);
  const z = applyScaler(scaler, data.x);
  const n = z.rows;
  const p = z.cols;
  const ym = mean(data.y);
  const yc = Array.from(data.y, (v) => v - ym);
  const beta = new Float64Array(p);
  const kept: { v: number[]; f: number }[] = [];
  let df = 0;
  if (p > 0 && n > 1) {
    const svd = new SVD(new Matrix(toRows(z)), { autoTranspose: true });
    const s = svd.diagonal;
    const U = svd.leftSingularVectors;
    const V = svd.rightSingularVectors;
    const smax = Math.max(0, ...s);
    for (let i = 0; i < s.length; i++) {
      if (!(s[i] > RANK_TOLERANCE * smax)) continue;
      const f = s[i] / (s[i] * s[i] + ridge);
      let uy = 0;
      for (let r = 0; r < n; r++) uy += U.get(r, i) * yc[r];
      const v = V.getColumn(i);
      for (let j = 0; j < p; j++) beta[j] += v[j] * f * uy;
      kept.push({ v, f });
      df += (s[i] * s[i]) / (s[i] * s[i] + ridge);
    }
  }
  let rss = 0;
  for (let r = 0; r < n; r++) {
    let yhat = 0;
    for (let j = 0; j < p; j++) yhat += z.data[r * p + j] * beta[j];
    rss += (yc[r] - yhat) ** 2;
  }
  const dof = n - df - 1;
  const sdY = sampleSd(data.y);
  // With no residual degrees of freedom the fit says nothing about its error: use sd(y).
  const sigma = dof > 0 ? Math.sqrt(rss / dof) : sdY;
  const r = kept.length;
  const m = new Float64Array(p * r);
  kept.forEach(({ v, f }, i) => {
    for (let j = 0; j < p; j++) m[j * r + i] = v[j] * f;
  });
  return { kind: 'mlr', cols: data.x.cols, scaler, intercept: ym, beta: encodeF64(beta), leverage: encodeF64(m), rank: r, n, sigma, sdY };
}

const decode = decodedCache((s: MlrState) => ({ beta: decodeF64(s.beta), m: decodeF64(s.leverage) }));

export function predictMlr(state: MlrState, x: DataMatrix): Prediction[] {
  const { beta, m } = decode(state);
  const z = applyScaler(state.scaler, x);
  const p = z.cols;
  const r = state.rank;
  const out: Prediction[] = [];
  const proj = new Float64Array(r);
  for (let row = 0; row < z.rows; row++) {
    const o = row * p;
    let value = state.intercept;
    proj.fill(0);
    for (let j = 0; j < p; j++) {
      const zj = z.data[o + j];
      value += beta[j] * zj;
      for (let i = 0; i < r; i++) proj[i] += m[j * r + i] * zj;
    }
    let h = 1 / state.n;
    for (let i = 0; i < r; i++) h += proj[i] * proj[i];
    const se = state.sigma * Math.sqrt(1 + h);
    out.push({ value, confidence: spreadConfidence(se, state.sdY) });
  }
  return out;
}

export const multipleLinearRegression: Learner = {
  id: 'mlr',
  title: 'Multiple linear regression',
  description:
    'Least-squares linear model of the standardised descriptors (constant columns dropped), solved by SVD so that collinear columns cannot break it; optional ridge penalty. Confidence: 1 - (standard error of the prediction, from the residual spread and the leverage) / sd of the training target, clamped to [0, 1].',
  task: 'regression',
  types: ['Regression'],
  sameAs: undefined,
  parameters: [
    {
      name: 'ridge',
      description: 'L2 penalty on the coefficients of the standardised descriptors (0 = ordinary least squares)',
      type: 'number',
      default: 0,
      min: 0,
      max: 1e6,
    },
  ],
  async train(data: TrainingData, params: Record<string, ParamValue>, context) {
    return context.run<MlrState>(import.meta.url, 'trainMlr', [data, Number(params.ridge ?? 0)]);
  },
  predict(state: unknown, x: DataMatrix): Prediction[] {
    return predictMlr(state as MlrState, x);
  },
  linearForm(state: unknown) {
    const s = state as MlrState;
    return unscaledLinearForm(s.scaler, decode(s).beta, s.intercept, s.cols);
  },
};
