import { z } from 'zod';
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

export type ResultRequest = z.infer<typeof resultRequest>;

/** Where a request asks results to go: `result_dataset`, `dataset_service`, and the caller's token for that service. */
export const resultRequest = z.object({ resultDataset: z.string().optional(), datasetService: z.string().optional(), subjectid: z.string().optional() });

/** The request's result parameters (the caller's token is added when results go to another service). */
export function resultRequestOf(params: Params): ResultRequest {
  return { resultDataset: params.get('result_dataset'), datasetService: params.get('dataset_service') };
}

export async function resultTarget(services: Pick<Services, 'config'>, datasets: DatasetStore, request: ResultRequest, defaultService?: string): Promise<ResultTarget> {
  const result = request.resultDataset;
  const service = (request.datasetService ?? (result ? undefined : defaultService))?.trim().replace(/\/+$/, '');
  if (result && service) throw badRequest('give result_dataset or dataset_service, not both');
  if (service && service !== datasets.collection) {
    await checkOutboundTarget(service, services.config);
    return { kind: 'remote', service, subjectid: request.subjectid };
  }
  if (!result) return { kind: 'new' };
  return { kind: 'existing', meta: await datasets.requireMeta(result, 'result_dataset') };
}

/** A new dataset made here goes on to a remote target (and is removed here); answers where it is. */
export async function deliver(services: Pick<Services, 'config' | 'store'>, datasets: DatasetStore, localUri: string, target: ResultTarget): Promise<string> {
  if (target.kind !== 'remote') return localUri;
  const meta = (await datasets.readMeta(localUri))!;
  const remote = await postToDatasetService(target.service, await datasetCsv(datasets, services.store, meta), services.config, target.subjectid);
  await datasets.delete(localUri);
  return remote;
}
