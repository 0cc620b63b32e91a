/**
 * Preloaded into every test process by test/run-tier.ts (`--import`; the test runner passes it to
 * the processes of the test files).
 *
 * node:test enables an async hook with `init` and `destroy` in each test file's process (it maps
 * every async resource made inside a test to that test, to blame the right test for an uncaught
 * error). A hook with `destroy` makes V8 call into JavaScript for every promise made and tracks
 * every promise until it is collected: measured here, a million promises inside a test took 2.6 s
 * against 0.3 s outside one, and the servers the integration files start in their own process
 * answered 30-40% slower inside a test than in a plain script (a wide dataset's downloads: 12.7 s
 * plain, 17.9 s in a test). The store and the query evaluator make promises by the million.
 *
 * Hooks made without saying whether they track promises are made here not to (`trackPromises:
 * false`, Node 26.1+; older Node ignores it and nothing changes). What is given up: an error
 * thrown after an `await`, or a promise rejected and never handled, is still caught by the test
 * runner and still fails the run (the file fails, with the error printed), but it is reported as
 * activity of the file, not of the test that made it. Timers, sockets and other resources are
 * still mapped to their test.
 */
import { createRequire } from 'node:module';

const asyncHooks = createRequire(import.meta.url)('node:async_hooks') as typeof import('node:async_hooks');
const createHook = asyncHooks.createHook;
type HookOptions = Parameters<typeof createHook>[0] & { trackPromises?: boolean };

asyncHooks.createHook = function untrackedPromises(options: HookOptions) {
  const tracked = options.trackPromises !== undefined || options.promiseResolve !== undefined;
  return createHook.call(asyncHooks, tracked ? options : { ...options, trackPromises: false });
};
