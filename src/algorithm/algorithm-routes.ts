import type Router from '@koa/router';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { notFound } from '../core/errors.ts';
import { resultRequestOf } from '../dataset/result-target.ts';
import { algorithmUri, type AlgorithmStarters } from './algorithm-jobs.ts';
import { Params } from '../http/params.ts';
import { alternateLinks, sendList, sendNegotiated, resourceRenderers, sendTask, sendUris } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { callerTokenOf } from '../auth/caller-token.ts';
import { algorithmById, algorithmQuads, catalogue, type AlgorithmDefinition } from './catalogue.ts';
import { readParameters } from './parameters.ts';
import { selectFeatures } from './feature-selection.ts';
import { catalogueHtml, runFormHtml } from './algorithm-page.ts';
import { escapeHtml, renderPage } from '../rdf/html.ts';
import { RDF_OUTPUT_TYPES, serializeRdf } from '../rdf/serialize.ts';

/** Write every catalogue entry into the store (graph = algorithm URI), so SPARQL sees them. */
export async function publishCatalogue(services: Services): Promise<void> {
  const graphs: Record<string, RDF.Quad[]> = {};
  for (const def of catalogue()) graphs[algorithmUri(services, def)] = algorithmQuads(def, algorithmUri(services, def));
  await services.store.replaceGraphs(graphs);
}

/** Algorithm component (spec 2.4, 4.4): the catalogue, and invoking its entries. */
export function algorithmRoutes(router: Router, services: Services, datasets: DatasetStore, startAlgorithm: AlgorithmStarters['algorithm']): void {
  const { config, store } = services;
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
    const parameters: Record<string, string[]> = {};
    for (const [name, value] of params.entries()) (parameters[name] ??= []).push(value);
    await sendTask(ctx, await startAlgorithm({ id: def.id, datasetUri: params.required('dataset_uri'), parameters, result: { ...resultRequestOf(params), subjectid } }));
  });
}
