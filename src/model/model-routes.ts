import { answerNowOrAsTask } from '../task/now-or-as-task.js';
import { propertyValue } from '../rdf/graph-values.js';
import { parseDatasetRef } from '../core/uri-scheme.js';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { dc, ot } from '../rdf/namespaces.js';
import { badRequest, notFound, notAcceptable } from '../core/errors.js';
import { Params } from '../http/params.js';
import { sendList, sendNegotiated, sendUri, type Renderer, sendDone, resourceRenderers } from '../http/respond.js';
import type { Services } from '../core/services.js';
import type { DatasetStore } from '../dataset/dataset-store.js';
import { datasetRenderers } from '../dataset/dataset-views.js';
import { FeatureValues } from '../compound/feature-values.js';
import { deliver, resultTarget, type ResultTarget } from '../dataset/result-target.js';
import { learnerById } from '../learning/learners.js';
import { describeFeatures } from './feature-matrix.js';
import { regressionPmml } from './pmml.js';
import type { ModelStore, StoredModel } from './model-store.js';
import { createPredictionDataset, type Predictor, type PredictionRow, type PredictedValues } from './prediction.js';

/** Model component (spec 2.5, 4.11): list, describe, delete, and predict datasets or compounds. */
export function modelRoutes(router: Router, services: Services, datasets: DatasetStore, models: ModelStore, predictor: Predictor): void {
  const { config, store, tasks } = services;
  const modelUri = (ctx: Context) => `${models.collection}/${encodeURIComponent(ctx.params.id)}`;
  const featureValues = new FeatureValues(store, services.uris);

  async function requireDescription(ctx: Context): Promise<{ uri: string; quads: RDF.Quad[] }> {
    const uri = modelUri(ctx);
    const quads = await models.readDescription(uri);
    if (!quads) throw notFound(`model ${uri} not found`);
    return { uri, quads };
  }

  async function requireModel(ctx: Context): Promise<StoredModel> {
    const model = await models.load(modelUri(ctx));
    if (!model) throw notFound(`model ${modelUri(ctx)} not found`);
    return model;
  }

  router.get('/model', async (ctx) => {
    const query = Params.fromQuery(ctx);
    const sameAs = query.get('query') ?? query.get('sameas');
    const uris = await models.list(sameAs);
    if (sameAs && !uris.length) throw notFound(`no model has owl:sameAs <${sameAs}>`);
    await sendList(ctx, uris, async () => (await Promise.all(uris.map((u) => store.readGraph(u)))).flat(), sameAs ? `Models with owl:sameAs ${sameAs}` : 'Models');
  });

  router.get('/model/:id', async (ctx) => {
    const { uri, quads } = await requireDescription(ctx);
    const title = propertyValue(quads, uri, dc('title'));
    const renderers: Record<string, Renderer> = resourceRenderers(ctx, uri, quads, `Model: ${title ?? uri}`);
    const algorithm = quads.find((q) => q.subject.value === uri && q.predicate.equals(ot('algorithm')))?.object.value ?? '';
    if (learnerById(algorithm.slice(algorithm.lastIndexOf('/') + 1))?.linearForm) {
      // PMML for linear models (spec 4.11: text/xml)
      const pmml = async () => {
        const model = (await models.load(uri))!;
        const form = learnerById(model.learnerId)!.linearForm!(model.state);
        const titles = await describeFeatures(store, [...model.independent, model.dependent]);
        const xml = form && regressionPmml(model, form, new Map([...titles].map(([f, d]) => [f, d.title ?? f])));
        if (!xml) throw notAcceptable(`model ${uri} has no PMML form (only linear models of numeric variables have one); ask for RDF`);
        return xml;
      };
      renderers['text/xml'] = pmml;
      renderers['application/xml'] = pmml;
    }
    await sendNegotiated(ctx, renderers);
  });

  for (const [path, property] of [
    ['independent', 'independentVariables'],
    ['dependent', 'dependentVariables'],
    ['predicted', 'predictedVariables'],
  ] as const) {
    router.get(`/model/:id/${path}`, async (ctx) => {
      const { uri, quads } = await requireDescription(ctx);
      const features = quads.filter((q) => q.subject.value === uri && q.predicate.equals(ot(property))).map((q) => q.object.value);
      await sendList(ctx, features, async () => (await Promise.all(features.map((f) => store.readGraph(f)))).flat(), `${path[0].toUpperCase()}${path.slice(1)} variables of ${uri}`);
    });
  }

  router.delete('/model/:id', async (ctx) => {
    const { uri } = await requireDescription(ctx);
    await models.delete(uri);
    sendDone(ctx);
  });

  /** Store predictions: a new dataset (here or at another dataset service), or new columns of an existing one. */
  async function storePredictions(model: StoredModel, rows: PredictionRow[], predictions: PredictedValues[], target: ResultTarget, source: string, sourceTitle?: string): Promise<string> {
    if (target.kind === 'existing') {
      await datasets.addColumns(target.meta, [model.predicted, model.confidence], new Map(rows.map((r, i) => [r.compound, predictions[i]])));
      return target.meta.uri;
    }
    const local = await createPredictionDataset(datasets, model, rows, predictions, { uri: source, title: sourceTitle });
    return deliver(services, datasets, local, target);
  }

  router.post('/model/:id', async (ctx) => {
    const model = await requireModel(ctx);
    const params = await Params.fromRequest(ctx, config.bodyLimit);
    const datasetParam = params.get('dataset_uri');
    const compound = params.get('compound_uri');
    if (!datasetParam && !compound) throw badRequest('missing required parameter dataset_uri (or compound_uri for a single compound)');
    if (datasetParam && compound) throw badRequest('give dataset_uri or compound_uri, not both');
    const target = await resultTarget(ctx, services, datasets, params);

    if (compound) {
      if (!services.uris.isIn('compound', compound) || !(await store.hasGraph(compound))) throw notFound(`compound_uri: compound ${compound} not found`);
      const own = await featureValues.read(compound, model.independent);
      const row: PredictionRow = { compound, values: new Map(own.map((v) => [v.feature, v.value])) };
      const plan = await predictor.planInputs(model, [...row.values.keys()]);
      const predictions = await predictor.predict(model, [row], plan);
      const uri = await storePredictions(model, [row], predictions, target, compound);
      if (target.kind === 'remote') return sendUri(ctx, uri);
      const meta = (await datasets.readMeta(uri))!;
      ctx.set('Location', uri);
      return sendNegotiated(ctx, await datasetRenderers(ctx, datasets, store, meta, { compounds: [compound], features: [model.predicted, model.confidence] }));
    }

    const { uri: datasetUri } = parseDatasetRef(datasetParam!);
    const source = await datasets.requireMeta(datasetUri, 'dataset_uri');
    const plan = await predictor.planInputs(model, source.features);
    // Predicting is quick; calculating missing descriptors first is not: then it is a task.
    await answerNowOrAsTask(ctx, tasks, { slow: plan.calculations.length > 0, title: `Predictions of ${model.uri} for ${datasetUri}` }, async (job) => {
      const rows: PredictionRow[] = await datasets.allRows(source.uri);
      const predictions = await predictor.predict(model, rows, plan, job);
      return storePredictions(model, rows, predictions, target, source.uri, source.title);
    });
  });
}
