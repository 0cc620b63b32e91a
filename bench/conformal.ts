import { benchServer, describedSharedSet, fmt, median, now, postAndFollow, ratio, withPolling, type Row } from './util.ts';

/** Runs of each measure (the median is printed). */
const RUNS = 3;

/**
 * What conformal prediction costs (issue 39), through the service as a client sees it: training a
 * random forest with each calibration against the same forest without (the baseline), and
 * predicting a whole dataset with the cv+ model's intervals or sets against the same prediction
 * without. Regression on EPAFHM (580 compounds, RDKit descriptors), classification on Kazius
 * (4,069 compounds, Morgan bits); the worst small GET during the cv+ training says whether the
 * server stayed free.
 */
export async function benchConformal(): Promise<Row[]> {
  const bench = 'conformal prediction: training and prediction with calibration vs without (random forest, through the service)';
  const server = await benchServer('toxgraph-bench-conformal-');
  const { base } = server;
  const rows: Row[] = [];
  try {
    const sets = [
      { name: 'EPAFHM regression (580, RDKit descriptors)', file: 'EPAFHM_log10.csv', algorithm: 'random-forest-regression', describe: 'rdkit-descriptors', params: {} as Record<string, string> },
      { name: 'Kazius classification (4,069, Morgan 1,024 bits)', file: 'kazius.csv', algorithm: 'random-forest-classification', describe: 'morgan-fingerprint', params: { nBits: '1024' } },
    ];
    for (const set of sets) {
      const { target, dataset } = await describedSharedSet(base, set.file, set.describe, set.params);
      const train = async (conformal: string) => {
        const times: number[] = [];
        let model = '';
        for (let i = 0; i < RUNS; i++) {
          const t = now();
          model = await postAndFollow(`${base}/algorithm/${set.algorithm}`, { dataset_uri: dataset, prediction_feature: target, conformal, confidence_level: '0.8,0.9,0.95' });
          times.push(now() - t);
        }
        return { ms: median(times), model };
      };
      const predict = async (model: string) => {
        const times: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          const t = now();
          await postAndFollow(model, { dataset_uri: dataset });
          times.push(now() - t);
        }
        return median(times);
      };
      const plain = await train('none');
      rows.push({ bench, measure: `${set.name}: training without calibration (baseline)`, value: `${fmt(plain.ms, 0)} ms`, ratio: '1.00x' });
      let cv = plain;
      for (const method of ['split', 'cv+', 'aggregated']) {
        const calibrated = await train(method);
        if (method === 'cv+') cv = calibrated;
        rows.push({ bench, measure: `${set.name}: training with conformal=${method}`, value: `${fmt(calibrated.ms, 0)} ms`, ratio: ratio(calibrated.ms / plain.ms) });
      }
      const polled = await withPolling(base, () => postAndFollow(`${base}/algorithm/${set.algorithm}`, { dataset_uri: dataset, prediction_feature: target, conformal: 'cv+' }));
      rows.push({ bench, measure: `${set.name}: worst GET /health / event-loop delay during a cv+ training`, value: `${fmt(polled.worstMs, 0)} ms / ${fmt(polled.loopMaxMs, 0)} ms` });
      const without = await predict(plain.model);
      const withIntervals = await predict(cv.model);
      rows.push(
        { bench, measure: `${set.name}: predicting the dataset without calibration (baseline)`, value: `${fmt(without, 0)} ms`, ratio: '1.00x' },
        {
          bench,
          measure: `${set.name}: predicting it with the cv+ model's ${set.algorithm.endsWith('regression') ? 'intervals' : 'p-values and sets'} (3 levels)`,
          value: `${fmt(withIntervals, 0)} ms`,
          ratio: ratio(withIntervals / without),
        },
      );
    }
  } finally {
    await server.stop();
  }
  return rows;
}
