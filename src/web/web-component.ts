import type { Services } from '../core/services.ts';
import type { Route } from '../server/app.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { staticRoutes } from './static-routes.ts';
import { apiRoutes } from './api-routes.ts';

export interface WebDeps extends Pick<Services, 'config'> {
  /** Every route of the application (what /openapi.json describes), known once all are registered. */
  routes: () => Route[];
}

/** The home page's assets, the API page and the OpenAPI document. */
export function createWebComponent(deps: WebDeps) {
  return {
    operations: {},
    jobs: {},
    routes: (routes: DescribedRoutes) => {
      staticRoutes(routes);
      apiRoutes(routes, deps, deps.routes);
    },
  };
}
