import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { CompoundRegistry } from './compound-registry.ts';
import { compoundRoutes } from './compound-routes.ts';

export type CompoundDeps = Pick<Services, 'config' | 'uris' | 'log' | 'store' | 'ids' | 'coordination' | 'workers' | 'searchWorkers' | 'shapes' | 'chemistry' | 'opsin'>;

/** Compounds and conformers (spec 2.1): the registry with its structure index, and their routes. */
export function createCompoundComponent(deps: CompoundDeps) {
  const compounds = new CompoundRegistry(deps, deps.chemistry);
  return { operations: { compounds }, jobs: {}, routes: (routes: DescribedRoutes) => compoundRoutes(routes, deps, compounds) };
}
