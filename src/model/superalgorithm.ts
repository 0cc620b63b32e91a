import type * as RDF from '@rdfjs/types';
import { featureRef } from '../core/uri-scheme.js';
import { badRequest } from '../core/errors.js';
import { df, dc, literal } from '../rdf/namespaces.js';
import type { Services } from '../core/services.js';
import type { DatasetStore } from '../dataset/dataset-store.js';
import type { Params } from '../http/params.js';
import type { ParameterSpec, ParamValue } from '../learning/learner.js';
import { algorithmById, type AlgorithmDefinition } from '../algorithm/catalogue.js';
import { checkParameters } from '../algorithm/parameters.js';
import type { DescriptorCalculation } from '../algorithm/descriptor-calculation.js';
import { describeDataset } from '../algorithm/descriptor-datasets.js';
import { selectFeatures } from '../algorithm/feature-selection.js';
import type { ModelStore } from './model-store.js';
import { planTraining, trainModel } from './training.js';
import { createDomainModel } from './domain-training.js';

type Kind = AlgorithmDefinition['kind'];
type Step<K extends Kind> = { def: Extract<AlgorithmDefinition, { kind: K }>; uri: string; values: Record<string, ParamValue> };

/** The request parameters that name the steps of a supermodel (spec 4.4, superalgorithm). */
const STEPS = {
  feature_calculation: 'descriptors',
  feature_selection: 'selection',
  model_learning: 'learner',
  applicability_domain: 'domain',
} as const;

/** How a supermodel records its steps: one string parameter per step kind. */
const RECORDED: ParameterSpec[] = [...Object.keys(STEPS), 'validation_service'].map((name) => ({
  name,
  description: `The ${name.replace('_', ' ')} step(s) of this supermodel`,
  type: 'string',
  default: '',
}));

/**
 * Cross-validates a learner on a dataset (10 folds): the validation component's work, handed in
 * so that the model component does not depend on it. Answers the cross-validation's URI.
 */
export type CrossValidate = (
  input: { dataset: string; algorithmUri: string; learner: Extract<AlgorithmDefinition, { kind: 'learner' }>; parameters: Record<string, ParamValue>; predictionFeature: string },
  job: { signal?: AbortSignal; progress?: (fraction: number) => void },
) => Promise<string>;

/** A checked superalgorithm request: every step is one of our algorithms with checked values. */
interface SuperPlan {
  algorithmUri: string;
  datasetUri: string;
  chosen: string[];
  predictionFeature: string;
  calculation: Step<'descriptors'>[];
  selection: Step<'selection'>[];
  learning: Step<'learner'>;
  domain?: Step<'domain'>;
  /** `validation_service`: a cross-validation of the recipe (the learner on the final features). */
  validation?: string;
}

/** Starts a superalgorithm: the request checked at once (400/404 naming the parameter), the chain run as one task answering the supermodel. */
export type StartSuper = (algorithmUri: string, params: Params) => Promise<string>;

export function superStarter(services: Services, datasets: DatasetStore, models: ModelStore, descriptors: DescriptorCalculation, crossValidate: CrossValidate): StartSuper {
  return async (algorithmUri, params) => {
    const plan = await planSuper(services, datasets, algorithmUri, params);
    return services.tasks.submit(`Supermodel (${plan.learning.def.title}) on ${plan.datasetUri}`, (job) =>
      buildSupermodel(services, datasets, models, descriptors, crossValidate, plan, { signal: job.signal, progress: (f) => job.progress(f * 100) }),
    );
  };
}

async function planSuper(services: Services, datasets: DatasetStore, algorithmUri: string, params: Params): Promise<SuperPlan> {
  if (params.get('dataset_service')) throw badRequest('dataset_service is not supported by this superalgorithm yet: its datasets stay here');
  const validations = params
    .all('validation_service')
    .flatMap((v) => v.split(/[\s,]+/))
    .filter((v) => v);
  const crossvalidation = [services.uris.collection('crossvalidation'), services.uris.ofPath('/validation/crossvalidation')];
  const refused = validations.filter((v) => !crossvalidation.includes(v.replace(/\/$/, '')));
  if (refused.length) throw badRequest(`validation_service: ${refused.join(', ')} is not a validation service of this superalgorithm (it takes ${crossvalidation[0]})`);
  const given = subServiceParameters(services, params.all('parameter'));
  const steps = <K extends Kind>(name: keyof typeof STEPS, kind: K): Step<K>[] =>
    params
      .all(name)
      .flatMap((v) => v.split(/[\s,]+/))
      .filter((v) => v)
      .map((ref) => {
        const def = algorithmOf(services, ref);
        if (!def) throw badRequest(`${name}: ${ref} is not an algorithm of this service`);
        if (def.kind !== kind) throw badRequest(`${name}: ${ref} is not a ${kind === 'learner' ? 'learning' : kind} algorithm`);
        const uri = services.uris.item('algorithm', def.id);
        let values: Record<string, ParamValue>;
        try {
          values = checkParameters(def.parameters, given.get(def.id) ?? {});
        } catch (e) {
          throw badRequest(`parameter for ${uri}: ${(e as Error).message}`);
        }
        given.delete(def.id);
        return { def: def as Extract<AlgorithmDefinition, { kind: K }>, uri, values };
      });
  const learning = steps('model_learning', 'learner');
  if (!learning.length) throw badRequest('missing required parameter model_learning (a learning algorithm URI)');
  if (learning.length > 1) throw badRequest('model_learning: one learning algorithm per supermodel');
  const domain = steps('applicability_domain', 'domain');
  if (domain.length > 1) throw badRequest('applicability_domain: one applicability-domain algorithm per supermodel');
  const calculation = steps('feature_calculation', 'descriptors');
  const selection = steps('feature_selection', 'selection');
  if (given.size) throw badRequest(`parameter: ${[...given.keys()].join(', ')} is not a step of this request`);

  const datasetParam = params.required('dataset_uri');
  const { meta: dataset, selected: chosen } = await datasets.requireRef(datasetParam);
  const uri = dataset.uri;
  const predictionFeature = params.required('prediction_feature');
  if (!dataset.features.includes(predictionFeature)) throw badRequest(`prediction_feature ${predictionFeature} is not a feature of dataset ${uri}`);
  const extra = params.all('feature_uris').filter((f) => !chosen.includes(f));
  const unknown = extra.filter((f) => !dataset.features.includes(f));
  if (unknown.length) throw badRequest(`feature_uris: not features of dataset ${uri}: ${unknown.join(', ')}`);
  if (!calculation.length) {
    // the learner must have something to learn from now: the same check as training
    await planTraining(services, datasets, { algorithmUri, learner: learning[0].def.learner, parameters: learning[0].values, datasetUri: datasetParam, predictionFeature });
  }
  return { algorithmUri, datasetUri: uri, chosen: [...chosen, ...extra], predictionFeature, calculation, selection, learning: learning[0], domain: domain[0], validation: validations[0] };
}

/** Our algorithm named by its URI, or by its id as an alias. */
function algorithmOf(services: Services, ref: string): AlgorithmDefinition | undefined {
  const id = services.uris.idIn('algorithm', ref) ?? (/^[a-z0-9-]+$/.test(ref) ? ref : undefined);
  return id === undefined ? undefined : algorithmById(id);
}

/**
 * `parameter` values addressed to a step: `{URL-encoded sub-service URI} {name} {value}`
 * (separated by spaces or commas, or `name=value`); the sub-service may be named by its id.
 */
function subServiceParameters(services: Services, values: string[]): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (const v of values) {
    const m = /^\s*(\S+?)[\s,]+([^\s,=]+)\s*[\s,=]\s*(.*?)\s*$/.exec(v);
    if (!m) throw badRequest(`parameter: "${v.slice(0, 80)}" is not "sub-service name value"`);
    let ref: string;
    try {
      ref = decodeURIComponent(m[1]);
    } catch {
      throw badRequest(`parameter: "${m[1].slice(0, 80)}" is not a URL-encoded URI`);
    }
    const def = algorithmOf(services, ref);
    if (!def) throw badRequest(`parameter: ${ref} is not an algorithm of this service`);
    out.set(def.id, { ...out.get(def.id), [m[2]]: m[3] });
  }
  return out;
}

/** Run the chain: calculate descriptors, select features, train with the domain embedded. */
async function buildSupermodel(
  services: Services,
  datasets: DatasetStore,
  models: ModelStore,
  descriptors: DescriptorCalculation,
  crossValidate: CrossValidate,
  plan: SuperPlan,
  job: { signal?: AbortSignal; progress?: (fraction: number) => void },
): Promise<string> {
  let meta = await datasets.requireMeta(plan.datasetUri, 'dataset_uri');
  let features = plan.chosen;
  for (const [k, step] of plan.calculation.entries()) {
    const before = new Set(meta.features);
    const described = await describeDataset(
      descriptors,
      datasets,
      { def: step.def, values: step.values, source: meta, selected: [] },
      { signal: job.signal, progress: (f) => job.progress?.((0.5 * (k + f)) / plan.calculation.length) },
    );
    meta = await datasets.requireMeta(described, 'dataset_uri');
    // features chosen for the model: the chosen ones (all when none) and every calculated one
    if (features.length) features = [...features, ...meta.features.filter((f) => !before.has(f))];
  }
  const dataset = meta.uri;
  const ref = (selected: string[]) => featureRef(dataset, selected.length ? [...selected, plan.predictionFeature] : []);
  if (!features.length) features = meta.features.filter((f) => f !== plan.predictionFeature);
  for (const step of plan.selection) {
    features = await selectFeatures(services, datasets, { method: step.def.method, parameters: step.values, datasetUri: ref(features), predictionFeature: plan.predictionFeature }, job.signal);
    if (!features.length) throw badRequest(`feature_selection ${step.uri} kept no feature`);
  }
  // the recipe validated: the learner cross-validated on the final features (selected on all rows: a little optimistic)
  const validation =
    plan.validation &&
    (await crossValidate(
      {
        dataset: await projection(datasets, dataset, [...features, plan.predictionFeature]),
        algorithmUri: plan.learning.uri,
        learner: plan.learning.def,
        parameters: plan.learning.values,
        predictionFeature: plan.predictionFeature,
      },
      { signal: job.signal },
    ));
  job.progress?.(0.6);
  // spec 2.5: the domain step makes a separate AD model, on the same features, linked by ot:hasDomain
  const domain =
    plan.domain &&
    (await createDomainModel(
      services,
      datasets,
      models,
      { algorithmUri: plan.domain.uri, method: plan.domain.def.method, parameters: plan.domain.values, datasetUri: featureRef(dataset, features) },
      { signal: job.signal },
    ));
  const training = await planTraining(services, datasets, {
    algorithmUri: plan.algorithmUri,
    learner: plan.learning.def.learner,
    parameters: plan.learning.values,
    datasetUri: ref(features),
    predictionFeature: plan.predictionFeature,
  });
  training.linkedDomain = domain;
  training.recorded = {
    specs: RECORDED,
    values: {
      feature_calculation: plan.calculation.map((s) => s.uri).join(' '),
      feature_selection: plan.selection.map((s) => s.uri).join(' '),
      model_learning: plan.learning.uri,
      applicability_domain: plan.domain?.uri ?? '',
      validation_service: plan.validation ?? '',
    },
  };
  training.related = validation ? [validation] : [];
  training.title = `Supermodel: ${plan.learning.def.title}${plan.calculation.length ? ` on ${plan.calculation.map((s) => s.def.title).join(', ')}` : ''} (${(training.target.title ?? training.target.uri).slice(0, 80)})`;
  return trainModel(services, datasets, models, training, { signal: job.signal, progress: (f) => job.progress?.(0.6 + 0.4 * f) });
}

/** A new dataset of only the given features of a dataset (what a cross-validation of the recipe learns from). */
async function projection(datasets: DatasetStore, uri: string, features: string[]): Promise<string> {
  const rows = await datasets.allRows(uri);
  return datasets.createFromRows(
    [
      [dc('title'), literal(`${uri}: the features of a supermodel`)],
      [dc('source'), df.namedNode(uri)],
    ],
    features,
    rows.map((r) => ({ compound: r.compound, values: features.filter((f) => r.values.has(f)).map((f): [string, RDF.Literal] => [f, r.values.get(f)!]) })),
  );
}
