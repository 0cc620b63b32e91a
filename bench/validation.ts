import { readFileSync } from 'node:fs';
import { loadConfig } from '../src/core/config.ts';
import { startServer } from '../src/server/server.ts';
import type { RunFunction } from '../src/learning/learner.ts';
import { randomForestClassification, randomForestRegression } from '../src/learning/random-forest.ts';
import { WorkerPool } from '../src/task/worker-pool.ts';
import { crossValidate, defaults, foldsOf, loadKazius, loadEpafhmMorgan } from './learners.ts';
import { fmt, now, postAndFollow, ratio, tempDir, type Row } from './util.ts';

const DATA = new URL('../../shared/data/', import.meta.url);
/** Measured on this machine with scikit-learn, 100 trees, the same fold scheme (issue 7). */
const SKLEARN = { kaziusAccuracy: 0.838, kaziusAuc: 0.903, kaziusSeconds: 60.6, epafhmR2: 0.475 };

/**
 * 10-fold cross-validation through the HTTP interface (upload, fingerprints, POST
 * /crossvalidation, pooled statistics), against the same cross-validation run directly on
 * matrices in this process (the baseline: learner only, no HTTP, store or datasets), and
 * against scikit-learn's figures measured on this machine.
 */
export async function benchValidation(): Promise<Row[]> {
  const rows: Row[] = [];
  const tmp = await tempDir('toxgraph-bench-validation-');
  const server = await startServer(loadConfig(['--port', '0', '--host', '127.0.0.1', '--data', tmp.dir, '--quiet'], {}));
  const base = server.services.config.baseUrl;
  const pool = new WorkerPool(2);
  const run: RunFunction = (url, fn, args) => pool.run(url, fn, args);
  try {
    for (const setup of [
      { file: 'kazius.csv', name: 'Kazius', learner: 'random-forest-classification', stratified: 'true' },
      { file: 'EPAFHM_log10.csv', name: 'EPAFHM', learner: 'random-forest-regression', stratified: 'false' },
    ]) {
      const bench = `validation: ${setup.name}, Morgan r2 2048 bits, ${setup.learner} 100 trees, 10-fold CV (stratified=${setup.stratified}) over HTTP`;
      let t = now();
      const dataset = await postAndFollow(`${base}/dataset`, {}, readFileSync(new URL(setup.file, DATA), 'utf8'), 'text/csv');
      const target = (await (await fetch(`${dataset}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim().split('\r\n')[0];
      const fingerprints = await postAndFollow(`${base}/algorithm/morgan-fingerprint`, { dataset_uri: dataset, nBits: '2048' });
      rows.push({ bench, measure: 'upload + Morgan fingerprints s', value: fmt((now() - t) / 1000, 1) });
      t = now();
      const cv = await postAndFollow(`${base}/crossvalidation`, {
        dataset_uri: fingerprints,
        algorithm_uri: `${base}/algorithm/${setup.learner}`,
        prediction_feature: target,
        num_folds: '10',
        random_seed: '1',
        stratified: setup.stratified,
      });
      const httpSeconds = (now() - t) / 1000;
      const statistics = (await (await fetch(`${cv}/statistics`, { headers: { Accept: 'application/json' } })).json()) as any;

      // baseline: the same learner on the same kind of folds, in process
      const data = setup.name === 'Kazius' ? await loadKazius() : await loadEpafhmMorgan();
      const learner = setup.name === 'Kazius' ? randomForestClassification : randomForestRegression;
      t = now();
      await crossValidate(learner, data, foldsOf(data.x.rows, 10, 1, setup.name === 'Kazius' ? data.y : undefined), defaults(learner), run, 2);
      const rawSeconds = (now() - t) / 1000;

      rows.push({ bench, measure: 'in-process CV on matrices s (baseline)', value: fmt(rawSeconds, 1), ratio: ratio(1) });
      rows.push({ bench, measure: 'CV through HTTP s', value: fmt(httpSeconds, 1), ratio: ratio(httpSeconds / rawSeconds) });
      rows.push({ bench, measure: 'pooled numInstances', value: String(statistics.numInstances) });
      if (setup.name === 'Kazius') {
        const c = statistics.classificationStatistics;
        rows.push(
          { bench, measure: `accuracy (scikit-learn ${SKLEARN.kaziusAccuracy})`, value: fmt(c.accuracy, 3) },
          { bench, measure: `average AUC (scikit-learn ${SKLEARN.kaziusAuc})`, value: fmt(c.averageAreaUnderRoc, 3) },
          { bench, measure: 'Matthews correlation', value: fmt(c.matthewsCorrelationCoefficient, 3) },
          { bench, measure: `CV through HTTP vs scikit-learn ${SKLEARN.kaziusSeconds} s`, value: fmt(httpSeconds, 1), ratio: ratio(httpSeconds / SKLEARN.kaziusSeconds) },
        );
      } else {
        const r = statistics.regressionStatistics;
        rows.push({ bench, measure: `Q² (scikit-learn R² ${SKLEARN.epafhmR2})`, value: fmt(r.q2, 3) }, { bench, measure: 'RMSE', value: fmt(r.rootMeanSquaredError, 3) });
      }
    }
  } finally {
    await pool.close();
    await server.close();
    await tmp.remove();
  }
  return rows;
}
