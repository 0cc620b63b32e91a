import { formatNumber } from '../rdf/html.ts';
import { badRequest } from '../core/errors.ts';
import type { Text } from './report-document.ts';
import type { CrossvalidationFacts } from './report-facts.ts';
import type { DraftSection } from './report-builders.ts';
import { pairedTTest } from './paired-t-test.ts';
import { keyStatistics, LOWER_IS_BETTER, mean, standardDeviation } from '../validation/statistic-labels.ts';

/** The significance level of the comparison's paired t-tests. */
const ALPHA = 0.05;

export interface Compared {
  identifier: string;
  cv: CrossvalidationFacts;
}

/**
 * Two cross-validations are paired when their folds hold the same rows: the same dataset, number
 * of folds, random seed, stratification and leave-one-out. Only then is a per-fold paired t-test
 * meaningful.
 */
function paired(a: CrossvalidationFacts, b: CrossvalidationFacts): boolean {
  return (['dataset', 'numFolds', 'randomSeed', 'stratified', 'leaveOneOut'] as const).every((k) => String(a.record[k]) === String(b.record[k])) && a.folds.length === b.folds.length;
}

/** The sections of an algorithm comparison: what was compared, each statistic (table and chart), the significance of differences. */
export function comparisonSections(compared: Compared[]): DraftSection[] {
  const tasks = new Set(compared.map((c) => c.cv.task));
  if (tasks.size > 1) throw badRequest('validation_uris: an algorithm comparison compares cross-validations of one kind (all regression or all classification)');
  const task = compared[0].cv.task;
  const keys = keyStatistics(task);
  const foldValues = (c: Compared, key: string) => c.cv.folds.map((f) => f.statistics[key] ?? Number.NaN);
  const finite = (values: number[]) => values.filter((v) => Number.isFinite(v));

  const overview: DraftSection = {
    title: 'What was compared',
    blocks: [
      {
        kind: 'table',
        title: 'The cross-validations compared',
        head: ['identifier', 'cross-validation', 'algorithm', 'dataset', 'folds', 'seed'],
        rows: compared.map((c): Text[] => [
          c.identifier,
          { text: c.cv.uri, href: c.cv.uri },
          c.cv.algorithm.title ?? c.cv.algorithm.uri,
          c.cv.dataset.title ? `${c.cv.dataset.title} (${c.cv.dataset.rows ?? '?'} rows)` : c.cv.dataset.uri,
          String(c.cv.record.numFolds),
          String(c.cv.record.randomSeed),
        ]),
      },
      {
        kind: 'para',
        text: [
          'Each statistic is given for the pooled predictions of all folds (scored once) and as the mean ± standard deviation over the folds. Differences are tested with Student’s paired t-test over the folds, two-sided, at the 5% level, for cross-validations whose folds hold the same rows (same dataset, folds, seed and stratification).',
        ],
      },
    ],
  };

  const perStatistic: DraftSection[] = keys.map(([key, name]) => ({
    title: name,
    blocks: [
      {
        kind: 'table',
        title: `${name}${LOWER_IS_BETTER.has(key) ? ' (lower is better)' : ' (higher is better)'}`,
        head: ['identifier', 'pooled', 'mean over folds', 'standard deviation over folds'],
        rows: compared.map((c) => {
          const values = finite(foldValues(c, key));
          return [c.identifier, formatNumber(c.cv.pooled.statistics[key]), formatNumber(values.length ? mean(values) : undefined), formatNumber(standardDeviation(values))];
        }),
      },
      {
        kind: 'plot',
        plot: {
          kind: 'bars',
          title: `${name}: mean over folds ± standard deviation`,
          xTitle: 'identifier',
          yTitle: name,
          bars: compared.map((c) => {
            const values = finite(foldValues(c, key));
            const sd = standardDeviation(values);
            return { group: c.identifier, value: values.length ? mean(values) : Number.NaN, error: Number.isFinite(sd) ? sd : undefined };
          }),
        },
      },
    ],
  }));

  const rows: Text[][] = [];
  for (let i = 0; i < compared.length; i++) {
    for (let j = i + 1; j < compared.length; j++) {
      const [a, b] = [compared[i], compared[j]];
      for (const [key, name] of keys) {
        if (!paired(a.cv, b.cv)) {
          rows.push([`${a.identifier} – ${b.identifier}`, name, '–', '–', '–', 'not paired (different folds)']);
          continue;
        }
        const test = pairedTTest(foldValues(a, key), foldValues(b, key));
        if (!test) {
          rows.push([`${a.identifier} – ${b.identifier}`, name, '–', '–', '–', 'not testable (too few folds with a value)']);
          continue;
        }
        const better = test.difference > 0 !== LOWER_IS_BETTER.has(key) ? a.identifier : b.identifier;
        const verdict = test.p < ALPHA ? `* significant: ${better} is better` : 'no significant difference';
        rows.push([`${a.identifier} – ${b.identifier}`, name, formatNumber(test.difference), formatNumber(test.t), formatNumber(test.p), verdict]);
      }
    }
  }
  const significance: DraftSection = {
    title: 'Significance of the differences',
    blocks: [{ kind: 'table', title: 'Paired t-tests over the folds (* : p < 0.05)', head: ['pair', 'statistic', 'mean difference', 't', 'p', 'verdict'], rows }],
  };
  return [overview, ...perStatistic, significance];
}
