/**
 * Conformal prediction: intervals (regression) and prediction sets (classification) with a
 * guaranteed error rate. Under exchangeability, a set made at confidence level 1 − α misses the
 * true value for at most a fraction α of new compounds (Vovk, Gammerman & Shafer 2005).
 *
 * Three ways to calibrate any learner, chosen by `conformal`:
 * - `split` (inductive conformal prediction, Papadopoulos 2002): the learner is trained on a
 *   proper training set, and its nonconformity scores on the rest (`calibration_fraction`) are
 *   the calibration; the guarantee is exact (at least 1 − α);
 * - `cv+` (Barber, Candès, Ramdas & Tibshirani 2021; for classes, Vovk's cross-conformal
 *   predictors 2015): `calibration_sets` folds; every row is scored by the model that did not see
 *   it, and a new compound's interval is built from every fold model's prediction of it. The
 *   guarantee is at least 1 − 2α, and about 1 − α in practice;
 * - `jackknife+` (Barber et al. 2021), for learners that compute every training row's
 *   leave-one-out prediction (read-across): those residuals calibrate, and a new compound's
 *   interval is built from the n leave-one-out models' predictions of it; at least 1 − 2α,
 *   about 1 − α in practice; the model is trained once;
 * - `aggregated` (Carlsson, Eklund & Norinder 2014): `calibration_sets` split calibrations on
 *   random splits; p-values are averaged, interval bounds are the medians of the sets'.
 *
 * Regression scores are absolute residuals |y − ŷ|, optionally divided by a difficulty σ(x)
 * (`conformal_normalisation`): the spread of a forest's trees, or the mean distance to the k
 * nearest training compounds, each plus β (a tenth of its median over the calibration rows), so
 * that easy compounds get narrow intervals and hard ones wide. Classification is Mondrian
 * (class-conditional): a class's p-value is computed from the calibration rows of that class
 * alone, so the guarantee holds per class, however unbalanced the classes are. The score of a
 * class is 1 − the learner's probability of it.
 *
 * Everything here is a pure function of plain data: it runs on the worker pool.
 */
import type { ParameterSpec, ParamValue } from './learner.ts';

export const CONFORMAL_METHODS = ['none', 'split', 'cv+', 'aggregated', 'jackknife+'] as const;
export type ConformalMethod = (typeof CONFORMAL_METHODS)[number];
export const NORMALISATIONS = ['none', 'knn', 'spread'] as const;
export type Normalisation = (typeof NORMALISATIONS)[number];

/** The most confidence levels one model states (each adds features to every prediction). */
export const MAX_LEVELS = 9;
/** Neighbours of the k-NN difficulty estimate. */
export const DIFFICULTY_NEIGHBOURS = 5;

/** The parameters every supervised learner takes besides its own (catalogue.ts adds them). */
export const CONFORMAL_PARAMETERS: ParameterSpec[] = [
  {
    name: 'conformal',
    description:
      'Conformal prediction (inside algorithm_params write cv%2B: a + there is a space): every prediction also gets an interval (regression) or a prediction set with class p-values (classification, Mondrian: per class) that misses the true value for at most 1 − confidence_level of new compounds. none; split (a calibration set held out of training: an exact guarantee); cv+ (calibration_sets folds, every row calibrates: guarantee at least 1 − 2α, about 1 − α in practice, narrower); aggregated (calibration_sets random splits, p-values averaged, bounds as medians); jackknife+ (read-across: its leave-one-out residuals calibrate, the model trained once: at least 1 − 2α, about 1 − α in practice)',
    type: 'string',
    default: 'none',
    choices: [...CONFORMAL_METHODS],
  },
  {
    name: 'confidence_level',
    description: `The confidence level(s) of the intervals and sets: one or more numbers between 0 and 1, comma-separated (at most ${MAX_LEVELS})`,
    type: 'string',
    default: '0.9',
  },
  { name: 'calibration_fraction', description: 'split and aggregated: the share of the training rows held out to calibrate', type: 'number', default: 0.25, greaterThan: 0, lessThan: 1 },
  { name: 'calibration_sets', description: 'cv+: the number of folds; aggregated: the number of random calibration sets', type: 'integer', default: 5, min: 2, max: 20 },
  {
    name: 'conformal_normalisation',
    description: `Regression: divide each residual by a difficulty estimate of its compound: none; knn (the mean Euclidean distance to the ${DIFFICULTY_NEIGHBOURS} nearest training compounds on standardised descriptors; on fingerprints 1 − the Tanimoto similarity of the nearest one); spread (the standard deviation of a random forest's trees, or of the values a read-across's neighbours give, similarity-weighted)`,
    type: 'string',
    default: 'none',
    choices: [...NORMALISATIONS],
  },
];

/** The confidence levels of `confidence_level`, ascending, distinct; a RangeError naming the problem. */
export function confidenceLevels(text: ParamValue): number[] {
  const parts = String(text)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s);
  if (!parts.length) throw new RangeError('confidence_level: give one or more numbers between 0 and 1');
  const levels = parts.map((s) => {
    const v = Number(s);
    if (!/^[0-9.eE+-]+$/.test(s) || !(v > 0 && v < 1)) throw new RangeError(`confidence_level: ${s.slice(0, 40)} is not a number between 0 and 1 (exclusive)`);
    return v;
  });
  // levels are named to six significant digits (features, columns): closer ones are one level
  const distinct = [...new Set(levels.map((v) => Number(v.toPrecision(6))))].sort((a, b) => a - b);
  if (distinct.length > MAX_LEVELS) throw new RangeError(`confidence_level: at most ${MAX_LEVELS} levels`);
  return distinct;
}

/**
 * The conformal quantile of ascending scores at significance α: the ⌈(n + 1)(1 − α)⌉-th
 * smallest, Infinity when that rank exceeds n (too few calibration rows for the level: the
 * interval is then unbounded, as the guarantee demands).
 */
export function conformalQuantile(ascending: ArrayLike<number>, alpha: number): number {
  const n = ascending.length;
  // (n + 1)(1 − α) computed in floating point may land a hair above an integer
  const rank = Math.ceil((n + 1) * (1 - alpha) - 1e-9);
  if (rank > n) return Number.POSITIVE_INFINITY;
  return ascending[Math.max(1, rank) - 1];
}

/** How many of the ascending scores are at least `score`. */
export function countAtLeast(ascending: ArrayLike<number>, score: number): number {
  let lo = 0;
  let hi = ascending.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ascending[mid] < score) lo = mid + 1;
    else hi = mid;
  }
  return ascending.length - lo;
}

/** The (conservative) conformal p-value of a score among calibration scores: (#{scores ≥ score} + 1) / (n + 1). */
export function pValue(ascending: ArrayLike<number>, score: number): number {
  return (countAtLeast(ascending, score) + 1) / (ascending.length + 1);
}

/** Class scores: 1 − the probability the learner gives the class (one-hot for a learner that gives none). */
export function classScore(probabilities: number[] | undefined, predicted: number, k: number): number {
  if (probabilities?.length) return 1 - (probabilities[k] ?? 0);
  return predicted === k ? 0 : 1;
}

/** One calibrated model: its own state (none: the model's main state), its difficulty estimator and its scores. */
export interface CalibrationPart {
  /** The learner's state of this part's model (cv+ folds, aggregated sets); absent: the main model (split). */
  state?: unknown;
  /** k-NN difficulty: the applicability-domain state fitted on this part's training rows. */
  difficulty?: unknown;
  /** Added to every difficulty estimate (a tenth of its median over the calibration rows). */
  beta?: number;
  /** Regression: the calibration rows' (normalised) scores, ascending. */
  scores?: number[];
  /** Classification: per class index, the scores of the calibration rows of that class, ascending. */
  classScores?: number[][];
}

export interface ConformalState {
  method: Exclude<ConformalMethod, 'none'>;
  task: 'regression' | 'classification';
  levels: number[];
  normalisation: Normalisation;
  parts: CalibrationPart[];
  /** Calibration rows in all (n of the guarantee). */
  calibrationRows: number;
}

/** What one part's model says of the rows to predict: values (regression), class scores (classification), difficulties. */
export interface PartOutput {
  values?: number[];
  /** Per row, per class index: the class score. */
  classScores?: number[][];
  /** Per row: σ(x), the difficulty plus β (1 without normalisation). */
  sigma?: number[];
}

/** A row's conformal answer as read back from its features' values: per level the interval, or per class label its p-value. */
export interface ConformalObservation {
  intervals?: [number, number][];
  pValues?: Map<string, number>;
}

/** One row's conformal answer: per level an interval (regression), or class p-values and per level a set of class indices. */
export interface ConformalAnswer {
  intervals?: [number, number][];
  pValues?: number[];
  sets?: number[][];
}

/** The intervals of one row at each level (ascending levels) from every part's output. */
export function regressionIntervals(state: ConformalState, outputs: PartOutput[], row: number): [number, number][] {
  const alphas = state.levels.map((l) => 1 - l);
  if (state.method === 'split' || state.method === 'aggregated') {
    const each = state.parts.map((part, p) => {
      const y = outputs[p].values![row];
      const sigma = outputs[p].sigma?.[row] ?? 1;
      return alphas.map((alpha): [number, number] => {
        const q = conformalQuantile(part.scores!, alpha) * sigma;
        return [y - q, y + q];
      });
    });
    if (each.length === 1) return each[0];
    return alphas.map((_, l) => [median(each.map((e) => e[l][0])), median(each.map((e) => e[l][1]))]);
  }
  // cv+: the fold model that did not see calibration row i predicts the new compound, ± its score
  const n = state.parts.reduce((sum, part) => sum + part.scores!.length, 0);
  const lower = new Float64Array(n);
  const upper = new Float64Array(n);
  let i = 0;
  state.parts.forEach((part, p) => {
    const y = outputs[p].values![row];
    const sigma = outputs[p].sigma?.[row] ?? 1;
    for (const r of part.scores!) {
      lower[i] = -(y - sigma * r);
      upper[i++] = y + sigma * r;
    }
  });
  // a typed array sorts numerically without a comparator (a NaN, from a part that could not predict, sorts last)
  lower.sort();
  upper.sort();
  return alphas.map((alpha) => [-conformalQuantile(lower, alpha), conformalQuantile(upper, alpha)]);
}

/** The class p-values of one row (Mondrian): per part, or summed over cv+ folds (cross-conformal), or averaged (aggregated). */
export function classPValues(state: ConformalState, outputs: PartOutput[], row: number, classes: number): number[] {
  return Array.from({ length: classes }, (_, k) => {
    if (state.method === 'cv+') {
      let atLeast = 0;
      let n = 0;
      state.parts.forEach((part, p) => {
        const scores = part.classScores![k] ?? [];
        atLeast += countAtLeast(scores, outputs[p].classScores![row][k]);
        n += scores.length;
      });
      return (atLeast + 1) / (n + 1);
    }
    const each = state.parts.map((part, p) => pValue(part.classScores![k] ?? [], outputs[p].classScores![row][k]));
    return each.reduce((a, b) => a + b, 0) / each.length;
  });
}

/** The prediction set at level 1 − α: the classes whose p-value exceeds α. */
export function predictionSet(pValues: number[], level: number): number[] {
  const alpha = 1 - level;
  return pValues.flatMap((p, k) => (p > alpha + 1e-12 ? [k] : []));
}

/** Every row's conformal answer. */
export function conformalAnswers(state: ConformalState, outputs: PartOutput[], rows: number, classes: number): ConformalAnswer[] {
  return Array.from({ length: rows }, (_, r): ConformalAnswer => {
    if (state.task === 'regression') return { intervals: regressionIntervals(state, outputs, r) };
    const pValues = classPValues(state, outputs, r, classes);
    return { pValues, sets: state.levels.map((l) => predictionSet(pValues, l)) };
  });
}

/** β of a part: a tenth of the median difficulty over its calibration rows (never 0). */
export function difficultyBeta(difficulties: number[]): number {
  const m = median(difficulties.filter(Number.isFinite));
  return Number.isFinite(m) && m > 0 ? m / 10 : 1e-6;
}

export function median(values: number[]): number {
  if (!values.length) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** A set of class labels as one value: `{active}`, `{active, inactive}`, `{}` (empty: no class is likely enough). */
export function setLabel(set: number[], classes: string[]): string {
  return `{${set.map((k) => classes[k]).join(', ')}}`;
}

/** What a part's predictions of rows give the conformal answers: values or class scores, and σ (difficulty + β). */
export function partOutput(
  state: Pick<ConformalState, 'task'>,
  predictions: { value: number; probabilities?: number[] }[],
  difficulty: number[] | undefined,
  beta: number | undefined,
  classes: number,
): PartOutput {
  const sigma = difficulty?.map((d) => (Number.isFinite(d) ? d : 0) + (beta ?? 0));
  if (state.task === 'regression') return { values: predictions.map((p) => p.value), sigma };
  return { classScores: predictions.map((p) => Array.from({ length: classes }, (_, k) => classScore(p.probabilities, p.value, k))) };
}

/** A level as people write it: 0.9 → "90 %". */
export const percent = (level: number) => `${Number((level * 100).toPrecision(6))} %`;

/** What a calibration guarantees, in words, for its method and task (the error rates are 1 − each level). */
export function guaranteeText(state: { method: ConformalState['method']; task?: ConformalState['task']; levels: number[] }): string {
  const rates = state.levels.map((l) => percent(1 - l)).join(', ');
  const doubled = state.levels.map((l) => percent(Math.min(1, 2 * (1 - l)))).join(', ');
  const what = state.task === 'regression' ? 'the interval' : state.task === 'classification' ? 'the prediction set (Mondrian: within each class)' : 'the interval or set';
  switch (state.method) {
    case 'split':
      return `under exchangeability ${what} misses the true value for at most ${rates} of new compounds`;
    case 'cv+':
    case 'jackknife+':
      return `under exchangeability ${what} misses the true value for at most ${doubled} of new compounds (${state.method} guarantees twice the error rate), and for about ${rates} in practice`;
    case 'aggregated':
      return `${what} misses the true value for about ${rates} of new compounds in practice; aggregated conformal prediction, which combines several split calibrations, has no finite-sample guarantee`;
  }
}
