import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { ModelStore, StoredModel } from '../model/model-store.ts';
import { CONFORMAL_PARAMETERS } from '../learning/conformal.ts';
import { DOMAIN_OPTION } from '../learning/applicability-domain.ts';
import { ot, rdfs } from '../rdf/namespaces.ts';
import { readTypedGraph, selectUris } from '../store/query-helpers.ts';
import { validationQueries } from '../validation/validation-queries.ts';
import { crossvalidationRecord, validationDescription, type CrossvalidationRecord } from '../validation/validation-record.ts';
import { learnerOf, parseAlgorithmParams } from '../validation/validation-runner.ts';

/**
 * Where the training compounds' "predicted" values of an explanation come from. Never the model
 * itself: a model re-predicting its own training rows (resubstitution) agrees with them by
 * construction, which says nothing about how it predicts a new structure.
 */
export type NeighbourPredictionSource = { kind: 'crossvalidation'; crossvalidation: string; folds: number } | { kind: 'none'; reason: string };

/** The out-of-fold predictions of some training compounds, and where they come from. */
export interface OutOfFold {
  source: NeighbourPredictionSource;
  /** compound URI → the value predicted by the fold model that did not see it. */
  values: Map<string, string>;
}

const NO_CROSSVALIDATION =
  'no cross-validation of this model’s recipe (its algorithm, parameters, target and training set) is stored: cross-validate the recipe (the form on the model page) to see how the model predicts these compounds when it has not seen them';

/** A learner's own parameters that decide its predictions (not the calibration or the embedded domain). */
const recipeParameter = (name: string) => name !== DOMAIN_OPTION.name && !CONFORMAL_PARAMETERS.some((p) => p.name === name);

/**
 * Out-of-fold predictions of `compounds` (training compounds of `model`): each compound's
 * prediction by the fold model of a cross-validation of the same recipe that held it out. The
 * recipe is the model's algorithm with the same parameters, prediction feature and training
 * dataset (a supermodel: the cross-validation it links with rdfs:seeAlso); y-scrambled
 * cross-validations do not count. The newest such cross-validation is used. Without one, no
 * values: the explanation says so instead of showing in-sample agreement.
 */
export async function outOfFoldPredictions(
  deps: { services: Pick<Services, 'uris' | 'store'>; datasets: DatasetStore; models: ModelStore },
  model: StoredModel,
  compounds: string[],
): Promise<OutOfFold> {
  const chosen = await recipeCrossvalidation(deps, model);
  if (!chosen) return { source: { kind: 'none', reason: NO_CROSSVALIDATION }, values: new Map() };
  const wanted = new Set(compounds);
  const values = new Map<string, string>();
  for (const fold of chosen.record.folds) {
    if (![...wanted].some((c) => !values.has(c))) break;
    const quads = await deps.services.store.readGraph(fold);
    if (!validationDescription.isComplete(quads, fold)) continue;
    const v = validationDescription.decode(quads, fold);
    if (!v.predictionDataset || !v.model) continue;
    const foldModel = await deps.models.load(v.model);
    if (!foldModel) continue;
    for await (const row of deps.datasets.rows(v.predictionDataset, { compounds: [...wanted], features: [foldModel.predicted] })) {
      const value = row.values.get(foldModel.predicted)?.value;
      if (value !== undefined && !values.has(row.compound)) values.set(row.compound, value);
    }
  }
  return { source: { kind: 'crossvalidation', crossvalidation: chosen.uri, folds: chosen.record.folds.length }, values };
}

/** The newest cross-validation of the model's recipe, if any is stored. */
async function recipeCrossvalidation(
  deps: { services: Pick<Services, 'uris' | 'store'>; models: ModelStore },
  model: StoredModel,
): Promise<{ uri: string; record: CrossvalidationRecord } | undefined> {
  const { services } = deps;
  if (!model.trainingDataset) return undefined;
  // a supermodel links the cross-validation of its own recipe
  const linked = ((await deps.models.describe(model.uri))?.quads ?? [])
    .filter((q) => q.subject.value === model.uri && q.predicate.equals(rdfs('seeAlso')) && services.uris.isIn('crossvalidation', q.object.value))
    .map((q) => q.object.value);
  const same = (await selectUris(services.store, validationQueries.crossvalidations({ algorithm: model.algorithm, dataset: model.trainingDataset }))).filter((u) => !linked.includes(u));
  const candidates: { uri: string; record: CrossvalidationRecord }[] = [];
  for (const uri of [...linked, ...same]) {
    const quads = await readTypedGraph(services.store, uri, ot('Crossvalidation'));
    const record = quads && crossvalidationRecord(quads, uri);
    if (!record || record.yScrambleSeed !== undefined || record.predictionFeature !== model.dependent) continue;
    if (linked.includes(uri) || sameParameters(services, model, record)) candidates.push({ uri, record });
  }
  return candidates.sort((a, b) => b.record.date.getTime() - a.record.date.getTime())[0];
}

/** Whether a cross-validation's parameters (its learner's defaults filled in) are the model's. */
function sameParameters(services: Pick<Services, 'uris'>, model: StoredModel, record: CrossvalidationRecord): boolean {
  try {
    const def = learnerOf(services, record.algorithm);
    const cv = parseAlgorithmParams(def, record.algorithmParams);
    return def.parameters.filter((p) => recipeParameter(p.name)).every((p) => model.parameters[p.name] === undefined || String(cv[p.name]) === String(model.parameters[p.name]));
  } catch {
    return false; // not a learner's parameters (a recipe of steps): only a linked cross-validation counts
  }
}
