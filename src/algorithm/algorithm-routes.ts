import type Router from '@koa/router';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { badRequest, notFound } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { alternateLinks, sendList, sendNegotiated, resourceRenderers, sendTask, sendUris } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { deliver, resultTarget } from '../dataset/result-target.ts';
import type { PrepareTraining } from '../model/training.ts';
import type { PrepareDomainFitting } from '../model/domain-training.ts';
import type { PrepareCleanup } from '../model/cleanup-model.ts';
import type { PrepareSuper } from '../model/superalgorithm.ts';
import type { PreparedJob } from '../task/task-runner.ts';
import { callerTokenOf } from '../auth/caller-token.ts';
import { algorithmById, algorithmQuads, catalogue, type AlgorithmDefinition } from './catalogue.ts';
import { readParameters } from './parameters.ts';
import { selectFeatures } from './feature-selection.ts';
import { describeDataset } from './descriptor-datasets.ts';
import { catalogueHtml, runFormHtml } from './algorithm-page.ts';
import { escapeHtml, renderPage } from '../rdf/html.ts';
import { RDF_OUTPUT_TYPES, serializeRdf } from '../rdf/serialize.ts';
import { mineDataset } from './pattern-mining.ts';
import type { DescriptorCalculation } from './descriptor-calculation.ts';

export interface AlgorithmComponents {
  datasets: DatasetStore;
  /** Applying a learner trains a model: the model component's work. */
  train: PrepareTraining;
  /** Applying an applicability-domain algorithm fits an AD model: the model component's work too. */
  fitDomain: PrepareDomainFitting;
  /** Applying a data-cleanup algorithm makes a filtering model. */
  cleanup: PrepareCleanup;
  /** A superalgorithm chains the others into a supermodel. */
  startSuper: PrepareSuper;
  descriptors: DescriptorCalculation;
}

/** Write every catalogue entry into the store (graph = algorithm URI), so SPARQL sees them. */
export async function publishCatalogue(services: Services): Promise<void> {
  const graphs: Record<string, RDF.Quad[]> = {};
  for (const def of catalogue()) graphs[algorithmUri(services, def)] = algorithmQuads(def, algorithmUri(services, def));
  await services.store.replaceGraphs(graphs);
}

function algorithmUri(services: Services, def: AlgorithmDefinition): string {
  return services.uris.item('algorithm', def.id);
}

/** Algorithm component (spec 2.4, 4.4): the catalogue, and invoking its entries. */
export function algorithmRoutes(router: Router, services: Services, components: AlgorithmComponents): void {
  const { config, tasks, store } = services;
  const { datasets, train, fitDomain, cleanup, startSuper, descriptors } = components;
  const collection = services.uris.collection('algorithm');

  function requireAlgorithm(ctx: Context): AlgorithmDefinition {
    const def = algorithmById(ctx.params.id);
    if (!def) throw notFound(`algorithm ${collection}/${ctx.params.id} not found`);
    return def;
  }

  router.get('/algorithm', async (ctx) => {
    const sameAs = Params.fromQuery(ctx).get('sameas') ?? Params.fromQuery(ctx).get('query');
    const defs = catalogue().filter((d) => !sameAs || d.sameAs === sameAs);
    if (sameAs && !defs.length) throw notFound(`no algorithm has owl:sameAs <${sameAs}>`);
    await sendList(
      ctx,
      defs.map((d) => algorithmUri(services, d)),
      () => defs.flatMap((d) => algorithmQuads(d, algorithmUri(services, d))),
      sameAs ? `Algorithms with owl:sameAs ${sameAs}` : 'Algorithms',
      catalogueHtml(defs, Params.fromQuery(ctx).get('dataset_uri')),
    );
  });

  router.get('/algorithm/:id', async (ctx) => {
    const def = requireAlgorithm(ctx);
    const uri = algorithmUri(services, def);
    const quads = algorithmQuads(def, uri);
    const renderers = resourceRenderers(ctx, uri, quads, `Algorithm: ${def.title}`);
    // for people: what it does, and a form that runs it
    renderers['text/html'] = async () =>
      renderPage({
        title: `Algorithm: ${def.title}`,
        intro: `<p>${escapeHtml(def.description)}</p>${await runFormHtml(def, { datasets, store, chosen: Params.fromQuery(ctx).get('dataset_uri'), canRead: ctx.state.canRead ?? (() => true) })}`,
        quads,
        alternates: alternateLinks(ctx, RDF_OUTPUT_TYPES),
        jsonld: await serializeRdf(quads, 'application/ld+json'),
      });
    await sendNegotiated(ctx, renderers);
  });

  router.get('/algorithm/:id/:instance', async (ctx) => {
    const def = requireAlgorithm(ctx);
    const uri = `${algorithmUri(services, def)}/${encodeURIComponent(ctx.params.instance)}`;
    const quads = await store.readGraph(uri);
    if (!quads.length) throw notFound(`algorithm instance ${uri} not found`);
    await sendNegotiated(ctx, resourceRenderers(ctx, uri, quads, `Algorithm: ${def.title} (parameter values used)`));
  });

  /**
   * Applying an algorithm to a dataset is a job kind (its input: the algorithm's id, the request's
   * parameters and, when results go to another dataset service, the caller's token for it).
   */
  const startAlgorithm = tasks.define('algorithm', async (input: { id: string; params: [string, string][]; subjectid?: string }): Promise<PreparedJob> => {
    const def = algorithmById(input.id);
    if (!def) throw notFound(`algorithm ${collection}/${input.id} not found`);
    const params = Params.fromEntries(input.params);
    const datasetParam = params.required('dataset_uri');
    const values = readParameters(def.parameters, params);
    const uri = algorithmUri(services, def);
    switch (def.kind) {
      case 'learner':
        return train({ algorithmUri: uri, title: def.title, learner: def.learner, parameters: values, datasetUri: datasetParam, predictionFeature: params.required('prediction_feature') });
      case 'super':
        return startSuper(uri, params);
      case 'domain':
        return fitDomain({ algorithmUri: uri, method: def.method, parameters: values, datasetUri: datasetParam });
      case 'cleanup':
        return cleanup({ algorithmUri: uri, method: def.method, parameters: values, datasetUri: datasetParam });
      case 'mining': {
        const { meta: source, selected } = await datasets.requireRef(datasetParam);
        const classes = String(values.prediction_feature ?? '');
        if (classes && !source.features.includes(classes)) throw badRequest(`prediction_feature ${classes} is not a feature of dataset ${source.uri}`);
        return { title: `${def.title} of ${source.uri}`, work: (job) => mineDataset(services, datasets, descriptors, { algorithmUri: uri, source, selected, values }, job.signal) };
      }
      case 'descriptors': {
        try {
          def.descriptors.columns(values);
        } catch (e) {
          if (e instanceof RangeError) throw badRequest(e.message);
          throw e;
        }
        const { meta: source, selected } = await datasets.requireRef(datasetParam);
        const target = await resultTarget(services, datasets, params, input.subjectid);
        return {
          title: `${def.title} for ${source.uri}`,
          work: async (job) => {
            const run = { signal: job.signal, progress: (f: number) => job.progress(5 + f * 85) };
            if (target.kind === 'existing') return describeDataset(descriptors, datasets, { def, values, source, selected, into: target.meta }, run);
            return deliver(services, datasets, await describeDataset(descriptors, datasets, { def, values, source, selected }, run), target);
          },
        };
      }
      default:
        throw badRequest(`${uri} does not run as a task`);
    }
  });

  router.post('/algorithm/:id', async (ctx) => {
    const def = requireAlgorithm(ctx);
    const params = await Params.fromRequest(ctx, config.bodyLimit);
    if (def.kind === 'selection') {
      const datasetUri = params.required('dataset_uri');
      const values = readParameters(def.parameters, params);
      return sendUris(ctx, await selectFeatures(services, datasets, { method: def.method, parameters: values, datasetUri, predictionFeature: params.get('prediction_feature') }));
    }
    // the caller's token goes with the job only when results go to another dataset service
    const subjectid = params.get('dataset_service') ? await callerTokenOf(ctx, config.bodyLimit) : undefined;
    await sendTask(ctx, await startAlgorithm({ id: def.id, params: params.entries(), subjectid }));
  });
}
