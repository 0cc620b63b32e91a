import { badRequest } from '../core/errors.ts';
import type { TaskError, TaskRecord, TaskStatus } from './task-codec.ts';

/** Every state a task may be in (DESIGN.md), in the order of a task's life. */
export const TASK_STATUSES: readonly TaskStatus[] = ['Queued', 'Running', 'Completed', 'Cancelled', 'Error'];

/**
 * The states that may follow each state (the interface names none: spec 3 leaves them open).
 * A task waits (Queued), runs (Running, again and again as it reports progress) and ends once:
 * Completed, Cancelled and Error are final, as the OpenTox Ruby task service had them
 * ("cannot be set to running after not running anymore").
 */
const FOLLOWING: Record<TaskStatus, readonly TaskStatus[]> = {
  Queued: ['Queued', 'Running', 'Completed', 'Cancelled', 'Error'],
  Running: ['Running', 'Completed', 'Cancelled', 'Error'],
  Completed: [],
  Cancelled: [],
  Error: [],
};

/** What a `PUT` of a task's state says: the state, and what goes with it. */
export interface TaskChange {
  status: TaskStatus;
  /** Running or Queued: how far it got (0–100). */
  percent?: number;
  /** Completed: the URI of what it made. */
  resultUri?: string;
  /** What it is doing now, in words (dc:description). */
  stage?: string;
  /** Error: the report of what went wrong. */
  error?: TaskError;
}

/** Does `next` follow from `current`? */
export function follows(current: TaskStatus, next: TaskStatus): boolean {
  return FOLLOWING[current].includes(next);
}

/**
 * The task after a change, or 400 naming both states when the new one does not follow from the
 * current one; what goes with a state is required (Completed: a result URI; Error: a report)
 * and refused with another.
 */
export function changedTask(task: TaskRecord, change: TaskChange, now: Date): TaskRecord {
  const { status } = change;
  if (!follows(task.status, status)) {
    const next = FOLLOWING[task.status];
    throw badRequest(`task ${task.uri} is ${task.status}: ${status} does not follow from ${task.status} (${next.length ? `from ${task.status}: ${next.join(', ')}` : `${task.status} is final`})`);
  }
  if (status === 'Completed' && !change.resultUri) throw badRequest('missing required parameter resultURI: a Completed task names its result');
  if (status !== 'Completed' && change.resultUri) throw badRequest(`resultURI goes with Completed, not with ${status}`);
  if (status === 'Error' && !change.error)
    throw badRequest('an Error needs its ot:ErrorReport: RDF in the body, the form fields errorCode, message, statusCode (and actor, errorCause), or errorReport');
  if (status !== 'Error' && change.error) throw badRequest(`an error report goes with Error, not with ${status}`);
  if (change.percent !== undefined && status !== 'Running' && status !== 'Queued') throw badRequest(`percentageCompleted goes with Running or Queued, not with ${status}`);
  const percent = status === 'Completed' ? 100 : (change.percent ?? task.percent);
  return { ...task, status, percent, modified: now, resultUri: change.resultUri, error: change.error, stage: change.stage ?? task.stage };
}
