import Koa from 'koa';
import { RepresentationCache } from '../http/representation-cache.js';
import Router from '@koa/router';
import { segmentDispatch } from '../http/segment-dispatch.js';
import { errorHandler } from '../http/error-handler.js';
import { crossOrigin, hostCheck, securityHeaders } from '../http/security.js';
import { methodNotAllowed } from '../core/errors.js';
import { actorOf } from '../http/actor.js';
import type { Services } from '../core/services.js';
import type { OntologyRegistry } from '../ontology/registry.js';
import { serviceRoutes } from '../service/service-routes.js';
import { featureRoutes } from '../feature/feature-routes.js';
import { taskRoutes } from '../task/task-routes.js';
import { sparqlRoutes } from '../sparql/sparql-routes.js';
import { ontologyRoutes } from '../ontology/ontology-routes.js';
import { accessControl } from '../auth/auth-middleware.js';
import { authRoutes } from '../auth/auth-routes.js';
import { compoundRoutes } from '../compound/compound-routes.js';
import { CompoundRegistry } from '../compound/compound-registry.js';
import { DatasetStore } from '../dataset/dataset-store.js';
import { datasetRoutes } from '../dataset/dataset-routes.js';
import { algorithmRoutes, publishCatalogue } from '../algorithm/algorithm-routes.js';
import { DescriptorCalculation } from '../algorithm/descriptor-calculation.js';
import { ModelStore } from '../model/model-store.js';
import { Predictor } from '../model/prediction.js';
import { modelRoutes } from '../model/model-routes.js';
import { trainingJob } from '../model/training.js';
import { domainJob } from '../model/domain-training.js';
import { cleanupJob } from '../model/cleanup-model.js';
import { superJob } from '../model/superalgorithm.js';
import { ValidationStore } from '../validation/validation-store.js';
import { ValidationRunner } from '../validation/validation-runner.js';
import { Crossvalidations } from '../validation/crossvalidation.js';
import { ReportStore } from '../report/report-store.js';
import { Reports } from '../report/reports.js';
import { ReportFacts } from '../report/report-facts.js';
import { reportRoutes } from '../report/report-routes.js';
import { staticRoutes } from '../web/static-routes.js';
import { apiRoutes } from '../web/api-routes.js';
import { graphStoreRoutes } from '../sparql/graph-store-routes.js';
import { QmrfStore } from '../qmrf/qmrf-store.js';
import { Qmrfs } from '../qmrf/qmrfs.js';
import { QmrfFacts } from '../qmrf/qmrf-facts.js';
import { qmrfRoutes } from '../qmrf/qmrf-routes.js';
import { Qprfs } from '../qmrf/qprfs.js';
import { QprfFacts } from '../qmrf/qprf-facts.js';
import { qprfRoutes } from '../qmrf/qprf-routes.js';
import { crossvalidationRoutes } from '../validation/crossvalidation-routes.js';
import { validationRoutes } from '../validation/validation-routes.js';
import { operationsRoutes } from '../operations/operations-routes.js';

/** A route of the application: its method and its path pattern (`/dataset/:id`). */
export interface Route {
  method: string;
  path: string;
}

/** The Koa application: logging, errors as ot:ErrorReport, then every component's routes. */
export function createApp(services: Services, registry: OntologyRegistry): { app: Koa; ready: Promise<void>; routes: Route[] } {
  const app = new Koa();
  app.proxy = true;
  const { log, config } = services;

  const router = new Router();
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

  serviceRoutes(router, services);
  staticRoutes(router);
  // the API described: every route registered below is in the document
  apiRoutes(router, services, () => routes);
  operationsRoutes(router, services);
  authRoutes(router, services);
  const compounds = new CompoundRegistry(services, services.chemistry);
  compoundRoutes(router, services, compounds);
  const datasets = new DatasetStore(services, compounds);
  datasetRoutes(router, services, datasets);
  const models = new ModelStore(services);
  const descriptors = new DescriptorCalculation(services);
  const predictor = new Predictor(services, descriptors, (uri) => models.load(uri));
  const runner = new ValidationRunner(services, datasets, models, predictor, new ValidationStore(services));
  const crossvalidations = new Crossvalidations(services, runner);
  algorithmRoutes(router, services, {
    datasets,
    descriptors,
    train: trainingJob(services, datasets, models),
    startSuper: superJob(services, datasets, models, descriptors, crossvalidations.ofRecipe),
    fitDomain: domainJob(services, datasets, models),
    cleanup: cleanupJob(datasets, models),
  });
  modelRoutes(router, services, datasets, models, predictor, compounds);
  crossvalidationRoutes(router, services, runner, crossvalidations);
  // rows of an upload that a crash cut off before its metadata was written (what an interrupted
  // task created is removed by the task runner at start)
  // (not when processes share the store: rows without metadata may be another process's upload in progress)
  const ready = (async () => {
    const rows = services.coordination.shared ? 0 : await datasets.removeOrphans();
    if (rows) log.warn('removed the rows of uploads interrupted by the last shutdown', { count: rows });
    await publishCatalogue(services);
  })();
  // registered before /validation/{id}, which would take /validation/report otherwise
  const reportStore = new ReportStore(services);
  reportRoutes(router, services, new Reports(services, new ReportFacts(services, datasets, models), reportStore), reportStore);
  const qmrfStore = new QmrfStore(services);
  qmrfRoutes(router, services, new Qmrfs(services, new QmrfFacts(services, datasets, models, predictor), qmrfStore, models, datasets), qmrfStore);
  qprfRoutes(router, services, new Qprfs(services, new QprfFacts(services, compounds, datasets, models, predictor, descriptors), qmrfStore));
  validationRoutes(router, services, runner, predictor);
  featureRoutes(router, services);
  taskRoutes(router, services);
  sparqlRoutes(router, services);
  graphStoreRoutes(router, services);
  ontologyRoutes(router, services, registry);
  app.use(segmentDispatch(router));
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
