import type { Context } from 'koa';
import { z } from 'zod';
import { sendTask } from '../http/respond.ts';
import { param, taskResponses, type DescribedRoutes } from '../http/route-description.ts';
import type { JobStarters } from '../task/job-definition.ts';
import type { LearningInput, validationJobs } from './validation-jobs.ts';
import { VALIDATION_PARAMETERS as V } from './validation-params.ts';
import { specParam } from '../algorithm/parameters.ts';

export type ValidationStarters = JobStarters<ReturnType<typeof validationJobs>>;

/** The parameters of the learning a request validates. */
export const learningParams = {
  algorithm_uri: param.required('The learning algorithm (a URI of /algorithm)'),
  algorithm_params: param.optional("The algorithm's parameters: name=value;name=value"),
  prediction_feature: param.required('The feature to predict'),
  y_scramble: specParam(V.yScramble),
  y_scramble_seed: specParam(V.yScrambleSeed),
};
const learning = z.object(learningParams);

/** The learning a request names, as the jobs take it. */
export function learningInput(p: z.infer<typeof learning>): LearningInput {
  return { algorithmUri: p.algorithm_uri, algorithmParams: p.algorithm_params ?? '', predictionFeature: p.prediction_feature, yScrambleSeed: p.y_scramble ? Number(p.y_scramble_seed) : undefined };
}

const testTarget = param.optional('The dataset with the actual values (the test dataset when not given)');

/** The validation services (spec 4.1): test set, training/test, split, bootstrapping and dataset-against-dataset validations, each run as a task (validation-jobs.ts). */
export function validationServiceRoutes(routes: DescribedRoutes, start: ValidationStarters): void {
  const answer = async (ctx: Context, task: Promise<string>) => sendTask(ctx, await task);

  routes.add(
    {
      method: 'POST',
      path: '/validation/test_set_validation',
      startsJob: true,
      summary: 'Validate a model on a test set',
      tag: 'validation',
      params: z.object({
        model_uri: param.required('The model'),
        test_dataset_uri: param.required('The dataset to predict'),
        test_target_dataset_uri: testTarget,
        prediction_feature: param.optional("The feature with the actual values (the model's dependent variable when not given)"),
      }),
      responses: taskResponses(400, 404),
    },
    (ctx, p) => answer(ctx, start.testSet({ modelUri: p.model_uri, testDatasetUri: p.test_dataset_uri, testTargetDatasetUri: p.test_target_dataset_uri, predictionFeature: p.prediction_feature })),
  );

  routes.add(
    {
      method: 'POST',
      path: '/validation/training_test_validation',
      startsJob: true,
      aliases: ['/validation/training_test_valdiation'], // the spec's spelling
      summary: 'Train on one dataset, validate on another',
      tag: 'validation',
      params: learning.extend({ training_dataset_uri: param.required('The training dataset'), test_dataset_uri: param.required('The test dataset'), test_target_dataset_uri: testTarget }),
      responses: taskResponses(400, 404),
    },
    (ctx, p) =>
      answer(ctx, start.trainingTest({ ...learningInput(p), trainingDatasetUri: p.training_dataset_uri, testDatasetUri: p.test_dataset_uri, testTargetDatasetUri: p.test_target_dataset_uri })),
  );

  routes.add(
    {
      method: 'POST',
      path: '/validation/training_test_split',
      startsJob: true,
      summary: 'Split a dataset (by structure), train and validate',
      tag: 'validation',
      params: learning.extend({ dataset_uri: param.required('The dataset to split'), split_ratio: specParam(V.splitRatio), random_seed: specParam(V.randomSeed) }),
      responses: taskResponses(400, 404),
    },
    (ctx, p) => answer(ctx, start.split({ ...learningInput(p), kind: 'training_test_split', datasetUri: p.dataset_uri, fraction: Number(p.split_ratio), seed: Number(p.random_seed) })),
  );

  routes.add(
    {
      method: 'POST',
      path: '/validation/bootstrapping',
      startsJob: true,
      summary: 'Bootstrap validation: train on a draw with replacement, validate on the rows not drawn',
      tag: 'validation',
      params: learning.extend({ dataset_uri: param.required('The dataset to draw from'), bootstrap_percentage: specParam(V.bootstrapPercentage), random_seed: specParam(V.randomSeed) }),
      responses: taskResponses(400, 404),
    },
    (ctx, p) => answer(ctx, start.split({ ...learningInput(p), kind: 'bootstrapping', datasetUri: p.dataset_uri, fraction: Number(p.bootstrap_percentage), seed: Number(p.random_seed) })),
  );

  routes.add(
    {
      method: 'POST',
      path: '/validation/validate_datasets',
      startsJob: true,
      summary: 'Score a prediction dataset against a test dataset',
      tag: 'validation',
      params: z.object({
        test_dataset_uri: param.required('The dataset that was predicted'),
        test_target_dataset_uri: testTarget,
        prediction_dataset_uri: param.required('The dataset with the predictions'),
        prediction_feature: param.required('The feature with the actual values'),
        predicted_feature: param.required('The feature with the predictions'),
      }),
      responses: taskResponses(400, 404),
    },
    (ctx, p) =>
      answer(
        ctx,
        start.datasets({
          testDatasetUri: p.test_dataset_uri,
          testTargetDatasetUri: p.test_target_dataset_uri,
          predictionDatasetUri: p.prediction_dataset_uri,
          predictionFeature: p.prediction_feature,
          predictedFeature: p.predicted_feature,
        }),
      ),
  );
}
