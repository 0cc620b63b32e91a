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
}

/** Fitting an applicability-domain model as a job: checked at once (400/404), then fitted. */
export type PrepareDomainFitting = (request: DomainRequest) => Promise<PreparedJob>;

interface DomainPlan {
  request: DomainRequest;
  dataset: DatasetMeta;
  features: FeatureRecord[];
}

/** The features a method reads: numeric descriptors, or fingerprints. */
function suits(method: DomainMethod, f: FeatureRecord): boolean {
  return method.columns === 'fingerprint' ? f.bits !== undefined : isLearnable(f) && f.bits === undefined;
}

async function planDomain(services: Pick<Services, 'uris' | 'store'>, datasets: DatasetStore, request: DomainRequest): Promise<DomainPlan> {
  const { meta: dataset, selected } = await datasets.requireRef(request.datasetUri);
  const uri = dataset.uri;
  const described = await readFeatureRecords(services.store, selected.length ? selected : dataset.features);
  const features = [...described.values()].filter((f) => suits(request.method, f));
  if (!features.length) {
    const wanted = request.method.columns === 'fingerprint' ? 'fingerprint features' : 'numeric descriptors';
    throw badRequest(
      `dataset ${uri} has no ${wanted} for ${request.method.title}; calculate them first (for example with ${services.uris.item('algorithm', request.method.columns === 'fingerprint' ? 'morgan-fingerprint' : 'rdkit-descriptors')})`,
    );
  }
  return { request, dataset, features };
}

export function domainJob(services: Pick<Services, 'uris' | 'store' | 'workers'>, datasets: DatasetStore, models: ModelStore): PrepareDomainFitting {
  return async (request) => {
    const plan = await planDomain(services, datasets, request);
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
  return fitDomainModel(services, datasets, models, await planDomain(services, datasets, request), job);
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
  const encodings = fitEncodings(plan.features, rows);
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
  const warnings = without ? [`${without} row(s) of the training dataset have none of the features and were not used`] : [];
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
