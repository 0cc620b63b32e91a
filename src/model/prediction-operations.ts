import { notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { deliver, resultTarget, type ResultRequest, type ResultTarget } from '../dataset/result-target.ts';
import { FeatureValues } from '../compound/feature-values.ts';
import { outputFeatures } from './model-codec.ts';
import type { StoredModel } from './model-store.ts';
import { createPredictionDataset, type Predictor, type PredictionRow, type PredictedValues } from './prediction.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import { isIdentifierHeader } from '../dataset/column-roles.ts';
import { isOwnColumn } from '../algorithm/target-choice.ts';

/** Where a supermodel made with `dataset_service` stores its predictions unless told otherwise. */
export function defaultServiceOf(model: StoredModel): string | undefined {
  return String(model.parameters.dataset_service ?? '') || undefined;
}

/**
 * The columns of a dataset a new dataset of its predictions keeps, so that each row is still
 * known by the person's own words: its own identifier, name and CAS RN columns (by their
 * headers: `Lab ID`, `Name`, `CAS`), none the model reads.
 */
export async function identifierColumns(store: Services['store'], model: StoredModel, features: string[]): Promise<string[]> {
  const read = new Set(model.independent);
  const records = await readFeatureRecords(
    store,
    features.filter((f) => !read.has(f)),
  );
  return [...records.values()].filter((f) => isOwnColumn(f) && isIdentifierHeader(f.title ?? '')).map((f) => f.uri);
}

/** Store predictions: a new dataset (here or at another dataset service), or new columns of an existing one; answers its URI. */
export async function storePredictions(
  services: Pick<Services, 'config' | 'store'>,
  datasets: DatasetStore,
  model: StoredModel,
  rows: PredictionRow[],
  predictions: PredictedValues[],
  target: ResultTarget,
  source: string,
  sourceTitle?: string,
  /** Columns of the source kept beside the predictions (identifierColumns). */
  kept: string[] = [],
): Promise<string> {
  if (target.kind === 'existing') {
    await datasets.addColumns(target.meta, outputFeatures(model), new Map(rows.map((r, i) => [r.compound, predictions[i]])));
    return target.meta.uri;
  }
  const local = await createPredictionDataset(datasets, model, rows, predictions, { uri: source, title: sourceTitle }, kept);
  return deliver(services, datasets, local, target);
}

/**
 * Predict one compound (spec 4.11 with `compound_uri`) at once: its own feature values, descriptors
 * calculated as the model needs, the applicability domain estimated. Answers the dataset the
 * predictions went to, and whether it is at another dataset service.
 */
export async function predictCompound(
  services: Pick<Services, 'config' | 'uris' | 'store'>,
  datasets: DatasetStore,
  predictor: Predictor,
  model: StoredModel,
  compound: string,
  result: ResultRequest,
  /** How the compound is named in the title of the predictions (its SMILES). */
  compoundTitle?: string,
): Promise<{ uri: string; remote: boolean }> {
  const target = await resultTarget(services, datasets, result, defaultServiceOf(model));
  if (!services.uris.isIn('compound', compound) || !(await services.store.hasGraph(compound))) throw notFound(`compound_uri: compound ${compound} not found`);
  const own = await new FeatureValues(services.store, services.uris).read(compound, model.independent);
  const row: PredictionRow = { compound, values: new Map(own.map((v) => [v.feature, v.value])) };
  const plan = await predictor.planInputs(model, [...row.values.keys()]);
  const predictions = await predictor.predict(model, [row], plan);
  const uri = await storePredictions(services, datasets, model, [row], predictions, target, compound, compoundTitle);
  return { uri, remote: target.kind === 'remote' };
}
