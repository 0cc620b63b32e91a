import { releaseParts } from '../store/intermediate-parts.ts';
import type * as RDF from '@rdfjs/types';
import { df, ot, rdfs } from '../rdf/namespaces.ts';
import { readTypedGraph, selectUris, type ListOptions } from '../store/query-helpers.ts';
import type { Services } from '../core/services.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import { conformalOutputKinds, modelDescription, modelGraphs, storedModel, type ConformalOutput, type ModelDescription, type NewModel, type StoredModel } from './model-codec.ts';
import { modelQueries } from './model-queries.ts';

export type { NewModel, StoredModel } from './model-codec.ts';

const CACHE_SIZE = 8;

/**
 * Models (spec 2.5, 4.11). `{uri}` holds the description (algorithm, training dataset and
 * parameters, independent, dependent and predicted variables); `{uri}/content` holds what
 * prediction needs (encodings, classes, the learner's state) as JSON split into literals, in
 * the store's bulk partition. The graphs are made and read by model-codec.ts; a model, its
 * content and its two predicted features are written in one batch; models are immutable, so
 * parsed models are cached.
 */
export class ModelStore {
  readonly collection: string;
  private readonly cache = new Map<string, StoredModel>();

  private readonly services: Pick<Services, 'uris' | 'store' | 'ids'>;
  constructor(services: ModelStore['services']) {
    this.services = services;
    this.collection = services.uris.collection('model');
  }

  private contentGraph(uri: string): string {
    return this.services.uris.subgraph(uri, 'content');
  }

  async create(model: NewModel): Promise<string> {
    const { ids, uris, store } = this.services;
    const uri = await ids.next(this.collection);
    // a filtering model makes no features
    const outputs = model.task !== 'cleanup';
    const predicted = outputs ? await ids.next(uris.collection('feature')) : '';
    const confidence = outputs ? await ids.next(uris.collection('feature')) : '';
    const domain = model.domain ? { metric: await ids.next(uris.collection('feature')), membership: await ids.next(uris.collection('feature')) } : undefined;
    const conformal: ConformalOutput[] = [];
    for (const o of model.conformal ? conformalOutputKinds(model.conformal, model.classes) : []) conformal.push({ ...o, feature: await ids.next(uris.collection('feature')) });
    const explanations = model.explains
      ? { neighbours: await ids.next(uris.collection('feature')), neighbourhood: await ids.next(uris.collection('feature')), reason: await ids.next(uris.collection('feature')) }
      : undefined;
    const graphs = modelGraphs({ uri, predicted, confidence, content: this.contentGraph(uri), domain, conformal, explanations }, model);
    await store.replaceGraphs(graphs);
    // kept as load() would read it back (a validation predicts with its model at once)
    const description = modelDescription(graphs[uri], uri);
    await this.remember(storedModel(description, graphs[this.contentGraph(uri)], confidence), description);
    return uri;
  }

  /** This server's models (not harvested copies of others'), optionally only those `owl:sameAs` an endpoint. */
  async list(sameAs?: string, options: ListOptions = {}): Promise<string[]> {
    return (await selectUris(this.services.store, modelQueries.all(sameAs, options))).filter((m) => this.services.uris.isIn('model', m));
  }

  /** The description graph and its record, or undefined when there is no such model. */
  async describe(uri: string): Promise<{ quads: RDF.Quad[]; description: ModelDescription } | undefined> {
    const quads = await readTypedGraph(this.services.store, uri, ot('Model'));
    return quads && { quads, description: modelDescription(quads, uri) };
  }

  async load(uri: string): Promise<StoredModel | undefined> {
    const cached = this.cache.get(uri);
    if (cached) return cached;
    const found = await this.describe(uri);
    if (!found) return undefined;
    const { description } = found;
    const [content, predicted] = await Promise.all([this.services.store.readGraph(this.contentGraph(uri)), readFeatureRecords(this.services.store, description.predictedVariables)]);
    const confidence = [...predicted.values()].find((f) => f.confidenceOf)?.uri ?? '';
    return this.remember(storedModel(description, content, confidence), description);
  }

  /** A model with its linked domains' features, cached (the oldest of CACHE_SIZE dropped). */
  private async remember(model: StoredModel, description: ModelDescription): Promise<StoredModel> {
    for (const other of description.hasDomain.filter((d) => d !== model.uri)) {
      const linked = await this.describe(other);
      const { adMetric, adMembership } = linked?.description ?? {};
      if (adMetric && adMembership) model.linkedDomains.push({ model: other, metric: adMetric, membership: adMembership });
    }
    this.cache.set(model.uri, model);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    return model;
  }

  /** Resources about a model made after it (`rdfs:seeAlso`): a read-across's leave-one-out dataset and validation. */
  async addRelated(uri: string, related: string[]): Promise<void> {
    const found = await this.describe(uri);
    if (!found) return;
    const m = df.namedNode(uri);
    await this.services.store.replaceGraphs({ [uri]: [...found.quads, ...related.map((r) => df.quad(m, rdfs('seeAlso'), df.namedNode(r)))] });
    this.cache.delete(uri);
  }

  async delete(uri: string): Promise<void> {
    this.cache.delete(uri);
    // models linked to a deleted AD model answer without its estimates from now on
    for (const [other, model] of this.cache) if (model.linkedDomains.some((d) => d.model === uri)) this.cache.delete(other);
    await this.services.store.deleteGraphs([uri, this.contentGraph(uri)]);
    // a supermodel's steps (its descriptor dataset, its domain model) stay, listed again
    await releaseParts(this.services.store, uri);
  }
}
