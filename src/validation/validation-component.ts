import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { ModelStore } from '../model/model-store.ts';
import type { Predictor } from '../model/prediction.ts';
import type { ModelValidationsHtml } from '../model/model-routes.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { ValidationStore } from './validation-store.ts';
import { ValidationRunner } from './validation-runner.ts';
import { Crossvalidations } from './crossvalidation.ts';
import { validationJobs } from './validation-jobs.ts';
import { modelValidationsHtml } from './model-validations-html.ts';
import { crossvalidationRoutes } from './crossvalidation-routes.ts';
import { validationRoutes } from './validation-routes.ts';
import { leaveOneOutValidation } from './leave-one-out-validation.ts';

export interface ValidationDeps extends Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'tasks' | 'workers'> {
  datasets: DatasetStore;
  models: ModelStore;
  predictor: Predictor;
}

/** Validations and cross-validations (spec 2.6, 4.1, 4.2): their jobs and routes; what the model component asks of them. */
export function createValidationComponent(deps: ValidationDeps) {
  const { datasets, predictor } = deps;
  const runner = new ValidationRunner(deps, datasets, deps.models, predictor, new ValidationStore(deps));
  const crossvalidations = new Crossvalidations(deps, runner);
  const jobs = validationJobs(deps, runner, predictor, crossvalidations);
  const validationsHtml: ModelValidationsHtml = (model, canRead) => modelValidationsHtml(deps, datasets, model, canRead);
  return {
    operations: { crossValidate: crossvalidations.ofRecipe, validationsHtml, validateLeaveOneOut: leaveOneOutValidation(datasets, runner.validations) },
    jobs,
    routes: (routes: DescribedRoutes) => {
      const start = deps.tasks.starters(jobs);
      crossvalidationRoutes(routes, deps, crossvalidations, start.crossvalidation);
      validationRoutes(routes, deps, runner, start);
    },
  };
}
