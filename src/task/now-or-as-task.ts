import type { Context } from 'koa';
import { sendTask, sendUri } from '../http/respond.ts';
import type { TaskRunner } from './task-runner.ts';

/** What work started by a request is told: how far it got (0–1) and whether to stop. */
export interface WorkProgress {
  progress(fraction: number): void;
  signal?: AbortSignal;
}

/**
 * The one rule for work a request starts: quick work is done at once and answers its result's
 * URI (200); slow work is queued as a task and answers the task's URI (202), which the client
 * polls. The caller says which it is (a large upload, descriptors still to calculate).
 */
export async function answerNowOrAsTask(ctx: Context, tasks: TaskRunner, how: { slow: boolean; title: string }, work: (job: WorkProgress) => Promise<string>): Promise<void> {
  if (!how.slow) return sendUri(ctx, await work({ progress: () => undefined }));
  const task = await tasks.submit(how.title, (job) => work({ signal: job.signal, progress: (f) => job.progress(f * 100) }));
  await sendTask(ctx, task);
}
