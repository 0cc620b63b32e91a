/**
 * Naive Bayes (`naive-bayes`): Gaussian likelihoods for numeric columns and Bernoulli for binary
 * (fingerprint) columns, in one model.
 *
 * Own code: ml-naivebayes has Gaussian and multinomial models but neither Bernoulli columns nor a
 * mix of the two, and returns classes without probabilities.
 *  - Class priors and Bernoulli bit probabilities use Laplace smoothing:
 *    p(bit | c) = (count + α) / (n_c + 2α), P(c) = (n_c + α) / (n + Kα).
 *  - Gaussian variances get a floor relative to the column's overall variance:
 *    var(c, j) + varianceFloor · var(j), so that a column constant within a class neither
 *    divides by zero nor decides alone. Numeric columns constant overall are dropped.
 *  - Scores are summed in log space and normalised with log-sum-exp; the class is the most
 *    probable one and the confidence its probability.
 * Training is one pass over the data (done in place: there is nothing to hand to a worker).
 */
import type { Learner, Matrix, ParamValue, Prediction, TrainingData } from './learner.ts';
import { argmax, classCount, columnStats, softmax } from './scaling.ts';

interface NaiveBayesState {
  kind: 'naive-bayes';
  classes: number;
  logPrior: number[];
  /** Gaussian columns; per class: means, variances (floored). */
  gaussian: number[];
  mean: number[][];
  variance: number[][];
  /** Bernoulli columns; per class: log p and log(1 - p) of a set bit. */
  bernoulli: number[];
  logP: number[][];
  logQ: number[][];
}

export function trainNaiveBayes(data: TrainingData, alpha: number, varianceFloor: number): NaiveBayesState {
  const { rows, cols, data: x } = data.x;
  const k = classCount(data);
  const stats = columnStats(data.x);
  const gaussian: number[] = [];
  const bernoulli: number[] = [];
  for (let c = 0; c < cols; c++) {
    if (data.binary[c]) bernoulli.push(c);
    else if (stats.sd[c] > 1e-12 * Math.max(1, Math.abs(stats.mean[c]))) gaussian.push(c);
  }
  const counts = new Array<number>(k).fill(0);
  for (const v of data.y) counts[v]++;
  const sums = counts.map(() => new Float64Array(gaussian.length));
  const squares = counts.map(() => new Float64Array(gaussian.length));
  const bits = counts.map(() => new Float64Array(bernoulli.length));
  for (let r = 0; r < rows; r++) {
    const c = data.y[r];
    const o = r * cols;
    for (let j = 0; j < gaussian.length; j++) {
      const v = x[o + gaussian[j]];
      sums[c][j] += v;
      squares[c][j] += v * v;
    }
    for (let j = 0; j < bernoulli.length; j++) if (x[o + bernoulli[j]] >= 0.5) bits[c][j]++;
  }
  const mean = counts.map((n, c) => Array.from(sums[c], (s) => (n > 0 ? s / n : 0)));
  const variance = counts.map((n, c) =>
    Array.from(squares[c], (s, j) => {
      const m = mean[c][j];
      const v = n > 0 ? Math.max(0, s / n - m * m) : 0;
      const overall = stats.sd[gaussian[j]] ** 2;
      return v + varianceFloor * overall;
    }),
  );
  const logP = counts.map((n, c) => Array.from(bits[c], (b) => Math.log((b + alpha) / (n + 2 * alpha))));
  const logQ = counts.map((n, c) => Array.from(bits[c], (b) => Math.log((n - b + alpha) / (n + 2 * alpha))));
  const logPrior = counts.map((n) => Math.log((n + alpha) / (rows + k * alpha)));
  return { kind: 'naive-bayes', classes: k, logPrior, gaussian, mean, variance, bernoulli, logP, logQ };
}

export function predictNaiveBayes(state: NaiveBayesState, x: Matrix): Prediction[] {
  const k = state.classes;
  // Per class: log-likelihood of an all-zero fingerprint and the Gaussian normalising constants.
  const base = state.logPrior.map((lp, c) => {
    let s = lp;
    for (const q of state.logQ[c]) s += q;
    for (const v of state.variance[c]) s -= 0.5 * Math.log(2 * Math.PI * v);
    return s;
  });
  const out: Prediction[] = [];
  for (let r = 0; r < x.rows; r++) {
    const o = r * x.cols;
    const logs = base.slice();
    for (let c = 0; c < k; c++) {
      const m = state.mean[c];
      const v = state.variance[c];
      for (let j = 0; j < state.gaussian.length; j++) {
        const d = x.data[o + state.gaussian[j]] - m[j];
        logs[c] -= (d * d) / (2 * v[j]);
      }
      const lp = state.logP[c];
      const lq = state.logQ[c];
      for (let j = 0; j < state.bernoulli.length; j++) {
        const b = Math.min(1, Math.max(0, x.data[o + state.bernoulli[j]]));
        if (b > 0) logs[c] += b * (lp[j] - lq[j]);
      }
    }
    const probabilities = softmax(logs);
    const value = argmax(probabilities);
    out.push({ value, confidence: probabilities[value], probabilities });
  }
  return out;
}

export const naiveBayes: Learner = {
  id: 'naive-bayes',
  title: 'Naive Bayes',
  description:
    'Naive Bayes with Gaussian likelihoods for numeric descriptors and Bernoulli likelihoods for binary (fingerprint) columns; Laplace smoothing, a variance floor, probabilities normalised in log space.',
  task: 'classification',
  types: ['Classification'],
  sameAs: undefined,
  parameters: [
    {
      name: 'alpha',
      description: 'Laplace (additive) smoothing of the class priors and the fingerprint bit probabilities',
      type: 'number',
      default: 1,
      min: 0.001,
      max: 100,
    },
    {
      name: 'varianceFloor',
      description: "Added to every within-class variance, as a fraction of the column's overall variance",
      type: 'number',
      default: 0.01,
      min: 1e-9,
      max: 10,
    },
  ],
  async train(data: TrainingData, params: Record<string, ParamValue>) {
    return trainNaiveBayes(data, Number(params.alpha), Number(params.varianceFloor));
  },
  predict(state: unknown, x: Matrix): Prediction[] {
    return predictNaiveBayes(state as NaiveBayesState, x);
  },
};
