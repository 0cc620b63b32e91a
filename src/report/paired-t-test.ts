import jstat from 'jstat';
import { mean, standardDeviation } from '../validation/statistic-labels.ts';

export interface PairedTest {
  /** Mean of the differences a − b. */
  difference: number;
  t: number;
  degreesOfFreedom: number;
  /** Two-sided p-value. */
  p: number;
}

/**
 * Student's paired t-test of two samples measured on the same units (a statistic of two
 * algorithms on the same folds): t = mean(d) / (sd(d) / √k), k − 1 degrees of freedom.
 * Identical samples give p = 1; differences that never vary give p = 0.
 */
export function pairedTTest(a: number[], b: number[]): PairedTest | undefined {
  const d = a.map((v, i) => v - b[i]).filter((v) => Number.isFinite(v));
  if (d.length < 2 || d.length !== a.length) return undefined;
  const difference = mean(d);
  const sd = standardDeviation(d);
  const degreesOfFreedom = d.length - 1;
  if (sd === 0) return { difference, t: difference === 0 ? 0 : Math.sign(difference) * Number.POSITIVE_INFINITY, degreesOfFreedom, p: difference === 0 ? 1 : 0 };
  const t = difference / (sd / Math.sqrt(d.length));
  return { difference, t, degreesOfFreedom, p: 2 * (1 - jstat.jStat.studentt.cdf(Math.abs(t), degreesOfFreedom)) };
}
