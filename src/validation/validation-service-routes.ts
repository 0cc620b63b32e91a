import type Router from '@koa/router';
import type { Context } from 'koa';
import { Params } from '../http/params.ts';
import { sendTask } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import type { JobStarters } from '../task/job-definition.ts';
import type { LearningInput, validationJobs } from './validation-jobs.ts';
import { VALIDATION_PARAMETERS as V } from './validation-params.ts';
import { readParameters } from '../algorithm/parameters.ts';

export type ValidationStarters = JobStarters<ReturnType<typeof validationJobs>>;

/** The learning a request names: algorithm_uri, algorithm_params, prediction_feature, y_scramble and its seed. */
export function learningInput(params: Params): LearningInput {
  const { y_scramble: scramble, y_scramble_seed: seed } = readParameters([V.yScramble, V.yScrambleSeed], params);
  return {
    algorithmUri: params.required('algorithm_uri'),
    algorithmParams: params.get('algorithm_params') ?? '',
    predictionFeature: params.required('prediction_feature'),
    yScrambleSeed: scramble ? Number(seed) : undefined,
  };
}

/** The validation services (spec 4.1): test set, training/test, split, bootstrapping and dataset-against-dataset validations, each run as a task (validation-jobs.ts). */
export function validationServiceRoutes(router: Router, services: Services, start: ValidationStarters): void {
  const paramsOf = (ctx: Context) => Params.fromRequest(ctx, services.config.bodyLimit);

  router.post('/validation/test_set_validation', async (ctx) => {
    const p = await paramsOf(ctx);
    const input = {
      modelUri: p.required('model_uri'),
      testDatasetUri: p.required('test_dataset_uri'),
      testTargetDatasetUri: p.get('test_target_dataset_uri'),
      predictionFeature: p.get('prediction_feature'),
    };
    await sendTask(ctx, await start.testSet(input));
  });

  // the spec spells the path "valdiation"; both spellings work
  for (const path of ['/validation/training_test_valdiation', '/validation/training_test_validation']) {
    router.post(path, async (ctx) => {
      const p = await paramsOf(ctx);
      const input = {
        ...learningInput(p),
        trainingDatasetUri: p.required('training_dataset_uri'),
        testDatasetUri: p.required('test_dataset_uri'),
        testTargetDatasetUri: p.get('test_target_dataset_uri'),
      };
      await sendTask(ctx, await start.trainingTest(input));
    });
  }

  // training_test_split and bootstrapping: divide one dataset, then train and test
  for (const kind of ['training_test_split', 'bootstrapping'] as const) {
    router.post(`/validation/${kind}`, async (ctx) => {
      const p = await paramsOf(ctx);
      const learning = learningInput(p);
      const fractionSpec = kind === 'training_test_split' ? V.splitRatio : V.bootstrapPercentage;
      const read = readParameters([fractionSpec, V.randomSeed], p);
      const input = { ...learning, kind, datasetUri: p.required('dataset_uri'), fraction: Number(read[fractionSpec.name]), seed: Number(read.random_seed) };
      await sendTask(ctx, await start.split(input));
    });
  }

  router.post('/validation/validate_datasets', async (ctx) => {
    const p = await paramsOf(ctx);
    const input = {
      predictionFeature: p.required('prediction_feature'),
      testDatasetUri: p.required('test_dataset_uri'),
      testTargetDatasetUri: p.get('test_target_dataset_uri'),
      predictionDatasetUri: p.required('prediction_dataset_uri'),
      predictedFeature: p.required('predicted_feature'),
    };
    await sendTask(ctx, await start.datasets(input));
  });
}
