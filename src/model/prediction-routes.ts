import type Router from '@koa/router';
import type { Context } from 'koa';
import { badRequest, notFound } from '../core/errors.ts';
import { parseDatasetRef } from '../core/uri-scheme.ts';
import type { Services } from '../core/services.ts';
import { Params } from '../http/params.ts';
import { sendNegotiated, sendTask, sendUri } from '../http/respond.ts';
import { callerTokenOf } from '../auth/caller-token.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { datasetRenderers } from '../dataset/dataset-views.ts';
import { deliver, resultTarget, type ResultTarget } from '../dataset/result-target.ts';
import { FeatureValues } from '../compound/feature-values.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { ModelStore, StoredModel } from './model-store.ts';
import { outputFeatures } from './model-codec.ts';
import { applyCleanupModel } from './cleanup-model.ts';
import { createPredictionDataset, type Predictor, type PredictionRow, type PredictedValues } from './prediction.ts';

/** Applying a model (spec 4.11, `POST /model/{id}`): to a dataset (a task when descriptors must be calculated first) or to one compound. */
export function predictionRoutes(router: Router, services: Services, datasets: DatasetStore, models: ModelStore, predictor: Predictor, compounds: CompoundRegistry): void {
  const { config, store, tasks } = services;
  const featureValues = new FeatureValues(store, services.uris);

  async function requireModel(ctx: Context): Promise<StoredModel> {
    const uri = services.uris.item('model', ctx.params.id);
    const model = await models.load(uri);
    if (!model) throw notFound(`model ${uri} not found`);
    return model;
  }

  /** Store predictions: a new dataset (here or at another dataset service), or new columns of an existing one. */
  async function storePredictions(model: StoredModel, rows: PredictionRow[], predictions: PredictedValues[], target: ResultTarget, source: string, sourceTitle?: string): Promise<string> {
    if (target.kind === 'existing') {
      await datasets.addColumns(target.meta, outputFeatures(model), new Map(rows.map((r, i) => [r.compound, predictions[i]])));
      return target.meta.uri;
    }
    const local = await createPredictionDataset(datasets, model, rows, predictions, { uri: source, title: sourceTitle });
    return deliver(services, datasets, local, target);
  }

  /**
   * Applying a model to a dataset is a job kind (input: the model, the request's parameters and,
   * when predictions go to another dataset service, the caller's token for it). Predicting is
   * quick and answered at once; calculating missing descriptors first is not: then it is a task.
   */
  const startPredictions = tasks.defineQuickOrTask('predictions', async (input: { model: string; params: [string, string][]; subjectid?: string }) => {
    const model = await models.load(input.model);
    if (!model) throw notFound(`model ${input.model} not found`);
    const params = Params.fromEntries(input.params);
    const datasetParam = params.required('dataset_uri');
    if (model.task === 'cleanup') {
      // a filtering model (spec 2.4 DataCleanup) answers the cleaned copy of a dataset
      const { meta: source, selected } = await datasets.requireRef(datasetParam);
      return { title: `${model.title} applied to ${source.uri}`, work: () => applyCleanupModel(datasets, model, source, selected) };
    }
    // a supermodel made with dataset_service stores its predictions there unless told otherwise
    const target = await resultTarget(services, datasets, params, input.subjectid, defaultServiceOf(model));
    const { uri: datasetUri } = parseDatasetRef(datasetParam);
    const source = await datasets.requireMeta(datasetUri, 'dataset_uri');
    const plan = await predictor.planInputs(model, source.features);
    return {
      title: `Predictions of ${model.uri} for ${datasetUri}`,
      quick: plan.calculations.length === 0 && plan.substructures.length === 0,
      work: async (job) => {
        const rows: PredictionRow[] = await datasets.allRows(source.uri);
        const predictions = await predictor.predict(model, rows, plan, job);
        return storePredictions(model, rows, predictions, target, source.uri, source.title);
      },
    };
  });

  router.post('/model/:id', async (ctx) => {
    const model = await requireModel(ctx);
    const params = await Params.fromRequest(ctx, config.bodyLimit);
    const datasetParam = params.get('dataset_uri');
    const smiles = params.get('smiles')?.trim();
    if ([datasetParam, params.get('compound_uri'), smiles].filter((v) => v).length > 1) throw badRequest('give dataset_uri or compound_uri (or smiles), not both');
    // the caller's token goes along only when predictions go to another dataset service
    const subjectid = params.get('dataset_service') || (!params.get('result_dataset') && defaultServiceOf(model)) ? await callerTokenOf(ctx, config.bodyLimit) : undefined;
    if (datasetParam) {
      const started = await startPredictions({ model: model.uri, params: params.entries(), subjectid });
      return 'task' in started ? sendTask(ctx, started.task) : sendUri(ctx, started.result);
    }
    // a structure typed as SMILES (the model page's form) is registered as a compound first
    const compound = smiles ? (await compounds.register([{ structure: services.chemistry.fromSmiles(smiles, 'smiles'), names: [], fields: {}, sameAs: [] }]))[0] : params.get('compound_uri');
    if (!compound) throw badRequest('missing required parameter dataset_uri (or compound_uri, or smiles, for a single compound)');
    if (model.task === 'cleanup') throw badRequest(`model ${model.uri} filters datasets: give dataset_uri`);
    const target = await resultTarget(services, datasets, params, subjectid, defaultServiceOf(model));
    if (!services.uris.isIn('compound', compound) || !(await store.hasGraph(compound))) throw notFound(`compound_uri: compound ${compound} not found`);
    const own = await featureValues.read(compound, model.independent);
    const row: PredictionRow = { compound, values: new Map(own.map((v) => [v.feature, v.value])) };
    const plan = await predictor.planInputs(model, [...row.values.keys()]);
    const predictions = await predictor.predict(model, [row], plan);
    const uri = await storePredictions(model, [row], predictions, target, compound);
    if (target.kind === 'remote') return sendUri(ctx, uri);
    const meta = (await datasets.readMeta(uri))!;
    ctx.set('Location', uri);
    return sendNegotiated(ctx, await datasetRenderers(ctx, datasets, store, services.chemistry, meta, { compounds: [compound], features: outputFeatures(model) }));
  });
}

/** Where a supermodel made with `dataset_service` stores its predictions unless told otherwise. */
function defaultServiceOf(model: StoredModel): string | undefined {
  return String(model.parameters.dataset_service ?? '') || undefined;
}
