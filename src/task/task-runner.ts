import type * as RDF from '@rdfjs/types';
import type { UriScheme } from '../core/uri-scheme.ts';
import type { IdMinter } from '../store/id-minter.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { HttpError } from '../core/errors.ts';
import { PART_OF, select } from '../store/query-helpers.ts';
import { df } from '../rdf/namespaces.ts';
import { CLIENT_RUNNER, mintedOf, mintedQuads, taskQuads, taskRecord, type TaskRecord, type TaskStatus } from './task-codec.ts';
import { taskQueries } from './task-queries.ts';
import type { TripleStore } from '../store/triple-store.ts';
import type { Logger } from '../core/log.ts';
import { phaseSummary, recordPhases, type PhaseTimes } from '../core/phase-times.ts';
import { currentUser } from '../core/request-context.ts';
import { LocalCoordination, type Coordination } from '../core/coordination.ts';
import type { JobInput, JobQueue, QueuedJob } from './job-queue.ts';
import type { JobDefinition, JobStarters } from './job-definition.ts';

export type { TaskStatus } from './task-codec.ts';

export interface Job {
  readonly taskUri: string;
  /** Aborted when the task is cancelled (DELETE /task/{id}) or the server stops. */
  readonly signal: AbortSignal;
  /** Report progress in percent (0–100), and what is being done in words ("fold 3 of 10 done"); written to the task resource, throttled. */
  progress(percent: number, stage?: string): void;
}

/** Work resolves to the URI of its result. Throw an HttpError to end with that status. */
export type Work = (job: Job) => Promise<string>;

/** What a job kind makes of its input: checked (a mistake throws 400/404), titled, ready to run. */
export interface PreparedJob {
  title: string;
  work: Work;
  /** Work quick enough to do at once, in the request (see registerQuickOrTask). */
  quick?: boolean;
}

/** The runner of tasks queued in Redis: the task records it. */
const QUEUE_RUNNER = 'queue';
/** How long a cancellation is remembered for a job that a worker has not taken yet. */
const CANCEL_MARK_SECONDS = 24 * 3600;

interface TaskState extends TaskRecord {
  error?: HttpError;
  controller: AbortController;
  lastWrite: number;
  writtenPercent: number;
  progressTimer?: NodeJS.Timeout;
  /** Resources this task's work created: removed again unless the task completes. */
  minted: string[];
}

/** A job's input checked against its schema: what does not fit (a seed beyond the safe integers) is the request's mistake, 400. */
function checkedInput<I extends JobInput>(definition: JobDefinition<I>, input: I): I {
  const checked = definition.input.safeParse(input);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  throw new HttpError(400, 'InvalidInput', `${issue.path.join('.') || 'input'}: ${issue.message}`);
}

/** What a worker on another machine receives: the same JSON round trip here, so that what runs here runs there. */
function asJson<I extends JobInput>(input: I): I {
  return JSON.parse(JSON.stringify(input)) as I;
}

function isUnfinished(status: string | undefined): boolean {
  return status === 'Queued' || status === 'Running';
}

/** The task whose work is running in the current async context. */
const runningTask = new AsyncLocalStorage<TaskState>();

/** The graphs a resource may own besides its own (dataset rows, model content, pooled statistics). */

const PROGRESS_WRITE_INTERVAL_MS = 250;
/** Tasks that run at least this long end with a log line of where their time went. */
const LOGGED_TASK_MS = 1000;

/**
 * The one task runner (spec 2.9, DESIGN.md): work runs off the request path, at most
 * `concurrency` jobs at a time; every task is a resource in the store (graph = task URI), so
 * it survives restarts, and a task found Running or Queued at start-up is ended as Error
 * "interrupted" (not one that another service runs: client-tasks.ts).
 *
 * Work is either a closure run here (`submit`) or a named job kind with JSON input (`register`, job-definition.ts):
 * with a shared queue (`--redis-url`) such jobs are run by worker processes, which use this same
 * runner (`runQueued`); each task records the process that runs it, so that a process ends only
 * the tasks of processes that are gone.
 */
export class TaskRunner {
  private readonly active = new Map<string, TaskState>();
  private readonly queue: { state: TaskState; work: Work }[] = [];
  private running = 0;
  private readonly executions = new Set<Promise<void>>();
  /** The execution of each running task, by URI (settled() waits for it to end). */
  private readonly finishing = new Map<string, Promise<unknown>>();
  private writes: Promise<unknown> = Promise.resolve();
  /** Tasks that ended, by how they ended, since the server started (metrics). */
  readonly ended = { Completed: 0, Error: 0, Cancelled: 0 };
  private readonly kinds = new Map<string, JobDefinition<JobInput>>();

  private readonly store: TripleStore;
  private readonly uris: UriScheme;
  private readonly ids: IdMinter;
  private readonly concurrency: number;
  private readonly stopWaitMs: number;
  private readonly log: Logger;
  private readonly coordination: Coordination;
  /** The shared queue, when worker processes run the jobs. */
  private readonly jobQueue?: JobQueue;
  /**
   * `concurrency`: jobs run at once; `stopWaitMs`: how long closing waits for running work to end
   * after aborting it (`--stop-wait`).
   */
  constructor(
    store: TripleStore,
    uris: UriScheme,
    ids: IdMinter,
    { concurrency, stopWaitMs }: { concurrency: number; stopWaitMs: number },
    log: Logger,
    coordination: Coordination = new LocalCoordination(),
    jobQueue?: JobQueue,
  ) {
    this.store = store;
    this.jobQueue = jobQueue;
    this.uris = uris;
    this.ids = ids;
    ids.addListener((uri) => this.recordMinted(uri));
    this.concurrency = concurrency;
    this.stopWaitMs = stopWaitMs;
    this.log = log;
    this.coordination = coordination;
  }

  /** Listen for cancellations sent by other processes (a DELETE answered elsewhere). */
  async listen(): Promise<void> {
    await this.coordination.subscribe('cancel', (message) => {
      const task = (message as { task?: unknown })?.task;
      if (typeof task === 'string') void this.cancelHere(task).catch(() => undefined);
    });
  }

  /** Register job definitions (job-definition.ts): server/components.ts registers every component's, in one place. */
  registerAll(definitions: Record<string, JobDefinition<any>>): void {
    for (const definition of Object.values(definitions)) this.kinds.set(definition.kind, definition);
  }

  /**
   * The starters of a component's job definitions, by the same names. A starter checks the input
   * at once (a mistake is the caller's 400/404), then runs the job here or queues it for a worker,
   * and answers the task URI; one of a job that may be quick (`mayBeQuick`) does quick work at once
   * and answers its result. A kind starts only once registered (registerAll).
   */
  starters<T extends Record<string, JobDefinition<any>>>(definitions: T): JobStarters<T> {
    const starters: Record<string, unknown> = {};
    for (const [name, definition] of Object.entries(definitions))
      starters[name] = async (input: JobInput) => {
        if (this.kinds.get(definition.kind) !== definition) throw new Error(`job kind ${definition.kind} is not registered`);
        const json = asJson(checkedInput(definition, input));
        const prepared = await definition.prepare(json);
        if (!definition.mayBeQuick) return this.launch(definition.kind, json, prepared);
        if (prepared.quick) return { result: await prepared.work({ taskUri: '', signal: new AbortController().signal, progress: () => undefined }) };
        return { task: await this.launch(definition.kind, json, prepared) };
      };
    return starters as JobStarters<T>;
  }

  /** Run prepared work here, or queue its job for a worker (which prepares it again). */
  private async launch(kind: string, json: JobInput, prepared: PreparedJob): Promise<string> {
    if (!this.jobQueue) return this.submit(prepared.title, prepared.work);
    const creator = currentUser.getStore();
    const { uri } = await this.newTask(prepared.title, creator, QUEUE_RUNNER);
    await this.jobQueue.add({ task: uri, creator, kind, input: json });
    return uri;
  }

  /** Jobs of the shared queue, across every process (none without one). */
  queueCounts(): Promise<{ waiting: number; active: number }> | undefined {
    return this.jobQueue?.counts();
  }

  /** Tasks waiting for a slot and tasks running now. */
  counts(): { queued: number; running: number } {
    return { queued: this.queue.length, running: this.running };
  }

  get collectionUri(): string {
    return this.uris.collection('task');
  }

  /**
   * Resources a task creates (datasets, models, validations, cross-validations; never shared
   * ones such as compounds and features) are recorded as they are minted, in the graph
   * `{task}/minted`, so that work that fails, is cancelled or is cut off by a crash leaves
   * nothing half-done behind: its resources are removed when it ends without completing, or at
   * the next start. Called for every URI minted (IdMinter's listener).
   */
  async recordMinted(uri: string): Promise<void> {
    const state = runningTask.getStore();
    if (!state || !this.uris.isOwnedByTask(uri)) return;
    state.minted.push(uri);
    await this.writeMinted(state.uri, state.minted);
  }

  private writeMinted(taskUri: string, minted: string[]): Promise<void> {
    return this.store.replaceGraphs({ [this.uris.subgraph(taskUri, 'minted')]: mintedQuads(taskUri, minted) });
  }

  /**
   * The graphs that removing what a task created empties: every graph of each resource it
   * minted, and its record of them. Written in the same replaceGraphs call as the task's end, so
   * that the store never holds an ended task beside half of what it created, nor a task still
   * Running without the record that lets the next start remove what it created.
   */
  private rollbackGraphs(taskUri: string, minted: string[]): Record<string, RDF.Quad[]> {
    const graphs: Record<string, RDF.Quad[]> = {};
    for (const g of [...minted.flatMap((m) => this.uris.graphsOf(m)), this.uris.subgraph(taskUri, 'minted')]) graphs[g] = [];
    return graphs;
  }

  private logRemoved(taskUri: string, minted: string[]): void {
    if (minted.length) this.log.warn('removed what an unfinished task had created', { task: taskUri, count: minted.length });
  }

  /** Remove what a task that did not complete created, and its record of it (no change to the task itself). */
  private async rollback(taskUri: string, minted: string[]): Promise<void> {
    await this.store.deleteGraphs(Object.keys(this.rollbackGraphs(taskUri, minted)));
    this.logRemoved(taskUri, minted);
  }

  /**
   * End tasks that a process which is gone left Queued or Running, and remove what they had
   * created: on one process alone, every such task at start-up; with a shared queue, the tasks
   * of processes without a heartbeat (jobs in the queue are the workers' to retry or end).
   * Records of what was created that an ended task left behind (a Cancelled task whose work was
   * cut off before it ended, or a task deleted while it ran) are acted on too: what they name is
   * removed, unless the task completed (then only the record goes). A queue's job of a task
   * cancelled meanwhile does the same when a worker takes it again (runQueued).
   */
  async recoverInterrupted(): Promise<number> {
    const gone = async (uri: string, runner: string | undefined) =>
      !(this.coordination.shared && (runner === QUEUE_RUNNER || this.active.has(uri) || (runner && (await this.coordination.isAlive(runner)))));
    let ended = 0;
    for (const row of await select(this.store, taskQueries.unfinished())) {
      const uri = row.t.value;
      // a task another service runs (POST /task) goes on there whatever happens here: its next PUT finds it as it was
      if (row.runner?.value === CLIENT_RUNNER) continue;
      if (!(await gone(uri, row.runner?.value))) continue;
      const minted = mintedOf(await this.store.readGraph(this.uris.subgraph(uri, 'minted')));
      if (await this.endAs(uri, 'Error', new HttpError(500, 'Interrupted', 'interrupted: the server stopped while this task was running'), minted)) ended++;
    }
    for (const row of await select(this.store, taskQueries.withMintedRecord())) {
      const uri = row.t.value;
      const status = await this.statusOf(uri);
      if (status && (isUnfinished(status) || !(await gone(uri, await this.runnerOf(uri))))) continue;
      const record = this.uris.subgraph(uri, 'minted');
      // what a task that completed created is kept: only the record goes (a completed task's end
      // drops its record in the same write, so a record without its task is of a deleted one)
      if (!status || status === 'Error' || status === 'Cancelled') await this.rollback(uri, mintedOf(await this.store.readGraph(record)));
      else await this.store.replaceGraphs({ [record]: [] });
    }
    return ended;
  }

  /** A task's stored status (as `taskRecord` reads it); undefined when there is no such task. */
  private async statusOf(uri: string): Promise<TaskStatus | undefined> {
    const [row] = await select(this.store, taskQueries.status(uri));
    return (row?.status.value || undefined) as TaskStatus | undefined;
  }

  /** The process a task's record names as its runner; undefined when none is recorded. */
  private async runnerOf(uri: string): Promise<string | undefined> {
    const [row] = await select(this.store, taskQueries.runner(uri));
    return row?.runner.value;
  }

  /**
   * Write a task's end (from its stored record) unless it ended meanwhile, removing what it had
   * created (`minted`) in the same write. Answers whether it was ended here.
   */
  private async endAs(uri: string, status: 'Error' | 'Cancelled', error?: HttpError, minted?: string[]): Promise<boolean> {
    const task = taskRecord(await this.store.readGraph(uri), uri);
    if (!task || !isUnfinished(task.status)) return false;
    await this.store.replaceGraphs({ ...(minted ? this.rollbackGraphs(uri, minted) : {}), [uri]: taskQuads({ ...task, status, modified: new Date(), error }) });
    if (minted) this.logRemoved(uri, minted);
    return true;
  }

  private async newTask(title: string, creator: string | undefined, runner: string): Promise<TaskRecord> {
    // minted like every resource: the task belongs to its creator
    const uri = await currentUser.run(creator, () => this.ids.nextUnique(this.uris.collection('task')));
    const now = new Date();
    const record: TaskRecord = { uri, title, creator, status: 'Queued', percent: 0, created: now, modified: now, runner };
    await this.store.replaceGraphs({ [uri]: taskQuads(record) });
    return record;
  }

  /** Create a task for `work` and queue it here; answers the task URI at once. */
  async submit(title: string, work: Work, creator: string | undefined = currentUser.getStore()): Promise<string> {
    const record = await this.newTask(title, creator, this.coordination.processId);
    this.enqueue(record, work);
    return record.uri;
  }

  private enqueue(record: TaskRecord, work: Work): TaskState {
    const state: TaskState = { ...record, error: undefined, controller: new AbortController(), lastWrite: 0, writtenPercent: record.percent, minted: [] };
    this.active.set(record.uri, state);
    this.queue.push({ state, work });
    this.pump();
    return state;
  }

  /** Take jobs from the shared queue (a worker process) until closed. */
  work(): void {
    if (!this.jobQueue) throw new Error('a worker needs the shared queue (--redis-url)');
    this.jobQueue.work(this.concurrency, (job, stalls) => this.runQueued(job, stalls));
  }

  /**
   * Run a job taken from the shared queue (in a worker process). A job that a stopped worker
   * left is run again after what its first run created is removed; after a second stop it ends
   * as Error. A job cancelled before a worker took it is not run.
   */
  async runQueued(job: QueuedJob, stalls: number): Promise<void> {
    const record = taskRecord(await this.store.readGraph(job.task), job.task);
    if (!record) return;
    if (!isUnfinished(record.status)) {
      // cancelled (or ended as Error) while the worker that ran it was gone: what it created goes
      if (record.status !== 'Completed') await this.rollback(job.task, mintedOf(await this.store.readGraph(this.uris.subgraph(job.task, 'minted'))));
      return;
    }
    const left = mintedOf(await this.store.readGraph(this.uris.subgraph(job.task, 'minted')));
    if (await this.coordination.isMarked(`cancel:${job.task}`)) {
      await this.endAs(job.task, 'Cancelled', undefined, left);
      return;
    }
    if (stalls >= 2) {
      this.ended.Error++;
      await this.endAs(job.task, 'Error', new HttpError(500, 'Interrupted', `interrupted: the worker running this task stopped ${stalls} times`), left);
      return;
    }
    if (left.length) await this.rollback(job.task, left);
    const definition = this.kinds.get(job.kind);
    const work: Work = async (running) => {
      if (!definition) throw new HttpError(500, 'UnknownJob', `this worker does not know jobs of kind ${job.kind}`);
      const input = definition.input.safeParse(job.input);
      if (!input.success) throw new HttpError(500, 'BadJobInput', `a queued ${job.kind} job's input is not what this worker expects: ${input.error.message}`);
      return (await definition.prepare(input.data)).work(running);
    };
    const state = this.enqueue({ ...record, status: 'Queued', percent: 0, runner: QUEUE_RUNNER }, work);
    await this.settled(state.uri);
  }

  /** Every task, by URI (GET /task). */
  async list(): Promise<string[]> {
    return (await select(this.store, taskQueries.all())).map((r) => r.t.value);
  }

  /** A task's graph and its record; undefined when there is no such task. */
  async read(uri: string): Promise<{ quads: RDF.Quad[]; record: TaskRecord } | undefined> {
    const quads = await this.store.readGraph(uri);
    const record = taskRecord(quads, uri);
    return record && { quads, record };
  }

  /** DELETE /task/{id}: a live task is cancelled, a finished one removed. Answers false when there is no such task. */
  async remove(uri: string): Promise<boolean> {
    if (!(await this.store.hasGraph(uri))) return false;
    if (!(await this.cancel(uri))) await this.store.deleteGraphs([uri]);
    return true;
  }

  /** Cancel a queued or running task, here or in the process that runs it (or, for a task another service runs, in the store: its next PUT is refused). Answers false when it is no longer active. */
  async cancel(uri: string): Promise<boolean> {
    if (await this.cancelHere(uri)) return true;
    if ((await this.runnerOf(uri)) === CLIENT_RUNNER) return this.endAs(uri, 'Cancelled');
    if (!this.coordination.shared) return false;
    if (!isUnfinished(await this.statusOf(uri))) return false;
    // a job not taken yet is never run; a running one is stopped by its process
    await this.coordination.mark(`cancel:${uri}`, CANCEL_MARK_SECONDS);
    await this.jobQueue?.remove(uri).catch(() => false);
    await this.coordination.publish('cancel', { task: uri });
    await this.endAs(uri, 'Cancelled');
    this.ended.Cancelled++;
    return true;
  }

  /** Cancel a task that runs (or waits) in this process. */
  private async cancelHere(uri: string): Promise<boolean> {
    const state = this.active.get(uri);
    if (!state || !isUnfinished(state.status)) return false;
    state.status = 'Cancelled';
    state.modified = new Date();
    state.controller.abort(new HttpError(503, 'Cancelled', 'the task was cancelled'));
    this.ended.Cancelled++;
    const i = this.queue.findIndex((q) => q.state === state);
    if (i >= 0) this.queue.splice(i, 1);
    await this.persist(state);
    return true;
  }

  /** Wait for a task to leave Queued/Running (used by tests and by callers that chain work); a task another process runs is watched in the store. */
  async settled(uri: string): Promise<void> {
    if (!this.active.has(uri) && this.coordination.shared) {
      while (isUnfinished(await this.statusOf(uri))) await new Promise((r) => setTimeout(r, 100));
      return;
    }
    const done = () => !isUnfinished(this.active.get(uri)?.status);
    while (!done()) await new Promise((r) => setTimeout(r, 20));
    // and whatever it does on its way out (removing what a failed task created, its last write)
    await this.finishing.get(uri);
    await this.writes;
  }

  async close(): Promise<void> {
    // queued and running tasks end as Error (Interrupted): their work is aborted, nothing half-done is kept
    const interrupted = new HttpError(503, 'Interrupted', 'interrupted: the server stopped while this task was queued or running; submit it again');
    for (const { state } of this.queue.splice(0)) {
      state.status = 'Error';
      state.error = interrupted;
      state.modified = new Date();
      this.ended.Error++;
      void this.persist(state).catch(() => undefined);
    }
    for (const state of this.active.values()) state.controller.abort(interrupted);
    // let aborted work wind down before the store closes under it (bounded: work that ignores
    // its signal is left to fail on the closed store)
    await Promise.race([Promise.allSettled(this.executions), new Promise((r) => setTimeout(r, this.stopWaitMs).unref())]);
    await this.writes;
    await this.jobQueue?.close();
  }

  private pump(): void {
    while (this.running < this.concurrency && this.queue.length) {
      const { state, work } = this.queue.shift()!;
      this.running++;
      const execution = this.execute(state, work).finally(() => {
        this.running--;
        this.active.delete(state.uri);
        this.executions.delete(execution);
        this.finishing.delete(state.uri);
        this.pump();
      });
      this.executions.add(execution);
      this.finishing.set(
        state.uri,
        execution.catch(() => undefined),
      );
    }
  }

  private async execute(state: TaskState, work: Work): Promise<void> {
    state.status = 'Running';
    state.modified = new Date();
    await this.persist(state);
    const job: Job = {
      taskUri: state.uri,
      signal: state.controller.signal,
      progress: (percent, stage) => {
        if (state.status !== 'Running') return;
        state.percent = Math.max(state.percent, Math.min(100, percent));
        const newStage = stage !== undefined && stage !== state.stage;
        if (stage) state.stage = stage;
        if ((state.percent - state.writtenPercent < 1 && !newStage) || state.progressTimer) return;
        // At most one progress write per interval; the latest value is written when it ends.
        const wait = Math.max(0, state.lastWrite + PROGRESS_WRITE_INTERVAL_MS - Date.now());
        state.progressTimer = setTimeout(() => {
          state.progressTimer = undefined;
          if (state.status !== 'Running') return;
          state.modified = new Date();
          void this.persist(state).catch(() => undefined);
        }, wait);
      },
    };
    const phases: PhaseTimes = new Map();
    const started = performance.now();
    try {
      // the work acts for the task's creator: what it creates belongs to them
      const result = await runningTask.run(state, () => currentUser.run(state.creator, () => recordPhases(phases, () => work(job))));
      if (state.status !== 'Running') return await this.finish(state); // cancelled meanwhile: keep Cancelled
      state.status = 'Completed';
      state.percent = 100;
      state.resultUri = result;
    } catch (e) {
      if (state.status !== 'Running') return await this.finish(state);
      state.status = 'Error';
      if (state.controller.signal.aborted && state.controller.signal.reason instanceof HttpError) state.error = state.controller.signal.reason;
      else if (e instanceof HttpError) state.error = e;
      else {
        this.log.error('task failed', { task: state.uri, error: (e as Error)?.stack ?? String(e) });
        state.error = new HttpError(500, 'TaskFailed', (e as Error)?.message ?? String(e));
      }
    }
    state.modified = new Date();
    if (state.status === 'Completed' || state.status === 'Error') this.ended[state.status]++;
    await this.finish(state);
    // where a long task's time went (npm run bench reads these lines)
    const ms = performance.now() - started;
    if (ms >= LOGGED_TASK_MS) this.log.info('task ended', { task: state.uri, status: state.status, ms: Math.round(ms), phases: phaseSummary(phases) });
  }

  /**
   * A task's end, in one write: Completed with its record of what it created dropped, or
   * Error/Cancelled with what it created removed. On the embedded store it is one LevelDB batch,
   * all or nothing; on a remote store one update request (Oxigraph applies it whole; Virtuoso
   * keeps the operations before one that fails). A write that fails (the store closing under work that outlived the
   * shutdown's wait) leaves the task as it was, Running with its record, as after a crash: the
   * next start removes what it created and ends it as Error.
   */
  private async finish(state: TaskState): Promise<void> {
    clearTimeout(state.progressTimer);
    const removed = !state.minted.length
      ? {}
      : state.status === 'Completed'
        ? { [this.uris.subgraph(state.uri, 'minted')]: [], ...(await this.partsOf(state)) }
        : this.rollbackGraphs(state.uri, state.minted);
    await this.persist(state, removed).then(
      () => {
        if (state.status !== 'Completed') this.logRemoved(state.uri, state.minted);
      },
      () => undefined, // logged by persist
    );
  }

  /**
   * What a completed task made besides its result (fold datasets and models, a supermodel's
   * steps) is intermediate work, part of the result: each such resource's graph gains
   * `dcterms:isPartOf` the result, written with the task's end. Lists leave it out by default.
   */
  private async partsOf(state: TaskState): Promise<Record<string, RDF.Quad[]>> {
    const whole = state.resultUri;
    if (!whole) return {};
    const graphs: Record<string, RDF.Quad[]> = {};
    const parts = [...new Set(state.minted)].filter((part) => part !== whole && !this.uris.isIn('task', part));
    const read = await this.store.readEachGraph(parts).catch(() => parts.map((): RDF.Quad[] => []));
    parts.forEach((part, i) => {
      if (read[i].length) graphs[part] = [...read[i], df.quad(df.namedNode(part), PART_OF, df.namedNode(whole), df.namedNode(part))];
    });
    return graphs;
  }

  /** Write the task's record (after the writes of it before), with `also` in the same write. */
  private persist(state: TaskState, also: Record<string, RDF.Quad[]> = {}): Promise<void> {
    state.lastWrite = Date.now();
    state.writtenPercent = state.percent;
    const quads = taskQuads(state);
    const write = this.writes.then(() => this.store.replaceGraphs({ ...also, [state.uri]: quads }));
    this.writes = write.catch((e) => this.log.error('could not write task', { task: state.uri, error: String(e) }));
    return write;
  }
}
