import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context, Next } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { TaskRunner } from '../task/task-runner.ts';
import type { TripleStore } from '../store/triple-store.ts';
import type { RepresentationCache } from '../http/representation-cache.ts';

/**
 * The figures an operator watches (Prometheus text format at /metrics): requests by route and
 * status, their durations, the process's default metrics (event-loop delay, heap, resident
 * memory, GC, handles), tasks queued, running and ended, the store's own native memory and its
 * size on disk.
 * One registry per server, so that servers in one process (tests) keep their own figures.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly durations: Histogram<'method' | 'route' | 'status'>;
  private readonly refusals: Counter<'quota'>;

  /** `storeDir`: the embedded store's folder (its size on disk is a gauge); none for a remote store, whose size is its server's to tell. */
  constructor(tasks: TaskRunner, store: TripleStore, storeDir?: string) {
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 10 });
    this.requests = new Counter({
      name: 'toxgraph_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.refusals = new Counter({
      name: 'toxgraph_quota_refusals_total',
      help: 'Requests refused (429) because their caller was over a quota, by quota',
      labelNames: ['quota'],
      registers: [this.registry],
    });
    this.durations = new Histogram({
      name: 'toxgraph_http_request_duration_seconds',
      help: 'Time from receiving a request to answering it, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [this.registry],
    });
    new Gauge({
      name: 'toxgraph_tasks',
      help: 'Tasks now queued or running',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const { queued, running } = tasks.counts();
        this.set({ state: 'queued' }, queued);
        this.set({ state: 'running' }, running);
      },
    });
    new Gauge({
      name: 'toxgraph_queue_jobs',
      help: 'Jobs of the shared queue (--redis-url) waiting for a worker and being run, across every process',
      labelNames: ['state'],
      registers: [this.registry],
      async collect() {
        const counts = await tasks.queueCounts()?.catch(() => undefined);
        if (!counts) return;
        this.set({ state: 'waiting' }, counts.waiting);
        this.set({ state: 'active' }, counts.active);
      },
    });
    new Gauge({
      name: 'toxgraph_tasks_ended_total',
      help: 'Tasks ended since the server started, by final status (Completed, Error, Cancelled)',
      labelNames: ['status'],
      registers: [this.registry],
      collect() {
        for (const [status, n] of Object.entries(tasks.ended)) this.set({ status }, n);
      },
    });
    new Gauge({
      name: 'toxgraph_store_memory_bytes',
      help: 'Native memory the embedded store reports for itself (LevelDB memtables and block cache)',
      registers: [this.registry],
      collect() {
        const bytes = store.memoryUsage?.();
        if (bytes !== undefined) this.set(bytes);
      },
    });
    if (store.writerHeapUsage)
      new Gauge({
        name: 'toxgraph_store_writer_heap_bytes',
        help: "JavaScript heap in use by the embedded store's writer thread (the process's own heap is nodejs_heap_size_used_bytes)",
        registers: [this.registry],
        async collect() {
          const bytes = await store.writerHeapUsage?.();
          if (bytes !== undefined) this.set(bytes);
        },
      });
    if (storeDir)
      new Gauge({
        name: 'toxgraph_store_size_bytes',
        help: 'Size of the embedded store on disk',
        registers: [this.registry],
        async collect() {
          this.set(await directorySize(storeDir));
        },
      });
  }

  /** A request refused because its caller was over a quota. */
  quotaRefused(quota: string): void {
    this.refusals.inc({ quota });
  }

  /** Figures of the representation cache: requests it answered, representations it stored, what it holds. */
  watchRepresentationCache(cache: RepresentationCache): void {
    new Gauge({
      name: 'toxgraph_representation_cache_total',
      help: 'GET requests answered from the representation cache (hits) and representations stored in it (stores), since the start',
      labelNames: ['event'],
      registers: [this.registry],
      collect() {
        this.set({ event: 'hits' }, cache.hits);
        this.set({ event: 'stores' }, cache.stored);
      },
    });
    new Gauge({
      name: 'toxgraph_representation_cache_bytes',
      help: 'Bytes of the representations the cache holds now (emptied by every write to the store)',
      registers: [this.registry],
      collect() {
        this.set(cache.bytes);
      },
    });
  }

  /**
   * Koa middleware: counts and times every request under its route pattern (`/dataset/:id`,
   * never the URL itself, so the number of series stays small); `routeOf` names the pattern of
   * requests answered before routing (refused by access control, for example).
   */
  middleware(routeOf: (path: string, method: string) => string | undefined) {
    return async (ctx: Context, next: Next) => {
      const end = this.durations.startTimer();
      try {
        await next();
      } finally {
        const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? routeOf(ctx.path, ctx.method) ?? '(no route)';
        const labels = { method: ctx.method, route, status: String(ctx.status) };
        end(labels);
        this.requests.inc(labels);
      }
    };
  }
}

async function directorySize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await directorySize(path);
    else if (entry.isFile()) total += (await stat(path).catch(() => ({ size: 0 }))).size;
  }
  return total;
}
