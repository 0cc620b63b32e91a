/**
 * How a conformal model's guarantee held on a test set: pure functions of the rows' actual
 * values and conformal answers, one result per confidence level.
 *
 * - coverage: the fraction of test rows whose true value lies in the interval (bounds included),
 *   or whose true class is in the prediction set; it should be at least the level, within the
 *   binomial error of the number of rows;
 * - efficiency: for intervals their mean and median width (INF when any is unbounded); for sets
 *   the share of single-label sets, of empty sets, and the mean set size;
 * - for classes, coverage and efficiency per class (the rows whose true class it is): the Mondrian
 *   guarantee holds within each class, and how informative the sets are may differ between them.
 *
 * Rows without an actual value or without a conformal answer are left out (`numInstances`
 * counts the rows that are in). A statistic over no rows is omitted, as in statistics.ts.
 */

import type { ConformalObservation } from '../learning/conformal.ts';

export interface ConformalClassStatistics {
  classValue: string;
  numInstances: number;
  coverage?: number;
  singletonRate?: number;
  emptySetRate?: number;
  meanSetSize?: number;
}

export interface ConformalStatistics {
  confidenceLevel: number;
  numInstances: number;
  coverage?: number;
  meanIntervalWidth?: number;
  medianIntervalWidth?: number;
  singletonRate?: number;
  emptySetRate?: number;
  meanSetSize?: number;
  classes?: ConformalClassStatistics[];
}

/** Regression rows: actual values and intervals (per level, in the order of `levels`). */
export function intervalStatistics(rows: { actual: number | undefined; observation?: ConformalObservation }[], levels: number[]): ConformalStatistics[] {
  const usable = rows.filter((r) => r.actual !== undefined && Number.isFinite(r.actual) && r.observation?.intervals?.length === levels.length);
  return levels.map((confidenceLevel, l) => {
    const n = usable.length;
    if (!n) return { confidenceLevel, numInstances: 0 };
    let inside = 0;
    const widths: number[] = [];
    for (const r of usable) {
      const [lower, upper] = r.observation!.intervals![l];
      if (lower <= r.actual! && r.actual! <= upper) inside++;
      widths.push(upper - lower);
    }
    widths.sort((a, b) => a - b);
    const mid = n >> 1;
    return {
      confidenceLevel,
      numInstances: n,
      coverage: inside / n,
      meanIntervalWidth: widths.reduce((a, b) => a + b, 0) / n,
      medianIntervalWidth: n % 2 ? widths[mid] : (widths[mid - 1] + widths[mid]) / 2,
    };
  });
}

/** Classification rows: actual classes and class p-values; the set at level 1 − α holds the classes whose p-value exceeds α. */
export function setStatistics(rows: { actual: string | undefined; observation?: ConformalObservation }[], levels: number[], classes: string[]): ConformalStatistics[] {
  const usable = rows.filter((r) => r.actual !== undefined && r.observation?.pValues?.size);
  return levels.map((confidenceLevel) => {
    const alpha = 1 - confidenceLevel;
    const n = usable.length;
    if (!n) return { confidenceLevel, numInstances: 0 };
    let inside = 0;
    let single = 0;
    let empty = 0;
    let sizes = 0;
    const perClass = new Map(classes.map((c) => [c, { n: 0, inside: 0, single: 0, empty: 0, sizes: 0 }]));
    for (const r of usable) {
      const set = [...r.observation!.pValues!].filter(([, p]) => p > alpha + 1e-12).map(([c]) => c);
      const hit = set.includes(r.actual!);
      if (hit) inside++;
      if (set.length === 1) single++;
      if (!set.length) empty++;
      sizes += set.length;
      const own = perClass.get(r.actual!) ?? { n: 0, inside: 0, single: 0, empty: 0, sizes: 0 };
      own.n++;
      if (hit) own.inside++;
      if (set.length === 1) own.single++;
      if (!set.length) own.empty++;
      own.sizes += set.length;
      perClass.set(r.actual!, own);
    }
    return {
      confidenceLevel,
      numInstances: n,
      coverage: inside / n,
      singletonRate: single / n,
      emptySetRate: empty / n,
      meanSetSize: sizes / n,
      classes: [...perClass]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([classValue, c]) => ({
          classValue,
          numInstances: c.n,
          ...(c.n ? { coverage: c.inside / c.n, singletonRate: c.single / c.n, emptySetRate: c.empty / c.n, meanSetSize: c.sizes / c.n } : {}),
        })),
    };
  });
}
