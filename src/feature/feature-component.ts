import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { featureRoutes } from './feature-routes.ts';

export type FeatureDeps = Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'shapes'>;

/** Features (spec 2.2): their routes. */
export function createFeatureComponent(deps: FeatureDeps) {
  return { operations: {}, jobs: {}, routes: (routes: DescribedRoutes) => featureRoutes(routes, deps) };
}
