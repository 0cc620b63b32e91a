import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { algorithmJobs, type AlgorithmWork } from './algorithm-jobs.ts';
import { algorithmRoutes } from './algorithm-routes.ts';

/** The machinery, and what applying an algorithm makes (mostly the model component's work). */
export type AlgorithmDeps = Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'tasks' | 'workers'> & AlgorithmWork;

/** Algorithms (spec 2.4, 4.4): the catalogue's routes and the job applying an algorithm to a dataset. */
export function createAlgorithmComponent(deps: AlgorithmDeps) {
  const jobs = algorithmJobs(deps, deps);
  return { operations: {}, jobs, routes: (routes: DescribedRoutes) => algorithmRoutes(routes, deps, deps.datasets, deps.tasks.starters(jobs).algorithm) };
}
