import type { Services } from '../core/services.ts';
import { CompoundRegistry } from '../compound/compound-registry.ts';
import { DatasetStore } from '../dataset/dataset-store.ts';
import { publishCatalogue } from '../algorithm/algorithm-routes.ts';
import { algorithmJobs } from '../algorithm/algorithm-jobs.ts';
import { DescriptorCalculation } from '../algorithm/descriptor-calculation.ts';
import { ModelStore } from '../model/model-store.ts';
import { Predictor } from '../model/prediction.ts';
import { modelJobs } from '../model/model-jobs.ts';
import { trainingJob } from '../model/training.ts';
import { domainJob } from '../model/domain-training.ts';
import { cleanupJob } from '../model/cleanup-model.ts';
import { superJob } from '../model/superalgorithm.ts';
import { ValidationStore } from '../validation/validation-store.ts';
import { ValidationRunner } from '../validation/validation-runner.ts';
import { Crossvalidations } from '../validation/crossvalidation.ts';
import { validationJobs } from '../validation/validation-jobs.ts';
import { ReportStore } from '../report/report-store.ts';
import { Reports } from '../report/reports.ts';
import { ReportFacts } from '../report/report-facts.ts';
import { QmrfStore } from '../qmrf/qmrf-store.ts';
import { Qmrfs } from '../qmrf/qmrfs.ts';
import { QmrfFacts } from '../qmrf/qmrf-facts.ts';
import { Qprfs } from '../qmrf/qprfs.ts';
import { QprfFacts } from '../qmrf/qprf-facts.ts';

/**
 * The components' stores and operations, with every kind of job registered with the task
 * runner. A serve process adds the routes (app.ts); a worker process (worker.ts) only runs the
 * jobs, and knows every kind without building the HTTP application.
 */
export function createComponents(services: Services) {
  const { tasks, log } = services;
  const compounds = new CompoundRegistry(services, services.chemistry);
  const datasets = new DatasetStore(services, compounds);
  const models = new ModelStore(services);
  const descriptors = new DescriptorCalculation(services);
  const predictor = new Predictor(services, descriptors, (uri) => models.load(uri));
  const runner = new ValidationRunner(services, datasets, models, predictor, new ValidationStore(services));
  const crossvalidations = new Crossvalidations(services, runner);
  // every kind of job the routes start, by component (reports, QMRF and QPRF reports register
  // their own kind as they are made: report/reports.ts, qmrf/qmrfs.ts, qmrf/qprfs.ts)
  const start = {
    algorithm: tasks.registerAll(
      algorithmJobs(services, {
        datasets,
        descriptors,
        train: trainingJob(services, datasets, models),
        startSuper: superJob(services, datasets, models, descriptors, crossvalidations.ofRecipe),
        fitDomain: domainJob(services, datasets, models),
        cleanup: cleanupJob(datasets, models),
      }),
    ),
    model: tasks.registerAll(modelJobs(services, datasets, models, predictor)),
    validation: tasks.registerAll(validationJobs(services, runner, predictor, crossvalidations)),
  };
  const reportStore = new ReportStore(services);
  const reports = new Reports(services, new ReportFacts(services, datasets, models), reportStore);
  const qmrfStore = new QmrfStore(services);
  const qmrfs = new Qmrfs(services, new QmrfFacts(services, datasets, models, predictor), qmrfStore, models, datasets);
  const qprfs = new Qprfs(services, new QprfFacts(services, compounds, datasets, models, predictor, descriptors), qmrfStore);
  // the structure index read; rows of an upload that a crash cut off before its metadata was
  // written removed (what an interrupted task created is removed by the task runner at start;
  // not when processes share the store: rows without metadata may be another process's upload
  // in progress); the algorithm catalogue written for SPARQL
  const ready = (async () => {
    await compounds.open();
    const rows = services.coordination.shared ? 0 : await datasets.removeOrphans();
    if (rows) log.warn('removed the rows of uploads interrupted by the last shutdown', { count: rows });
    await publishCatalogue(services);
  })();
  return { compounds, datasets, models, descriptors, predictor, runner, crossvalidations, reportStore, reports, qmrfStore, qmrfs, qprfs, start, ready };
}
