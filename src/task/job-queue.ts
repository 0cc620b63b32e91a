import { Queue, Worker, type Job as QueueJob } from 'bullmq';
import { Redis } from 'ioredis';

/** A job's input: JSON, so that a worker on another machine can run it. */
export type JobInput = object;

/** What the queue carries: the task resource, who asked, the job kind and its input. */
export interface QueuedJob {
  task: string;
  creator?: string;
  kind: string;
  input: JobInput;
}

/** How a worker runs a job; `stalls`: how often a worker running it stopped before it ended. */
export type RunQueuedJob = (job: QueuedJob, stalls: number) => Promise<void>;

const QUEUE_NAME = 'tasks';

/**
 * The shared task queue (BullMQ on Redis, `--redis-url`): serve processes add jobs, worker
 * processes (`toxgraph worker`) take them. A job whose worker stops renewing its lock (killed,
 * machine gone) is given to another worker; the task runner ends it as Error after the second
 * time. A job's id is its task's id, so a task is queued at most once.
 */
export class JobQueue {
  private readonly queue: Queue;
  private worker?: Worker;
  private readonly connections: Redis[] = [];

  private readonly redisUrl: string;
  private readonly prefix: string;
  private readonly lockSeconds: number;
  constructor(redisUrl: string, prefix: string, lockSeconds: number) {
    this.redisUrl = redisUrl;
    this.prefix = prefix;
    this.lockSeconds = lockSeconds;
    this.queue = new Queue(QUEUE_NAME, { connection: this.connection(), prefix });
  }

  private connection(): Redis {
    // BullMQ's blocking commands need ioredis to wait for Redis however long it takes
    const redis = new Redis(this.redisUrl, { maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
    this.connections.push(redis);
    return redis;
  }

  async add(job: QueuedJob): Promise<void> {
    await this.queue.add(job.kind, job, { jobId: jobIdOf(job.task), removeOnComplete: true, removeOnFail: { count: 1000 } });
  }

  /** Take a job out of the queue before a worker takes it; false when a worker has it (or it is gone). */
  async remove(task: string): Promise<boolean> {
    return (await this.queue.remove(jobIdOf(task))) === 1;
  }

  /** Take jobs from the queue, at most `concurrency` at a time, until closed. */
  work(concurrency: number, run: RunQueuedJob): void {
    const lockDuration = this.lockSeconds * 1000;
    this.worker = new Worker(QUEUE_NAME, (job: QueueJob<QueuedJob>) => run(job.data, job.stalledCounter ?? 0), {
      connection: this.connection(),
      prefix: this.prefix,
      concurrency,
      lockDuration,
      stalledInterval: Math.max(1000, Math.round(lockDuration / 2)),
      // the task runner ends a job stalled twice itself (the task says why); BullMQ never fails it first
      maxStalledCount: 3,
    });
    this.worker.on('error', () => undefined);
  }

  /** Jobs waiting for a worker and jobs a worker runs, across every process. */
  async counts(): Promise<{ waiting: number; active: number }> {
    const c = await this.queue.getJobCounts('waiting', 'active', 'prioritized', 'delayed');
    return { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.delayed ?? 0), active: c.active ?? 0 };
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
    for (const c of this.connections) c.disconnect();
  }
}

/** BullMQ ids may not contain ':'; a task's id (`/task/{uuid}`) is unique. */
function jobIdOf(task: string): string {
  return task.slice(task.lastIndexOf('/') + 1);
}
