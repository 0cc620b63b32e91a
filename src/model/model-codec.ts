import type * as RDF from '@rdfjs/types';
import type { LearningTask, ParameterSpec, ParamValue } from '../learning/learner.ts';
import { df, ot, rdf, rdfs, dc, owl, literal, xsd } from '../rdf/namespaces.ts';
import { instanceFrom, ONNX_IMPORT_ID, typedValue } from '../algorithm/catalogue.ts';
import type { ColumnEncoding } from '../learning/feature-matrix.ts';
import { featureGraph } from '../feature/feature-record.ts';
import { deflatedChunkQuads, textChunkQuads, textOfChunks } from '../rdf/text-chunks.ts';
import { describeResource, many, optional, required } from '../rdf/resource-description.ts';
import { percent, type ConformalObservation, type ConformalState } from '../learning/conformal.ts';
import { doubleOf, numberOf } from '../rdf/terms.ts';

/** Everything prediction needs, read back from the store. */
export interface StoredModel {
  uri: string;
  title: string;
  algorithm: string;
  learnerId: string;
  /** The dataset it was trained on (an imported model may name none). */
  trainingDataset?: string;
  parameters: Record<string, ParamValue>;
  /**
   * `domain`: an applicability-domain model (spec 2.5), which estimates instead of predicting;
   * `cleanup`: a filtering model (spec 2.4 DataCleanup), which answers a cleaned dataset.
   */
  task: LearningTask | 'domain' | 'cleanup';
  /** Classification: the class values (the learner's class indices point into it). */
  classes: string[];
  independent: string[];
  dependent: string;
  /**
   * The feature holding predictions and the one holding their confidences; for an
   * applicability-domain model, its metric (`ot:adMetric`) and its membership (`ot:adMembership`).
   */
  predicted: string;
  confidence: string;
  encodings: ColumnEncoding[];
  /** The learner's trained state (JSON). */
  state: unknown;
  /**
   * An embedded applicability domain (spec 2.5: the algorithm is also of type
   * ApplicabilityDomain, `ot:hasDomain` is the model itself): the method, its fitted state, and
   * the features of its metric and membership.
   */
  domain?: EmbeddedDomain;
  /** Separate applicability-domain models this model is linked to (`ot:hasDomain`), with their two features each. */
  linkedDomains: { model: string; metric: string; membership: string }[];
  /** A conformal calibration (conformal.ts) and the features its answers fill. */
  conformal?: { state: ConformalState; outputs: ConformalOutput[] };
  /** A learner that explains its predictions (read-across): the features of each prediction's neighbours and of why a row is not predicted. */
  explanations?: ModelExplanations;
}

/** The features of a read-across's explanations: its neighbours (compound, similarity, measured value), their neighbourhood's statistics, and why a row is not predicted. */
export interface ModelExplanations {
  neighbours: string;
  /** Absent on the read-across models of the first days, which had the two others only. */
  neighbourhood?: string;
  reason: string;
}

/** The features a model's explanations fill, in order. */
export function explanationFeatures(e: ModelExplanations | undefined): string[] {
  return e ? [e.neighbours, ...(e.neighbourhood ? [e.neighbourhood] : []), e.reason] : [];
}

/** A feature a conformal model's answers fill: a bound of the interval at a level, a class's p-value, or the set at a level. */
export interface ConformalOutput {
  feature: string;
  kind: 'interval-lower' | 'interval-upper' | 'p-value' | 'prediction-set';
  level?: number;
  /** A p-value's class index (into the model's classes). */
  classIndex?: number;
}

/** The outputs a conformal state makes, in order (their features are minted by the model store): per level both bounds; or per class its p-value, then per level the set. */
export function conformalOutputKinds(state: ConformalState, classes: string[]): Omit<ConformalOutput, 'feature'>[] {
  if (state.task === 'regression')
    return state.levels.flatMap((level) => [
      { kind: 'interval-lower' as const, level },
      { kind: 'interval-upper' as const, level },
    ]);
  return [...classes.map((_, classIndex) => ({ kind: 'p-value' as const, classIndex })), ...state.levels.map((level) => ({ kind: 'prediction-set' as const, level }))];
}

/** A row's conformal answer read from the values of a conformal model's features (undefined when the row has none). */
export function conformalObservation(conformal: StoredModel['conformal'], classes: string[], value: (feature: string) => RDF.Literal | undefined): ConformalObservation | undefined {
  if (!conformal) return undefined;
  const { outputs } = conformal;
  if (conformal.state.task === 'regression') {
    const lower = outputs.filter((o) => o.kind === 'interval-lower').map((o) => doubleOf(value(o.feature)));
    const upper = outputs.filter((o) => o.kind === 'interval-upper').map((o) => doubleOf(value(o.feature)));
    if ([...lower, ...upper].some(Number.isNaN)) return undefined;
    return { intervals: lower.map((l, i): [number, number] => [l, upper[i]]) };
  }
  const pValues = new Map<string, number>();
  for (const o of outputs) {
    const p = o.kind === 'p-value' ? numberOf(value(o.feature)) : Number.NaN;
    if (!Number.isNaN(p)) pValues.set(classes[o.classIndex!], p);
  }
  return pValues.size ? { pValues } : undefined;
}

export interface EmbeddedDomain {
  method: string;
  state: unknown;
  metric: string;
  membership: string;
}

/** The features a model's answers fill: predictions and confidences (or an AD model's metric and membership), then an embedded domain's. */
export function outputFeatures(model: StoredModel): string[] {
  const domains = [...(model.domain ? [model.domain] : []), ...model.linkedDomains];
  return [
    model.predicted,
    model.confidence,
    ...(model.conformal?.outputs.map((o) => o.feature) ?? []),
    ...explanationFeatures(model.explanations),
    ...domains.flatMap((d) => [d.metric, d.membership]),
  ];
}

/** A model that predicts (not an applicability-domain model). */
export type PredictiveModel = StoredModel & { task: LearningTask };

export function isPredictive(model: StoredModel): model is PredictiveModel {
  return model.task === 'regression' || model.task === 'classification';
}

export type NewModel = Omit<StoredModel, 'uri' | 'predicted' | 'confidence' | 'title' | 'domain' | 'linkedDomains' | 'conformal' | 'explanations'> & {
  domain?: Pick<EmbeddedDomain, 'method' | 'state'>;
  /** The learner explains its predictions (Learner.explains): the features of its explanations are minted with the model's. */
  explains?: boolean;
  /** A conformal calibration: its output features are minted with the model's. */
  conformal?: ConformalState;
  /** The URIs of separate AD models to link (`ot:hasDomain`). */
  linkedDomains?: string[];
  /** Resources about the model (`rdfs:seeAlso`). */
  related?: string[];
  title?: string;
  /** How it was made, in words (an imported model's `algorithm_description`). */
  description?: string;
  parameterSpecs: ParameterSpec[];
  targetTitle: string;
  warnings: string[];
  /** The dependent variable's owl:sameAs (its endpoint): the model's and the predicted feature's too. */
  endpoints: string[];
};

/** What a model's description graph says (spec 2.5): the typed record of `{uri}`. */
export interface ModelDescription {
  uri: string;
  title?: string;
  /** How it was made, in words (dc:description: an imported model's). */
  description?: string;
  algorithm: string;
  /** The dataset it was trained on (an imported model may name none). */
  trainingDataset?: string;
  independent: string[];
  dependent: string;
  /** The predicted feature and the confidence feature, in no particular order. */
  predictedVariables: string[];
  endpoints: string[];
  /** Applicability-domain models: the metric and the membership features. */
  adMetric?: string;
  adMembership?: string;
  /** `ot:hasDomain`: the model itself (embedded) and/or separate AD models. */
  hasDomain: string[];
  /** The learner's parameter values the model was trained with (as text, by name). */
  parameters: Record<string, string>;
  /** Resources about the model (`rdfs:seeAlso`): a supermodel's cross-validation, a read-across's leave-one-out dataset and validation. */
  related: string[];
}

/** A model's description graph described once (spec 2.5); its parameters and content are written beside it. */
export const modelDescriptionOf = describeResource([ot('Model')], {
  title: optional('text', dc('title')),
  description: optional('text', dc('description')),
  creator: optional('text', dc('creator')),
  date: optional('date', dc('date')),
  algorithm: required('iri', ot('algorithm')),
  trainingDataset: optional('iri', ot('trainingDataset')),
  independent: many('iri', ot('independentVariables')),
  /** One, or none for a filtering model. */
  dependent: many('iri', ot('dependentVariables')),
  predictedVariables: many('iri', ot('predictedVariables')),
  warnings: many('text', ot('warning')),
  endpoints: many('iri', owl('sameAs')),
  adMetric: optional('iri', ot('adMetric')),
  adMembership: optional('iri', ot('adMembership')),
  hasDomain: many('iri', ot('hasDomain')),
  related: many('iri', rdfs('seeAlso')),
  /** The nodes of its parameters (read by instanceFrom). */
  parameterNodes: many('iri', ot('parameters')),
});

/** The URIs a new model is stored under: its own, and its two predicted features' (none, '', for a filtering model). */
export interface ModelUris {
  uri: string;
  predicted: string;
  confidence: string;
  /** `{uri}/content`: the trained state, in the store's bulk partition. */
  content: string;
  /** An embedded applicability domain's metric and membership features. */
  domain?: { metric: string; membership: string };
  /** A conformal calibration's output features (conformalOutputKinds, with their URIs). */
  conformal?: ConformalOutput[];
  /** An explaining learner's features (NewModel.explains). */
  explanations?: ModelExplanations;
}

/** The graphs of a new model: its description, its content, its predicted and confidence features. */
export function modelGraphs(at: ModelUris, model: NewModel): Record<string, RDF.Quad[]> {
  const m = df.namedNode(at.uri);
  const id = at.uri.split('/').pop();
  const title = model.title ?? `${model.targetTitle} (${model.task} model ${id})`;
  const parameterNode = (name: string) => `${at.uri}#parameter-${encodeURIComponent(name)}`;
  // an embedded domain: ot:hasDomain the model itself, with its own metric and membership (spec 2.5)
  const embedded = model.domain && at.domain ? at.domain : undefined;
  const description: RDF.Quad[] = [
    ...modelDescriptionOf.encode({
      uri: at.uri,
      title,
      description: model.description,
      creator: 'ToxGraph',
      date: new Date(),
      algorithm: model.algorithm,
      trainingDataset: model.trainingDataset,
      independent: model.independent,
      dependent: model.dependent ? [model.dependent] : [],
      predictedVariables: [at.predicted, at.confidence, ...(at.conformal?.map((o) => o.feature) ?? []), ...explanationFeatures(at.explanations)].filter((f) => f),
      warnings: model.warnings,
      endpoints: model.endpoints,
      adMetric: model.task === 'domain' ? at.predicted : embedded?.metric,
      adMembership: model.task === 'domain' ? at.confidence : embedded?.membership,
      hasDomain: [...(model.linkedDomains ?? []), ...(embedded ? [at.uri] : [])],
      related: model.related,
      parameterNodes: model.parameterSpecs.map((spec) => parameterNode(spec.name)),
    }),
    df.quad(m, dc('identifier'), literal(at.uri, xsd('anyURI'))),
  ];
  for (const spec of model.parameterSpecs) {
    const p = df.namedNode(parameterNode(spec.name));
    description.push(
      df.quad(p, rdf('type'), ot('Parameter')),
      df.quad(p, dc('title'), literal(spec.name)),
      df.quad(p, dc('description'), literal(spec.description)),
      df.quad(p, ot('paramScope'), literal('optional')),
      df.quad(p, ot('paramValue'), typedValue(spec, model.parameters[spec.name])),
    );
  }
  let predicted: RDF.Quad[] = [];
  let confidence: RDF.Quad[] = [];
  if (model.task === 'cleanup') {
    // a filtering model makes no features
  } else if (model.task === 'domain') {
    // spec 2.5: the AD model names its metric and membership features (above)
    predicted = featureGraph({ uri: at.predicted, title: `${model.targetTitle} (applicability domain model ${id})`, kind: 'numeric', source: at.uri });
    confidence = featureGraph({ uri: at.confidence, title: `inside the applicability domain of model ${id}`, kind: 'nominal', source: at.uri, accepted: ['true', 'false'] });
  } else {
    predicted = featureGraph({
      uri: at.predicted,
      title: `${model.targetTitle} (predicted by model ${id})`,
      kind: model.task === 'regression' ? 'numeric' : 'nominal',
      source: at.uri,
      sameAs: model.endpoints,
      accepted: model.classes,
    });
    confidence = featureGraph({ uri: at.confidence, title: `${model.targetTitle} confidence (model ${id})`, kind: 'numeric', source: at.uri, confidenceOf: at.predicted });
  }
  const graphs: Record<string, RDF.Quad[]> = model.task === 'cleanup' ? {} : { [at.predicted]: predicted, [at.confidence]: confidence };
  if (embedded) {
    // an embedded domain's features are made by the model
    const { metric, membership } = embedded;
    graphs[metric] = featureGraph({ uri: metric, title: `${model.targetTitle}: applicability-domain metric (model ${id})`, kind: 'numeric', source: at.uri });
    graphs[membership] = featureGraph({ uri: membership, title: `${model.targetTitle}: inside the applicability domain (model ${id})`, kind: 'nominal', source: at.uri, accepted: ['true', 'false'] });
  }
  for (const o of at.conformal ?? []) graphs[o.feature] = conformalFeatureGraph(o, at, model, id);
  if (at.explanations) {
    const { neighbours, neighbourhood, reason } = at.explanations;
    if (neighbourhood) graphs[neighbourhood] = featureGraph({ uri: neighbourhood, title: `${model.targetTitle}: the neighbourhood's statistics (model ${id})`, kind: 'string', source: at.uri });
    graphs[neighbours] = featureGraph({
      uri: neighbours,
      title: `${model.targetTitle}: the source compounds read across (model ${id}): compound (similarity, measured value)`,
      kind: 'string',
      source: at.uri,
    });
    graphs[reason] = featureGraph({ uri: reason, title: `${model.targetTitle}: why not predicted (model ${id})`, kind: 'string', source: at.uri });
  }
  const json = JSON.stringify({
    learner: model.learnerId,
    task: model.task,
    parameters: model.parameters,
    classes: model.classes,
    encodings: model.encodings,
    state: model.state,
    domain: model.domain,
    conformal: model.conformal && at.conformal ? { ...model.conformal, outputs: at.conformal } : undefined,
    explanations: at.explanations,
  });
  // an imported ONNX file (base64) hardly compresses, and deflating holds the thread about 45 ms per MB (1.5 s for 30 MB): kept as it is
  const content = model.learnerId === ONNX_IMPORT_ID ? textChunkQuads(at.uri, ot('modelContent'), json) : deflatedChunkQuads(at.uri, ot('modelContent'), json);
  return { ...graphs, [at.uri]: description, [at.content]: content };
}

/** The graph of a conformal output's feature: what it holds, linked to the predicted feature (ot:conformalOf). */
function conformalFeatureGraph(o: ConformalOutput, at: ModelUris, model: NewModel, id: string | undefined): RDF.Quad[] {
  const method = model.conformal?.method;
  const title =
    o.kind === 'p-value'
      ? `${model.targetTitle}: conformal p-value of class ${model.classes[o.classIndex!]} (model ${id}, ${method})`
      : o.kind === 'prediction-set'
        ? `${model.targetTitle}: ${percent(o.level!)} prediction set (model ${id}, ${method})`
        : `${model.targetTitle}: ${o.kind === 'interval-lower' ? 'lower' : 'upper'} bound of the ${percent(o.level!)} prediction interval (model ${id}, ${method})`;
  return featureGraph({
    uri: o.feature,
    title,
    kind: o.kind,
    source: at.uri,
    conformalOf: at.predicted,
    confidenceLevel: o.level,
    pValueClass: o.kind === 'p-value' ? model.classes[o.classIndex!] : undefined,
  });
}

/** The record of a model's description graph. */
export function modelDescription(quads: RDF.Quad[], uri: string): ModelDescription {
  const d = modelDescriptionOf.decode(quads, uri);
  return {
    uri,
    title: d.title,
    ...(d.description ? { description: d.description } : {}),
    algorithm: d.algorithm ?? '',
    trainingDataset: d.trainingDataset,
    independent: d.independent,
    dependent: d.dependent[0] ?? '',
    predictedVariables: d.predictedVariables,
    endpoints: d.endpoints,
    adMetric: d.adMetric,
    adMembership: d.adMembership,
    hasDomain: d.hasDomain,
    parameters: instanceFrom(quads, uri).values,
    related: d.related,
  };
}

/** A stored model from its description, its content graph and its confidence feature. */
export function storedModel(description: ModelDescription, content: RDF.Quad[], confidence: string): StoredModel {
  const state = JSON.parse(textOfChunks(content));
  return {
    uri: description.uri,
    title: description.title ?? description.uri,
    algorithm: description.algorithm,
    learnerId: state.learner,
    trainingDataset: description.trainingDataset,
    parameters: state.parameters,
    task: state.task,
    classes: state.classes,
    independent: description.independent,
    dependent: description.dependent,
    predicted:
      (state.task === 'domain' ? description.adMetric : undefined) ??
      description.predictedVariables.find((f) => f !== confidence && !state.conformal?.outputs.some((o: ConformalOutput) => o.feature === f) && !explanationFeatures(state.explanations).includes(f)) ??
      '',
    confidence: (state.task === 'domain' ? description.adMembership : undefined) ?? confidence,
    // a mean JSON could not hold (an imported model's, without a training set: NaN) reads back as NaN
    encodings: state.encodings.map((e: ColumnEncoding) => (e.kind === 'numeric' && typeof e.mean !== 'number' ? { ...e, mean: Number.NaN } : e)),
    state: state.state,
    domain: state.domain && description.adMetric && description.adMembership ? { ...state.domain, metric: description.adMetric, membership: description.adMembership } : undefined,
    linkedDomains: [],
    conformal: state.conformal ? { state: withoutOutputs(state.conformal), outputs: state.conformal.outputs } : undefined,
    explanations: state.explanations,
  };
}

function withoutOutputs({ outputs: _, ...state }: ConformalState & { outputs: ConformalOutput[] }): ConformalState {
  return state;
}
