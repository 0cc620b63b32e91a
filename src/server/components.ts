import type { Services } from '../core/services.ts';
import type { OntologyRegistry } from '../ontology/registry.ts';
import { createServiceComponent } from '../service/service-component.ts';
import { createOperationsComponent } from '../operations/operations-component.ts';
import { createAuthComponent } from '../auth/auth-component.ts';
import { createCompoundComponent } from '../compound/compound-component.ts';
import { createDatasetComponent } from '../dataset/dataset-component.ts';
import { createModelComponent } from '../model/model-component.ts';
import { createValidationComponent } from '../validation/validation-component.ts';
import { createAlgorithmComponent } from '../algorithm/algorithm-component.ts';
import { publishCatalogue } from '../algorithm/algorithm-routes.ts';
import { createReportComponent } from '../report/report-component.ts';
import { createQmrfComponent } from '../qmrf/qmrf-component.ts';
import { createFeatureComponent } from '../feature/feature-component.ts';
import { createTaskComponent } from '../task/task-component.ts';
import { createSparqlComponent } from '../sparql/sparql-component.ts';
import { createOntologyComponent } from '../ontology/ontology-component.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { ModelStore } from '../model/model-store.ts';
import { titlesOf } from '../store/query-helpers.ts';
import { createMcpComponent } from '../mcp/mcp-component.ts';
import { createReadAcrossComponent } from '../read-across/read-across-component.ts';
import { createAssessmentComponent } from '../assessment/assessment-component.ts';
import { assessmentStartHtml } from '../assessment/assessment-forms.ts';
import { createProfilerComponent } from '../profiler/profiler-component.ts';

/**
 * Every component, made in the order of their dependencies, with every kind of job registered with
 * the task runner (here, in one place). A serve process adds the routes (app.ts); a worker process
 * (worker.ts) only runs the jobs, and knows every kind without building the HTTP application.
 */
/** The newest dataset and model a caller may read (not intermediate work), for the home page's path. */
async function latestWork(services: Services, datasets: DatasetStore, models: ModelStore, canRead: (uri: string) => boolean) {
  const dataset = (await datasets.listWithTitles()).filter((d) => canRead(d.uri)).at(-1);
  const model = (await models.list(undefined, { intermediate: false })).filter(canRead).at(-1);
  const titles = await titlesOf(services.store, model ? [model] : []);
  const meta = dataset && (await datasets.readMeta(dataset.uri));
  // its descriptors are calculated when an algorithm made it
  const described = !!meta?.annotations.some(([p, o]) => p.value === 'http://www.opentox.org/api/1.1#hasSource' && services.uris.isIn('algorithm', o.value));
  return {
    dataset: dataset && { uri: dataset.uri, title: dataset.title ?? dataset.uri },
    model: model ? { uri: model, title: titles.get(model) ?? model } : undefined,
    described,
  };
}

export function createComponents(services: Services, registry: OntologyRegistry) {
  const compound = createCompoundComponent(services);
  const { compounds } = compound.operations;
  // the QMRF component explains predictions on a prediction dataset's page: made last, called back
  const dataset = createDatasetComponent({ ...services, compounds, explainPredictions: (meta, shown, canRead) => components.qmrf.operations.explainPredictions(meta, shown, canRead) });
  const { datasets } = dataset.operations;
  // the validation component validates models, so it is made after the model component, which
  // calls back into it (when a supermodel is cross-validated or a model's page is rendered)
  const model = createModelComponent({
    ...services,
    compounds,
    datasets,
    crossValidate: (input, job) => validation.operations.crossValidate(input, job),
    validationsHtml: (m, canRead) => validation.operations.validationsHtml(m, canRead),
    validateLeaveOneOut: (input) => validation.operations.validateLeaveOneOut(input),
  });
  const { models, predictor, descriptors, train, fitDomain, cleanup, startSuper } = model.operations;
  const validation = createValidationComponent({ ...services, datasets, models, predictor });
  // a category's page offers an assessment: the assessment component is made after, called back
  const profiler = createProfilerComponent(services);
  const readAcross = createReadAcrossComponent({
    ...services,
    compounds,
    datasets,
    descriptors,
    models,
    predictor,
    profiles: profiler.operations.profiles,
    categoryNextStep: (c) => assessmentStartHtml(c),
  });
  const components = {
    service: createServiceComponent({ ...services, latest: (canRead) => latestWork(services, datasets, models, canRead) }),
    operations: createOperationsComponent(services),
    auth: createAuthComponent(services),
    compound,
    dataset,
    algorithm: createAlgorithmComponent({ ...services, datasets, descriptors, train, fitDomain, cleanup, startSuper, compounds }),
    model,
    report: createReportComponent({ ...services, datasets, models }),
    qmrf: createQmrfComponent({ ...services, compounds, datasets, models, predictor, descriptors }),
    validation,
    feature: createFeatureComponent(services),
    task: createTaskComponent(services),
    sparql: createSparqlComponent(services),
    ontology: createOntologyComponent({ ...services, registry }),
    mcp: createMcpComponent(services),
    readAcross,
    profiler,
    assessment: createAssessmentComponent({ ...services, categories: readAcross.operations.categories }),
  };
  for (const component of Object.values(components)) services.tasks.registerAll(component.jobs);
  // the structure index read; rows of an upload that a crash cut off before its metadata was
  // written removed (what an interrupted task created is removed by the task runner at start;
  // not when processes share the store: rows without metadata may be another process's upload
  // in progress); the algorithm catalogue written for SPARQL
  // (the catalogue is written meanwhile: nothing of it is read or changed by the other two)
  const ready = Promise.all([
    (async () => {
      await compounds.open();
      const rows = services.coordination.shared ? 0 : await datasets.removeOrphans();
      if (rows) services.log.warn('removed the rows of uploads interrupted by the last shutdown', { count: rows });
    })(),
    publishCatalogue(services),
  ]).then(() => undefined);
  return { components, ready };
}
