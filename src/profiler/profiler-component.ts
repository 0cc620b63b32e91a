import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { Profiles } from './profiles.ts';
import { profilerRoutes } from './profiler-routes.ts';

export type ProfilerDeps = Pick<Services, 'store' | 'uris' | 'workers'>;

/** Profilers (issue 56): rule sets of ontology/profilers-*.ttl, and compounds' profiles by them. */
export function createProfilerComponent(deps: ProfilerDeps) {
  const profiles = new Profiles(deps);
  return { operations: { profiles }, jobs: {}, routes: (routes: DescribedRoutes) => profilerRoutes(routes, deps, profiles) };
}
