import type { Config } from '../core/config.ts';
import type { Logger } from '../core/log.ts';
import { createComponents } from './components.ts';
import { closeServices, openServices } from './server.ts';

export interface RunningWorker {
  close(): Promise<void>;
}

/**
 * `toxgraph worker`: runs the jobs of the shared queue (descriptors, training, validation,
 * reports) and answers no HTTP. It makes the same components as a serve process (without their
 * routes), so that it knows every job kind by the same code, and writes progress and results to
 * the same store.
 */
export async function startWorker(config: Config, log: Logger): Promise<RunningWorker> {
  if (!config.redisUrl) throw new Error('a worker takes its jobs from the shared queue: give --redis-url (and --store-url)');
  if (!config.baseUrl) throw new Error("a worker mints URIs of the service it works for: give --base-url (the serve processes' base URL)");
  const opened = await openServices(config, log);
  await Promise.all([createComponents(opened.services, opened.registry).ready, opened.vocabulariesWritten]);
  opened.services.tasks.work();
  log.info('working', { redis: config.redisUrl.replace(/\/\/[^@/]*@/, '//'), concurrency: config.taskConcurrency, process: opened.coordination.processId });
  return { close: () => closeServices(opened) };
}
