import { formatNumber } from '../rdf/html.ts';
import type { ValidationRecord } from './validation-record.ts';

/**
 * What a validation's statistics are to be read against: the figures of a model that learnt
 * nothing, on the same rows. Classification: always predicting the majority class of the
 * validated rows (its accuracy is that class's share). Regression: always predicting the mean of
 * the validated rows' actual values (R² 0, RMSE their standard deviation with n in the
 * denominator). Made from the stored statistics (the per-class counts, the target's variance), so
 * every validation already stored has one.
 */
export type Baseline = { kind: 'majority class'; classValue: string; accuracy: number; rows: number } | { kind: 'mean predictor'; rootMeanSquaredError: number; rSquare: 0; rows: number };

/** The classification baseline from each class's actual count (true positives plus false negatives). */
export function majorityBaseline(classCounts: { classValue: string; count: number }[]): Baseline | undefined {
  const rows = classCounts.reduce((s, c) => s + c.count, 0);
  if (!rows) return undefined;
  const top = classCounts.reduce((a, b) => (b.count > a.count ? b : a));
  return { kind: 'majority class', classValue: top.classValue, accuracy: top.count / rows, rows };
}

/** The regression baseline from the actual values' sample variance over n predicted rows. */
export function meanBaseline(targetVarianceActual: number | undefined, rows: number): Baseline | undefined {
  if (targetVarianceActual === undefined || !Number.isFinite(targetVarianceActual) || rows < 2) return undefined;
  return { kind: 'mean predictor', rootMeanSquaredError: Math.sqrt((targetVarianceActual * (rows - 1)) / rows), rSquare: 0, rows };
}

/** The baseline of statistics as they are computed (statisticsOf), before they are stored. */
export function baselineOfRecord(statistics: ValidationRecord['statistics']): Baseline | undefined {
  if (statistics.kind === 'classification')
    return majorityBaseline(Object.entries(statistics.values.classValueStatistics).map(([classValue, c]) => ({ classValue, count: c.numTruePositives + c.numFalseNegatives })));
  const v = statistics.values;
  return meanBaseline(v.targetVarianceActual, v.numInstances - v.numWithoutClass - v.numUnpredicted);
}

/**
 * The baseline of a statistics node read as a tree (resourceTree): `classValueStatistics` nodes
 * with `classValue`, `numTruePositives`, `numFalseNegatives`; or `targetVarianceActual` with the
 * counts (`numInstances` less `numWithoutClass` and `numUnpredicted`).
 */
export function baselineOfStatistics(stats: Record<string, unknown>, task: 'classification' | 'regression', counts: Record<string, unknown> = stats): Baseline | undefined {
  const num = (v: unknown) => (typeof v === 'number' ? v : Number(v ?? Number.NaN));
  if (task === 'classification') {
    const raw = stats.classValueStatistics;
    const nodes = (Array.isArray(raw) ? raw : raw ? [raw] : []) as Record<string, unknown>[];
    const counts = nodes.map((c) => ({ classValue: String(c.classValue ?? ''), count: num(c.numTruePositives) + num(c.numFalseNegatives) })).filter((c) => Number.isFinite(c.count));
    return majorityBaseline(counts);
  }
  const rows = num(counts.numInstances) - (num(counts.numWithoutClass) || 0) - (num(counts.numUnpredicted) || 0);
  return meanBaseline(typeof stats.targetVarianceActual === 'number' ? stats.targetVarianceActual : undefined, rows);
}

/** A baseline in words, for pages and reports. */
export function baselineText(b: Baseline): string {
  return b.kind === 'majority class'
    ? `baseline: always predicting the majority class “${b.classValue}” is right for ${formatNumber(b.accuracy)} of the ${b.rows} rows (accuracy ${formatNumber(b.accuracy)})`
    : `baseline: always predicting the mean of the ${b.rows} rows gives RMSE ${formatNumber(b.rootMeanSquaredError)} and R² 0`;
}

/**
 * What the baseline makes of one statistic, to write beside it ('' for a statistic it says nothing
 * of): "majority-class baseline 0.515, always “false”" beside an accuracy; "mean predictor: 0"
 * beside R² (or Q²), "mean predictor: 1.23" beside RMSE.
 */
export function baselineBeside(b: Baseline, statistic: string): string {
  if (b.kind === 'majority class') return statistic === 'accuracy' ? `majority-class baseline ${formatNumber(b.accuracy)}, always “${b.classValue}”` : '';
  if (statistic === 'rSquare') return 'mean predictor: 0';
  if (statistic === 'rootMeanSquaredError') return `mean predictor: ${formatNumber(b.rootMeanSquaredError)}`;
  return '';
}
