import { modelValidationsHtml } from '../validation/model-validations-html.ts';
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
import { serviceRoutes } from '../service/service-routes.ts';
import { featureRoutes } from '../feature/feature-routes.ts';
import { taskRoutes } from '../task/task-routes.ts';
import { sparqlRoutes } from '../sparql/sparql-routes.ts';
import { ontologyRoutes } from '../ontology/ontology-routes.ts';
import { accessControl } from '../auth/auth-middleware.ts';
import { authRoutes } from '../auth/auth-routes.ts';
import { compoundRoutes } from '../compound/compound-routes.ts';
import { datasetRoutes } from '../dataset/dataset-routes.ts';
import { algorithmRoutes } from '../algorithm/algorithm-routes.ts';
import { createComponents } from './components.ts';
import { DescribedRoutes } from '../http/route-description.ts';
import { modelRoutes } from '../model/model-routes.ts';
import { reportRoutes } from '../report/report-routes.ts';
import { staticRoutes } from '../web/static-routes.ts';
import { apiRoutes } from '../web/api-routes.ts';
import { graphStoreRoutes } from '../sparql/graph-store-routes.ts';
import { qmrfRoutes } from '../qmrf/qmrf-routes.ts';
import { qprfRoutes } from '../qmrf/qprf-routes.ts';
import { crossvalidationRoutes } from '../validation/crossvalidation-routes.ts';
import { validationRoutes } from '../validation/validation-routes.ts';
import { operationsRoutes } from '../operations/operations-routes.ts';

/** A route of the application: its method and its path pattern (`/dataset/:id`). */
export interface Route {
  method: string;
  path: string;
}

/** The Koa application: logging, errors as ot:ErrorReport, then every component's routes. */
export function createApp(services: Services, registry: OntologyRegistry, pages: PageSettings): { app: Koa; ready: Promise<void>; routes: Route[] } {
  const app = new Koa();
  app.proxy = true;
  const { log, config } = services;

  const router = new Router();
  // every page of a request links and labels by the server's settings
  app.use((_ctx, next) => withPageSettings(pages, next));
  let routes: Route[] = [];
  app.use(services.metrics.middleware((path, method) => String(router.match(path, method).pathAndMethod.at(-1)?.path ?? '') || undefined));
  if (log.logsRequests !== false)
    app.use(async (ctx, next) => {
      const started = performance.now();
      try {
        await next();
      } finally {
        // One JSON line per request; the URL is redacted (no tokens), headers are never logged.
        log.info('request', { method: ctx.method, url: actorOf(ctx, ''), status: ctx.status, ms: Math.round(performance.now() - started) });
      }
    });
  const representations = new RepresentationCache(services.store.writeCount?.bind(services.store), () => !services.access.enabled, config.representationCacheMb * 1024 * 1024);
  services.metrics.watchRepresentationCache(representations);
  app.use(representations.middleware());
  app.use(securityHeaders());
  app.use(errorHandler(config.baseUrl, log));
  app.use(hostCheck(config.host, config.baseUrl, config.auth));
  app.use(crossOrigin(config.baseUrl, config.bodyLimit));
  app.use(accessControl(services));

  // routes registered with their descriptions (the OpenAPI document is made from them)
  const described = new DescribedRoutes(router, config.bodyLimit);
  serviceRoutes(described, services);
  staticRoutes(described);
  // the API described: every route registered below is in the document
  apiRoutes(described, services, () => routes);
  operationsRoutes(described, services);
  authRoutes(described, services);
  const c = createComponents(services);
  compoundRoutes(described, services, c.compounds);
  datasetRoutes(described, services, c.datasets);
  algorithmRoutes(described, services, c.datasets, c.start.algorithm.algorithm);
  modelRoutes(described, services, c.datasets, c.models, c.predictor, c.compounds, (model, canRead) => modelValidationsHtml(services, c.datasets, model, canRead), c.start.model);
  crossvalidationRoutes(described, services, c.crossvalidations, c.start.validation.crossvalidation);
  // registered before /validation/{id}, which would take /validation/report otherwise
  reportRoutes(described, services, c.reports, c.reportStore);
  qmrfRoutes(described, services, c.qmrfs, c.qmrfStore);
  qprfRoutes(described, services, c.qprfs);
  validationRoutes(described, services, c.runner, c.start.validation);
  featureRoutes(described, services);
  taskRoutes(described, services);
  sparqlRoutes(described, services);
  graphStoreRoutes(described, services);
  ontologyRoutes(described, services, registry);
  app.use(segmentDispatch(router));
  app.use(async (ctx, next) => {
    // A known path with an unsupported method is 405 with Allow; anything else falls to 404.
    const allowed = new Set<string>();
    for (const layer of router.stack) if (layer.match(ctx.path)) layer.methods.forEach((m) => allowed.add(m));
    if (allowed.size) throw methodNotAllowed([...allowed].filter((m) => m !== 'HEAD' || allowed.has('GET')));
    await next();
  });
  routes = router.stack.flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((method) => ({ method, path: String(layer.path) })));
  return { app, ready: c.ready, routes };
}
