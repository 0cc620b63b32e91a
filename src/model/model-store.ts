import { propertyValues } from '../rdf/graph-values.js';
import type * as RDF from '@rdfjs/types';
import type { LearningTask, ParameterSpec, ParamValue } from '../learning/learner.js';
import { df, ot, rdf, dc, owl, literal, xsd } from '../rdf/namespaces.js';
import { listTypedGraphs, readTypedGraph } from '../store/query-helpers.js';
import type { Services } from '../core/services.js';
import { typedValue } from '../algorithm/catalogue.js';
import type { ColumnEncoding } from './feature-matrix.js';

/** Everything prediction needs, read back from the store. */
export interface StoredModel {
  uri: string;
  title: string;
  algorithm: string;
  learnerId: string;
  trainingDataset: string;
  parameters: Record<string, ParamValue>;
  task: LearningTask;
  /** Classification: the class values (the learner's class indices point into it). */
  classes: string[];
  independent: string[];
  dependent: string;
  /** The feature holding predictions, and the one holding their confidences. */
  predicted: string;
  confidence: string;
  encodings: ColumnEncoding[];
  /** The learner's trained state (JSON). */
  state: unknown;
}

export type NewModel = Omit<StoredModel, 'uri' | 'predicted' | 'confidence' | 'title'> & {
  title?: string;
  parameterSpecs: ParameterSpec[];
  targetTitle: string;
  warnings: string[];
  /** The dependent variable's owl:sameAs (its endpoint): the model's and the predicted feature's too. */
  endpoints: string[];
};

/**
 * Characters per literal of the content graph (the trained state is split into chunks). Small,
 * because a literal is part of the store's index keys, and LevelDB keeps the first and last key
 * of every table file in memory for as long as the file exists: with chunks of 256k characters a
 * store kept about 10 MiB more per cross-validation of random forests, for good.
 */
const CHUNK_CHARS = 4096;
const CACHE_SIZE = 8;

/**
 * Models (spec 2.5, 4.11). `{uri}` holds the description (algorithm, training dataset and
 * parameters, independent, dependent and predicted variables); `{uri}/content` holds what
 * prediction needs (encodings, classes, the learner's state) as JSON split into literals, in
 * the store's bulk partition. A model, its content and its two predicted features are written
 * in one batch; models are immutable, so parsed models are cached.
 */
export class ModelStore {
  readonly collection: string;
  private readonly cache = new Map<string, StoredModel>();

  constructor(private readonly services: Services) {
    this.collection = services.uris.collection('model');
  }

  contentGraph(uri: string): string {
    return this.services.uris.subgraph(uri, 'content');
  }

  async create(model: NewModel): Promise<string> {
    const { ids, uris, store } = this.services;
    const uri = await ids.next(this.collection);
    const predicted = await ids.next(uris.collection('feature'));
    const confidence = await ids.next(uris.collection('feature'));
    const m = df.namedNode(uri);
    const title = model.title ?? `${model.targetTitle} (${model.task} model ${uri.split('/').pop()})`;
    const quads: RDF.Quad[] = [
      df.quad(m, rdf('type'), ot('Model')),
      df.quad(m, dc('identifier'), literal(uri, xsd('anyURI'))),
      df.quad(m, dc('title'), literal(title)),
      df.quad(m, dc('creator'), literal('ToxGraph')),
      df.quad(m, dc('date'), literal(new Date())),
      df.quad(m, ot('algorithm'), df.namedNode(model.algorithm)),
      df.quad(m, ot('trainingDataset'), df.namedNode(model.trainingDataset)),
      ...model.independent.map((f) => df.quad(m, ot('independentVariables'), df.namedNode(f))),
      df.quad(m, ot('dependentVariables'), df.namedNode(model.dependent)),
      df.quad(m, ot('predictedVariables'), df.namedNode(predicted)),
      df.quad(m, ot('predictedVariables'), df.namedNode(confidence)),
      ...model.warnings.map((w) => df.quad(m, ot('warning'), literal(w))),
      ...model.endpoints.map((e) => df.quad(m, owl('sameAs'), df.namedNode(e))),
    ];
    for (const spec of model.parameterSpecs) {
      const p = df.namedNode(`${uri}#parameter-${encodeURIComponent(spec.name)}`);
      quads.push(
        df.quad(m, ot('parameters'), p),
        df.quad(p, rdf('type'), ot('Parameter')),
        df.quad(p, dc('title'), literal(spec.name)),
        df.quad(p, dc('description'), literal(spec.description)),
        df.quad(p, ot('paramScope'), literal('optional')),
        df.quad(p, ot('paramValue'), typedValue(spec, model.parameters[spec.name])),
      );
    }
    const p = df.namedNode(predicted);
    const predictedQuads = [
      df.quad(p, rdf('type'), ot('Feature')),
      df.quad(p, rdf('type'), model.task === 'regression' ? ot('NumericFeature') : ot('NominalFeature')),
      df.quad(p, dc('title'), literal(`${model.targetTitle} (predicted by model ${uri.split('/').pop()})`)),
      df.quad(p, ot('units'), literal('')),
      df.quad(p, ot('hasSource'), m),
      ...model.endpoints.map((e) => df.quad(p, owl('sameAs'), df.namedNode(e))),
      ...model.classes.map((c) => df.quad(p, ot('acceptValue'), literal(c))),
    ];
    const c = df.namedNode(confidence);
    const confidenceQuads = [
      df.quad(c, rdf('type'), ot('Feature')),
      df.quad(c, rdf('type'), ot('NumericFeature')),
      df.quad(c, dc('title'), literal(`${model.targetTitle} confidence (model ${uri.split('/').pop()})`)),
      df.quad(c, ot('units'), literal('')),
      df.quad(c, ot('hasSource'), m),
      df.quad(c, ot('confidenceOf'), p),
    ];
    const content = JSON.stringify({ learner: model.learnerId, task: model.task, parameters: model.parameters, classes: model.classes, encodings: model.encodings, state: model.state });
    const chunks = contentChunks(content, CHUNK_CHARS).map((text, k) => df.quad(df.namedNode(`${uri}#content-${String(k + 1).padStart(7, '0')}`), ot('modelContent'), literal(text)));
    await store.replaceGraphs({ [uri]: quads, [this.contentGraph(uri)]: chunks, [predicted]: predictedQuads, [confidence]: confidenceQuads });
    return uri;
  }

  list(sameAs?: string): Promise<string[]> {
    return listTypedGraphs(this.services.store, ot('Model'), [[owl('sameAs'), sameAs]]);
  }

  /** The description graph, or undefined when there is no such model. */
  readDescription(uri: string): Promise<RDF.Quad[] | undefined> {
    return readTypedGraph(this.services.store, uri, ot('Model'));
  }

  async load(uri: string): Promise<StoredModel | undefined> {
    const cached = this.cache.get(uri);
    if (cached) return cached;
    const quads = await this.readDescription(uri);
    if (!quads) return undefined;
    const own = quads.filter((q) => q.subject.value === uri);
    const values = (p: RDF.NamedNode) => propertyValues(own, uri, p);
    const chunks = (await this.services.store.readGraph(this.contentGraph(uri))).sort((a, b) => chunkNumber(a) - chunkNumber(b));
    const content = JSON.parse(chunks.map((q) => q.object.value).join(''));
    const predictedVariables = values(ot('predictedVariables'));
    const features = await Promise.all(predictedVariables.map(async (f) => ({ f, quads: await this.services.store.readGraph(f) })));
    const confidence = features.find((x) => x.quads.some((q) => q.predicate.equals(ot('confidenceOf'))))?.f ?? '';
    const model: StoredModel = {
      uri,
      title: values(dc('title'))[0] ?? uri,
      algorithm: values(ot('algorithm'))[0],
      learnerId: content.learner,
      trainingDataset: values(ot('trainingDataset'))[0],
      parameters: content.parameters,
      task: content.task,
      classes: content.classes,
      independent: values(ot('independentVariables')),
      dependent: values(ot('dependentVariables'))[0],
      predicted: predictedVariables.find((f) => f !== confidence) ?? '',
      confidence,
      encodings: content.encodings,
      state: content.state,
    };
    this.cache.set(uri, model);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
    return model;
  }

  async delete(uri: string): Promise<void> {
    this.cache.delete(uri);
    await this.services.store.deleteGraphs([uri, this.contentGraph(uri)]);
  }
}

/** `text` in pieces of at most `size` characters (one more where a surrogate pair would be cut). */
export function contentChunks(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + size);
    // never between the two halves of a surrogate pair: each literal must be valid text
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    chunks.push(text.slice(i, end));
    i = end;
  }
  return chunks;
}

/** The position of a content chunk (`…#content-0000042`); models stored before 2026-11 used six digits. */
function chunkNumber(q: RDF.Quad): number {
  return Number(q.subject.value.slice(q.subject.value.lastIndexOf('-') + 1));
}
