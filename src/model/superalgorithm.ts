import type * as RDF from '@rdfjs/types';
import { featureRef } from '../core/uri-scheme.ts';
import { badRequest } from '../core/errors.ts';
import { checkOutboundTarget } from '../outbound/outbound-fetch.ts';
import { df, dc, literal } from '../rdf/namespaces.ts';
import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { Params } from '../http/params.ts';
import { learnerForTarget, type ParameterSpec, type ParamValue } from '../learning/learner.ts';
import { algorithmById, type AlgorithmDefinition } from '../algorithm/catalogue.ts';
import { checkParameters } from '../algorithm/parameters.ts';
import type { DescriptorCalculation } from '../algorithm/descriptor-calculation.ts';
import { describeDataset } from '../algorithm/descriptor-datasets.ts';
import { selectFeatures } from '../algorithm/feature-selection.ts';
import { mineDataset } from '../algorithm/pattern-mining.ts';
import type { ModelStore } from './model-store.ts';
import type { PreparedJob } from '../task/task-runner.ts';
import { planTraining, trainModel } from './training.ts';
import { createDomainModel } from './domain-training.ts';
import { consensusLearner } from '../learning/consensus.ts';
import { learnerById } from '../learning/learners.ts';
import { selectionPipeline } from '../learning/selection-pipeline.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import { standardiseDataset, type StandardiseDeps } from '../algorithm/standardise-dataset.ts';
import { STRUCTURE_STANDARDISATION } from '../algorithm/structure-standardisation.ts';

type Kind = AlgorithmDefinition['kind'];
type Step<K extends Kind> = { def: Extract<AlgorithmDefinition, { kind: K }>; uri: string; values: Record<string, ParamValue> };

/** The request parameters that name the steps of a supermodel (spec 4.4, superalgorithm). */
const STEPS = {
  structure_standardisation: 'standardisation',
  feature_calculation: 'descriptors',
  feature_selection: 'selection',
  model_learning: 'learner',
  applicability_domain: 'domain',
} as const;

const KIND_NAMES: Partial<Record<Kind, string>> = {
  standardisation: 'a structure-standardisation algorithm',
  descriptors: 'a descriptor-calculation or pattern-mining algorithm',
  learner: 'a learning algorithm',
  domain: 'an applicability-domain algorithm',
  selection: 'a feature-selection algorithm',
};

/**
 * How a supermodel records its steps: one string parameter per step kind, its dataset service,
 * and the options of its standardisation under `standardise-structures.{name}` (prediction reads
 * them: standardisedStructures in prediction.ts).
 */
const RECORDED: ParameterSpec[] = [
  ...[...Object.keys(STEPS), 'validation_service'].map((name) => ({ name, description: `The ${name.replace('_', ' ')} step(s) of this supermodel (space-separated URIs)` })),
  { name: 'dataset_service', description: 'Where this supermodel stores its predictions when a request names no dataset_service or result_dataset (empty: here)' },
  ...STRUCTURE_STANDARDISATION.parameters.map((p) => ({
    name: `${STRUCTURE_STANDARDISATION.id}.${p.name}`,
    description: `Its structure standardisation: ${p.description} (empty: no standardisation)`,
  })),
].map((p): ParameterSpec => ({ ...p, type: 'string', default: '' }));

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
  /** Structure standardisation first (at most one): the chain learns from parents, and the supermodel predicts every structure from its parent. */
  standardisation?: Step<'standardisation'>;
  /** Descriptor calculation and pattern mining (mined fragments are features a supermodel calculates by substructure search). */
  calculation: Step<'descriptors' | 'mining'>[];
  selection: Step<'selection'>[];
  /** The learning step: the one learner, or the consensus of several (then `learners` lists them). */
  learning: Step<'learner'>;
  learners: Step<'learner'>[];
  /** Each makes a separate AD model that the supermodel links (`ot:hasDomain`). */
  domains: Step<'domain'>[];
  /** `validation_service`: a cross-validation of the recipe (the learner on the final features). */
  validation?: string;
  /** `dataset_service`: where the supermodel's predictions go by default ('' : here). */
  datasetService: string;
}

/** A superalgorithm as a job: the request checked at once (400/404 naming the parameter), the chain run as one task answering the supermodel. */
export type PrepareSuper = (algorithmUri: string, params: Params) => Promise<PreparedJob>;

export function superJob(
  services: Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'workers'>,
  datasets: DatasetStore,
  models: ModelStore,
  descriptors: DescriptorCalculation,
  crossValidate: CrossValidate,
  compounds: StandardiseDeps['compounds'],
): PrepareSuper {
  const standardisation: StandardiseDeps = { services, datasets, compounds, smilesOf: (c) => descriptors.smilesOf(c) };
  return async (algorithmUri, params) => {
    const plan = await planSuper(services, datasets, algorithmUri, params);
    return {
      title: `Supermodel (${plan.learning.def.title}) on ${plan.datasetUri}`,
      work: (job) => buildSupermodel(services, datasets, models, descriptors, crossValidate, standardisation, plan, { signal: job.signal, progress: (f) => job.progress(f * 100) }),
    };
  };
}

async function planSuper(services: Pick<Services, 'config' | 'uris' | 'store'>, datasets: DatasetStore, algorithmUri: string, params: Params): Promise<SuperPlan> {
  // dataset_service: where the supermodel stores its predictions (the datasets of its chain stay here, beside it)
  const datasetService = params.get('dataset_service')?.trim().replace(/\/+$/, '') ?? '';
  if (datasetService && datasetService !== datasets.collection) await checkOutboundTarget(datasetService, services.config);
  const validations = params
    .all('validation_service')
    .flatMap((v) => v.split(/[\s,]+/))
    .filter((v) => v);
  const crossvalidation = [services.uris.collection('crossvalidation'), services.uris.ofPath('/validation/crossvalidation')];
  const refused = validations.filter((v) => !crossvalidation.includes(v.replace(/\/$/, '')));
  if (refused.length) throw badRequest(`validation_service: ${refused.join(', ')} is not a validation service of this superalgorithm (it takes ${crossvalidation[0]})`);
  const given = subServiceParameters(services, params.all('parameter'));
  const steps = <K extends Kind>(name: keyof typeof STEPS, ...kinds: K[]): Step<K>[] =>
    params
      .all(name)
      .flatMap((v) => v.split(/[\s,]+/))
      .filter((v) => v)
      .map((ref) => {
        const def = algorithmOf(services, ref);
        if (!def) throw badRequest(`${name}: ${ref} is not an algorithm of this service`);
        if (!kinds.includes(def.kind as K)) throw badRequest(`${name}: ${ref} is not ${KIND_NAMES[kinds[0]]}`);
        const uri = services.uris.item('algorithm', def.id);
        let values: Record<string, ParamValue>;
        try {
          values = checkParameters(def.parameters, given.get(def.id) ?? {});
        } catch (e) {
          throw badRequest(`parameter for ${uri}: ${(e as Error).message}`);
        }
        given.delete(def.id);
        return { def: def as Extract<AlgorithmDefinition, { kind: K }>, uri, values };
      })
      .map((step, i, all) => {
        // parameters are addressed to a step by its algorithm: each algorithm is one step
        if (all.findIndex((o) => o.def.id === step.def.id) !== i) throw badRequest(`${name}: ${step.uri} is given twice`);
        return step;
      });
  const named = steps('model_learning', 'learner');
  if (!named.length) throw badRequest('missing required parameter model_learning (a learning algorithm URI)');
  // a learner of either task (read-across) learns in the form for the prediction feature
  const endpoint = named.some((l) => l.def.learner.forTarget) ? params.get('prediction_feature')?.trim() : undefined;
  const record = endpoint ? (await readFeatureRecords(services.store, [endpoint])).get(endpoint) : undefined;
  const learning = named.map((l) => (record ? { ...l, def: { ...l.def, learner: learnerForTarget(l.def.learner, record) } } : l));
  const tasks = new Set(learning.map((l) => l.def.learner.task));
  if (tasks.size > 1) throw badRequest('model_learning: the learners of a consensus all do regression or all do classification');
  const domains = steps('applicability_domain', 'domain');
  const calculation = steps('feature_calculation', 'descriptors', 'mining');
  const standardisation = steps('structure_standardisation', 'standardisation');
  if (standardisation.length > 1) throw badRequest('structure_standardisation: at most one');
  const selection = steps('feature_selection', 'selection');
  if (given.size) throw badRequest(`parameter: ${[...given.keys()].join(', ')} is not a step of this request`);
  const calibrated = learning.find((l) => String(l.values.conformal ?? 'none') !== 'none');
  if (calibrated && learning.length > 1) throw badRequest(`parameter: ${calibrated.def.id} conformal: a consensus of several learners is not calibrated; calibrate a single learner`);
  const supervised = selection.find((s) => s.def.method.supervised);
  if (calibrated && supervised)
    throw badRequest(
      `parameter: ${calibrated.def.id} conformal: ${supervised.def.id} selects features by the target on every row, the calibration rows too, which would make the intervals too narrow; use an unsupervised selection, or none`,
    );

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
  return {
    algorithmUri,
    datasetUri: uri,
    chosen: [...chosen, ...extra],
    predictionFeature,
    standardisation: standardisation[0],
    calculation,
    selection,
    learning: learning.length === 1 ? learning[0] : consensusStep(algorithmUri, learning),
    learners: learning,
    domains,
    validation: validations[0],
    datasetService,
  };
}

/** The learning step with the selection steps before it, as one learner (for the cross-validation of the recipe). */
function pipelineStep(learning: Step<'learner'>, selection: Step<'selection'>[]): Step<'learner'>['def'] {
  const learner = selectionPipeline(
    selection.map((s) => ({ method: s.def.method.id, parameters: s.values })),
    learning.def.learner,
    learnerById,
  );
  return { ...learning.def, learner, title: learner.title };
}

/** Several learning steps as one: their consensus, with each member's parameter values under `{id}.{name}`. */
function consensusStep(algorithmUri: string, members: Step<'learner'>[]): Step<'learner'> {
  const learner = consensusLearner(
    members[0].def.learner.task,
    members.map((m) => m.def.learner),
    learnerById,
  );
  return {
    def: { kind: 'learner', learner, id: learner.id, title: learner.title, description: learner.description, types: ['Supervised'], parameters: learner.parameters },
    uri: algorithmUri,
    values: Object.fromEntries(members.flatMap((m) => Object.entries(m.values).map(([name, v]): [string, ParamValue] => [`${m.def.id}.${name}`, v]))),
  };
}

/** Our algorithm named by its URI, or by its id as an alias. */
function algorithmOf(services: Pick<Services, 'uris'>, ref: string): AlgorithmDefinition | undefined {
  const id = services.uris.idIn('algorithm', ref) ?? (/^[a-z0-9-]+$/.test(ref) ? ref : undefined);
  return id === undefined ? undefined : algorithmById(id);
}

/**
 * `parameter` values addressed to a step: `{URL-encoded sub-service URI} {name} {value}`
 * (separated by spaces or commas, or `name=value`); the sub-service may be named by its id.
 */
function subServiceParameters(services: Pick<Services, 'uris'>, values: string[]): Map<string, Record<string, string>> {
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

/** Run the chain: standardise structures, calculate descriptors, select features, train with the domain embedded. */
async function buildSupermodel(
  services: Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'workers'>,
  datasets: DatasetStore,
  models: ModelStore,
  descriptors: DescriptorCalculation,
  crossValidate: CrossValidate,
  standardisation: StandardiseDeps,
  plan: SuperPlan,
  job: { signal?: AbortSignal; progress?: (fraction: number) => void },
): Promise<string> {
  let meta = await datasets.requireMeta(plan.datasetUri, 'dataset_uri');
  let features = plan.chosen;
  // the curation columns of a standardisation are not features to learn from
  const curation = new Set<string>();
  if (plan.standardisation) {
    const step = plan.standardisation;
    const selected = features.length ? [...features, plan.predictionFeature] : [];
    const before = new Set(meta.features);
    const standardised = await standardiseDataset(standardisation, { algorithmUri: step.uri, source: meta, selected, values: step.values }, { signal: job.signal });
    meta = await datasets.requireMeta(standardised, 'dataset_uri');
    for (const f of meta.features) if (!before.has(f)) curation.add(f);
  }
  for (const [k, step] of plan.calculation.entries()) {
    const before = new Set(meta.features);
    const progress = (f: number) => job.progress?.((0.5 * (k + f)) / plan.calculation.length);
    const described =
      step.def.kind === 'mining'
        ? await mineDataset(services, datasets, descriptors, { algorithmUri: step.uri, source: meta, selected: [], values: step.values }, job.signal)
        : await describeDataset(descriptors, datasets, { def: step.def, values: step.values, source: meta, selected: [] }, { signal: job.signal, progress });
    meta = await datasets.requireMeta(described, 'dataset_uri');
    // features chosen for the model: the chosen ones (all when none) and every calculated one
    if (features.length) features = [...features, ...meta.features.filter((f) => !before.has(f))];
  }
  const dataset = meta.uri;
  const ref = (selected: string[]) => featureRef(dataset, selected.length ? [...selected, plan.predictionFeature] : []);
  if (!features.length) features = meta.features.filter((f) => f !== plan.predictionFeature && !curation.has(f));
  // the candidates of selection: its numeric features (a fingerprint is not one feature of many bits)
  const candidates = plan.selection.length ? [...(await readFeatureRecords(services.store, features)).values()].filter((f) => f.bits === undefined).map((f) => f.uri) : features;
  for (const step of plan.selection) {
    features = await selectFeatures(services, datasets, { method: step.def.method, parameters: step.values, datasetUri: ref(features), predictionFeature: plan.predictionFeature }, job.signal);
    if (!features.length) throw badRequest(`feature_selection ${step.uri} kept no feature`);
  }
  // the recipe validated: selection and learning cross-validated together, the selection repeated inside every fold
  const validation =
    plan.validation &&
    (await crossValidate(
      {
        dataset: await projection(datasets, dataset, [...candidates, plan.predictionFeature]),
        algorithmUri: plan.learning.uri,
        learner: plan.selection.length ? pipelineStep(plan.learning, plan.selection) : plan.learning.def,
        parameters: plan.learning.values,
        predictionFeature: plan.predictionFeature,
      },
      { signal: job.signal },
    ));
  job.progress?.(0.6);
  // spec 2.5: each domain step makes a separate AD model, on the same features, linked by ot:hasDomain
  const domains: string[] = [];
  for (const step of plan.domains) {
    const request = { algorithmUri: step.uri, method: step.def.method, parameters: step.values, datasetUri: featureRef(dataset, features) };
    domains.push(await createDomainModel(services, datasets, models, request, { signal: job.signal }));
  }
  const training = await planTraining(services, datasets, {
    algorithmUri: plan.algorithmUri,
    learner: plan.learning.def.learner,
    parameters: plan.learning.values,
    datasetUri: ref(features),
    predictionFeature: plan.predictionFeature,
  });
  training.linkedDomains = domains;
  training.recorded = {
    specs: RECORDED,
    values: {
      structure_standardisation: plan.standardisation?.uri ?? '',
      ...Object.fromEntries(STRUCTURE_STANDARDISATION.parameters.map((p) => [`${STRUCTURE_STANDARDISATION.id}.${p.name}`, plan.standardisation ? String(plan.standardisation.values[p.name]) : ''])),
      feature_calculation: plan.calculation.map((s) => s.uri).join(' '),
      feature_selection: plan.selection.map((s) => s.uri).join(' '),
      model_learning: plan.learners.map((l) => l.uri).join(' '),
      applicability_domain: plan.domains.map((d) => d.uri).join(' '),
      validation_service: plan.validation ?? '',
      dataset_service: plan.datasetService,
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
