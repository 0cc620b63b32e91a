import { z } from 'zod';
import { notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { parseDatasetRef } from '../core/uri-scheme.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { resultRequest, resultTarget } from '../dataset/result-target.ts';
import { defineJob, type JobStarters } from '../task/job-definition.ts';
import { applyCleanupModel } from './cleanup-model.ts';
import type { ModelStore } from './model-store.ts';
import type { Predictor, PredictionRow } from './prediction.ts';
import { defaultServiceOf, identifierColumns, storePredictions } from './prediction-operations.ts';

export type ModelStarters = JobStarters<ReturnType<typeof modelJobs>>;

/** The model component's job: applying a model to a dataset (spec 4.11). */
export function modelJobs(services: Pick<Services, 'config' | 'store'>, datasets: DatasetStore, models: ModelStore, predictor: Predictor) {
  return {
    /**
     * Predicting is quick and answered at once; calculating missing descriptors first is not:
     * then it is a task. A filtering model (spec 2.4 DataCleanup) answers the cleaned copy of a
     * dataset.
     */
    predictions: defineJob({
      kind: 'predictions',
      input: z.object({ model: z.string(), datasetUri: z.string(), result: resultRequest }),
      mayBeQuick: true,
      async prepare(input) {
        const model = await models.load(input.model);
        if (!model) throw notFound(`model ${input.model} not found`);
        if (model.task === 'cleanup') {
          const { meta: source, selected } = await datasets.requireRef(input.datasetUri);
          return { title: `${model.title} applied to ${source.title ?? source.uri}`, work: () => applyCleanupModel(datasets, model, source, selected) };
        }
        // a supermodel made with dataset_service stores its predictions there unless told otherwise
        const target = await resultTarget(services, datasets, input.result, defaultServiceOf(model));
        const { uri: datasetUri } = parseDatasetRef(input.datasetUri);
        const source = await datasets.requireMeta(datasetUri, 'dataset_uri');
        const plan = await predictor.planInputs(model, source.features);
        return {
          title: `Predictions of ${model.title} for ${source.title ?? datasetUri}`,
          quick: plan.calculations.length === 0 && plan.substructures.length === 0,
          work: async (job) => {
            const rows: PredictionRow[] = await datasets.allRows(source.uri);
            const predictions = await predictor.predict(model, rows, plan, job);
            const kept = await identifierColumns(services.store, model, source.features);
            return storePredictions(services, datasets, model, rows, predictions, target, source.uri, source.title, kept);
          },
        };
      },
    }),
  };
}
