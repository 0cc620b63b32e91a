import type { Services } from '../core/services.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { Profiles } from './profiles.ts';
import { profilerRoutes } from './profiler-routes.ts';

export interface ProfilerDeps extends Pick<Services, 'store' | 'uris' | 'workers'> {
  compounds: CompoundRegistry;
}

/** Profilers (issue 56): rule sets of ontology/profilers-*.ttl, and compounds' profiles by them. */
export function createProfilerComponent(deps: ProfilerDeps) {
  const profiles = new Profiles(deps, deps.compounds);
  return { operations: { profiles }, jobs: {}, routes: (routes: DescribedRoutes) => profilerRoutes(routes, deps, profiles) };
}
