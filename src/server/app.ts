import Koa from 'koa';
import { RepresentationCache } from '../http/representation-cache.ts';
import Router from '@koa/router';
import { segmentDispatch } from '../http/segment-dispatch.ts';
import { errorHandler } from '../http/error-handler.ts';
import { crossOrigin, hostCheck, securityHeaders } from '../http/security.ts';
import { methodNotAllowed } from '../core/errors.ts';
import { type PageSettings, withPageSettings } from '../rdf/html.ts';
import { actorOf } from '../http/actor.ts';
import type { Services } from '../core/services.ts';
import type { OntologyRegistry } from '../ontology/registry.ts';
import { accessControl } from '../auth/auth-middleware.ts';
import { jobQuotas } from '../auth/job-quotas.ts';
import { canonicalRequestPath } from '../http/request-path.ts';
import { callerAddress } from '../http/caller-address.ts';
import { createComponents } from './components.ts';
import { DescribedRoutes } from '../http/route-description.ts';
import { createWebComponent } from '../web/web-component.ts';
import { textCharset } from '../http/text-charset.ts';

/** A route of the application: its method and its path pattern (`/dataset/:id`). */
export interface Route {
  method: string;
  path: string;
}

/** The Koa application: logging, errors as ot:ErrorReport, then every component's routes. */
export function createApp(services: Services, registry: OntologyRegistry, pages: PageSettings): { app: Koa; ready: Promise<void>; routes: Route[] } {
  const app = new Koa();
  const { log, config } = services;
  // X-Forwarded-* count only from the proxies --trust-proxy names (callerAddress removes them otherwise)
  app.proxy = config.trustProxy.length > 0;

  // paths are case-sensitive (as URIs are): /DATASET/1 is no resource of ours
  const router = new Router({ sensitive: true });
  // before anything looks at the request: who calls, and the one spelling of the path it names
  app.use(callerAddress(config.trustProxy));
  app.use(canonicalRequestPath(config.baseUrl));
  // every page of a request links and labels by the server's settings
  app.use((_ctx, next) => withPageSettings(pages, next));
  let routes: Route[] = [];
  app.use(services.metrics.middleware((path, method) => String(router.match(path, method).pathAndMethod.at(-1)?.path ?? '') || undefined));
  if (log.logsRequests !== false)
    app.use(async (ctx, next) => {
      const started = performance.now();
      // One JSON line per request, when its response has ended (a streamed body is sent after the
      // handlers return): a body that broke off is logged as such, not as the status it began
      // with. The URL is redacted (no tokens), headers are never logged.
      ctx.res.once('close', () => {
        const aborted = !ctx.res.writableFinished;
        log.info('request', { method: ctx.method, url: actorOf(ctx, ''), status: ctx.status, ms: Math.round(performance.now() - started), ...(aborted ? { aborted } : {}) });
      });
      await next();
    });
  const representations = new RepresentationCache(services.store.writeCount?.bind(services.store), () => !services.access.enabled, config.representationCacheMb * 1024 * 1024);
  services.metrics.watchRepresentationCache(representations);
  app.use(representations.middleware());
  app.use(textCharset());
  app.use(securityHeaders());
  app.use(errorHandler(config.baseUrl, log));
  app.use(hostCheck(config.host, config.baseUrl, config.auth));
  app.use(crossOrigin(config.baseUrl, config.bodyLimit));
  app.use(accessControl(services));

  // every component's routes, registered with their descriptions (the OpenAPI document is made
  // from them) in this order: reports before /validation/{id}, which would take /validation/report
  const described = new DescribedRoutes(router, config.bodyLimit, jobQuotas(services));
  const { components: c, ready } = createComponents(services, registry);
  const web = createWebComponent({ config, routes: () => routes });
  for (const component of [
    c.service,
    web,
    c.operations,
    c.auth,
    c.compound,
    c.dataset,
    c.algorithm,
    c.model,
    c.report,
    c.qmrf,
    c.validation,
    c.feature,
    c.task,
    c.sparql,
    c.ontology,
    c.mcp,
    c.readAcross,
    c.profiler,
    c.assessment,
  ])
    component.routes(described);
  app.use(segmentDispatch(router));
  // what fails after a response has begun (a body stream breaking off) is logged as JSON, like the rest
  app.on('error', (err: Error, ctx?: Koa.Context) => log.error('response failed', { method: ctx?.method, path: ctx?.path, error: err?.stack ?? String(err) }));
  app.use(async (ctx, next) => {
    // A known path with an unsupported method is 405 with Allow; anything else falls to 404.
    const allowed = new Set<string>();
    for (const layer of router.stack) if (layer.match(ctx.path)) layer.methods.forEach((m) => allowed.add(m));
    if (allowed.size) throw methodNotAllowed([...allowed].filter((m) => m !== 'HEAD' || allowed.has('GET')));
    await next();
  });
  routes = router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((method) => ({ method, path: String(layer.path) })));
  return { app, ready, routes };
}
