import { z } from 'zod';
import { badRequest, notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { deliver, resultRequest, resultTarget } from '../dataset/result-target.ts';
import { Params } from '../http/params.ts';
import type { PrepareTraining } from '../model/training.ts';
import type { PrepareDomainFitting } from '../model/domain-training.ts';
import type { PrepareCleanup } from '../model/cleanup-model.ts';
import type { PrepareSuper } from '../model/superalgorithm.ts';
import { defineJob, type JobStarters } from '../task/job-definition.ts';
import type { PreparedJob } from '../task/task-runner.ts';
import { algorithmById, type AlgorithmDefinition } from './catalogue.ts';
import type { DescriptorCalculation } from './descriptor-calculation.ts';
import { describeDataset } from './descriptor-datasets.ts';
import { readParameters } from './parameters.ts';
import { mineDataset } from './pattern-mining.ts';
import { standardiseDataset } from './standardise-dataset.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';

/** An algorithm's URI (its catalogue entry's, written to the store at start). */
export function algorithmUri(services: Pick<Services, 'uris'>, def: AlgorithmDefinition): string {
  return services.uris.item('algorithm', def.id);
}

export type AlgorithmStarters = JobStarters<ReturnType<typeof algorithmJobs>>;

/** What applying an algorithm makes, by kind: most of it is the model component's work. */
export interface AlgorithmWork {
  datasets: DatasetStore;
  descriptors: DescriptorCalculation;
  /** Applying a learner trains a model. */
  train: PrepareTraining;
  /** Applying an applicability-domain algorithm fits an AD model. */
  fitDomain: PrepareDomainFitting;
  /** Applying a data-cleanup algorithm makes a filtering model. */
  cleanup: PrepareCleanup;
  /** A superalgorithm chains the others into a supermodel. */
  startSuper: PrepareSuper;
  /** Standardising structures registers their parents. */
  compounds: Pick<CompoundRegistry, 'register'>;
}

/** The algorithm component's job: applying an algorithm of the catalogue to a dataset (spec 4.4). */
export function algorithmJobs(services: Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'workers'>, work: AlgorithmWork) {
  const { datasets, descriptors, train, fitDomain, cleanup, startSuper, compounds } = work;
  return {
    algorithm: defineJob({
      kind: 'algorithm',
      input: z.object({
        id: z.string(),
        datasetUri: z.string(),
        /** The request's parameters by name (each algorithm reads its own; a superalgorithm its steps'). */
        parameters: z.record(z.string(), z.array(z.string())),
        result: resultRequest,
      }),
      async prepare(input): Promise<PreparedJob> {
        const def = algorithmById(input.id);
        if (!def) throw notFound(`algorithm ${services.uris.collection('algorithm')}/${input.id} not found`);
        const params = Params.fromEntries(Object.entries(input.parameters).flatMap(([name, values]) => values.map((v): [string, string] => [name, v])));
        const datasetUri = input.datasetUri;
        const values = readParameters(def.parameters, params);
        const uri = algorithmUri(services, def);
        switch (def.kind) {
          case 'learner':
            return train({
              algorithmUri: uri,
              title: def.title,
              learner: def.learner,
              parameters: values,
              datasetUri,
              predictionFeature: params.required('prediction_feature'),
              domain: params.get('applicability_domain') || 'auto',
            });
          case 'super':
            return startSuper(uri, params);
          case 'domain':
            return fitDomain({
              algorithmUri: uri,
              method: def.method,
              parameters: values,
              datasetUri,
              leaveOut: params.get('prediction_feature') || undefined,
              model: params.get('model_uri') || undefined,
            });
          case 'cleanup':
            return cleanup({ algorithmUri: uri, method: def.method, parameters: values, datasetUri });
          case 'import':
            throw badRequest(`${uri} is not run on a dataset: POST the ONNX file to ${services.uris.collection('model')} (multipart/form-data: file, independent_features, prediction_feature)`);
          case 'mining': {
            const { meta: source, selected } = await datasets.requireRef(datasetUri);
            const classes = String(values.prediction_feature ?? '');
            if (classes && !source.features.includes(classes)) throw badRequest(`prediction_feature ${classes} is not a feature of dataset ${source.uri}`);
            return { title: `${def.title} of ${source.uri}`, work: (job) => mineDataset(services, datasets, descriptors, { algorithmUri: uri, source, selected, values }, job.signal) };
          }
          case 'standardisation': {
            const { meta: source, selected } = await datasets.requireRef(datasetUri);
            const target = await resultTarget(services, datasets, input.result);
            if (target.kind === 'existing') throw badRequest(`${uri} answers a new dataset (its rows get other compounds): result_dataset is not taken`);
            const deps = { services, datasets, compounds, smilesOf: (c: string[]) => descriptors.smilesOf(c) };
            return {
              title: `${def.title} of ${source.uri}`,
              work: async (job) => {
                const run = { signal: job.signal, progress: (f: number) => job.progress(5 + f * 90) };
                return deliver(services, datasets, await standardiseDataset(deps, { algorithmUri: uri, source, selected, values }, run), target);
              },
            };
          }
          case 'descriptors': {
            try {
              def.descriptors.columns(values);
            } catch (e) {
              if (e instanceof RangeError) throw badRequest(e.message);
              throw e;
            }
            const { meta: source, selected } = await datasets.requireRef(datasetUri);
            const target = await resultTarget(services, datasets, input.result);
            return {
              title: `${def.title} for ${source.uri}`,
              work: async (job) => {
                const run = { signal: job.signal, progress: (f: number) => job.progress(5 + f * 85) };
                if (target.kind === 'existing') return describeDataset(descriptors, datasets, { def, values, source, selected, into: target.meta }, run);
                return deliver(services, datasets, await describeDataset(descriptors, datasets, { def, values, source, selected }, run), target);
              },
            };
          }
          default:
            throw badRequest(`${uri} does not run as a task`);
        }
      },
    }),
  };
}
