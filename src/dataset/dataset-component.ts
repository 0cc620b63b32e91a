import type { Services } from '../core/services.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { DatasetStore } from './dataset-store.ts';
import { datasetRoutes } from './dataset-routes.ts';
import type { ExplainPredictions } from './dataset-views.ts';

export interface DatasetDeps extends Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'tasks' | 'workers' | 'shapes' | 'chemistry'> {
  compounds: CompoundRegistry;
  /** The QMRF component's, made later (it reads models): a prediction dataset's page explains its predictions. */
  explainPredictions: ExplainPredictions;
}

/** Datasets (spec 2.3): the store of their metadata and rows, and their routes. */
export function createDatasetComponent(deps: DatasetDeps) {
  const datasets = new DatasetStore(deps, deps.compounds);
  return { operations: { datasets }, jobs: {}, routes: (routes: DescribedRoutes) => datasetRoutes(routes, deps, datasets, deps.explainPredictions) };
}
