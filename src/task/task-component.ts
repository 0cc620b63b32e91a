import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { taskRoutes } from './task-routes.ts';

export type TaskDeps = Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'tasks'>;

/** Tasks (spec 2.9): their routes, and the tasks other services run (client-tasks.ts); the runner is shared machinery. */
export function createTaskComponent(deps: TaskDeps) {
  return { operations: {}, jobs: {}, routes: (routes: DescribedRoutes) => taskRoutes(routes, deps) };
}
