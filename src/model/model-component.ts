import type { Services } from '../core/services.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { DescriptorCalculation } from '../algorithm/descriptor-calculation.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { ModelStore } from './model-store.ts';
import { Predictor } from './prediction.ts';
import { modelJobs } from './model-jobs.ts';
import { modelRoutes, type ModelValidationsHtml } from './model-routes.ts';
import { trainingJob } from './training.ts';
import { readAcrossTraining, trainingByLearner } from './read-across-training.ts';
import type { ValidateLeaveOneOut } from './read-across-loo.ts';
import { domainJob } from './domain-training.ts';
import { cleanupJob } from './cleanup-model.ts';
import { superJob, type CrossValidate } from './superalgorithm.ts';

export interface ModelDeps extends Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'tasks' | 'workers' | 'chemistry'> {
  compounds: CompoundRegistry;
  datasets: DatasetStore;
  /** The validation component's, which validates models (so it is made after this one): a supermodel's cross-validation… */
  crossValidate: CrossValidate;
  /** …and the validations section of a model's page… */
  validationsHtml: ModelValidationsHtml;
  /** …and a read-across's leave-one-out statistics as a validation of it. */
  validateLeaveOneOut: ValidateLeaveOneOut;
}

/**
 * Models (spec 2.5, 4.11): the stored models, predicting (with the descriptor calculation it
 * needs), the work of applying a learning, domain, cleanup or superalgorithm, and their routes.
 */
export function createModelComponent(deps: ModelDeps) {
  const { datasets } = deps;
  const models = new ModelStore(deps);
  const descriptors = new DescriptorCalculation(deps);
  const predictor = new Predictor(deps, descriptors, (uri) => models.load(uri));
  const jobs = modelJobs(deps, datasets, models, predictor);
  return {
    operations: {
      models,
      predictor,
      descriptors,
      train: trainingByLearner(trainingJob(deps, datasets, models), readAcrossTraining(deps, datasets, models, descriptors, deps.validateLeaveOneOut)),
      fitDomain: domainJob(deps, datasets, models),
      cleanup: cleanupJob(datasets, models),
      startSuper: superJob(deps, datasets, models, descriptors, deps.crossValidate, deps.compounds),
    },
    jobs,
    routes: (routes: DescribedRoutes) => modelRoutes(routes, deps, datasets, models, predictor, deps.compounds, deps.validationsHtml, deps.tasks.starters(jobs)),
  };
}
