import type Router from '@koa/router';
import type { Services } from '../core/services.js';

/** How long the store may take to answer the health check. */
const HEALTH_TIMEOUT_MS = 2_000;

/**
 * For load balancers, orchestrators and monitoring: `/health` answers 200 when the store
 * answers a read (503 otherwise, and while the server starts or stops), `/metrics` the
 * Prometheus figures. Neither needs a token; neither shows any resource.
 */
export function operationsRoutes(router: Router, services: Services): void {
  router.get('/health', async (ctx) => {
    const started = performance.now();
    let store = 'ok';
    try {
      await Promise.race([
        services.store.hasGraph('urn:toxgraph:counters'),
        new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${HEALTH_TIMEOUT_MS} ms`)), HEALTH_TIMEOUT_MS).unref()),
      ]);
    } catch (e) {
      store = (e as Error).message;
    }
    ctx.status = store === 'ok' ? 200 : 503;
    if (ctx.status === 503) ctx.set('Retry-After', '5');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: store === 'ok' ? 'ok' : 'unavailable', store, storeMs: Math.round(performance.now() - started), tasks: services.tasks.counts(), uptimeSeconds: Math.round(process.uptime()) };
  });

  router.get('/metrics', async (ctx) => {
    ctx.set('Content-Type', services.metrics.registry.contentType);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await services.metrics.registry.metrics();
  });
}
