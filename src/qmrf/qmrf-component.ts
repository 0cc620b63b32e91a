import type { Services } from '../core/services.ts';
import { forbidden } from '../core/errors.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { DatasetMeta, DatasetStore } from '../dataset/dataset-store.ts';
import { predictionExplanationHtml } from './prediction-explanation.ts';
import type { ModelStore } from '../model/model-store.ts';
import type { Predictor } from '../model/prediction.ts';
import type { DescriptorCalculation } from '../algorithm/descriptor-calculation.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { QmrfStore } from './qmrf-store.ts';
import { QmrfFacts } from './qmrf-facts.ts';
import { Qmrfs } from './qmrfs.ts';
import { QprfFacts } from './qprf-facts.ts';
import { Qprfs } from './qprfs.ts';
import { qmrfRoutes } from './qmrf-routes.ts';
import { qprfRoutes } from './qprf-routes.ts';

export interface QmrfDeps extends Pick<Services, 'config' | 'uris' | 'store' | 'ids' | 'tasks' | 'workers' | 'chemistry'> {
  compounds: CompoundRegistry;
  datasets: DatasetStore;
  models: ModelStore;
  predictor: Predictor;
  descriptors: DescriptorCalculation;
}

/** QMRF reports of models and QPRF reports of predictions (spec 4.6): their jobs and routes. */
export function createQmrfComponent(deps: QmrfDeps) {
  const { compounds, datasets, models, predictor } = deps;
  const store = new QmrfStore(deps);
  const qmrfs = new Qmrfs(deps, new QmrfFacts(deps, datasets, models, predictor), store, models, datasets);
  const facts = new QprfFacts(deps, compounds, datasets, models, predictor, deps.descriptors);
  const qprfs = new Qprfs(deps, facts, store);
  return {
    operations: {
      /** A prediction dataset's page: its predictions explained (dataset-views.ts ExplainPredictions). */
      explainPredictions: (meta: DatasetMeta, compounds: string[], canRead: (uri: string) => boolean) => predictionExplanationHtml({ facts, models, store: deps.store }, meta, compounds, canRead),
    },
    jobs: { ...qmrfs.jobs, ...qprfs.jobs },
    routes: (routes: DescribedRoutes) => {
      qmrfRoutes(routes, deps, qmrfs, store);
      qprfRoutes(routes, deps, qprfs, {
        readable: (request, canRead) => readableFacts(facts, request, canRead),
        evidence: async (request, canRead) => facts.of(await readableFacts(facts, request, canRead)),
      });
    },
  };
}

/**
 * A prediction's facts may be reported (a QPRF, its evidence as JSON) only to who may read the
 * model (also when it comes from a prediction dataset's ot:hasSource) and its training dataset:
 * they hold the nearest training compounds and their measured values.
 */
async function readableFacts(facts: QprfFacts, request: { modelUri?: string; datasetUri?: string; compoundUri: string }, canRead?: (uri: string) => boolean) {
  const checked = await facts.check(request);
  if (canRead && !canRead(checked.model.uri)) throw forbidden(`model_uri: model ${checked.model.uri} is not yours to read`);
  if (canRead && checked.model.trainingDataset && !canRead(checked.model.trainingDataset)) throw forbidden(`the training dataset of ${checked.model.uri} is not yours to read`);
  return checked;
}
