import type * as RDF from '@rdfjs/types';
import { badRequest, HttpError } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { DatasetMeta, DatasetStore } from '../dataset/dataset-store.ts';
import type { DomainMethod, DomainState } from '../learning/applicability-domain.ts';
import type { ParamValue } from '../learning/learner.ts';
import { readFeatureRecords, type FeatureRecord } from '../feature/feature-record.ts';
import { encodeRows, fitEncodings, isLearnable } from '../learning/feature-matrix.ts';
import type { ModelStore } from './model-store.ts';
import type { PreparedJob } from '../task/task-runner.ts';

/** The module whose functions fit and apply applicability domains on the worker pool. */
export const DOMAIN_MODULE = new URL('../learning/applicability-domain.ts', import.meta.url).href;

/** What applying an applicability-domain algorithm to a dataset asks for (`POST /algorithm/{id}`). */
export interface DomainRequest {
  algorithmUri: string;
  method: DomainMethod;
  parameters: Record<string, ParamValue>;
  /** The `dataset_uri` parameter as given (it may select features with its query). */
  datasetUri: string;
  /** `prediction_feature`: the endpoint, never a feature of the domain. */
  leaveOut?: string;
  /** `model_uri`: the domain of this model, on its independent variables. */
  model?: string;
}

/** Fitting an applicability-domain model as a job: checked at once (400/404), then fitted. */
export type PrepareDomainFitting = (request: DomainRequest) => Promise<PreparedJob>;

interface DomainPlan {
  request: DomainRequest;
  dataset: DatasetMeta;
  features: FeatureRecord[];
  /** What the choice of features left out, said in the model's warnings. */
  notes: string[];
}

/** The features a method reads: numeric descriptors, or fingerprints. */
function suits(method: DomainMethod, f: FeatureRecord): boolean {
  return method.columns === 'fingerprint' ? f.bits !== undefined : isLearnable(f) && f.bits === undefined;
}

/**
 * The features the domain is fitted on: those a `dataset_uri` query selects; a model's own
 * independent variables (`model_uri`); otherwise the dataset's features that suit the method,
 * and of those only the ones this service calculated when there are some (descriptors, not the
 * measured values of an upload), never `prediction_feature`.
 */
async function planDomain(services: Pick<Services, 'uris' | 'store'>, datasets: DatasetStore, models: Pick<ModelStore, 'describe'>, request: DomainRequest): Promise<DomainPlan> {
  const { meta: dataset, selected } = await datasets.requireRef(request.datasetUri);
  const uri = dataset.uri;
  const notes: string[] = [];
  let candidates = selected.length ? selected : dataset.features;
  if (request.model) {
    const model = (await models.describe(request.model))?.description;
    if (!model?.dependent) throw badRequest(`model_uri: ${request.model} is not a predictive model of this service`);
    const missing = model.independent.filter((f) => !dataset.features.includes(f));
    if (missing.length)
      throw badRequest(
        `dataset_uri: dataset ${uri} lacks ${missing.length} of the independent variables of model ${request.model}${model.trainingDataset ? ` (its training dataset is ${model.trainingDataset})` : ''}`,
      );
    candidates = model.independent;
  }
  if (request.leaveOut && !dataset.features.includes(request.leaveOut)) throw badRequest(`prediction_feature ${request.leaveOut} is not a feature of dataset ${uri}`);
  const described = await readFeatureRecords(
    services.store,
    candidates.filter((f) => f !== request.leaveOut),
  );
  let features = [...described.values()].filter((f) => suits(request.method, f));
  if (!selected.length && !request.model) {
    const calculated = features.filter((f) => f.source && services.uris.isIn('algorithm', f.source));
    const measured = features.filter((f) => !calculated.includes(f));
    if (calculated.length && measured.length) {
      features = calculated;
      notes.push(`fitted on the ${calculated.length} descriptor(s) calculated here; the dataset's own values were left out: ${measured.map((f) => f.title ?? f.uri).join(', ')}`);
    }
  }
  if (!features.length) {
    const wanted = request.method.columns === 'fingerprint' ? 'fingerprint features' : 'numeric descriptors';
    throw badRequest(
      `dataset ${uri} has no ${wanted} for ${request.method.title}; calculate them first (for example with ${services.uris.item('algorithm', request.method.columns === 'fingerprint' ? 'morgan-fingerprint' : 'rdkit-descriptors')})`,
    );
  }
  return { request, dataset, features, notes };
}

export function domainJob(services: Pick<Services, 'uris' | 'store' | 'workers'>, datasets: DatasetStore, models: ModelStore): PrepareDomainFitting {
  return async (request) => {
    const plan = await planDomain(services, datasets, models, request);
    return {
      title: `${request.method.title} of ${plan.dataset.uri}`,
      work: (job) => fitDomainModel(services, datasets, models, plan, { signal: job.signal, progress: (f) => job.progress(f * 100) }),
    };
  };
}

/** Plan and fit an AD model at once (a step of a longer task: the superalgorithm); answers its URI. */
export async function createDomainModel(
  services: Pick<Services, 'uris' | 'store' | 'workers'>,
  datasets: DatasetStore,
  models: ModelStore,
  request: DomainRequest,
  job: { signal?: AbortSignal; progress?: (fraction: number) => void } = {},
): Promise<string> {
  return fitDomainModel(services, datasets, models, await planDomain(services, datasets, models, request), job);
}

/** Read the training rows, fit the method on the worker pool and store the AD model. */
async function fitDomainModel(
  services: Pick<Services, 'workers'>,
  datasets: DatasetStore,
  models: ModelStore,
  plan: DomainPlan,
  job: { signal?: AbortSignal; progress?: (fraction: number) => void },
): Promise<string> {
  const rows: Map<string, RDF.Literal>[] = [];
  let without = 0;
  for await (const r of datasets.rows(plan.dataset.uri)) {
    if (plan.features.some((f) => r.values.has(f.uri))) rows.push(r.values);
    else without++;
  }
  job.progress?.(0.2);
  const encodings = await fitEncodings(plan.features, rows);
  const { x } = await encodeRows(encodings, rows);
  let state: DomainState;
  try {
    state = await services.workers.run<DomainState>(DOMAIN_MODULE, 'fitDomain', [plan.request.method.id, x, plan.request.parameters], job.signal);
  } catch (e) {
    if (e instanceof HttpError || job.signal?.aborted) throw e;
    // the method's own refusal (too few compounds, too many descriptors): the task ends as a 400
    throw badRequest(`${plan.request.method.title}: ${(e as Error)?.message ?? String(e)}`);
  }
  job.progress?.(0.9);
  const warnings = [...plan.notes, ...(without ? [`${without} row(s) of the training dataset have none of the features and were not used`] : [])];
  return models.create({
    algorithm: plan.request.algorithmUri,
    learnerId: plan.request.method.id,
    trainingDataset: plan.dataset.uri,
    parameters: plan.request.parameters,
    parameterSpecs: plan.request.method.parameters,
    task: 'domain',
    classes: [],
    independent: plan.features.map((f) => f.uri),
    dependent: '',
    encodings,
    state,
    title: `${plan.request.method.title} of ${plan.dataset.title ?? plan.dataset.uri}`,
    targetTitle: plan.request.method.metric,
    warnings,
    endpoints: [],
  });
}
