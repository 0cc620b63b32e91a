/**
 * Logistic regression (`logistic-regression`): multinomial (softmax) logistic regression with an
 * L2 penalty, on standardised descriptors (constant columns dropped), with an unpenalised
 * intercept per class. Two classes are the usual binary model (one weight vector, sigmoid).
 *
 * Own code rather than ml-logistic-regression: that library has no intercept and no
 * regularisation, runs a fixed 50,000 full gradient steps, and combines one-vs-rest scores
 * without giving probabilities.
 *
 * Minimises  L(W, b) = -(1/n) Σᵢ log softmax(W zᵢ + b)[yᵢ] + (λ/2) ‖W‖²  by full-batch gradient
 * descent with Nesterov momentum (0.9): deterministic (no sampling), from zero weights. Should a
 * step increase the loss, the momentum is reset and the learning rate halved, so an over-large
 * learning rate cannot diverge. Stops after `iterations` steps or when the gradient is tiny.
 */
import type { Learner, Matrix, ParamValue, Prediction, TrainingData } from './learner.ts';
import { applyScaler, argmax, classCount, decodeF64, decodedCache, encodeF64, fitScaler, unscaledLinearForm, type Scaler } from './scaling.ts';

interface LogisticState {
  kind: 'logistic-regression';
  scaler: Scaler;
  classes: number;
  /**
   * Weights, m × (columns + 1) with the intercept last (base64 Float64): m = classes, or for two
   * classes m = 1, the weights of the logit of class 1 (class 0 has the logit 0).
   */
  weights: string;
  iterations: number;
}

/** Rows of weights: one per class, or one for two classes (the logit of class 1). */
function weightRows(k: number): number {
  return k === 2 ? 1 : k;
}

/** Class probabilities at weights w for the standardised row z[o .. o + p) into `out`. */
function probabilitiesAt(w: Float64Array, z: Float64Array, o: number, p: number, k: number, out: Float64Array): void {
  const q = p + 1;
  if (k === 2) {
    let s = w[p];
    for (let j = 0; j < p; j++) s += w[j] * z[o + j];
    // Stable sigmoid.
    const e = Math.exp(-Math.abs(s));
    out[1] = s >= 0 ? 1 / (1 + e) : e / (1 + e);
    out[0] = 1 - out[1];
    return;
  }
  let max = -Infinity;
  for (let c = 0; c < k; c++) {
    let s = w[c * q + p];
    for (let j = 0; j < p; j++) s += w[c * q + j] * z[o + j];
    out[c] = s;
    if (s > max) max = s;
  }
  let sum = 0;
  for (let c = 0; c < k; c++) sum += out[c] = Math.exp(out[c] - max);
  for (let c = 0; c < k; c++) out[c] /= sum;
}

/** Loss at weights w, and its gradient into `grad` when given. */
function objective(z: Float64Array, n: number, p: number, y: Float64Array, k: number, lambda: number, w: Float64Array, grad?: Float64Array): number {
  const q = p + 1;
  const m = weightRows(k);
  grad?.fill(0);
  const prob = new Float64Array(k);
  let loss = 0;
  for (let r = 0; r < n; r++) {
    const o = r * p;
    probabilitiesAt(w, z, o, p, k, prob);
    const yc = y[r];
    loss -= Math.log(Math.max(prob[yc], 1e-300));
    if (!grad) continue;
    for (let c = 0; c < m; c++) {
      const cls = k === 2 ? 1 : c;
      const e = prob[cls] - (cls === yc ? 1 : 0);
      if (e === 0) continue;
      const wc = c * q;
      for (let j = 0; j < p; j++) grad[wc + j] += e * z[o + j];
      grad[wc + p] += e;
    }
  }
  let penalty = 0;
  for (let c = 0; c < m; c++) {
    for (let j = 0; j < p; j++) {
      const i = c * q + j;
      if (grad) grad[i] = grad[i] / n + lambda * w[i];
      penalty += w[i] * w[i];
    }
    if (grad) grad[c * q + p] /= n;
  }
  return loss / Math.max(1, n) + 0.5 * lambda * penalty;
}

/** Pure training function (run off the main thread by `context.run`). */
export function trainLogistic(data: TrainingData, lambda: number, iterations: number, learningRate: number): LogisticState {
  const scaler = fitScaler(data.x);
  const z = applyScaler(scaler, data.x);
  const n = z.rows;
  const p = z.cols;
  const k = classCount(data);
  const size = weightRows(k) * (p + 1);
  let w = new Float64Array(size);
  let velocity = new Float64Array(size);
  let next = new Float64Array(size);
  let nextV = new Float64Array(size);
  const look = new Float64Array(size);
  const grad = new Float64Array(size);
  let rate = learningRate;
  let loss = objective(z.data, n, p, data.y, k, lambda, w);
  let done = 0;
  for (let it = 0; it < iterations && n > 0; it++) {
    done = it + 1;
    // Nesterov: the gradient at the look-ahead point w + μv.
    for (let i = 0; i < size; i++) look[i] = w[i] + 0.9 * velocity[i];
    objective(z.data, n, p, data.y, k, lambda, look, grad);
    let g2 = 0;
    for (let i = 0; i < size; i++) {
      g2 += grad[i] * grad[i];
      nextV[i] = 0.9 * velocity[i] - rate * grad[i];
      next[i] = w[i] + nextV[i];
    }
    if (Math.sqrt(g2 / size) < 1e-8) break;
    const nextLoss = objective(z.data, n, p, data.y, k, lambda, next);
    if (!(nextLoss <= loss)) {
      velocity.fill(0);
      rate /= 2;
      if (rate < 1e-12) break;
      continue;
    }
    const change = loss - nextLoss;
    [w, next] = [next, w];
    [velocity, nextV] = [nextV, velocity];
    loss = nextLoss;
    if (change < 1e-10 * Math.max(1, loss)) break;
  }
  return { kind: 'logistic-regression', scaler, classes: k, weights: encodeF64(w), iterations: done };
}

const decode = decodedCache((s: LogisticState) => decodeF64(s.weights));

export function predictLogistic(state: LogisticState, x: Matrix): Prediction[] {
  const w = decode(state);
  const z = applyScaler(state.scaler, x);
  const k = state.classes;
  const prob = new Float64Array(k);
  const out: Prediction[] = [];
  for (let r = 0; r < z.rows; r++) {
    probabilitiesAt(w, z.data, r * z.cols, z.cols, k, prob);
    const probabilities = Array.from(prob);
    const value = argmax(probabilities);
    out.push({ value, confidence: probabilities[value], probabilities });
  }
  return out;
}

/**
 * The logits as linear functions of the unscaled input columns (`cols` of them; 0 for those the
 * scaler dropped): one row per class, or for two classes the one logit of class 1 (an exporter's
 * form of the model: probabilities are its softmax, or sigmoid).
 */
export function logitForm(state: unknown, cols: number): { intercepts: number[]; coefficients: number[][] } {
  const s = state as LogisticState;
  const w = decode(s);
  const p = s.scaler.columns.length;
  const rows = Array.from({ length: weightRows(s.classes) }, (_, c) => unscaledLinearForm(s.scaler, w.subarray(c * (p + 1), c * (p + 1) + p), w[c * (p + 1) + p], cols));
  return { intercepts: rows.map((r) => r.intercept), coefficients: rows.map((r) => r.coefficients) };
}

export const logisticRegression: Learner = {
  id: 'logistic-regression',
  title: 'Logistic regression',
  description:
    'Multinomial (softmax) logistic regression with an L2 penalty on standardised descriptors, fitted by full-batch gradient descent with Nesterov momentum; class probabilities from the softmax.',
  task: 'classification',
  types: ['Classification'],
  sameAs: undefined,
  parameters: [
    {
      name: 'regularisation',
      description: 'L2 penalty λ on the weights of the standardised descriptors (the loss is the mean log-loss + λ/2 ‖w‖²)',
      type: 'number',
      default: 0.01,
      min: 0,
      max: 100,
    },
    { name: 'iterations', description: 'Maximum number of gradient steps', type: 'integer', default: 1000, min: 1, max: 100000 },
    {
      name: 'learningRate',
      description: 'Initial step size (halved whenever a step would increase the loss)',
      type: 'number',
      default: 0.5,
      min: 1e-6,
      max: 100,
    },
  ],
  async train(data: TrainingData, params: Record<string, ParamValue>, context) {
    return context.run<LogisticState>(import.meta.url, 'trainLogistic', [data, Number(params.regularisation), Number(params.iterations), Number(params.learningRate)]);
  },
  predict(state: unknown, x: Matrix): Prediction[] {
    return predictLogistic(state as LogisticState, x);
  },
};
