import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { serviceRoutes } from './service-routes.ts';

export type ServiceDeps = Pick<Services, 'config' | 'uris' | 'store' | 'tasks'>;

/** The service itself: the home page and the list of components. */
export function createServiceComponent(deps: ServiceDeps) {
  return { operations: {}, jobs: {}, routes: (routes: DescribedRoutes) => serviceRoutes(routes, deps) };
}
