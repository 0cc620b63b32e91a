import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { authRoutes } from './auth-routes.ts';

export type AuthDeps = Pick<Services, 'config' | 'access'>;

/** The embedded authentication and policy service (spec 5): tokens, users, groups and policies. */
export function createAuthComponent(deps: AuthDeps) {
  return { operations: {}, jobs: {}, routes: (routes: DescribedRoutes) => authRoutes(routes, deps) };
}
