import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { operationsRoutes } from './operations-routes.ts';

export type OperationsDeps = Pick<Services, 'store' | 'tasks' | 'coordination' | 'metrics'>;

/** What operators watch: health and metrics. */
export function createOperationsComponent(deps: OperationsDeps) {
  return { operations: {}, jobs: {}, routes: (routes: DescribedRoutes) => operationsRoutes(routes, deps) };
}
