import type { DescribedRoutes } from '../http/route-description.ts';
import type { Services } from '../core/services.ts';

/** How long the store may take to answer the health check. */
const HEALTH_TIMEOUT_MS = 2_000;

/**
 * For load balancers, orchestrators and monitoring: `/health` answers 200 when the store
 * answers a read, and Redis when processes share one (503 otherwise, and while the server
 * starts or stops), `/metrics` the
 * Prometheus figures. Neither needs a token; neither shows any resource.
 */
export function operationsRoutes(routes: DescribedRoutes, services: Pick<Services, 'store' | 'tasks' | 'coordination' | 'metrics'>): void {
  routes.add({ method: 'GET', path: '/health', summary: 'Liveness and readiness', tag: 'service', responses: { 200: ['application/json'], 503: ['application/json'] } }, async (ctx) => {
    const started = performance.now();
    const [store, redis] = await Promise.all([answers(services.store.hasGraph('urn:toxgraph:counters')), services.coordination.shared ? answers(services.coordination.check()) : undefined]);
    const ok = store === 'ok' && (redis === undefined || redis === 'ok');
    ctx.status = ok ? 200 : 503;
    if (!ok) ctx.set('Retry-After', '5');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      status: ok ? 'ok' : 'unavailable',
      store,
      storeMs: Math.round(performance.now() - started),
      ...(redis ? { redis } : {}),
      tasks: services.tasks.counts(),
      uptimeSeconds: Math.round(process.uptime()),
    };
  });

  /** 'ok' when `check` resolves in time, else why not. */
  async function answers(check: Promise<unknown>): Promise<string> {
    try {
      await Promise.race([check, new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${HEALTH_TIMEOUT_MS} ms`)), HEALTH_TIMEOUT_MS).unref())]);
      return 'ok';
    } catch (e) {
      return (e as Error).message;
    }
  }

  routes.add({ method: 'GET', path: '/metrics', summary: 'Prometheus metrics', tag: 'service', responses: { 200: ['text/plain'] } }, async (ctx) => {
    ctx.set('Content-Type', services.metrics.registry.contentType);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await services.metrics.registry.metrics();
  });
}
