/**
 * Statistics of a model validation: pure functions of (actual, predicted, confidence) triples,
 * without dependencies. Result keys are the names of the OpenTox validation vocabulary
 * (DESIGN.md, "Validation vocabulary"), so each key becomes `ot:<key>` in RDF.
 *
 * Conventions:
 * - Counts are over all instances; every other statistic is over the *predicted* instances,
 *   those with both an actual value and a prediction.
 * - Undefined values: a statistic whose formula divides zero by zero (or by zero at all, or
 *   takes the mean of nothing) is OMITTED from the result object (the property is absent, so no
 *   triple is written), never NaN and never replaced by a guess. This is deliberately uniform;
 *   scikit-learn instead returns 0 for precision/recall/F with `zero_division` and for MCC,
 *   returns 1 or 0 for R² with `force_finite`, NaN for a Pearson r of a constant, and raises for
 *   the AUC of a class with no positives or no negatives. The reference values cover no such
 *   case, so none of these conventions is contradicted.
 * - Q²: a cross-validation pools the predictions of all folds and computes these statistics
 *   once over the pool; the `rSquare` of pooled cross-validated predictions IS Q²
 *   (1 − PRESS / SStot), so there is no separate function for it.
 */

/** One classification prediction; `undefined` (or null) marks a missing value. */
export interface ClassInstance {
  actual: string | undefined;
  predicted: string | undefined;
  /** Confidence of the prediction, finite and ≥ 0 (only read for predicted instances). */
  confidence: number;
}

/** One regression prediction; `undefined`, null or NaN marks a missing value. */
export interface NumericInstance {
  actual: number | undefined;
  predicted: number | undefined;
  /** Confidence of the prediction, finite and ≥ 0 (only read for predicted instances). */
  confidence: number;
}

/** Counts of a validation; percentages are of `numInstances` (omitted when it is 0). */
export interface ValidationCounts {
  numInstances: number;
  /** Instances whose actual value is missing. */
  numWithoutClass: number;
  /** Instances with an actual value but no prediction. */
  numUnpredicted: number;
  percentWithoutClass?: number;
  percentUnpredicted?: number;
}

/** One-vs-rest statistics of one class value; rates are omitted when their denominator is 0. */
export interface ClassValueStatistics {
  numTruePositives: number;
  numTrueNegatives: number;
  numFalsePositives: number;
  numFalseNegatives: number;
  /** TP / (TP + FN), recall, sensitivity. */
  truePositiveRate?: number;
  /** TN / (TN + FP), specificity. */
  trueNegativeRate?: number;
  /** FP / (FP + TN). */
  falsePositiveRate?: number;
  /** FN / (TP + FN). */
  falseNegativeRate?: number;
  /** TP / (TP + FP), precision. */
  positivePredictiveValue?: number;
  /** TN / (TN + FN). */
  negativePredictiveValue?: number;
  /** 2TP / (2TP + FP + FN), the harmonic mean of precision and recall. */
  fMeasure?: number;
  /**
   * Wilcoxon-Mann-Whitney AUC of the signed confidence (+confidence when this class is
   * predicted, −confidence otherwise) with this class as positive; ties count one half.
   * Omitted when the class has no actual positives or no actual negatives.
   */
  areaUnderRoc?: number;
}

export interface ClassificationStatistics extends ValidationCounts {
  numCorrect: number;
  numIncorrect: number;
  /** 100 · numCorrect / predicted instances. */
  percentCorrect?: number;
  percentIncorrect?: number;
  /** numCorrect / predicted instances. */
  accuracy?: number;
  /** Σ conf · [correct] / Σ conf. */
  weightedAccuracy?: number;
  /** Σ_c n_c · AUC_c / Σ_c n_c, with n_c the actual count of class c. */
  averageAreaUnderRoc?: number;
  /** Multiclass Matthews correlation (Gorodkin's R_K), as scikit-learn's matthews_corrcoef. */
  matthewsCorrelationCoefficient?: number;
  /** confusionMatrix[actual][predicted] = count, every cell over the classes, zeros included. */
  confusionMatrix: Record<string, Record<string, number>>;
  classValueStatistics: Record<string, ClassValueStatistics>;
}

/**
 * Regression statistics over n predicted instances with errors e = actual − predicted,
 * y = actual, p = predicted, w = confidence, W = Σw; ȳ, p̄ unweighted means; ȳ_w, p̄_w weighted
 * means (Σw·y / W).
 */
export interface RegressionStatistics extends ValidationCounts {
  /** Σe² (0 over no instances). */
  sumSquaredError: number;
  /** √(Σe² / n). */
  rootMeanSquaredError?: number;
  /** Σ|e| / n. */
  meanAbsoluteError?: number;
  /** 1 − Σe² / Σ(y − ȳ)²; over pooled cross-validation predictions this is Q². */
  rSquare?: number;
  /** Pearson r = Σ(y − ȳ)(p − p̄) / √(Σ(y − ȳ)² · Σ(p − p̄)²). */
  sampleCorrelationCoefficient?: number;
  /**
   * Lin's concordance correlation with population (1/n) moments:
   * 2·s_yp / (s_y² + s_p² + (ȳ − p̄)²) = 2Σ(y−ȳ)(p−p̄) / (Σ(y−ȳ)² + Σ(p−p̄)² + n(ȳ−p̄)²).
   */
  concordanceCorrelationCoefficient?: number;
  /** Sample variance Σ(y − ȳ)² / (n − 1). */
  targetVarianceActual?: number;
  /** Sample variance Σ(p − p̄)² / (n − 1). */
  targetVariancePredicted?: number;
  /** √(Σw·e² / W). */
  weightedRootMeanSquaredError?: number;
  /** Σw·|e| / W. */
  weightedMeanAbsoluteError?: number;
  /**
   * 1 − Σw·e² / Σw·(y − ȳ)², with the UNWEIGHTED mean ȳ in the total sum of squares: this is
   * the definition that reproduces the reference values exactly (scikit-learn's
   * r2_score(sample_weight=w) centres on ȳ_w instead and differs from the reference by ~2e-5).
   * Equals rSquare when all confidences are equal.
   */
  weightedRSquare?: number;
  /**
   * Weighted Pearson r: Σw(y − ȳ_w)(p − p̄_w) / √(Σw(y − ȳ_w)² · Σw(p − p̄_w)²).
   * Equals sampleCorrelationCoefficient when all confidences are equal.
   */
  weightedSampleCorrelationCoefficient?: number;
  /**
   * Weighted Lin's CCC with moments normalised by W:
   * 2·Σw(y−ȳ_w)(p−p̄_w) / (Σw(y−ȳ_w)² + Σw(p−p̄_w)² + W(ȳ_w − p̄_w)²).
   * Equals concordanceCorrelationCoefficient when all confidences are equal.
   */
  weightedConcordanceCorrelationCoefficient?: number;
}

/** Neumaier-compensated sum of f(i) for i in [0, n). */
function sum(n: number, f: (i: number) => number): number {
  let s = 0;
  let c = 0;
  for (let i = 0; i < n; i++) {
    const x = f(i);
    const t = s + x;
    c += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s;
    s = t;
  }
  return s + c;
}

/**
 * a / b, or undefined when b is 0 or the quotient is not finite. Means over no instances (or
 * of zero total weight) are NaN, so every statistic built on them comes out undefined here.
 */
function ratio(a: number, b: number): number | undefined {
  if (b === 0) return undefined;
  const r = a / b;
  return Number.isFinite(r) ? r : undefined;
}

/** Copies obj without its undefined properties, so that undefined statistics are absent keys. */
function defined<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

function checkConfidence(confidence: number): void {
  if (!Number.isFinite(confidence) || confidence < 0) {
    throw new RangeError(`confidence must be a finite number ≥ 0, not ${confidence}`);
  }
}

function counts(numInstances: number, numWithoutClass: number, numUnpredicted: number): ValidationCounts {
  return {
    numInstances,
    numWithoutClass,
    numUnpredicted,
    percentWithoutClass: ratio(100 * numWithoutClass, numInstances),
    percentUnpredicted: ratio(100 * numUnpredicted, numInstances),
  };
}

/**
 * Wilcoxon-Mann-Whitney AUC of scores with labels (true = positive), ties one half:
 * (rank sum of positives − P(P+1)/2) / (P·N) with mid-ranks for ties. O(n log n).
 */
export function areaUnderRoc(scores: readonly number[], positive: readonly boolean[]): number | undefined {
  const order = scores.map((_, i) => i).sort((a, b) => scores[a] - scores[b]);
  let positives = 0;
  let rankSum = 0;
  for (let start = 0; start < order.length; ) {
    let end = start + 1;
    while (end < order.length && scores[order[end]] === scores[order[start]]) end++;
    const midRank = (start + 1 + end) / 2; // ranks start+1 … end share their mean
    for (let k = start; k < end; k++) {
      if (positive[order[k]]) {
        positives++;
        rankSum += midRank;
      }
    }
    start = end;
  }
  const negatives = order.length - positives;
  return ratio(rankSum - (positives * (positives + 1)) / 2, positives * negatives);
}

/**
 * The ROC curve of scores with labels: (false-positive rate, true-positive rate) from (0, 0) to
 * (1, 1), one point per distinct score (ties move diagonally); its area is `areaUnderRoc`.
 */
export function rocCurve(scores: readonly number[], positive: readonly boolean[]): [number, number][] {
  const order = scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a]);
  const p = positive.filter((x) => x).length;
  const n = positive.length - p;
  if (!p || !n) return [];
  const points: [number, number][] = [[0, 0]];
  let tp = 0;
  let fp = 0;
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end < order.length && scores[order[end]] === scores[order[start]]) {
      if (positive[order[end]]) tp++;
      else fp++;
      end++;
    }
    points.push([fp / n, tp / p]);
    start = end;
  }
  return points;
}

/** The score of an instance for class `c` that the per-class ROC and AUC rank by: the confidence when `c` was predicted, minus it otherwise. */
export function classScore(instance: { predicted: string; confidence: number }, c: string): number {
  return instance.predicted === c ? instance.confidence : -instance.confidence;
}

const isMissing = (v: unknown): boolean => v === undefined || v === null;

/**
 * Classification statistics. Classes are `classes` when given (every actual and predicted value
 * must be one of them; extra classes get zero rows and columns), otherwise the sorted union of
 * the actual and predicted values of the predicted instances.
 */
export function classificationStatistics(instances: readonly ClassInstance[], classes?: readonly string[]): ClassificationStatistics {
  const predicted = instances.filter((x) => !isMissing(x.actual) && !isMissing(x.predicted)) as { actual: string; predicted: string; confidence: number }[];
  const numWithoutClass = instances.filter((x) => isMissing(x.actual)).length;
  const base = counts(instances.length, numWithoutClass, instances.length - numWithoutClass - predicted.length);
  for (const x of predicted) checkConfidence(x.confidence);

  const classList = classes ? [...classes] : [...new Set(predicted.flatMap((x) => [x.actual, x.predicted]))].sort();
  const index = new Map(classList.map((c, i) => [c, i]));
  if (index.size !== classList.length) throw new RangeError('classes must be distinct');
  const k = classList.length;
  const n = predicted.length;

  // matrix[a][p] counts instances of actual class a predicted as p
  const matrix = classList.map(() => new Array<number>(k).fill(0));
  for (const x of predicted) {
    const a = index.get(x.actual);
    const p = index.get(x.predicted);
    if (a === undefined || p === undefined) {
      throw new RangeError(`class value ${a === undefined ? x.actual : x.predicted} is not one of the classes`);
    }
    matrix[a][p]++;
  }
  const actualCount = matrix.map((row) => row.reduce((s, v) => s + v, 0));
  const predictedCount = classList.map((_, j) => matrix.reduce((s, row) => s + row[j], 0));
  const numCorrect = classList.reduce((s, _, i) => s + matrix[i][i], 0);
  const numIncorrect = n - numCorrect;

  const aucs = classList.map((c) =>
    areaUnderRoc(
      predicted.map((x) => classScore(x, c)),
      predicted.map((x) => x.actual === c),
    ),
  );
  // Classes without actual instances weigh 0; any other class without an AUC leaves the average undefined.
  const weighted = classList.map((_, i) => (actualCount[i] === 0 ? 0 : aucs[i] === undefined ? NaN : actualCount[i] * aucs[i]!));
  const averageAreaUnderRoc = ratio(
    sum(k, (i) => weighted[i]),
    n,
  );

  // Matthews correlation over the k×k matrix: (c·s − Σ p_k t_k) / √((s² − Σ p_k²)(s² − Σ t_k²)).
  const covAP = numCorrect * n - classList.reduce((s, _, i) => s + actualCount[i] * predictedCount[i], 0);
  const covPP = n * n - predictedCount.reduce((s, v) => s + v * v, 0);
  const covAA = n * n - actualCount.reduce((s, v) => s + v * v, 0);

  const classValueStatistics = classList.map((_, i): ClassValueStatistics => {
    const tp = matrix[i][i];
    const fn = actualCount[i] - tp;
    const fp = predictedCount[i] - tp;
    const tn = n - tp - fn - fp;
    return defined({
      numTruePositives: tp,
      numTrueNegatives: tn,
      numFalsePositives: fp,
      numFalseNegatives: fn,
      truePositiveRate: ratio(tp, tp + fn),
      trueNegativeRate: ratio(tn, tn + fp),
      falsePositiveRate: ratio(fp, fp + tn),
      falseNegativeRate: ratio(fn, tp + fn),
      positivePredictiveValue: ratio(tp, tp + fp),
      negativePredictiveValue: ratio(tn, tn + fn),
      fMeasure: ratio(2 * tp, 2 * tp + fp + fn),
      areaUnderRoc: aucs[i],
    });
  });

  return defined({
    ...base,
    numCorrect,
    numIncorrect,
    percentCorrect: ratio(100 * numCorrect, n),
    percentIncorrect: ratio(100 * numIncorrect, n),
    accuracy: ratio(numCorrect, n),
    weightedAccuracy: ratio(
      sum(n, (i) => (predicted[i].actual === predicted[i].predicted ? predicted[i].confidence : 0)),
      sum(n, (i) => predicted[i].confidence),
    ),
    averageAreaUnderRoc,
    matthewsCorrelationCoefficient: ratio(covAP, Math.sqrt(covAA) * Math.sqrt(covPP)),
    confusionMatrix: Object.fromEntries(classList.map((a, i) => [a, Object.fromEntries(classList.map((p, j) => [p, matrix[i][j]]))])),
    classValueStatistics: Object.fromEntries(classList.map((c, i) => [c, classValueStatistics[i]])),
  });
}

/** Regression statistics (see RegressionStatistics for every formula). Sums are two-pass and compensated. */
export function regressionStatistics(instances: readonly NumericInstance[]): RegressionStatistics {
  const missing = (v: number | undefined) => isMissing(v) || Number.isNaN(v);
  const predicted = instances.filter((x) => !missing(x.actual) && !missing(x.predicted)) as { actual: number; predicted: number; confidence: number }[];
  const numWithoutClass = instances.filter((x) => missing(x.actual)).length;
  const base = counts(instances.length, numWithoutClass, instances.length - numWithoutClass - predicted.length);
  for (const x of predicted) checkConfidence(x.confidence);

  const n = predicted.length;
  const y = predicted.map((x) => x.actual);
  const p = predicted.map((x) => x.predicted);
  const w = predicted.map((x) => x.confidence);
  const e = predicted.map((x) => x.actual - x.predicted);
  const W = sum(n, (i) => w[i]);

  const sse = sum(n, (i) => e[i] * e[i]);
  const yMean = sum(n, (i) => y[i]) / n;
  const pMean = sum(n, (i) => p[i]) / n;
  const syy = sum(n, (i) => (y[i] - yMean) ** 2);
  const spp = sum(n, (i) => (p[i] - pMean) ** 2);
  const syp = sum(n, (i) => (y[i] - yMean) * (p[i] - pMean));

  const wsse = sum(n, (i) => w[i] * e[i] * e[i]);
  const yMeanW = sum(n, (i) => w[i] * y[i]) / W;
  const pMeanW = sum(n, (i) => w[i] * p[i]) / W;
  const wyy = sum(n, (i) => w[i] * (y[i] - yMeanW) ** 2);
  const wpp = sum(n, (i) => w[i] * (p[i] - pMeanW) ** 2);
  const wyp = sum(n, (i) => w[i] * (y[i] - yMeanW) * (p[i] - pMeanW));
  const wyyAroundMean = sum(n, (i) => w[i] * (y[i] - yMean) ** 2);

  const root = (v: number | undefined) => (v === undefined ? undefined : Math.sqrt(v));
  const oneMinus = (v: number | undefined) => (v === undefined ? undefined : 1 - v);
  return defined({
    ...base,
    sumSquaredError: sse,
    rootMeanSquaredError: root(ratio(sse, n)),
    meanAbsoluteError: ratio(
      sum(n, (i) => Math.abs(e[i])),
      n,
    ),
    rSquare: oneMinus(ratio(sse, syy)),
    sampleCorrelationCoefficient: ratio(syp, Math.sqrt(syy) * Math.sqrt(spp)),
    concordanceCorrelationCoefficient: ratio(2 * syp, syy + spp + n * (yMean - pMean) ** 2),
    targetVarianceActual: n < 2 ? undefined : syy / (n - 1),
    targetVariancePredicted: n < 2 ? undefined : spp / (n - 1),
    weightedRootMeanSquaredError: root(ratio(wsse, W)),
    weightedMeanAbsoluteError: ratio(
      sum(n, (i) => w[i] * Math.abs(e[i])),
      W,
    ),
    weightedRSquare: oneMinus(ratio(wsse, wyyAroundMean)),
    weightedSampleCorrelationCoefficient: ratio(wyp, Math.sqrt(wyy) * Math.sqrt(wpp)),
    weightedConcordanceCorrelationCoefficient: ratio(2 * wyp, wyy + wpp + W * (yMeanW - pMeanW) ** 2),
  });
}
