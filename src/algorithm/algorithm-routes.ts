import { z } from 'zod';
import { answers, MEDIA, param, taskResponses, type DescribedRoutes } from '../http/route-description.ts';
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
export async function publishCatalogue(services: Pick<Services, 'uris' | 'store'>): Promise<void> {
  const graphs: Record<string, RDF.Quad[]> = {};
  for (const def of catalogue()) graphs[algorithmUri(services, def)] = algorithmQuads(def, algorithmUri(services, def));
  await services.store.replaceGraphs(graphs);
}

/** Algorithm component (spec 2.4, 4.4): the catalogue, and invoking its entries. */
export function algorithmRoutes(
  routes: DescribedRoutes,
  services: Pick<Services, 'config' | 'uris' | 'store' | 'workers'>,
  datasets: DatasetStore,
  startAlgorithm: AlgorithmStarters['algorithm'],
): void {
  const { config, store } = services;
  const collection = services.uris.collection('algorithm');

  function requireAlgorithm(ctx: Context): AlgorithmDefinition {
    const def = algorithmById(ctx.params.id);
    if (!def) throw notFound(`algorithm ${collection}/${ctx.params.id} not found`);
    return def;
  }

  const chosenDataset = param.optional('A page for people: the dataset its forms start with');
  routes.add(
    {
      method: 'GET',
      path: '/algorithm',
      summary: 'The algorithm catalogue (with sameas or query: those that stand for an ontology entry)',
      tag: 'algorithm',
      params: z.object({ sameas: param.optional('Algorithms owl:sameAs this IRI'), query: param.optional('The same as sameas'), dataset_uri: chosenDataset }),
      responses: answers(MEDIA.list, 404),
    },
    async (ctx, p) => {
      const sameAs = p.sameas ?? p.query;
      const defs = catalogue().filter((d) => !sameAs || d.sameAs === sameAs);
      if (sameAs && !defs.length) throw notFound(`no algorithm has owl:sameAs <${sameAs}>`);
      await sendList(
        ctx,
        defs.map((d) => algorithmUri(services, d)),
        () => defs.flatMap((d) => algorithmQuads(d, algorithmUri(services, d))),
        sameAs ? `Algorithms with owl:sameAs ${sameAs}` : 'Algorithms',
        await catalogueHtml(defs, { datasets, store, dataset: p.dataset_uri }),
        { introLists: true },
      );
    },
  );

  routes.add(
    {
      method: 'GET',
      path: '/algorithm/:id',
      summary: 'An algorithm, its types and parameters',
      tag: 'algorithm',
      params: z.object({ dataset_uri: chosenDataset }),
      responses: answers(MEDIA.resource, 404),
    },
    async (ctx, p) => {
      const def = requireAlgorithm(ctx);
      const uri = algorithmUri(services, def);
      const quads = algorithmQuads(def, uri);
      const renderers = resourceRenderers(ctx, uri, quads, `Algorithm: ${def.title}`);
      // for people: what it does, and a form that runs it
      renderers['text/html'] = async () =>
        renderPage({
          title: `Algorithm: ${def.title}`,
          intro: `<p>${escapeHtml(def.description)}</p>${await runFormHtml(def, { datasets, store, chosen: p.dataset_uri, canRead: ctx.state.canRead ?? (() => true) })}`,
          quads,
          alternates: alternateLinks(ctx, RDF_OUTPUT_TYPES),
          jsonld: await serializeRdf(quads, 'application/ld+json'),
        });
      await sendNegotiated(ctx, renderers);
    },
  );

  routes.add(
    { method: 'GET', path: '/algorithm/:id/:instance', summary: 'An algorithm instance (the parameter values a calculation used)', tag: 'algorithm', responses: answers(MEDIA.resource, 404) },
    async (ctx) => {
      const def = requireAlgorithm(ctx);
      const uri = `${algorithmUri(services, def)}/${encodeURIComponent(ctx.params.instance)}`;
      const quads = await store.readGraph(uri);
      if (!quads.length) throw notFound(`algorithm instance ${uri} not found`);
      await sendNegotiated(ctx, resourceRenderers(ctx, uri, quads, `Algorithm: ${def.title} (parameter values used)`));
    },
  );

  routes.add(
    {
      method: 'POST',
      path: '/algorithm/:id',
      startsJob: true,
      summary:
        "Apply an algorithm: train a model, calculate descriptors, select features, fit a domain, clean, mine, or build a supermodel; the algorithm's own parameters as GET /algorithm/{id} lists them",
      tag: 'algorithm',
      params: z.object({
        dataset_uri: param.required('The dataset (with ?feature_uris[]=… to use some of its features)'),
        prediction_feature: param.optional('The feature to predict (learners, supervised selection and mining); the endpoint an applicability domain leaves out'),
        model_uri: param.optional('An applicability domain: the model whose independent variables it is fitted on'),
        dataset_service: param.optional('Another dataset service that gets the results as a new dataset'),
        result_dataset: param.optional('An existing dataset that gets the results as new columns'),
        structure_standardisation: param.optional('A superalgorithm: standardise the structures first (standardise-structures); the supermodel then predicts every structure from its parent'),
        feature_calculation: param.list('A superalgorithm: descriptor algorithms, in order'),
        feature_selection: param.list('A superalgorithm: feature selection algorithms'),
        model_learning: param.list('A superalgorithm: learners (several: a consensus)'),
        applicability_domain: param.list('A learner: the applicability domain its model carries (auto, none, or a domain algorithm); a superalgorithm: applicability-domain algorithms'),
        validation_service: param.optional('A superalgorithm: cross-validate the recipe'),
        parameter: param.list("A superalgorithm: a step's parameter, step.name=value"),
      }),
      responses: { ...taskResponses(400, 404, 502), 200: MEDIA.uri },
    },
    async (ctx) => {
      const def = requireAlgorithm(ctx);
      // every parameter of the request: the algorithm reads its own (as its catalogue entry names them)
      const params = await Params.fromRequest(ctx, config.bodyLimit);
      if (def.kind === 'selection') {
        const datasetUri = params.required('dataset_uri');
        const values = readParameters(def.parameters, params);
        return sendUris(ctx, await selectFeatures(services, datasets, { method: def.method, parameters: values, datasetUri, predictionFeature: params.get('prediction_feature') }));
      }
      // the caller's token goes with the job only when results go to another dataset service
      const subjectid = params.get('dataset_service') ? await callerTokenOf(ctx, config.bodyLimit) : undefined;
      // (no prototype: a parameter may be named constructor or __proto__)
      const parameters: Record<string, string[]> = Object.create(null);
      for (const [name, value] of params.entries()) (parameters[name] ??= []).push(value);
      await sendTask(ctx, await startAlgorithm({ id: def.id, datasetUri: params.required('dataset_uri'), parameters, result: { ...resultRequestOf(params), subjectid } }));
    },
  );
}
