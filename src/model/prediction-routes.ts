import type Router from '@koa/router';
import type { Context } from 'koa';
import { badRequest, notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { Params } from '../http/params.ts';
import { sendNegotiated, sendTask, sendUri } from '../http/respond.ts';
import { callerTokenOf } from '../auth/caller-token.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { datasetRenderers } from '../dataset/dataset-views.ts';
import { resultRequestOf, resultTarget } from '../dataset/result-target.ts';
import { FeatureValues } from '../compound/feature-values.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { ModelStore, StoredModel } from './model-store.ts';
import { outputFeatures } from './model-codec.ts';
import type { Predictor, PredictionRow } from './prediction.ts';
import { defaultServiceOf, storePredictions, type ModelStarters } from './model-jobs.ts';

/** Applying a model (spec 4.11, `POST /model/{id}`): to a dataset (a task when descriptors must be calculated first) or to one compound. */
export function predictionRoutes(
  router: Router,
  services: Services,
  datasets: DatasetStore,
  models: ModelStore,
  predictor: Predictor,
  compounds: CompoundRegistry,
  startPredictions: ModelStarters['predictions'],
): void {
  const { config, store } = services;
  const featureValues = new FeatureValues(store, services.uris);

  async function requireModel(ctx: Context): Promise<StoredModel> {
    const uri = services.uris.item('model', ctx.params.id);
    const model = await models.load(uri);
    if (!model) throw notFound(`model ${uri} not found`);
    return model;
  }

  router.post('/model/:id', async (ctx) => {
    const model = await requireModel(ctx);
    const params = await Params.fromRequest(ctx, config.bodyLimit);
    const datasetParam = params.get('dataset_uri');
    const smiles = params.get('smiles')?.trim();
    if ([datasetParam, params.get('compound_uri'), smiles].filter((v) => v).length > 1) throw badRequest('give dataset_uri or compound_uri (or smiles), not both');
    // the caller's token goes along only when predictions go to another dataset service
    const subjectid = params.get('dataset_service') || (!params.get('result_dataset') && defaultServiceOf(model)) ? await callerTokenOf(ctx, config.bodyLimit) : undefined;
    const result = { ...resultRequestOf(params), subjectid };
    if (datasetParam) {
      const started = await startPredictions({ model: model.uri, datasetUri: datasetParam, result });
      return 'task' in started ? sendTask(ctx, started.task) : sendUri(ctx, started.result);
    }
    // a structure typed as SMILES (the model page's form) is registered as a compound first
    const compound = smiles ? (await compounds.register([{ structure: services.chemistry.fromSmiles(smiles, 'smiles'), names: [], fields: {}, sameAs: [] }]))[0] : params.get('compound_uri');
    if (!compound) throw badRequest('missing required parameter dataset_uri (or compound_uri, or smiles, for a single compound)');
    if (model.task === 'cleanup') throw badRequest(`model ${model.uri} filters datasets: give dataset_uri`);
    const target = await resultTarget(services, datasets, result, defaultServiceOf(model));
    if (!services.uris.isIn('compound', compound) || !(await store.hasGraph(compound))) throw notFound(`compound_uri: compound ${compound} not found`);
    const own = await featureValues.read(compound, model.independent);
    const row: PredictionRow = { compound, values: new Map(own.map((v) => [v.feature, v.value])) };
    const plan = await predictor.planInputs(model, [...row.values.keys()]);
    const predictions = await predictor.predict(model, [row], plan);
    const uri = await storePredictions(services, datasets, model, [row], predictions, target, compound);
    if (target.kind === 'remote') return sendUri(ctx, uri);
    const meta = (await datasets.readMeta(uri))!;
    ctx.set('Location', uri);
    return sendNegotiated(ctx, await datasetRenderers(ctx, datasets, store, services.chemistry, meta, { compounds: [compound], features: outputFeatures(model) }));
  });
}
