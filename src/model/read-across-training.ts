import type { Services } from '../core/services.ts';
import { featureRef } from '../core/uri-scheme.ts';
import { badRequest } from '../core/errors.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { ParamValue } from '../learning/learner.ts';
import { parseWeights, readAcross } from '../learning/read-across.ts';
import { algorithmById } from '../algorithm/catalogue.ts';
import { checkParameters } from '../algorithm/parameters.ts';
import type { DescriptorAlgorithm, DescriptorCalculation } from '../algorithm/descriptor-calculation.ts';
import { describeDataset } from '../algorithm/descriptor-datasets.ts';
import type { ModelStore } from './model-store.ts';
import { planTraining, trainModel, type PrepareTraining, type TrainingRequest } from './training.ts';
import { recordLeaveOneOut, type ValidateLeaveOneOut } from './read-across-loo.ts';

/** A fingerprint read-across measures similarity on: a descriptor algorithm and its values. */
export interface FingerprintStep {
  def: DescriptorAlgorithm;
  values: Record<string, ParamValue>;
}

/**
 * The `fingerprint` parameter as descriptor calculations: `morgan` (with `morgan_radius` and
 * `morgan_bits`), `maccs`, or a descriptor algorithm's id or URI (its default parameters);
 * several, separated by commas or spaces, for a hybrid. 400 naming the parameter otherwise.
 */
export function fingerprintSteps(services: Pick<Services, 'uris'>, parameters: Record<string, ParamValue>): FingerprintStep[] {
  const names = String(parameters.fingerprint ?? 'morgan')
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (!names.length) throw badRequest('fingerprint: name at least one (morgan, maccs, or a descriptor algorithm)');
  const steps = names.map((name): FingerprintStep => {
    if (name === 'morgan') return { def: descriptorAlgorithm('morgan-fingerprint'), values: { radius: parameters.morgan_radius ?? 2, nBits: parameters.morgan_bits ?? 2048, useChirality: false } };
    if (name === 'maccs') return { def: descriptorAlgorithm('maccs-keys'), values: {} };
    const id = services.uris.idIn('algorithm', name) ?? name;
    const def = algorithmById(id);
    if (def?.kind !== 'descriptors') throw badRequest(`fingerprint: ${name} is not morgan, maccs or a descriptor algorithm of this service`);
    return { def, values: checkParameters(def.parameters, {}) };
  });
  if (new Set(steps.map((s) => s.def.id)).size < steps.length) throw badRequest(`fingerprint: ${names.join(', ')} names one fingerprint twice`);
  let weights: number[];
  try {
    weights = parseWeights(String(parameters.fingerprint_weights ?? ''));
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  if (weights.length && weights.length !== steps.length) throw badRequest(`fingerprint_weights: ${weights.length} weight(s) for ${steps.length} fingerprint(s) (${names.join(', ')})`);
  return steps;
}

function descriptorAlgorithm(id: string): DescriptorAlgorithm {
  const def = algorithmById(id);
  if (def?.kind !== 'descriptors') throw new Error(`the catalogue lacks ${id}`);
  return def;
}

/**
 * Training read-across (`/algorithm/genra`) on a dataset: the fingerprints are calculated for its
 * compounds (a dataset of the target and the fingerprints, whose features name the calculation,
 * so that the model calculates them for every compound it predicts), then the sources are stored
 * and every source's leave-one-out read-across computed (recorded: read-across-loo.ts).
 */
export function readAcrossTraining(
  services: Pick<Services, 'config' | 'uris' | 'store' | 'workers' | 'ids'>,
  datasets: DatasetStore,
  models: ModelStore,
  descriptors: DescriptorCalculation,
  validate: ValidateLeaveOneOut,
): PrepareTraining {
  return async (request) => {
    const steps = fingerprintSteps(services, request.parameters);
    const { meta: source } = await datasets.requireRef(request.datasetUri);
    if (!source.features.includes(request.predictionFeature)) throw badRequest(`prediction_feature ${request.predictionFeature} is not a feature of dataset ${source.uri}`);
    return {
      title: `Read-across (GenRA) of ${source.title ?? source.uri}`,
      work: async (job) => {
        const progress = (f: number) => job.progress(f * 100);
        let described = await describeDataset(
          descriptors,
          datasets,
          { ...steps[0], source, selected: [request.predictionFeature] },
          { signal: job.signal, progress: (f) => progress((0.4 * f) / steps.length) },
        );
        for (const [k, step] of steps.slice(1).entries()) {
          const into = await datasets.requireMeta(described, 'dataset_uri');
          described = await describeDataset(descriptors, datasets, { ...step, source, selected: [], into }, { signal: job.signal, progress: (f) => progress((0.4 * (k + 1 + f)) / steps.length) });
        }
        const fingerprints = (await Promise.all(steps.map((s) => descriptors.instance(s.def, s.values)))).flatMap((i) => i.features);
        const plan = await planTraining(services, datasets, { ...request, datasetUri: featureRef(described, [...fingerprints, request.predictionFeature]) });
        const model = await trainModel(services, datasets, models, plan, { signal: job.signal, progress: (f) => progress(0.4 + 0.5 * f) });
        // every source's leave-one-out read-across, computed by training: a dataset and a validation of the model
        await recordLeaveOneOut(services, datasets, models, model, validate);
        return model;
      },
    };
  };
}

/** Training by learner: read-across calculates its fingerprints first; every other learner learns from the dataset's features. */
export function trainingByLearner(general: PrepareTraining, readAcrossTrainer: PrepareTraining): PrepareTraining {
  return (request: TrainingRequest) => (request.learner.id === readAcross.id ? readAcrossTrainer(request) : general(request));
}
