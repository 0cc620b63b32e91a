import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who is calling: the user a request runs for (undefined when access control is off or the
 * path is open), carried into the work it starts (tasks, created resources).
 */
export const currentUser = new AsyncLocalStorage<string | undefined>();
