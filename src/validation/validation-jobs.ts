import { z } from 'zod';
import { badRequest } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { DatasetMeta } from '../dataset/dataset-store.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import { learnerForTarget } from '../learning/learner.ts';
import type { Predictor } from '../model/prediction.ts';
import { defineJob } from '../task/job-definition.ts';
import type { Crossvalidations } from './crossvalidation.ts';
import { timePhase } from '../core/phase-times.ts';
import { confidenceFeatureOf, conformalStatisticsOf, pairValues, statisticsOf } from './evaluation.ts';
import { splitValidation } from './split-validation.ts';
import { learnerOf, parseAlgorithmParams, type LearningSetup, type ValidationRunner } from './validation-runner.ts';

/** What a request says of the learning it validates: algorithm_uri, algorithm_params, prediction_feature, y_scramble(_seed). */
const learning = z.object({
  algorithmUri: z.string(),
  /** `algorithm_params` as given ("name=value;…"). */
  algorithmParams: z.string(),
  predictionFeature: z.string(),
  /** Permute the training targets before learning, with this seed. */
  yScrambleSeed: z.number().int().optional(),
});

/** The inputs of the validation component's jobs: typed records, JSON as the shared queue carries them. */
export const validationInputs = {
  testSet: z.object({ modelUri: z.string(), testDatasetUri: z.string(), testTargetDatasetUri: z.string().optional(), predictionFeature: z.string().optional() }),
  trainingTest: learning.extend({ trainingDatasetUri: z.string(), testDatasetUri: z.string(), testTargetDatasetUri: z.string().optional() }),
  split: learning.extend({ kind: z.enum(['training_test_split', 'bootstrapping']), datasetUri: z.string(), fraction: z.number(), seed: z.number().int() }),
  datasets: z.object({ testDatasetUri: z.string(), testTargetDatasetUri: z.string().optional(), predictionFeature: z.string(), predictionDatasetUri: z.string(), predictedFeature: z.string() }),
  crossvalidation: learning.extend({
    datasetUri: z.string(),
    /** As given; the default (true) is resolved against the learner's task. */
    stratified: z.enum(['true', 'false', 'super']).optional(),
    randomSeed: z.number().int(),
    /** Undefined for leave-one-out (as many folds as rows). */
    numFolds: z.number().int().optional(),
  }),
};
export type LearningInput = z.infer<typeof learning>;

/** The learner and its parameters a request names (400 for an unknown learner or a bad parameter). */
export async function learningSetupOf(services: Pick<Services, 'uris' | 'store'>, input: LearningInput): Promise<LearningSetup> {
  const def = learnerOf(services, input.algorithmUri);
  // a learner of either task (read-across) validates the form for the prediction feature
  const target = def.learner.forTarget ? (await readFeatureRecords(services.store, [input.predictionFeature])).get(input.predictionFeature) : undefined;
  return {
    algorithmUri: input.algorithmUri,
    def: target ? { ...def, learner: learnerForTarget(def.learner, target) } : def,
    parameters: parseAlgorithmParams(def, input.algorithmParams),
    parametersText: input.algorithmParams,
    predictionFeature: input.predictionFeature,
    yScrambleSeed: input.yScrambleSeed,
  };
}

/** The prediction feature must be a feature of the dataset holding the actual values. */
function requireFeatureIn(dataset: DatasetMeta, feature: string, parameter: string): void {
  if (!dataset.features.includes(feature)) throw badRequest(`${parameter} ${feature} is not a feature of dataset ${dataset.uri}`);
}

/**
 * The validation services' jobs (spec 4.1, 4.2): test set, training/test, split and bootstrapping,
 * dataset-against-dataset validations and cross-validations. Each checks its input against the
 * store when it starts (400/404 to the request) and runs as a task, here or on a worker.
 */
export function validationJobs(services: Pick<Services, 'uris' | 'store'>, runner: ValidationRunner, predictor: Predictor, crossvalidations: Crossvalidations) {
  const { validations } = runner;
  const progressOf = (job: { signal: AbortSignal; progress(percent: number, stage?: string): void }) => ({ signal: job.signal, progress: (f: number, stage?: string) => job.progress(f * 100, stage) });
  /** The test dataset and the one with the actual values (the test dataset itself unless another is named). */
  const testDatasets = async (input: { testDatasetUri: string; testTargetDatasetUri?: string }) => {
    const test = await runner.requireDataset(input.testDatasetUri, 'test_dataset_uri');
    return { test, target: await runner.requireDataset(input.testTargetDatasetUri ?? test.uri, 'test_target_dataset_uri') };
  };
  return {
    testSet: defineJob({
      kind: 'test-set-validation',
      input: validationInputs.testSet,
      async prepare(input) {
        const model = await runner.requireModel(input.modelUri);
        const { test, target } = await testDatasets(input);
        const predictionFeature = input.predictionFeature ?? model.dependent;
        requireFeatureIn(target, predictionFeature, 'prediction_feature');
        await predictor.planInputs(model, test.features);
        return {
          title: `Test set validation of ${model.title}`,
          work: async (job) => {
            const started = performance.now();
            const { record } = await runner.testModel(model, { testDataset: test.uri, testTargetDataset: target.uri, predictionFeature }, progressOf(job));
            return validations.create({ ...record, validationType: 'test_set_validation', realRuntimeMs: performance.now() - started, date: new Date() });
          },
        };
      },
    }),

    trainingTest: defineJob({
      kind: 'training-test-validation',
      input: validationInputs.trainingTest,
      async prepare(input) {
        const setup = await learningSetupOf(services, input);
        const training = await runner.requireDataset(input.trainingDatasetUri, 'training_dataset_uri');
        const { test, target } = await testDatasets(input);
        requireFeatureIn(target, setup.predictionFeature, 'prediction_feature');
        await runner.checkTraining(setup, training.uri);
        return {
          title: `Training/test validation of ${setup.def.title}`,
          work: async (job) => {
            const datasets = { trainingDataset: training.uri, testDataset: test.uri, testTargetDataset: target.uri };
            return (await runner.trainAndTest(setup, datasets, { validationType: 'training_test_validation' }, progressOf(job))).uri;
          },
        };
      },
    }),

    /** training_test_split and bootstrapping: divide one dataset, then train and test. */
    split: defineJob({
      kind: 'split-validation',
      input: validationInputs.split,
      async prepare(input) {
        const setup = await learningSetupOf(services, input);
        const dataset = await runner.requireDataset(input.datasetUri, 'dataset_uri');
        await runner.checkTraining(setup, dataset.uri);
        const { kind, fraction, seed } = input;
        return {
          title: `${kind === 'bootstrapping' ? 'Bootstrapping' : 'Training/test split'} validation of ${setup.def.title} on ${dataset.title ?? dataset.uri}`,
          work: (job) => splitValidation(runner, { setup, dataset, kind, fraction, seed }, progressOf(job)),
        };
      },
    }),

    datasets: defineJob({
      kind: 'dataset-validation',
      input: validationInputs.datasets,
      async prepare(input) {
        const { predictionFeature, predictedFeature } = input;
        const { test, target } = await testDatasets(input);
        const predictions = await runner.requireDataset(input.predictionDatasetUri, 'prediction_dataset_uri');
        requireFeatureIn(target, predictionFeature, 'prediction_feature');
        requireFeatureIn(predictions, predictedFeature, 'predicted_feature');
        const described = await readFeatureRecords(services.store, [predictionFeature, predictedFeature]);
        const predicted = described.get(predictedFeature)!;
        const kind = predicted.nominal || (!predicted.numeric && !described.get(predictionFeature)!.numeric) ? 'classification' : 'regression';
        const confidenceFeature = await confidenceFeatureOf(services, predictions.features, predictedFeature);
        const source = predicted.source && services.uris.isIn('model', predicted.source) ? predicted.source : undefined;
        return {
          title: `Validation of ${predictions.title ?? predictions.uri} against ${target.title ?? target.uri}`,
          work: async () => {
            const started = performance.now();
            // the predictions of a conformal model of ours: its intervals or sets are measured too
            const model = source ? await runner.requireModel(source).catch(() => undefined) : undefined;
            const conformal = model?.predicted === predictedFeature ? model.conformal : undefined;
            const classes = model?.classes ?? predicted.accepted;
            const pairs = await pairValues(runner.datasets, {
              targetDataset: target.uri,
              predictionFeature,
              predictionDataset: predictions.uri,
              predictedFeature,
              confidenceFeature,
              kind,
              classes,
              conformal,
            });
            return validations.create({
              validationType: 'validate_datasets',
              model: source,
              testDataset: test.uri,
              testTargetDataset: target.uri,
              predictionDataset: predictions.uri,
              predictionFeature,
              statistics: statisticsOf(pairs, kind, predicted.accepted),
              conformal: conformalStatisticsOf(pairs, kind, conformal, classes),
              realRuntimeMs: performance.now() - started,
              date: new Date(),
            });
          },
        };
      },
    }),

    /** A cross-validation (k-fold, or leave-one-out without numFolds) of a recipe on a dataset. */
    crossvalidation: defineJob({
      kind: 'crossvalidation',
      input: validationInputs.crossvalidation,
      async prepare(input) {
        const leaveOneOut = input.numFolds === undefined;
        const setup = await learningSetupOf(services, input);
        const dataset = await runner.requireDataset(input.datasetUri, 'dataset_uri');
        let stratified = input.stratified ?? 'true';
        await runner.checkTraining(setup, dataset.uri);
        let note: string | undefined;
        if (!leaveOneOut && stratified === 'true' && setup.def.learner.task === 'regression') {
          if (input.stratified)
            throw badRequest(
              `stratified=true stratifies by class, but prediction_feature ${setup.predictionFeature} is a regression target; leave stratified out, or use false, or super (stratified on the sorted target values)`,
            );
          // the spec's default (stratified=true) on a regression target: stratify on the sorted target
          stratified = 'super';
          note =
            'stratified was left at its default (true) on a regression target: the folds are stratified on the sorted target values (rows sorted by the target and dealt to the folds in blocks of k), as stratified=super does';
        }
        const size = await runner.datasets.count(dataset.uri);
        const numFolds = input.numFolds ?? size;
        if (numFolds > size) throw badRequest(`num_folds ${numFolds} is larger than the ${size} rows of dataset ${dataset.uri}`);
        return {
          title: `${leaveOneOut ? 'Leave-one-out' : `${numFolds}-fold`} cross-validation of ${setup.def.title} on ${dataset.title ?? dataset.uri}`,
          work: async (job) => {
            const rowsVersion = await runner.rowsVersion(dataset);
            const rows = await timePhase('dataset rows read', () => runner.datasets.allRows(dataset.uri));
            return crossvalidations.run(
              { setup, dataset, rows, rowsVersion, numFolds: leaveOneOut ? rows.length : numFolds, randomSeed: input.randomSeed, stratified, leaveOneOut, note },
              progressOf(job),
            );
          },
        };
      },
    }),
  };
}
