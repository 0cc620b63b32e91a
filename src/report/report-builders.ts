import { formatNumber } from '../rdf/html.ts';
import type { ClassificationStatistics } from '../validation/statistics.ts';
import type { ValidationRecord } from '../validation/validation-record.ts';
import { numberOf } from '../rdf/terms.ts';
import { classScore, rocCurve } from '../validation/statistics.ts';
import type { Block, Text } from './report-document.ts';
import type { PlotRequest } from './plots.ts';
import type { CrossvalidationFacts, Named, ValidationFacts } from './report-facts.ts';
import type { LearningTask } from '../learning/learner.ts';
import { baselineText, majorityBaseline, meanBaseline } from '../validation/baseline.ts';
import { CLASS_VALUE_COLUMNS, CLASSIFICATION_LABELS, COUNT_LABELS, keyStatistics, mean, REGRESSION_LABELS, standardDeviation } from '../validation/statistic-labels.ts';

/**
 * The sections of validation and cross-validation reports, as drafts: plots are requests that
 * the worker pool draws before the document is written (`DraftBlock` → `Block`).
 */

export type DraftBlock = Block | { kind: 'plot'; plot: PlotRequest };
export interface DraftSection {
  title: string;
  blocks: DraftBlock[];
}

export const link = (n: Named | undefined): Text[] => (n ? [{ text: n.title ? `${n.title} (${n.uri})` : n.uri, href: n.uri }] : ['–']);

/** The statistics table of a validation (counts, then the statistics of its task). */
export function statisticsTable(v: ValidationFacts, title: string): Block {
  const labels = [...(v.task === 'regression' ? REGRESSION_LABELS : CLASSIFICATION_LABELS), ...COUNT_LABELS];
  return { kind: 'table', title, head: ['statistic', 'value'], rows: labels.filter(([k]) => v.statistics[k] !== undefined).map(([k, label]) => [label, formatNumber(v.statistics[k])]) };
}

/** What the statistics are read against: the majority class, or the mean predictor, on the same rows (none when it cannot be made). */
function baselineBlocks(v: ValidationFacts): Block[] {
  const { statistics } = v.record;
  const rows = (v.statistics.numInstances ?? 0) - (v.statistics.numWithoutClass ?? 0) - (v.statistics.numUnpredicted ?? 0);
  const baseline =
    statistics.kind === 'classification'
      ? majorityBaseline(Object.entries(statistics.values.classValueStatistics).map(([classValue, c]) => ({ classValue, count: (c.numTruePositives ?? 0) + (c.numFalseNegatives ?? 0) })))
      : meanBaseline(statistics.values.targetVarianceActual, rows);
  return baseline ? [{ kind: 'para', text: [`${baselineText(baseline)[0].toUpperCase()}${baselineText(baseline).slice(1)}.`] }] : [];
}

/** The confusion matrix and per-class statistics of a classification's validation (none of a regression's). */
function classificationOf(v: ValidationFacts): Pick<ClassificationStatistics, 'confusionMatrix' | 'classValueStatistics'> {
  const { statistics } = v.record;
  return statistics.kind === 'classification' ? statistics.values : { confusionMatrix: {}, classValueStatistics: {} };
}

/** Per-class statistics and the confusion matrix as tables. */
function classTables(v: ValidationFacts): Block[] {
  const perClass = Object.entries(classificationOf(v).classValueStatistics).sort(([a], [b]) => a.localeCompare(b));
  const { classes, counts } = confusionOf(v);
  return [
    {
      kind: 'table',
      title: 'Statistics per class (each class in turn as the positive one)',
      head: ['class', ...CLASS_VALUE_COLUMNS.map(([, h]) => h)],
      rows: perClass.map(([value, c]) => [value, ...CLASS_VALUE_COLUMNS.map(([k]) => formatNumber((c as unknown as Record<string, number | undefined>)[k]))]),
    },
    { kind: 'table', title: 'Confusion matrix (rows: actual class, columns: predicted class)', head: ['actual \\ predicted', ...classes], rows: classes.map((a, i) => [a, ...counts[i].map(String)]) },
  ];
}

function confusionOf(v: ValidationFacts): { classes: string[]; counts: number[][] } {
  const matrix = classificationOf(v).confusionMatrix;
  const classes = [...new Set(Object.entries(matrix).flatMap(([actual, row]) => [actual, ...Object.keys(row)]))].sort();
  const counts = classes.map((a) => classes.map((p) => matrix[a]?.[p] ?? 0));
  return { classes, counts };
}

/** The plots of a validation's predictions: predicted against actual, or the confusion matrix and ROC curves. */
export function predictionPlots(v: ValidationFacts, featureTitle: string, what: string): DraftBlock[] {
  if (!v.pairs.length) return [{ kind: 'para', text: [`The predictions of ${what} are no longer stored (their model or datasets were deleted): no plots.`] }];
  if (v.task === 'regression') {
    const points = v.pairs.flatMap((p) => {
      const actual = numberOf(p.actual);
      const predicted = numberOf(p.predicted);
      return Number.isFinite(actual) && Number.isFinite(predicted) ? [{ actual, predicted }] : [];
    });
    return [
      {
        kind: 'plot',
        plot: { kind: 'scatter', title: `Predicted against actual ${featureTitle} (${points.length} rows)`, xTitle: `actual ${featureTitle}`, yTitle: `predicted ${featureTitle}`, points },
      },
    ];
  }
  const predicted = v.pairs.flatMap((p) => {
    const actual = p.actual?.value.trim();
    const value = p.predicted?.value.trim();
    const confidence = numberOf(p.confidence);
    return actual && value ? [{ actual, predicted: value, confidence: Number.isFinite(confidence) ? Math.min(1, Math.max(0, confidence)) : 1 }] : [];
  });
  const { classes, counts } = confusionOf(v);
  const curves = classes.map((c) => ({
    label: c,
    points: rocCurve(
      predicted.map((x) => classScore(x, c)),
      predicted.map((x) => x.actual === c),
    ),
  }));
  return [
    { kind: 'plot', plot: { kind: 'confusion', title: 'Confusion matrix', classes, counts } },
    { kind: 'plot', plot: { kind: 'roc', title: 'ROC curves, one per class (ranked by the confidence of predicting it)', curves: curves.filter((c) => c.points.length) } },
  ];
}

const SET_EFFICIENCY = ['single-label sets', 'empty sets', 'mean set size'];
const setEfficiency = (l: { singletonRate?: number; emptySetRate?: number; meanSetSize?: number }) => [formatNumber(l.singletonRate), formatNumber(l.emptySetRate), formatNumber(l.meanSetSize)];

/** A conformal model's guarantee as measured: coverage and efficiency per level, per class, and the calibration plot (none for other models). */
export function conformalSection(v: ValidationFacts): DraftSection[] {
  const levels = v.record.conformal;
  if (!levels?.length) return [];
  const intervals = v.task === 'regression';
  const classes = [...new Set(levels.flatMap((l) => (l.classes ?? []).map((c) => c.classValue)))].sort();
  const perClass = (l: (typeof levels)[number], c: string) => l.classes?.find((k) => k.classValue === c);
  return [
    {
      title: 'Conformal prediction: the guarantee, measured',
      blocks: [
        {
          kind: 'para',
          text: [
            `The model states ${intervals ? 'a prediction interval' : 'a prediction set'} at each confidence level; under exchangeability it holds the true value for at least that share of new compounds${intervals ? '' : ', within each class'}. Coverage is the share of test rows whose true value it held (within the binomial error of the number of rows); `,
            intervals
              ? 'efficiency is the width of the intervals (narrower is more informative).'
              : 'efficiency is the share of sets with a single class (the others hold both classes, or none), the share of empty sets and the mean number of classes in a set; per class, of the test rows whose true class it is.',
          ],
        },
        {
          kind: 'table',
          title: 'Coverage and efficiency per confidence level',
          head: ['confidence level', 'test rows', 'coverage', ...(intervals ? ['mean interval width', 'median interval width'] : SET_EFFICIENCY)],
          rows: levels.map((l) => [
            formatNumber(l.confidenceLevel),
            String(l.numInstances),
            formatNumber(l.coverage),
            ...(intervals ? [formatNumber(l.meanIntervalWidth), formatNumber(l.medianIntervalWidth)] : setEfficiency(l)),
          ]),
        },
        ...(classes.length
          ? [
              {
                kind: 'table' as const,
                title: 'Coverage and efficiency per class (the test rows of each class)',
                head: ['confidence level', 'class', 'test rows', 'coverage', ...SET_EFFICIENCY],
                rows: levels.flatMap((l) =>
                  classes.flatMap((c) => {
                    const own = perClass(l, c);
                    return own ? [[formatNumber(l.confidenceLevel), c, String(own.numInstances), formatNumber(own.coverage), ...setEfficiency(own)]] : [];
                  }),
                ),
              },
            ]
          : []),
        {
          kind: 'plot',
          plot: {
            kind: 'calibration',
            title: 'Calibration: coverage against confidence level',
            series: [
              { label: 'all test rows', points: levels.flatMap((l) => (l.coverage === undefined ? [] : [{ level: l.confidenceLevel, coverage: l.coverage }])) },
              ...classes.map((c) => ({
                label: `class ${c}`,
                points: levels.flatMap((l) => {
                  const coverage = perClass(l, c)?.coverage;
                  return coverage === undefined ? [] : [{ level: l.confidenceLevel, coverage }];
                }),
              })),
            ],
          },
        },
      ],
    },
  ];
}

/** The sections of a validation report. */
export function validationSections(v: ValidationFacts): DraftSection[] {
  const facts: { label: string; value: Text[] }[] = [
    { label: 'Validation', value: link({ uri: v.uri }) },
    { label: 'Validation type', value: [v.record.validationType] },
    { label: 'Date', value: [v.record.date.toISOString()] },
    { label: 'Model', value: link(v.model) },
    { label: 'Algorithm', value: link(v.algorithm) },
    ...(v.record.algorithmParams ? [{ label: 'Algorithm parameters', value: [v.record.algorithmParams] }] : []),
    { label: 'Prediction feature', value: link(v.predictionFeature) },
    ...v.datasets.map((d) => ({ label: d.role[0].toUpperCase() + d.role.slice(1), value: [...link(d), ...(d.rows === undefined ? [' (deleted)'] : [`, ${d.rows} rows`])] })),
    ...sides(v.record),
    { label: 'Run time', value: [`${(v.record.realRuntimeMs / 1000).toFixed(1)} s`] },
  ];
  const title = v.predictionFeature.title ?? 'the prediction feature';
  return [
    { title: 'What was validated', blocks: [{ kind: 'facts', rows: facts }] },
    {
      title: 'Statistics',
      blocks: [
        { kind: 'para', text: [statisticsNote(v.task)] },
        statisticsTable(v, `Statistics of the ${v.statistics.numInstances ?? ''} test rows`),
        ...baselineBlocks(v),
        ...(v.task === 'classification' ? classTables(v) : []),
      ],
    },
    ...conformalSection(v),
    { title: 'Plots', blocks: predictionPlots(v, title, 'this validation') },
  ];
}

function sides({ sides }: ValidationRecord): { label: string; value: Text[] }[] {
  if (!sides) return [];
  return [
    { label: 'Training set', value: [`${sides.training.rows} rows, ${sides.training.structures} structures`] },
    { label: 'Test set', value: [`${sides.test.rows} rows, ${sides.test.structures} structures`] },
  ];
}

function statisticsNote(task: LearningTask): string {
  return task === 'regression'
    ? 'Statistics over the predicted rows (rows the model did not predict are counted, not scored). R² is 1 − SSE / total sum of squares of the actual values around their mean; the confidence-weighted variants weigh each row by the confidence of its prediction.'
    : 'Statistics over the predicted rows (rows the model did not predict are counted, not scored). The AUC of a class ranks the rows by the confidence of predicting that class; the mean AUC weighs each class by its number of rows.';
}

/** A cross-validation's facts, pooled statistics, statistics per fold and plots. */
export function crossvalidationSections(cv: CrossvalidationFacts): DraftSection[] {
  const t = cv.record;
  const facts: { label: string; value: Text[] }[] = [
    { label: 'Cross-validation', value: link({ uri: cv.uri }) },
    { label: 'Date', value: [t.date.toISOString()] },
    { label: 'Algorithm', value: link(cv.algorithm) },
    { label: 'Algorithm parameters', value: [String(t.algorithmParams || '(defaults)')] },
    { label: 'Dataset', value: [...link(cv.dataset), cv.dataset.rows === undefined ? ' (deleted)' : `, ${cv.dataset.rows} rows`] },
    { label: 'Prediction feature', value: link(cv.predictionFeature) },
    { label: 'Folds', value: [t.leaveOneOut ? `${t.numFolds} (leave one out)` : String(t.numFolds)] },
    { label: 'Stratified', value: [String(t.stratified)] },
    { label: 'Random seed', value: [String(t.randomSeed)] },
    ...(t.yScrambleSeed !== undefined ? [{ label: 'y-scrambling', value: [`the target was permuted (seed ${t.yScrambleSeed}): a check for chance correlation`] }] : []),
    ...(t.note ? [{ label: 'Note', value: [t.note] }] : []),
  ];
  const keys = keyStatistics(cv.task);
  const perFold = cv.folds.map((f) => keys.map(([k]) => f.statistics[k]));
  const column = (j: number) => perFold.map((r) => r[j]).filter((v): v is number => Number.isFinite(v));
  const [mainKey, mainName] = keys[0];
  const title = cv.predictionFeature.title ?? 'the prediction feature';
  return [
    { title: 'What was cross-validated', blocks: [{ kind: 'facts', rows: facts }] },
    {
      title: 'Pooled statistics',
      blocks: [
        { kind: 'para', text: ['The predictions of all folds together, scored once (never an average of the folds). ', statisticsNote(cv.task)] },
        statisticsTable(cv.pooled, `Statistics of all ${cv.pooled.statistics.numInstances ?? ''} predicted rows`),
        ...baselineBlocks(cv.pooled),
        ...(cv.task === 'classification' ? classTables(cv.pooled) : []),
      ],
    },
    {
      title: 'Statistics per fold',
      blocks: [
        {
          kind: 'table',
          title: 'Each fold’s test rows, scored on their own',
          head: ['fold', 'test rows', ...keys.map(([, name]) => name)],
          rows: [
            ...cv.folds.map((f, i) => [String(f.fold ?? i + 1), formatNumber(f.statistics.numInstances), ...perFold[i].map(formatNumber)]),
            ['mean', '', ...keys.map((_, j) => formatNumber(mean(column(j))))],
            ['standard deviation', '', ...keys.map((_, j) => formatNumber(standardDeviation(column(j))))],
          ],
        },
        {
          kind: 'plot',
          plot: {
            kind: 'bars',
            title: `${mainName} per fold`,
            xTitle: 'fold',
            yTitle: mainName,
            bars: cv.folds.map((f, i) => ({ group: String(f.fold ?? i + 1), value: f.statistics[mainKey] ?? Number.NaN })),
          },
        },
      ],
    },
    ...conformalSection(cv.pooled),
    { title: 'Plots of the pooled predictions', blocks: predictionPlots(cv.pooled, title, 'this cross-validation') },
  ];
}
