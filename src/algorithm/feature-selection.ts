import type * as RDF from '@rdfjs/types';
import { badRequest, HttpError } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import type { ParamValue } from '../learning/learner.ts';
import type { SelectionMethod } from '../learning/feature-selection.ts';
import { encodeRows, fitEncodings, isLearnable } from '../learning/feature-matrix.ts';
import { numberOf } from '../rdf/terms.ts';

const SELECTION_MODULE = new URL('../learning/feature-selection.ts', import.meta.url).href;

export interface SelectionRequest {
  method: SelectionMethod;
  parameters: Record<string, ParamValue>;
  /** The `dataset_uri` parameter as given (it may select the candidate features with its query). */
  datasetUri: string;
  predictionFeature?: string;
}

/**
 * Apply a feature-selection algorithm (spec 2.4 `FeatureSelection`) to a dataset: its numeric
 * features (fingerprints are one feature of many bits and are not candidates) become a matrix,
 * the method runs on the worker pool, and the answer is the selected features' URIs.
 */
export async function selectFeatures(services: Pick<Services, 'uris' | 'store' | 'workers'>, datasets: DatasetStore, request: SelectionRequest, signal?: AbortSignal): Promise<string[]> {
  const { meta: dataset, selected: chosen } = await datasets.requireRef(request.datasetUri);
  const uri = dataset.uri;
  const target = request.predictionFeature;
  if (request.method.supervised && !target) throw badRequest('missing required parameter prediction_feature (this feature selection is supervised)');
  if (target && !dataset.features.includes(target)) throw badRequest(`prediction_feature ${target} is not a feature of dataset ${uri}`);
  const records = await readFeatureRecords(services.store, [...(chosen.length ? chosen : dataset.features).filter((f) => f !== target), ...(target ? [target] : [])]);
  const candidates = [...records.values()].filter((f) => f.uri !== target && isLearnable(f) && f.bits === undefined);
  if (!candidates.length) throw badRequest(`dataset ${uri} has no numeric features to select from`);
  const targetRecord = target ? records.get(target) : undefined;
  const nominal = !!targetRecord && !targetRecord.numeric;

  const rows: Map<string, RDF.Literal>[] = [];
  for await (const r of datasets.rows(dataset.uri)) rows.push(r.values);
  const { x } = await encodeRows(await fitEncodings(candidates, rows), rows);
  let y: Float64Array | null = null;
  if (target && request.method.supervised) {
    const classes = [...new Set(rows.map((r) => r.get(target)?.value.trim()).filter((v): v is string => !!v))].sort();
    if (nominal && classes.length > 2 && request.method.id === 'fs-correlation')
      throw badRequest(
        `prediction_feature ${target} has ${classes.length} classes: a correlation ranks against a number or two classes; use ${services.uris.item('algorithm', 'fs-mutual-information')}`,
      );
    const index = new Map(classes.map((c, i) => [c, i]));
    y = Float64Array.from(rows, (r) => (nominal ? (index.get(r.get(target)?.value.trim() ?? '') ?? NaN) : numberOf(r.get(target))));
  }
  try {
    const kept = await services.workers.run<number[]>(SELECTION_MODULE, 'selectColumns', [request.method.id, x, y, nominal, request.parameters], signal);
    return kept.map((c) => candidates[c].uri);
  } catch (e) {
    if (e instanceof HttpError || signal?.aborted) throw e;
    throw badRequest(`${request.method.title}: ${(e as Error)?.message ?? String(e)}`);
  }
}
