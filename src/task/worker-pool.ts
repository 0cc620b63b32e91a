import { Worker } from 'node:worker_threads';
import type { RunFunction } from '../learning/learner.ts';

function newWorker(): Worker {
  return new Worker(new URL('./worker-entry.mjs', import.meta.url));
}

/**
 * A WebAssembly trap ("memory access out of bounds", "unreachable", ...) or a stack overflow: the
 * module instance it came from may have written over its own memory, so nothing may run on it
 * again. Code that catches such an error and answers another keeps CRASH_WORDS and the trap's
 * own words in its message (Chemistry does), so that the pool still knows.
 */
export function isWasmCrash(e: unknown): boolean {
  if (e instanceof WebAssembly.RuntimeError) return true;
  return e instanceof RangeError && /call stack size exceeded/i.test(e.message);
}

/** What the message of an error that came of a crash (isWasmCrash) carries, when it is not the trap's own. */
export const CRASH_WORDS = 'WebAssembly crash';

/** V8's words for a WebAssembly trap and a stack overflow: a call's error crosses from its thread as its message alone. */
const TRAP_MESSAGE =
  /^(?:RuntimeError: )?(?:unreachable|memory access out of bounds|table index is out of bounds|null function or function signature mismatch|null function|function signature mismatch|divide by zero|remainder by zero|divide result unrepresentable|float unrepresentable in integer range|operation does not support unaligned accesses|data segment out of bounds|element segment out of bounds|array element access out of bounds|dereferencing a null pointer|illegal cast|Aborted\(.*\)|Maximum call stack size exceeded)$/;

/** Did a call fail of a crash of its thread's WebAssembly (the error's message)? */
export function isCrashMessage(message: string): boolean {
  return message.includes(CRASH_WORDS) || TRAP_MESSAGE.test(message.trim());
}

/**
 * A call that crashed its thread (isCrashMessage), or whose thread stopped under it. The thread
 * is ended and replaced: the next call runs on a fresh one.
 */
export class WorkerCrash extends Error {
  override readonly name = 'WorkerCrash';
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  busy: boolean;
  idleTimer?: NodeJS.Timeout;
}

interface Queued {
  module: string;
  fn: string;
  args: unknown[];
  pending: Pending;
  signal?: AbortSignal;
  /** A piece of long work (a chunk of trees, of structures): started after every waiting call that is not. */
  background: boolean;
}

export interface RunOptions {
  /**
   * A piece of long work, one of many: calls that are not wait for no such piece to start, only
   * for the running ones to end (a fold's prediction does not queue behind another fold's trees).
   */
  background?: boolean;
}

/**
 * A small pool of worker threads for CPU-heavy task work (model training, descriptor
 * calculation). Work is named by module URL and export, so any component can hand off a pure
 * function without a worker file of its own. Aborting a running call terminates its worker.
 *
 * A call that crashes its thread's WebAssembly (a toolkit's trap or stack overflow) fails with a
 * WorkerCrash and its thread is ended, never used again: the next call gets a fresh one. So does a
 * call whose thread stops under it.
 *
 * A worker left idle for `idleMs` is ended: a thread keeps the heap and the WebAssembly memory
 * (RDKit's grows, never shrinks) of the largest job it ran, so a pool that kept its workers
 * would hold the peak of every past job; a new worker costs a fraction of a second.
 */
export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Queued[] = [];
  private nextId = 1;
  private closed = false;

  private readonly size: number;
  private readonly idleMs: number;
  constructor(size: number, idleMs = 5_000) {
    this.size = size;
    this.idleMs = idleMs;
  }

  /** How many calls run at once. */
  get threads(): number {
    return this.size;
  }

  /** `run` for one job: every call stops when the job's signal aborts. */
  runner(signal?: AbortSignal): RunFunction {
    return (moduleUrl, exportName, args, options) => this.run(moduleUrl, exportName, args, signal, options);
  }

  run<T>(moduleUrl: string, exportName: string, args: unknown[], signal?: AbortSignal, options: RunOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(new Error('worker pool closed'));
    return new Promise<T>((resolve, reject) => {
      if (signal?.aborted) return reject(new Error('cancelled'));
      this.queue.push({ module: moduleUrl, fn: exportName, args, signal, background: options.background === true, pending: { resolve: resolve as (v: unknown) => void, reject } });
      this.dispatch();
    });
  }

  /** The next call to start: the first that is not background work, else the first. */
  private takeNext(): Queued {
    const i = this.queue.findIndex((q) => !q.background);
    return this.queue.splice(Math.max(0, i), 1)[0];
  }

  private dispatch(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.size) {
        const fresh: Slot = { worker: newWorker(), busy: false };
        fresh.worker.unref();
        // a thread that stops while idle is no longer handed calls (one that stops while busy: see start)
        fresh.worker.once('exit', () => this.remove(fresh));
        this.slots.push(fresh);
        slot = fresh;
      }
      if (!slot) return;
      const job = this.takeNext();
      if (job.signal?.aborted) {
        job.pending.reject(new Error('cancelled'));
        continue;
      }
      this.start(slot, job);
    }
  }

  private start(slot: Slot, job: Queued): void {
    slot.busy = true;
    clearTimeout(slot.idleTimer);
    const id = this.nextId++;
    const worker = slot.worker;
    const finish = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      job.signal?.removeEventListener('abort', onAbort);
      slot.busy = false;
      this.dispatch();
      if (!slot.busy && this.slots.includes(slot)) this.retireWhenIdle(slot);
    };
    // the thread is taken out of the pool before `finish` hands out the next call
    const replace = () => {
      this.remove(slot);
      void worker.terminate();
    };
    const onMessage = (m: { id: number; ok: boolean; value?: unknown; error?: string; crashed?: boolean }) => {
      if (m.id !== id) return;
      const error = m.ok ? undefined : String(m.error);
      // the thread says so (worker-entry.mjs), or the error names a crash that code on the way caught and answered
      const crashed = error !== undefined && (m.crashed === true || isCrashMessage(error));
      if (crashed) replace();
      finish();
      if (error === undefined) job.pending.resolve(m.value);
      else job.pending.reject(crashed ? new WorkerCrash(error) : new Error(error));
    };
    const onError = (e: Error) => {
      replace();
      finish();
      job.pending.reject(e);
    };
    const onExit = (code: number) => {
      replace();
      finish();
      job.pending.reject(new WorkerCrash(`the worker thread stopped (exit code ${code}) during the call`));
    };
    const onAbort = () => {
      replace();
      finish();
      job.pending.reject(new Error('cancelled'));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    job.signal?.addEventListener('abort', onAbort, { once: true });
    worker.postMessage({ id, module: job.module, fn: job.fn, args: job.args });
  }

  private remove(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  private retireWhenIdle(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      const i = this.slots.indexOf(slot);
      if (slot.busy || i < 0) return;
      this.slots.splice(i, 1);
      void slot.worker.terminate();
    }, this.idleMs);
    slot.idleTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const q of this.queue.splice(0)) q.pending.reject(new Error('worker pool closed'));
    await Promise.all(
      this.slots.splice(0).map((s) => {
        clearTimeout(s.idleTimer);
        return s.worker.terminate();
      }),
    );
  }
}

/** A pure function over a list, run on the pool in chunks (see `runInChunks`). */
export interface ChunkedCall {
  module: string;
  fn: string;
  /** Items per call: enough to amortise the message, few enough to spread over the threads. */
  chunk: number;
  /** Arguments after the chunk, the same for every call. */
  args?: unknown[];
}

/**
 * `call` over `items` on the pool, chunk by chunk, one result per item in order. At most one
 * chunk per thread is queued at a time, so a long job (a dataset of 10^5 structures) never
 * stands a whole queue in front of a request's own worker call: that call waits for one chunk.
 */
export async function runInChunks<In, Out>(workers: WorkerPool, call: ChunkedCall, items: In[], job: { signal?: AbortSignal; progress?: (fraction: number) => void } = {}): Promise<Out[]> {
  const chunks: In[][] = [];
  for (let i = 0; i < items.length; i += call.chunk) chunks.push(items.slice(i, i + call.chunk));
  const results: Out[][] = new Array(chunks.length);
  let next = 0;
  let done = 0;
  let failed = false;
  const lane = async () => {
    // a chunk that fails ends the job: the other lanes start no more chunks
    while (next < chunks.length && !failed) {
      const k = next++;
      try {
        results[k] = await workers.run<Out[]>(call.module, call.fn, [chunks[k], ...(call.args ?? [])], job.signal, { background: true });
      } catch (e) {
        failed = true;
        throw e;
      }
      job.progress?.(++done / chunks.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(workers.threads, chunks.length) }, lane));
  return results.flat();
}
