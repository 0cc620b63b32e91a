import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { taskRoutes } from './task-routes.ts';

export type TaskDeps = Pick<Services, 'uris' | 'store' | 'tasks'>;

/** Tasks (spec 2.7): their routes (the runner is shared machinery). */
export function createTaskComponent(deps: TaskDeps) {
  return { operations: {}, jobs: {}, routes: (routes: DescribedRoutes) => taskRoutes(routes, deps) };
}
