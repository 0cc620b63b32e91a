import type * as RDF from '@rdfjs/types';
import type { DatasetMeta, DatasetStore } from '../dataset/dataset-store.ts';
import type { ParamValue } from '../learning/learner.ts';
import { df, dc, ot, literal } from '../rdf/namespaces.ts';
import { applyCleanup, fitCleanup, type CleanupMethod, type CleanupRow, type CleanupState } from '../algorithm/cleanup-methods.ts';
import type { StoredModel } from './model-codec.ts';
import type { ModelStore } from './model-store.ts';
import type { PreparedJob } from '../task/task-runner.ts';

/** What applying a data-cleanup algorithm to a dataset asks for (`POST /algorithm/{id}`). */
export interface CleanupRequest {
  algorithmUri: string;
  method: CleanupMethod;
  parameters: Record<string, ParamValue>;
  /** The `dataset_uri` parameter as given (its query may choose the features the method looks at). */
  datasetUri: string;
}

/** Making a filtering model (spec 2.4 DataCleanup) as a job: checked at once, then fitted. */
export type PrepareCleanup = (request: CleanupRequest) => Promise<PreparedJob>;

export function cleanupJob(datasets: DatasetStore, models: ModelStore): PrepareCleanup {
  return async (request) => {
    const { meta: dataset, selected } = await datasets.requireRef(request.datasetUri);
    const features = selected.length ? selected : dataset.features;
    return {
      title: `${request.method.title} on ${dataset.uri}`,
      work: async () => {
        const rows = await datasets.allRows(dataset.uri);
        const state = fitCleanup(request.method.id, request.parameters, features, rows);
        return models.create({
          algorithm: request.algorithmUri,
          learnerId: request.method.id,
          trainingDataset: dataset.uri,
          parameters: request.parameters,
          parameterSpecs: request.method.parameters,
          task: 'cleanup',
          classes: [],
          independent: features,
          dependent: '',
          encodings: [],
          state,
          title: `${request.method.title}: filtering model of ${dataset.title ?? dataset.uri}`,
          targetTitle: request.method.title,
          warnings: state.kind === 'dc-missing-values' && state.dropped.length ? [`${state.dropped.length} feature(s) missing in more than maxMissing of the rows are dropped`] : [],
          endpoints: [],
        });
      },
    };
  };
}

/**
 * Apply a filtering model to a dataset: a new dataset, the cleaned copy (its source untouched),
 * of the `selected` features only when the dataset reference chose some.
 */
export async function applyCleanupModel(datasets: DatasetStore, model: StoredModel, source: DatasetMeta, selected: string[] = []): Promise<string> {
  const rows: CleanupRow[] = await datasets.allRows(source.uri);
  const features = selected.length ? source.features.filter((f) => selected.includes(f)) : source.features;
  const cleaned = applyCleanup(model.state as CleanupState, features, rows);
  const annotations: [RDF.NamedNode, RDF.Term][] = [
    [dc('title'), literal(`${source.title ?? source.uri}, cleaned by ${model.title}`)],
    [dc('description'), literal(cleaned.note)],
    [ot('hasSource'), df.namedNode(model.uri)],
    [dc('source'), df.namedNode(source.uri)],
  ];
  return datasets.createFromRows(
    annotations,
    cleaned.features,
    cleaned.rows.map((r) => ({ compound: r.compound, values: cleaned.features.filter((f) => r.values.has(f)).map((f): [string, RDF.Literal] => [f, r.values.get(f)!]) })),
  );
}
