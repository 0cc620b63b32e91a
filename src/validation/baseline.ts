import { formatNumber } from '../rdf/html.ts';

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
