import { parseDatasetRef } from '../core/uri-scheme.ts';
import type * as RDF from '@rdfjs/types';
import { learnerForTarget, type Learner, type Matrix, type ParameterSpec, type ParamValue, type TrainingData } from '../learning/learner.ts';
import { DOMAIN_MODULE } from './domain-training.ts';
import { DOMAIN_METHODS, DOMAIN_OPTION } from '../learning/applicability-domain.ts';
import { badRequest, HttpError } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { DatasetMeta, DatasetStore } from '../dataset/dataset-store.ts';
import { columnGroups, encodeRows, fitEncodings, isLearnable } from '../learning/feature-matrix.ts';
import { numberOf } from '../rdf/terms.ts';
import { readFeatureRecords, type FeatureRecord } from '../feature/feature-record.ts';
import type { ModelStore } from './model-store.ts';
import type { PreparedJob } from '../task/task-runner.ts';
import { timePhase } from '../core/phase-times.ts';
import { CONFORMAL_PARAMETERS, type ConformalState } from '../learning/conformal.ts';
import { conformalRequest, trainConformal } from './conformal-training.ts';
import type { StandardisationOptions } from '../chemistry/standardisation.ts';
import { STRUCTURE_STANDARDISATION } from '../algorithm/structure-standardisation.ts';
import { recordedStandardisation, standardisationLineage } from './standardisation-record.ts';

/** The conformal parameters' defaults: recorded on every model, whatever the request named. */
const CONFORMAL_DEFAULTS = Object.fromEntries(CONFORMAL_PARAMETERS.map((p) => [p.name, p.default]));

/** At most this many classes: more means the target is not a class label. */
const MAX_CLASSES = 50;

/** A checked request to train a learner: everything is known to exist and fit. */
export interface TrainingPlan {
  algorithmUri: string;
  learner: Learner;
  parameters: Record<string, ParamValue>;
  dataset: DatasetMeta;
  target: FeatureRecord;
  independent: FeatureRecord[];
  /** Features of the dataset left out (neither numeric nor fingerprints). */
  skipped: FeatureRecord[];
  seed: number;
  /** Separate applicability-domain models to link (the superalgorithm's `applicability_domain`). */
  linkedDomains?: string[];
  /**
   * The applicability domain to embed, as the request asked (DOMAIN_OPTION): by the features
   * (`auto`), none, or a method. Unset (a validation's fold models): only a learner of type
   * ApplicabilityDomain embeds its own.
   */
  domain?: string;
  /** The structure standardisation the training set descends from (standardisation-record.ts): recorded on the model, which then predicts parents. */
  standardisation?: { dataset: string; options: StandardisationOptions };
  /** More parameters recorded on the model (a supermodel's steps), and its title. */
  recorded?: { specs: ParameterSpec[]; values: Record<string, ParamValue> };
  title?: string;
  /** Resources about the model (`rdfs:seeAlso`): a supermodel's cross-validation. */
  related?: string[];
}

/**
 * Check a training request against the store before any work is queued, so that mistakes
 * answer 400/404 naming the parameter at once: the dataset exists, the prediction feature is
 * one of its features and suits the learner, and some features can be learned from.
 */
export async function planTraining(
  services: Pick<Services, 'uris' | 'store'>,
  datasets: DatasetStore,
  request: { algorithmUri: string; learner: Learner; parameters: Record<string, ParamValue>; datasetUri: string; predictionFeature: string; seed?: number; domain?: string },
): Promise<TrainingPlan> {
  const { meta: dataset, selected } = await datasets.requireRef(request.datasetUri);
  const uri = dataset.uri;
  if (!dataset.features.includes(request.predictionFeature)) throw badRequest(`prediction_feature ${request.predictionFeature} is not a feature of dataset ${uri}`);
  const candidates = (selected.length ? selected : dataset.features).filter((f) => f !== request.predictionFeature);
  const described = await readFeatureRecords(services.store, [request.predictionFeature, ...candidates]);
  const target = described.get(request.predictionFeature)!;
  // a learner of either task (read-across) learns classes of a nominal target, else values
  const learner = learnerForTarget(request.learner, target);
  if (learner.task === 'regression' && !target.numeric) {
    throw badRequest(
      `prediction_feature ${request.predictionFeature} is not numeric (not an ot:NumericFeature); the regression learner ${request.learner.id} needs a numeric target${target.nominal ? ' (for classes, use a classification learner)' : ' (its values are text, not numbers: choose the column of the measured endpoint)'}`,
    );
  }
  const independent = candidates.map((f) => described.get(f)!).filter(isLearnable);
  const skipped = candidates.map((f) => described.get(f)!).filter((f) => !isLearnable(f));
  if (!independent.length) {
    throw badRequest(
      `dataset ${uri} has no numeric or fingerprint features besides the prediction feature to learn from; calculate descriptors first (for example with ${services.uris.item('algorithm', 'rdkit-descriptors')})`,
    );
  }
  const domain = request.domain === undefined ? undefined : domainOption(services, request.domain, independent);
  try {
    conformalRequest(learner, request.parameters);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  const standardisation = await standardisationLineage(services, datasets, dataset);
  return { algorithmUri: request.algorithmUri, learner, parameters: request.parameters, dataset, target, independent, skipped, seed: request.seed ?? 1, domain, standardisation };
}

/** The option as given, checked against the features (400 naming the parameter): auto, none or a method id. */
function domainOption(services: Pick<Services, 'uris'>, given: string, independent: FeatureRecord[]): string {
  const value = given.trim();
  const id = services.uris.idIn('algorithm', value) ?? value;
  if (!DOMAIN_OPTION.choices!.includes(id)) throw badRequest(`applicability_domain: ${given} is none of ${DOMAIN_OPTION.choices!.join(', ')}`);
  const method = DOMAIN_METHODS.find((m) => m.id === id);
  const fingerprints = independent.every((f) => f.bits !== undefined);
  if (method?.columns === 'fingerprint' && !independent.some((f) => f.bits !== undefined)) throw badRequest(`applicability_domain: ${id} needs fingerprint features, and the model has none`);
  if (method?.columns === 'numeric' && fingerprints) throw badRequest(`applicability_domain: ${id} needs numeric features, and the model has only fingerprints (use ad-tanimoto)`);
  return id;
}

/** Read the training rows, fit the encodings, train (in the worker pool) and store the model. */
/** What applying a learner to a dataset asks for (`POST /algorithm/{id}` of a learner). */
export interface TrainingRequest {
  algorithmUri: string;
  title: string;
  learner: Learner;
  parameters: Record<string, ParamValue>;
  /** `applicability_domain` (DOMAIN_OPTION). */
  domain: string;
  /** The `dataset_uri` parameter as given (it may select features with its query). */
  datasetUri: string;
  predictionFeature: string;
}

/** Training a model as a job: the request checked (400/404), and the training to run. */
export type PrepareTraining = (request: TrainingRequest) => Promise<PreparedJob>;

export function trainingJob(services: Pick<Services, 'config' | 'uris' | 'store' | 'workers'>, datasets: DatasetStore, models: ModelStore): PrepareTraining {
  return async (request) => {
    const plan = await planTraining(services, datasets, request);
    const dataset = parseDatasetRef(request.datasetUri).uri;
    return {
      title: `Training ${request.title} on ${plan.dataset.title ?? dataset}`,
      work: (job) => trainModel(services, datasets, models, plan, { signal: job.signal, progress: (f) => job.progress(f * 100) }),
    };
  };
}

export async function trainModel(
  services: Pick<Services, 'config' | 'workers' | 'uris'>,
  datasets: DatasetStore,
  models: ModelStore,
  plan: TrainingPlan,
  job: { signal?: AbortSignal; progress?: (fraction: number, stage?: string) => void } = {},
  /** The training dataset's rows when the caller holds them already (a cross-validation's folds): not read again. */
  given?: { compound?: string; values: Map<string, RDF.Literal> }[],
): Promise<string> {
  const rows: Map<string, RDF.Literal>[] = [];
  const targets: RDF.Literal[] = [];
  const compounds: (string | undefined)[] = [];
  let withoutTarget = 0;
  const take = (r: { compound?: string; values: Map<string, RDF.Literal> }) => {
    const t = r.values.get(plan.target.uri);
    if (!t || t.value.trim() === '' || (plan.learner.task === 'regression' && Number.isNaN(numberOf(t)))) withoutTarget++;
    else {
      rows.push(r.values);
      targets.push(t);
      compounds.push(r.compound);
    }
  };
  await timePhase('training rows read', async () => {
    // rows held already are taken without an await each
    if (given) for (const r of given) take(r);
    else for await (const r of datasets.rows(plan.dataset.uri)) take(r);
  });
  job.progress?.(0.1, `${rows.length} training rows read; ${plan.learner.title} is learning from ${plan.independent.length} features`);
  if (rows.length < 2) throw badRequest(`dataset ${plan.dataset.uri} has ${rows.length} row(s) with a value of the prediction feature; at least 2 are needed`);
  const classes = plan.learner.task === 'classification' ? [...new Set(targets.map((t) => t.value.trim()))].sort() : [];
  if (plan.learner.task === 'classification') {
    if (classes.length < 2) throw badRequest(`prediction_feature ${plan.target.uri} has a single class value (${classes[0]}); classification needs at least 2`);
    if (classes.length > MAX_CLASSES)
      throw badRequest(
        plan.target.numeric
          ? `prediction_feature ${plan.target.uri} has ${classes.length} distinct values; a classification target has at most ${MAX_CLASSES} (use a regression learner for a numeric target)`
          : `prediction_feature ${plan.target.uri}${plan.target.title ? ` (${plan.target.title})` : ''} is a text column with ${classes.length} distinct values, most likely an identifier or a name, not classes (a classification target has at most ${MAX_CLASSES}): choose the column of the measured endpoint`,
      );
  }
  const index = new Map(classes.map((c, i) => [c, i]));
  const y = Float64Array.from(targets, (t) => (plan.learner.task === 'regression' ? numberOf(t) : index.get(t.value.trim())!));
  const encodings = await timePhase('encoding', () => fitEncodings(plan.independent, rows));
  const { x, binary } = await timePhase('encoding', () => encodeRows(encodings, rows));
  const ids = compounds.every((c): c is string => c !== undefined) ? compounds : undefined;
  const data: TrainingData = { x, binary, y, classes, ids, columnGroups: columnGroups(encodings) };
  let trained: { state: unknown; conformal?: ConformalState; warnings: string[] };
  try {
    const context = { seed: plan.seed, parallelism: services.config.workerThreads, run: services.workers.runner(job.signal), signal: job.signal };
    const calibration = conformalRequest(plan.learner, plan.parameters);
    trained = await timePhase(`training: ${plan.learner.id}`, async () =>
      calibration ? trainConformal(plan.learner, data, plan.parameters, context, calibration) : { state: await plan.learner.train(data, plan.parameters, context), warnings: [] },
    );
  } catch (e) {
    if (e instanceof HttpError || job.signal?.aborted) throw e;
    // the learner's own failure: the task ends as a 500 that carries its message
    throw new Error(`the learner ${plan.learner.id} failed: ${(e as Error)?.message ?? String(e)}`, { cause: e });
  }
  job.progress?.(0.8, 'fitting the applicability domain');
  const domain = await timePhase('applicability domain fitted', () => domainOf(services, plan, x, binary, job.signal));
  job.progress?.(0.9, 'storing the model');
  const { state, conformal } = trained;
  const warnings: string[] = [...trained.warnings];
  if (withoutTarget) warnings.push(`${withoutTarget} row(s) of the training dataset have no ${plan.learner.task === 'regression' ? 'numeric ' : ''}value of the prediction feature and were not used`);
  if (plan.skipped.length) warnings.push(`features that are neither numeric nor fingerprints were not used: ${plan.skipped.map((f) => f.title ?? f.uri).join(', ')}`);
  // a standardisation the training set descends from is recorded as a supermodel's step is (the same parameters, its values kept when it has one)
  const standardised = plan.standardisation && recordedStandardisation(services.uris.item('algorithm', STRUCTURE_STANDARDISATION.id), plan.standardisation.options);
  const recorded = [...(plan.recorded?.specs ?? []), ...(standardised?.specs.filter((s) => !plan.recorded?.specs.some((r) => r.name === s.name)) ?? [])];
  return timePhase('model written', () =>
    models.create({
      algorithm: plan.algorithmUri,
      learnerId: plan.learner.id,
      trainingDataset: plan.dataset.uri,
      parameters: {
        ...CONFORMAL_DEFAULTS,
        ...plan.parameters,
        ...plan.recorded?.values,
        ...standardised?.values,
        ...(plan.domain === undefined ? {} : { applicability_domain: domain?.method ?? 'none' }),
      },
      parameterSpecs: [...plan.learner.parameters, ...CONFORMAL_PARAMETERS, ...recorded, ...(plan.domain === undefined ? [] : [DOMAIN_OPTION])],
      // named by what it is: "Random forest regression of LC50 on Daphnia LC50 with RDKit molecular descriptors"
      title: plan.title ?? `${plan.learner.title} of ${plan.target.title ?? plan.target.uri} on ${plan.dataset.title ?? plan.dataset.uri}`,
      task: plan.learner.task,
      classes,
      independent: plan.independent.map((f) => f.uri),
      dependent: plan.target.uri,
      encodings,
      state,
      targetTitle: plan.target.title ?? plan.target.uri,
      warnings,
      endpoints: plan.target.sameAs,
      domain,
      conformal,
      explains: plan.learner.explains,
      linkedDomains: plan.linkedDomains,
      related: plan.related,
    }),
  );
}

/**
 * The domain a model embeds (spec 2.5: `ot:hasDomain` the model itself): none beside linked AD
 * models (a supermodel's); the one asked for; without a request (a validation's fold models) the
 * one a learner of type ApplicabilityDomain embeds by itself.
 */
async function domainOf(services: Pick<Services, 'workers'>, plan: TrainingPlan, x: Matrix, binary: boolean[], signal?: AbortSignal): Promise<{ method: string; state: unknown } | undefined> {
  if (plan.linkedDomains?.length || plan.domain === 'none') return undefined;
  const lazy = plan.learner.types.includes('ApplicabilityDomain');
  if (plan.domain === undefined) return lazy ? embeddedDomain(services, x, binary, plan.parameters, signal) : undefined;
  if (plan.domain === 'auto') return embeddedDomain(services, x, binary, lazy ? plan.parameters : {}, signal);
  return fittedDomain(services, plan.domain, x, binary, signal);
}

/** The domain a model carries for a choice of DOMAIN_OPTION's (`auto`, `none`, or a method's id with its default parameters), fitted on the training rows' matrix. */
export async function fittedDomain(services: Pick<Services, 'workers'>, choice: string, x: Matrix, binary: boolean[], signal?: AbortSignal): Promise<{ method: string; state: unknown } | undefined> {
  if (choice === 'none') return undefined;
  if (choice === 'auto') return embeddedDomain(services, x, binary, {}, signal);
  const method = DOMAIN_METHODS.find((m) => m.id === choice)!;
  const defaults = Object.fromEntries(method.parameters.map((p) => [p.name, p.default]));
  return { method: method.id, state: await fitDomainState(services, method.id, x, defaults, signal) };
}

/**
 * The domain a lazy learner embeds: Tanimoto similarity to the most similar training compound
 * when every column is a fingerprint bit, else the Euclidean distance to the k nearest training
 * compounds (the learner's own k) on standardised columns.
 */
async function embeddedDomain(
  services: Pick<Services, 'workers'>,
  x: Matrix,
  binary: boolean[],
  parameters: Record<string, ParamValue>,
  signal?: AbortSignal,
): Promise<{ method: string; state: unknown }> {
  const tanimoto = binary.every((b) => b);
  const method = tanimoto ? 'ad-tanimoto' : 'ad-euclidean-knn';
  const params: Record<string, ParamValue> = tanimoto ? { threshold: 0.3 } : { k: Number(parameters.k ?? 5), Z: 1.645 };
  return { method, state: await fitDomainState(services, method, x, params, signal) };
}

async function fitDomainState(services: Pick<Services, 'workers'>, method: string, x: Matrix, params: Record<string, ParamValue>, signal?: AbortSignal): Promise<unknown> {
  try {
    return await services.workers.run(DOMAIN_MODULE, 'fitDomain', [method, x, params], signal);
  } catch (e) {
    if (e instanceof HttpError || signal?.aborted) throw e;
    throw badRequest(`applicability domain ${method}: ${(e as Error)?.message ?? String(e)}`);
  }
}
