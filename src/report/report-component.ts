import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { ReportFacts } from './report-facts.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { ModelStore } from '../model/model-store.ts';
import { ReportStore } from './report-store.ts';
import { Reports } from './reports.ts';
import { reportRoutes } from './report-routes.ts';

export interface ReportDeps extends Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'tasks' | 'workers'> {
  datasets: DatasetStore;
  models: ModelStore;
}

/** Validation reports (spec 4.3): the job making one, and their routes. */
export function createReportComponent(deps: ReportDeps) {
  const store = new ReportStore(deps);
  const reports = new Reports(deps, new ReportFacts(deps, deps.datasets, deps.models), store);
  return { operations: {}, jobs: reports.jobs, routes: (routes: DescribedRoutes) => reportRoutes(routes, deps, reports, store) };
}
