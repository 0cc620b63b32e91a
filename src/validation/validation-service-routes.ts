import type Router from '@koa/router';
import type { Context } from 'koa';
import { badRequest } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { sendTask } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import type { DatasetMeta } from '../dataset/dataset-store.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import type { Predictor } from '../model/prediction.ts';
import { confidenceFeatureOf, pairValues, statisticsOf } from './evaluation.ts';
import { splitValidation } from './split-validation.ts';
import { learnerOf, parseAlgorithmParams, type LearningSetup, type ValidationRunner } from './validation-runner.ts';
import { VALIDATION_PARAMETERS as V } from './validation-params.ts';
import { readParameters } from '../algorithm/parameters.ts';

/** The learning setup of a request: algorithm_uri, algorithm_params, prediction_feature, y_scramble. */
export function learningSetup(services: Services, params: Params): LearningSetup {
  const algorithmUri = params.required('algorithm_uri');
  const def = learnerOf(services, algorithmUri);
  const predictionFeature = params.required('prediction_feature');
  const parametersText = params.get('algorithm_params') ?? '';
  const { y_scramble: scramble, y_scramble_seed: scrambleSeed } = readParameters([V.yScramble, V.yScrambleSeed], params);
  return {
    algorithmUri,
    def,
    parameters: parseAlgorithmParams(def, parametersText),
    parametersText,
    predictionFeature,
    yScrambleSeed: scramble ? Number(scrambleSeed) : undefined,
  };
}

/** The prediction feature must be a feature of the dataset holding the actual values. */
export function requireFeatureIn(dataset: DatasetMeta, feature: string, parameter: string): void {
  if (!dataset.features.includes(feature)) throw badRequest(`${parameter} ${feature} is not a feature of dataset ${dataset.uri}`);
}

/** The validation services (spec 4.1): test set, training/test, split, bootstrapping and dataset-against-dataset validations, each run as a task. */
export function validationServiceRoutes(router: Router, services: Services, runner: ValidationRunner, predictor: Predictor): void {
  const { config, tasks } = services;
  const { validations } = runner;

  /** Each validation is a job kind (its input: the request's parameters), so a worker may run it. */
  const requestParams = async (ctx: Context) => ({ params: (await Params.fromRequest(ctx, config.bodyLimit)).entries() });
  type RequestInput = { params: [string, string][] };

  const startTestSetValidation = tasks.define('test-set-validation', async (input: RequestInput) => {
    const params = Params.fromEntries(input.params);
    const model = await runner.requireModel(params.required('model_uri'));
    const test = await runner.requireDataset(params.required('test_dataset_uri'), 'test_dataset_uri');
    const target = await runner.requireDataset(params.get('test_target_dataset_uri') ?? test.uri, 'test_target_dataset_uri');
    const predictionFeature = params.get('prediction_feature') ?? model.dependent;
    requireFeatureIn(target, predictionFeature, 'prediction_feature');
    await predictor.planInputs(model, test.features);
    return {
      title: `Test set validation of ${model.uri}`,
      work: async (job) => {
        const started = performance.now();
        const { record } = await runner.testModel(model, { testDataset: test.uri, testTargetDataset: target.uri, predictionFeature }, { signal: job.signal, progress: (f) => job.progress(f * 100) });
        return validations.create({ ...record, validationType: 'test_set_validation', realRuntimeMs: performance.now() - started, date: new Date() });
      },
    };
  });
  router.post('/validation/test_set_validation', async (ctx) => sendTask(ctx, await startTestSetValidation(await requestParams(ctx))));

  const startTrainingTestValidation = tasks.define('training-test-validation', async (input: RequestInput) => {
    const params = Params.fromEntries(input.params);
    const setup = learningSetup(services, params);
    const training = await runner.requireDataset(params.required('training_dataset_uri'), 'training_dataset_uri');
    const test = await runner.requireDataset(params.required('test_dataset_uri'), 'test_dataset_uri');
    const target = await runner.requireDataset(params.get('test_target_dataset_uri') ?? test.uri, 'test_target_dataset_uri');
    requireFeatureIn(target, setup.predictionFeature, 'prediction_feature');
    await runner.checkTraining(setup, training.uri);
    return {
      title: `Training/test validation of ${setup.algorithmUri}`,
      work: async (job) => {
        const { uri } = await runner.trainAndTest(
          setup,
          { trainingDataset: training.uri, testDataset: test.uri, testTargetDataset: target.uri },
          { validationType: 'training_test_validation' },
          { signal: job.signal, progress: (f) => job.progress(f * 100) },
        );
        return uri;
      },
    };
  });
  // the spec spells the path "valdiation"; both spellings work
  for (const path of ['/validation/training_test_valdiation', '/validation/training_test_validation']) {
    router.post(path, async (ctx) => sendTask(ctx, await startTrainingTestValidation(await requestParams(ctx))));
  }

  /** training_test_split and bootstrapping: divide one dataset, then train and test. */
  const startSplitValidation = tasks.define('split-validation', async (input: RequestInput & { kind: 'training_test_split' | 'bootstrapping' }) => {
    const { kind } = input;
    const params = Params.fromEntries(input.params);
    const setup = learningSetup(services, params);
    const dataset = await runner.requireDataset(params.required('dataset_uri'), 'dataset_uri');
    const fractionSpec = kind === 'training_test_split' ? V.splitRatio : V.bootstrapPercentage;
    const read = readParameters([fractionSpec, V.randomSeed], params);
    const fraction = Number(read[fractionSpec.name]);
    const seed = Number(read.random_seed);
    await runner.checkTraining(setup, dataset.uri);
    return {
      title: `${kind === 'bootstrapping' ? 'Bootstrapping' : 'Training/test split'} validation of ${setup.algorithmUri} on ${dataset.uri}`,
      work: (job) => splitValidation(runner, { setup, dataset, kind, fraction, seed }, { signal: job.signal, progress: (f) => job.progress(f * 100) }),
    };
  });
  for (const kind of ['training_test_split', 'bootstrapping'] as const) {
    router.post(`/validation/${kind}`, async (ctx) => sendTask(ctx, await startSplitValidation({ ...(await requestParams(ctx)), kind })));
  }

  const startDatasetValidation = tasks.define('dataset-validation', async (input: RequestInput) => {
    const params = Params.fromEntries(input.params);
    const predictionFeature = params.required('prediction_feature');
    const test = await runner.requireDataset(params.required('test_dataset_uri'), 'test_dataset_uri');
    const target = await runner.requireDataset(params.get('test_target_dataset_uri') ?? test.uri, 'test_target_dataset_uri');
    const predictions = await runner.requireDataset(params.required('prediction_dataset_uri'), 'prediction_dataset_uri');
    const predictedFeature = params.required('predicted_feature');
    requireFeatureIn(target, predictionFeature, 'prediction_feature');
    requireFeatureIn(predictions, predictedFeature, 'predicted_feature');
    const described = await readFeatureRecords(services.store, [predictionFeature, predictedFeature]);
    const predicted = described.get(predictedFeature)!;
    const kind = predicted.nominal || (!predicted.numeric && !described.get(predictionFeature)!.numeric) ? 'classification' : 'regression';
    const confidenceFeature = await confidenceFeatureOf(services, predictions.features, predictedFeature);
    const source = predicted.source && services.uris.isIn('model', predicted.source) ? predicted.source : undefined;
    return {
      title: `Validation of ${predictions.uri} against ${target.uri}`,
      work: async () => {
        const started = performance.now();
        const pairs = await pairValues(runner.datasets, { targetDataset: target.uri, predictionFeature, predictionDataset: predictions.uri, predictedFeature, confidenceFeature, kind });
        return validations.create({
          validationType: 'validate_datasets',
          model: source,
          testDataset: test.uri,
          testTargetDataset: target.uri,
          predictionDataset: predictions.uri,
          predictionFeature,
          statistics: statisticsOf(pairs, kind, predicted.accepted),
          realRuntimeMs: performance.now() - started,
          date: new Date(),
        });
      },
    };
  });
  router.post('/validation/validate_datasets', async (ctx) => sendTask(ctx, await startDatasetValidation(await requestParams(ctx))));
}
