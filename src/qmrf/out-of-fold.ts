import type { Services } from '../core/services.ts';
import type { DatasetRow, DatasetStore } from '../dataset/dataset-store.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import { encodeRows, fitEncodings } from '../learning/feature-matrix.ts';
import type { ParamValue, Prediction } from '../learning/learner.ts';
import { learnerById } from '../learning/learners.ts';
import { PREDICT_MODULE } from '../model/predict-in-worker.ts';
import { numberOf } from '../rdf/terms.ts';
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
export type NeighbourPredictionSource =
  | { kind: 'crossvalidation'; crossvalidation: string; folds: number }
  /** The learner trained again without the shown compounds (no cross-validation of the recipe is stored). */
  | { kind: 'held-out'; trainingRows: number }
  | { kind: 'none'; reason: string };

/** The out-of-fold predictions of some training compounds, and where they come from. */
export interface OutOfFold {
  source: NeighbourPredictionSource;
  /** compound URI → the value predicted by the fold model that did not see it. */
  values: Map<string, string>;
}

const NO_CROSSVALIDATION =
  'no cross-validation of this model’s recipe (its algorithm, parameters, target and training set) is stored, and its learner cannot be trained again here without them (a supermodel’s recipe, an imported model): cross-validate the recipe to see how the model predicts these compounds when it has not seen them';

/** A learner's own parameters that decide its predictions (not the calibration or the embedded domain). */
const recipeParameter = (name: string) => name !== DOMAIN_OPTION.name && !CONFORMAL_PARAMETERS.some((p) => p.name === name);

/**
 * Out-of-fold predictions of `compounds` (training compounds of `model`, whose training rows are
 * `rows`): each compound's prediction by the fold model of a cross-validation of the same recipe
 * that held it out. The recipe is the model's algorithm with the same parameters, prediction
 * feature and training dataset (a supermodel: the cross-validation it links with rdfs:seeAlso);
 * y-scrambled cross-validations do not count. The newest such cross-validation is used. Without
 * one, the model's learner is trained again with the same parameters on the training rows less
 * these compounds, and predicts them (one training, kept for the model and compounds in memory).
 * A learner that cannot be trained so (a supermodel's recipe, an imported model) gives no values:
 * the explanation says so instead of showing in-sample agreement.
 */
export async function outOfFoldPredictions(
  deps: { services: Pick<Services, 'uris' | 'store' | 'config' | 'workers'>; datasets: DatasetStore; models: ModelStore },
  model: StoredModel,
  compounds: string[],
  rows: DatasetRow[],
  signal?: AbortSignal,
): Promise<OutOfFold> {
  const chosen = await recipeCrossvalidation(deps, model);
  if (!chosen) {
    const held = await heldOut(deps.services, model, compounds, rows, signal);
    return held ?? { source: { kind: 'none', reason: NO_CROSSVALIDATION }, values: new Map() };
  }
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

/** Held-out predictions already made, by model and compounds (a page shown again trains nothing). */
const heldOutCache = new Map<string, OutOfFold>();
const HELD_OUT_CACHE = 64;

/**
 * The model's learner trained again, with the model's parameters and seed 1 (as training has it),
 * on the training rows less every row of `compounds`, and its predictions of those compounds:
 * each is predicted by a model that did not see it. Undefined when the model's learner is not one
 * of the catalogue's (an imported model, a supermodel's consensus) or the rows left cannot train it.
 */
async function heldOut(services: Pick<Services, 'store' | 'config' | 'workers'>, model: StoredModel, compounds: string[], rows: DatasetRow[], signal?: AbortSignal): Promise<OutOfFold | undefined> {
  const learner = learnerById(model.learnerId);
  if (!learner || learner.task !== model.task || !compounds.length || !model.independent.length) return undefined;
  const key = `${model.uri} ${[...compounds].sort().join(' ')}`;
  const cached = heldOutCache.get(key);
  if (cached) return cached;
  const held = new Set(compounds);
  const targetOf = (r: DatasetRow) => {
    const t = r.values.get(model.dependent);
    if (!t || t.value.trim() === '') return undefined;
    return model.task === 'regression' ? (Number.isFinite(numberOf(t)) ? numberOf(t) : undefined) : t.value.trim();
  };
  const training = rows.filter((r) => !held.has(r.compound) && targetOf(r) !== undefined);
  const classes = model.task === 'classification' ? [...new Set(training.map((r) => String(targetOf(r))))].sort() : [];
  if (training.length < 2 || (model.task === 'classification' && classes.length < 2)) return undefined;
  const records = await readFeatureRecords(services.store, model.independent);
  const features = model.independent.map((f) => records.get(f)).filter((f) => f !== undefined);
  if (features.length !== model.independent.length) return undefined;
  try {
    const encodings = await fitEncodings(
      features,
      training.map((r) => r.values),
    );
    const { x, binary } = await encodeRows(
      encodings,
      training.map((r) => r.values),
    );
    const index = new Map(classes.map((c, i) => [c, i]));
    const y = Float64Array.from(training, (r) => (model.task === 'regression' ? (targetOf(r) as number) : index.get(String(targetOf(r)))!));
    const parameters: Record<string, ParamValue> = Object.fromEntries(learner.parameters.filter((p) => model.parameters[p.name] !== undefined).map((p) => [p.name, model.parameters[p.name]]));
    const state = await learner.train({ x, binary, y, classes }, parameters, { seed: 1, parallelism: services.config.workerThreads, run: services.workers.runner(signal), signal });
    const first = compounds.map((c) => rows.find((r) => r.compound === c));
    const asked = first.filter((r): r is DatasetRow => r !== undefined);
    const test = await encodeRows(
      encodings,
      asked.map((r) => r.values),
    );
    const predictions = await services.workers.run<Prediction[]>(PREDICT_MODULE, 'predictWith', [learner.id, state, test.x], signal);
    const values = new Map(asked.map((r, i) => [r.compound, model.task === 'regression' ? String(predictions[i].value) : classes[predictions[i].value]]));
    const answer: OutOfFold = { source: { kind: 'held-out', trainingRows: training.length }, values };
    if (heldOutCache.size >= HELD_OUT_CACHE) heldOutCache.delete(heldOutCache.keys().next().value!);
    heldOutCache.set(key, answer);
    return answer;
  } catch (e) {
    if (signal?.aborted) throw e;
    return undefined; // the learner could not be trained on what is left: no values, and the reason
  }
}
