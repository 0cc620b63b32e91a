import type { Params } from '../http/params.ts';
import { badRequest } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { DatasetMeta, DatasetStore } from './dataset-store.ts';
import { datasetCsv } from './dataset-views.ts';
import { postToDatasetService } from './remote-dataset-service.ts';
import { checkOutboundTarget } from '../outbound/outbound-fetch.ts';

/**
 * Where the results of an algorithm or a model go (spec 4.4, 4.11): a new dataset of this
 * service (also when `dataset_service` names this service); `result_dataset`, an existing
 * dataset that gets new columns; or a new dataset at another dataset service. Both
 * parameters at once are refused. `defaultService`: where results go when the request names
 * neither (a supermodel's own `dataset_service`).
 */
export type ResultTarget = { kind: 'new' } | { kind: 'existing'; meta: DatasetMeta } | { kind: 'remote'; service: string; subjectid?: string };

export async function resultTarget(services: Services, datasets: DatasetStore, params: Params, callerToken: string | undefined, defaultService?: string): Promise<ResultTarget> {
  const result = params.get('result_dataset');
  const service = (params.get('dataset_service') ?? (result ? undefined : defaultService))?.trim().replace(/\/+$/, '');
  if (result && service) throw badRequest('give result_dataset or dataset_service, not both');
  if (service && service !== datasets.collection) {
    await checkOutboundTarget(service, services.config);
    return { kind: 'remote', service, subjectid: callerToken };
  }
  if (!result) return { kind: 'new' };
  return { kind: 'existing', meta: await datasets.requireMeta(result, 'result_dataset') };
}

/** A new dataset made here goes on to a remote target (and is removed here); answers where it is. */
export async function deliver(services: Services, datasets: DatasetStore, localUri: string, target: ResultTarget): Promise<string> {
  if (target.kind !== 'remote') return localUri;
  const meta = (await datasets.readMeta(localUri))!;
  const remote = await postToDatasetService(target.service, await datasetCsv(datasets, services.store, meta), services.config, target.subjectid);
  await datasets.delete(localUri);
  return remote;
}
