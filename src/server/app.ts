import { modelValidationsHtml } from '../validation/model-validations-html.ts';
import Koa from 'koa';
import { RepresentationCache } from '../http/representation-cache.ts';
import Router from '@koa/router';
import { segmentDispatch } from '../http/segment-dispatch.ts';
import { errorHandler } from '../http/error-handler.ts';
import { crossOrigin, hostCheck, securityHeaders } from '../http/security.ts';
import { methodNotAllowed } from '../core/errors.ts';
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
import { CompoundRegistry } from '../compound/compound-registry.ts';
import { DatasetStore } from '../dataset/dataset-store.ts';
import { datasetRoutes } from '../dataset/dataset-routes.ts';
import { algorithmRoutes, publishCatalogue } from '../algorithm/algorithm-routes.ts';
import { DescriptorCalculation } from '../algorithm/descriptor-calculation.ts';
import { ModelStore } from '../model/model-store.ts';
import { Predictor } from '../model/prediction.ts';
import { modelRoutes } from '../model/model-routes.ts';
import { trainingJob } from '../model/training.ts';
import { domainJob } from '../model/domain-training.ts';
import { cleanupJob } from '../model/cleanup-model.ts';
import { superJob } from '../model/superalgorithm.ts';
import { ValidationStore } from '../validation/validation-store.ts';
import { ValidationRunner } from '../validation/validation-runner.ts';
import { Crossvalidations } from '../validation/crossvalidation.ts';
import { ReportStore } from '../report/report-store.ts';
import { Reports } from '../report/reports.ts';
import { ReportFacts } from '../report/report-facts.ts';
import { reportRoutes } from '../report/report-routes.ts';
import { staticRoutes } from '../web/static-routes.ts';
import { apiRoutes } from '../web/api-routes.ts';
import { graphStoreRoutes } from '../sparql/graph-store-routes.ts';
import { QmrfStore } from '../qmrf/qmrf-store.ts';
import { Qmrfs } from '../qmrf/qmrfs.ts';
import { QmrfFacts } from '../qmrf/qmrf-facts.ts';
import { qmrfRoutes } from '../qmrf/qmrf-routes.ts';
import { Qprfs } from '../qmrf/qprfs.ts';
import { QprfFacts } from '../qmrf/qprf-facts.ts';
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
  modelRoutes(router, services, datasets, models, predictor, compounds, (model, canRead) => modelValidationsHtml(services, datasets, model, canRead));
  crossvalidationRoutes(router, services, runner, crossvalidations);
  // rows of an upload that a crash cut off before its metadata was written (what an interrupted
  // task created is removed by the task runner at start)
  // (not when processes share the store: rows without metadata may be another process's upload in progress)
  const ready = (async () => {
    await compounds.open();
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
