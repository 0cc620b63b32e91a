import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { serviceRoutes } from './service-routes.ts';
import type { Latest } from './home-page.ts';

export interface ServiceDeps extends Pick<Services, 'config' | 'uris' | 'store' | 'tasks'> {
  /** The caller's newest dataset and model (not intermediate work), for the home page's path. */
  latest: (canRead: (uri: string) => boolean) => Promise<{ dataset?: Latest; model?: Latest; described: boolean }>;
}

/** The service itself: the home page and the list of components. */
export function createServiceComponent(deps: ServiceDeps) {
  return { operations: {}, jobs: {}, routes: (routes: DescribedRoutes) => serviceRoutes(routes, deps) };
}
