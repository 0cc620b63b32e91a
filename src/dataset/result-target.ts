import type { Params } from '../http/params.js';
import { badRequest, notFound } from '../http/errors.js';
import type { DatasetMeta, DatasetStore } from './dataset-store.js';

/**
 * Where the results of an algorithm or a model go (spec 4.4, 4.11): a new dataset of this
 * service (also when `dataset_service` names this service), or `result_dataset`, an existing
 * dataset that gets new columns. Both at once is refused.
 */
export async function resultTarget(datasets: DatasetStore, params: Params): Promise<DatasetMeta | undefined> {
  const result = params.get('result_dataset');
  const service = params.get('dataset_service');
  if (result && service) throw badRequest('give result_dataset or dataset_service, not both');
  if (service && service.replace(/\/+$/, '') !== datasets.collection) {
    throw badRequest(`dataset_service ${service} is not supported: results can be stored only by this service's dataset service ${datasets.collection}`);
  }
  if (!result) return undefined;
  const meta = await datasets.readMeta(result.split('?')[0]);
  if (!meta) throw notFound(`result_dataset ${result} not found`);
  return meta;
}
