import type { Context } from 'koa';
import { z } from 'zod';
import { badRequest, notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { asksForPage, sendNegotiated, sendTask, sendUri } from '../http/respond.ts';
import { MEDIA, param, taskResponses, type DescribedRoutes } from '../http/route-description.ts';
import { callerTokenOf } from '../auth/caller-token.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { DATASET_OUTPUT_TYPES, datasetRenderers } from '../dataset/dataset-views.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { ModelStore, StoredModel } from './model-store.ts';
import { outputFeatures } from './model-codec.ts';
import type { Predictor } from './prediction.ts';
import type { ModelStarters } from './model-jobs.ts';
import { defaultServiceOf, predictCompound } from './prediction-operations.ts';

/** Applying a model (spec 4.11, `POST /model/{id}`): to a dataset (a task when descriptors must be calculated first) or to one compound. */
export function predictionRoutes(
  routes: DescribedRoutes,
  services: Pick<Services, 'config' | 'uris' | 'store' | 'chemistry'>,
  datasets: DatasetStore,
  models: ModelStore,
  predictor: Predictor,
  compounds: CompoundRegistry,
  startPredictions: ModelStarters['predictions'],
): void {
  const { config, store } = services;

  async function requireModel(ctx: Context): Promise<StoredModel> {
    const uri = services.uris.item('model', ctx.params.id);
    const model = await models.load(uri);
    if (!model) throw notFound(`model ${uri} not found`);
    return model;
  }

  routes.add(
    {
      method: 'POST',
      path: '/model/:id',
      startsJob: true,
      summary: 'Predict a dataset, a compound or a SMILES (with applicability-domain estimates); a filtering model cleans a dataset',
      tag: 'model',
      params: z.object({
        dataset_uri: param.optional('The dataset to predict (a task when descriptors must be calculated first)'),
        compound_uri: param.optional('One compound to predict, at once'),
        smiles: param.optional('One structure to predict, registered as a compound first'),
        result_dataset: param.optional('An existing dataset that gets the predictions as new columns'),
        dataset_service: param.optional('Another dataset service that gets the predictions as a new dataset'),
      }),
      responses: { ...taskResponses(400, 404, 502), 200: [...MEDIA.uri, ...DATASET_OUTPUT_TYPES] },
    },
    async (ctx, p) => {
      const model = await requireModel(ctx);
      const smiles = p.smiles?.trim();
      if ([p.dataset_uri, p.compound_uri, smiles].filter((v) => v).length > 1) throw badRequest('give dataset_uri or compound_uri (or smiles), not both');
      // the caller's token goes along only when predictions go to another dataset service
      const subjectid = p.dataset_service || (!p.result_dataset && defaultServiceOf(model)) ? await callerTokenOf(ctx, config.bodyLimit) : undefined;
      const result = { resultDataset: p.result_dataset, datasetService: p.dataset_service, subjectid };
      if (p.dataset_uri) {
        const started = await startPredictions({ model: model.uri, datasetUri: p.dataset_uri, result });
        return 'task' in started ? sendTask(ctx, started.task) : sendUri(ctx, started.result);
      }
      // a structure typed as SMILES (the model page's form) is registered as a compound first
      const compound = smiles ? (await compounds.register([{ structure: services.chemistry.fromSmiles(smiles, 'smiles'), names: [], fields: {}, sameAs: [] }]))[0] : p.compound_uri;
      if (!compound) throw badRequest('missing required parameter dataset_uri (or compound_uri, or smiles, for a single compound)');
      if (model.task === 'cleanup') throw badRequest(`model ${model.uri} filters datasets: give dataset_uri`);
      const { uri, remote } = await predictCompound(services, datasets, predictor, model, compound, result, (await compounds.read(compound))?.smiles);
      // a browser's form goes on to the prediction's own page (so its links and formats resolve); a client gets it in the answer
      if (remote || asksForPage(ctx)) return sendUri(ctx, uri);
      const meta = (await datasets.readMeta(uri))!;
      ctx.set('Location', uri);
      return sendNegotiated(ctx, await datasetRenderers(ctx, datasets, store, services.chemistry, meta, { compounds: [compound], features: outputFeatures(model) }));
    },
  );
}
