import { z } from 'zod';
import { notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { parseDatasetRef } from '../core/uri-scheme.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { deliver, resultRequest, resultTarget, type ResultTarget } from '../dataset/result-target.ts';
import { defineJob, type JobStarters } from '../task/job-definition.ts';
import { applyCleanupModel } from './cleanup-model.ts';
import { outputFeatures } from './model-codec.ts';
import type { ModelStore, StoredModel } from './model-store.ts';
import { createPredictionDataset, type Predictor, type PredictionRow, type PredictedValues } from './prediction.ts';

export type ModelStarters = JobStarters<ReturnType<typeof modelJobs>>;

/** Where a supermodel made with `dataset_service` stores its predictions unless told otherwise. */
export function defaultServiceOf(model: StoredModel): string | undefined {
  return String(model.parameters.dataset_service ?? '') || undefined;
}

/** Store predictions: a new dataset (here or at another dataset service), or new columns of an existing one; answers its URI. */
export async function storePredictions(
  services: Services,
  datasets: DatasetStore,
  model: StoredModel,
  rows: PredictionRow[],
  predictions: PredictedValues[],
  target: ResultTarget,
  source: string,
  sourceTitle?: string,
): Promise<string> {
  if (target.kind === 'existing') {
    await datasets.addColumns(target.meta, outputFeatures(model), new Map(rows.map((r, i) => [r.compound, predictions[i]])));
    return target.meta.uri;
  }
  const local = await createPredictionDataset(datasets, model, rows, predictions, { uri: source, title: sourceTitle });
  return deliver(services, datasets, local, target);
}

/** The model component's job: applying a model to a dataset (spec 4.11). */
export function modelJobs(services: Services, datasets: DatasetStore, models: ModelStore, predictor: Predictor) {
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
          return { title: `${model.title} applied to ${source.uri}`, work: () => applyCleanupModel(datasets, model, source, selected) };
        }
        // a supermodel made with dataset_service stores its predictions there unless told otherwise
        const target = await resultTarget(services, datasets, input.result, defaultServiceOf(model));
        const { uri: datasetUri } = parseDatasetRef(input.datasetUri);
        const source = await datasets.requireMeta(datasetUri, 'dataset_uri');
        const plan = await predictor.planInputs(model, source.features);
        return {
          title: `Predictions of ${model.uri} for ${datasetUri}`,
          quick: plan.calculations.length === 0 && plan.substructures.length === 0,
          work: async (job) => {
            const rows: PredictionRow[] = await datasets.allRows(source.uri);
            const predictions = await predictor.predict(model, rows, plan, job);
            return storePredictions(services, datasets, model, rows, predictions, target, source.uri, source.title);
          },
        };
      },
    }),
  };
}
