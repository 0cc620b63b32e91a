import type { LearningTask } from '../learning/learner.ts';

/** How reports name the statistics of DESIGN.md's validation vocabulary, in the order they are shown. */
export const REGRESSION_LABELS: [string, string][] = [
  ['rSquare', 'R² (coefficient of determination)'],
  ['q2', 'Q² (of the pooled cross-validated predictions)'],
  ['rootMeanSquaredError', 'RMSE (root mean squared error)'],
  ['meanAbsoluteError', 'MAE (mean absolute error)'],
  ['sampleCorrelationCoefficient', 'Pearson r'],
  ['concordanceCorrelationCoefficient', 'concordance correlation coefficient'],
  ['sumSquaredError', 'sum of squared errors'],
  ['targetVarianceActual', 'variance of the actual values'],
  ['targetVariancePredicted', 'variance of the predictions'],
  ['weightedRSquare', 'R², weighted by confidence'],
  ['weightedRootMeanSquaredError', 'RMSE, weighted by confidence'],
  ['weightedMeanAbsoluteError', 'MAE, weighted by confidence'],
  ['weightedSampleCorrelationCoefficient', 'Pearson r, weighted by confidence'],
  ['weightedConcordanceCorrelationCoefficient', 'concordance correlation coefficient, weighted by confidence'],
];

export const CLASSIFICATION_LABELS: [string, string][] = [
  ['accuracy', 'accuracy'],
  ['weightedAccuracy', 'accuracy, weighted by confidence'],
  ['averageAreaUnderRoc', 'AUC (area under the ROC curve, class-weighted mean)'],
  ['matthewsCorrelationCoefficient', 'MCC (Matthews correlation coefficient)'],
  ['numCorrect', 'correct predictions'],
  ['numIncorrect', 'incorrect predictions'],
  ['percentCorrect', 'correct predictions (%)'],
  ['percentIncorrect', 'incorrect predictions (%)'],
];

export const COUNT_LABELS: [string, string][] = [
  ['numInstances', 'test rows'],
  ['numUnpredicted', 'rows not predicted (outside what the model can predict)'],
  ['numWithoutClass', 'rows without an actual value'],
  ['percentUnpredicted', 'rows not predicted (%)'],
  ['percentWithoutClass', 'rows without an actual value (%)'],
];

/** Per-class statistics: key and column title. */
export const CLASS_VALUE_COLUMNS: [string, string][] = [
  ['numTruePositives', 'TP'],
  ['numFalsePositives', 'FP'],
  ['numTrueNegatives', 'TN'],
  ['numFalseNegatives', 'FN'],
  ['truePositiveRate', 'sensitivity'],
  ['trueNegativeRate', 'specificity'],
  ['positivePredictiveValue', 'precision'],
  ['negativePredictiveValue', 'NPV'],
  ['fMeasure', 'F1'],
  ['areaUnderRoc', 'AUC'],
];

/** Per-class statistics that reports leave out of their tables, named for the pages. */
export const MORE_CLASS_VALUE_LABELS: [string, string][] = [
  ['falsePositiveRate', 'false positive rate'],
  ['falseNegativeRate', 'false negative rate'],
];

/** The statistics compared across folds and algorithms, with short names. */
export function keyStatistics(task: LearningTask): [string, string][] {
  return task === 'regression'
    ? [
        ['rSquare', 'R²'],
        ['rootMeanSquaredError', 'RMSE'],
        ['meanAbsoluteError', 'MAE'],
        ['sampleCorrelationCoefficient', 'Pearson r'],
      ]
    : [
        ['accuracy', 'accuracy'],
        ['averageAreaUnderRoc', 'AUC'],
        ['matthewsCorrelationCoefficient', 'MCC'],
        ['weightedAccuracy', 'weighted accuracy'],
      ];
}

/** Statistics where smaller is better. */
export const LOWER_IS_BETTER = new Set(['rootMeanSquaredError', 'meanAbsoluteError', 'sumSquaredError', 'weightedRootMeanSquaredError', 'weightedMeanAbsoluteError']);

export function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** The sample standard deviation (n − 1). */
export function standardDeviation(values: number[]): number {
  if (values.length < 2) return Number.NaN;
  const m = mean(values);
  return Math.sqrt(values.reduce((a, v) => a + (v - m) ** 2, 0) / (values.length - 1));
}
