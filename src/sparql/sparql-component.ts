import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { sparqlRoutes } from './sparql-routes.ts';
import { graphStoreRoutes } from './graph-store-routes.ts';

export type SparqlDeps = Pick<Services, 'config' | 'uris' | 'store' | 'published' | 'access'>;

/** The SPARQL endpoint and the Graph Store protocol over the store. */
export function createSparqlComponent(deps: SparqlDeps) {
  return {
    operations: {},
    jobs: {},
    routes: (routes: DescribedRoutes) => {
      sparqlRoutes(routes, deps);
      graphStoreRoutes(routes, deps);
    },
  };
}
