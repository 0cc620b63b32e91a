import type { Learner, RunFunction } from '../src/learning/learner.ts';
import { LEARNERS } from '../src/learning/learners.ts';
import { WorkerPool } from '../src/task/worker-pool.ts';
import { auc, crossValidate, defaults, foldsOf, loadEpafhm, loadKazius, regressionQuality, type QsarData } from './learners.ts';
import { fmt, now, ratio, type Row } from './util.ts';

/**
 * Every learner of the catalogue under 10-fold cross-validation with its default parameters:
 * regression learners on EPAFHM (580 compounds, 43 RDKit descriptors), classification learners
 * on every 4th Kazius compound (1,018, Morgan radius 2, 1,024 bits; the whole set is in the
 * `learners` bench). Times are ratios against the random forest on the same folds.
 */
export async function benchEveryLearner(): Promise<Row[]> {
  const rows: Row[] = [];
  const pool = new WorkerPool(2);
  const run: RunFunction = (url, fn, args) => pool.run(url, fn, args);
  try {
    const epafhm = await loadEpafhm();
    const kazius = await loadKazius(1024, 4);
    const mutagenic = kazius.classes.indexOf('mutagenic');
    for (const task of ['regression', 'classification'] as const) {
      const data: QsarData = task === 'regression' ? epafhm : kazius;
      const folds = foldsOf(data.x.rows, 10, 42, task === 'classification' ? data.y : undefined);
      const learners = LEARNERS.filter((l) => l.task === task).sort((a, b) => (a.id.startsWith('random-forest') ? -1 : b.id.startsWith('random-forest') ? 1 : 0));
      const bench =
        task === 'regression'
          ? `every learner: EPAFHM ${data.x.rows} compounds, 43 RDKit descriptors, 10-fold CV`
          : `every learner: Kazius every 4th, ${data.x.rows} compounds, Morgan 1024 bits, stratified 10-fold CV`;
      let baseline = 0;
      for (const learner of learners) {
        const t = now();
        const predicted = await crossValidate(learner as Learner, data, folds, defaults(learner), run, 2);
        const seconds = (now() - t) / 1000;
        if (!baseline) baseline = seconds;
        const quality =
          task === 'regression'
            ? (({ q2, rmse }) => `Q² ${fmt(q2, 3)}, RMSE ${fmt(rmse, 3)}`)(
                regressionQuality(
                  data.y,
                  predicted.map((p) => p.value),
                ),
              )
            : `accuracy ${fmt(predicted.filter((p, i) => p.value === data.y[i]).length / predicted.length, 3)}, AUC ${fmt(
                auc(
                  predicted.map((p) => p.probabilities![mutagenic]),
                  Array.from(data.y, (y) => y === mutagenic),
                ),
                3,
              )}`;
        rows.push({ bench, measure: `${learner.id}: ${quality}; CV s`, value: fmt(seconds, 1), ratio: ratio(seconds / baseline) });
      }
    }
  } finally {
    await pool.close();
  }
  return rows;
}
