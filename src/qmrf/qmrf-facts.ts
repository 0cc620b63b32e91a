import { ConflictFinder } from '../dataset/conflicting-duplicates.ts';
import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { readFeatureRecords, type FeatureRecord } from '../feature/feature-record.ts';
import type { ModelStore, StoredModel } from '../model/model-store.ts';
import type { ModelDescription } from '../model/model-codec.ts';
import type { Predictor } from '../model/prediction.ts';
import { algorithmById, type AlgorithmDefinition } from '../algorithm/catalogue.ts';
import { resourceTree, type Tree } from '../rdf/resource-tree.ts';
import { ot, rdfs } from '../rdf/namespaces.ts';
import { readTypedGraph, select, selectUris } from '../store/query-helpers.ts';
import { validationQueries } from '../validation/validation-queries.ts';
import { statisticsOf } from '../validation/evaluation.ts';
import { baselineOfRecord, baselineOfStatistics, type Baseline } from '../validation/baseline.ts';
import type { DomainState } from '../learning/applicability-domain.ts';
import { notFound } from '../core/errors.ts';
import { qmrfQueries } from './qmrf-queries.ts';

/**
 * What the service knows about a model that a QMRF reports (chapters 1–7): the model, its
 * algorithm and parameters, its training set and features, its endpoint, its applicability
 * domain, its fit to the training set (predicted here) and the validations that were run on it
 * or on its algorithm with its training set.
 */

export interface ValidationSummary {
  uri: string;
  tree: Tree;
  /** The statistics node (regression or classification) as a tree. */
  statistics: Tree;
  task: 'regression' | 'classification';
  /** What the statistics are read against: the majority class, or the mean predictor, on the same rows. */
  baseline?: Baseline;
  /** A conformal model's coverage and efficiency per level (the `conformalStatistics` nodes as trees). */
  conformal?: Tree[];
}

export interface DomainFacts {
  /** The AD model (a separate one, or the model itself when embedded). */
  model: string;
  method: string;
  title: string;
  description: string;
  state?: DomainState;
  features: string[];
}

export interface ModelFacts {
  model: StoredModel;
  description: ModelDescription;
  tree: Tree;
  algorithm: { uri: string; def?: AlgorithmDefinition };
  /** The learning algorithms: the model's own, or a supermodel's `model_learning` steps. */
  learners: AlgorithmDefinition[];
  dependent: FeatureRecord;
  endpoint?: { term: string; label?: string; group?: string };
  independent: FeatureRecord[];
  /** Algorithms (instances) that calculated the independent variables, by their titles. */
  descriptorSources: string[];
  training: {
    uri: string;
    title?: string;
    rows: number;
    compounds: number;
    withTarget: number;
    features: FeatureRecord[];
    /** Structures whose rows disagree on the dependent variable, with two of their values. */
    conflicts: { compound: string; values: [string, string] }[];
    /** Is the dependent variable a number (its disagreements are replicates that differ, not conflicting classes)? */
    numericTarget: boolean;
  };
  domains: DomainFacts[];
  /** The model's predictions of its own training set, scored (goodness of fit); undefined when they cannot be made. */
  fit?: { statistics: Tree; baseline?: Baseline };
  validations: ValidationSummary[];
  crossvalidations: ValidationSummary[];
}

/** The learners a supermodel records (`model_learning`: space-separated URIs). */
const learnerUris = (recorded: unknown): string[] =>
  String(recorded ?? '')
    .split(/\s+/)
    .filter((u) => u);

export class QmrfFacts {
  private readonly services: Pick<Services, 'uris' | 'store'>;
  private readonly datasets: DatasetStore;
  private readonly models: ModelStore;
  private readonly predictor: Predictor;
  constructor(services: QmrfFacts['services'], datasets: DatasetStore, models: ModelStore, predictor: Predictor) {
    this.services = services;
    this.datasets = datasets;
    this.models = models;
    this.predictor = predictor;
  }

  async of(modelUri: string, attached: string[] = [], parameter = 'model_uri'): Promise<ModelFacts> {
    const described = await this.models.describe(modelUri);
    const model = described && (await this.models.load(modelUri));
    if (!described || !model) throw notFound(`${parameter}: model ${modelUri} not found`);
    const { description } = described;
    const store = this.services.store;
    const records = await readFeatureRecords(
      store,
      [description.dependent, ...description.independent].filter((f) => f),
    );
    const dependent = records.get(description.dependent) ?? { uri: description.dependent, exists: false, numeric: false, nominal: false, accepted: [], sameAs: [] };
    const independent = description.independent.map((f) => records.get(f)!);
    const term = dependent.sameAs[0];
    const [label] = term ? await select(store, qmrfQueries.termLabel(term)) : [];
    const sources = [...new Set(independent.map((f) => f.source).filter((s): s is string => !!s))];
    const sourceTitles = await Promise.all(
      sources.map(async (s) => (this.services.uris.isIn('algorithm', s) ? (resourceTree(await store.readGraph(s), s).title as string | undefined) : undefined) ?? s),
    );
    const id = this.services.uris.idIn('algorithm', description.algorithm);
    return {
      model,
      description,
      tree: resourceTree(described.quads, modelUri, false),
      algorithm: { uri: description.algorithm, def: id ? algorithmById(id) : undefined },
      learners: [...learnerUris(model.parameters.model_learning), description.algorithm]
        .map((u) => algorithmById(this.services.uris.idIn('algorithm', u) ?? ''))
        .filter((d): d is AlgorithmDefinition => d?.kind === 'learner'),
      dependent,
      endpoint: term ? { term, label: label?.label?.value, group: label?.group?.value } : undefined,
      independent,
      descriptorSources: sourceTitles,
      training: await this.trainingFacts(description.trainingDataset, description.dependent),
      domains: await this.domainFacts(model),
      fit: await this.goodnessOfFit(model),
      validations: await this.validations(modelUri, attached),
      crossvalidations: await this.crossvalidations([description.algorithm, ...learnerUris(model.parameters.model_learning)], description.trainingDataset, [
        ...attached,
        // a supermodel's cross-validation of its recipe (rdfs:seeAlso)
        ...described.quads.filter((q) => q.subject.value === modelUri && q.predicate.equals(rdfs('seeAlso'))).map((q) => q.object.value),
      ]),
    };
  }

  /** The training set's rows and features (none for an imported model that names no training dataset: `uri` ''). */
  private async trainingFacts(uri: string | undefined, target: string): Promise<ModelFacts['training']> {
    if (!uri) return { uri: '', rows: 0, compounds: 0, withTarget: 0, features: [], conflicts: [], numericTarget: false };
    const meta = await this.datasets.readMeta(uri);
    if (!meta) return { uri, rows: 0, compounds: 0, withTarget: 0, features: [], conflicts: [], numericTarget: false };
    const compounds = new Set<string>();
    let rows = 0;
    let withTarget = 0;
    const duplicates = new ConflictFinder();
    for await (const r of this.datasets.rows(uri)) {
      rows++;
      compounds.add(r.compound);
      const value = r.values.get(target)?.value.trim();
      if (value) withTarget++;
      if (value) duplicates.observe(r.compound, rows, [[target, value]]);
    }
    const features = [...(await readFeatureRecords(this.services.store, meta.features)).values()];
    const conflicts = new Map<string, [string, string]>();
    for (const c of duplicates.conflicts()) if (!conflicts.has(c.compound)) conflicts.set(c.compound, [c.firstValue, c.value]);
    const numericTarget = features.find((f) => f.uri === target)?.numeric ?? false;
    return { uri, title: meta.title, rows, compounds: compounds.size, withTarget, features, conflicts: [...conflicts].map(([compound, values]) => ({ compound, values })), numericTarget };
  }

  private async domainFacts(model: StoredModel): Promise<DomainFacts[]> {
    const out: DomainFacts[] = [];
    if (model.domain) {
      const def = algorithmById(model.domain.method);
      out.push({
        model: model.uri,
        method: model.domain.method,
        title: def?.title ?? model.domain.method,
        description: def?.description ?? '',
        state: model.domain.state as DomainState,
        features: model.independent,
      });
    }
    for (const linked of model.linkedDomains) {
      const ad = await this.models.load(linked.model);
      if (!ad) continue;
      const id = this.services.uris.idIn('algorithm', ad.algorithm) ?? '';
      const def = algorithmById(id);
      out.push({ model: ad.uri, method: id, title: def?.title ?? id, description: def?.description ?? '', state: ad.state as DomainState, features: ad.independent });
    }
    return out;
  }

  /** Predict the training set with the model and score it (statistics of goodness of fit). */
  private async goodnessOfFit(model: StoredModel): Promise<ModelFacts['fit']> {
    if ((model.task !== 'regression' && model.task !== 'classification') || !model.trainingDataset) return undefined;
    const meta = await this.datasets.readMeta(model.trainingDataset);
    if (!meta) return undefined;
    try {
      const rows = await this.datasets.allRows(meta.uri);
      const plan = await this.predictor.planInputs(model, meta.features);
      const predictions = await this.predictor.predict(model, rows, plan);
      const pairs = rows.map((r, i) => {
        const own = new Map(predictions[i]);
        return { actual: r.values.get(model.dependent), predicted: own.get(model.predicted), confidence: own.get(model.confidence) };
      });
      const scored = statisticsOf(pairs, model.task, model.classes);
      return { statistics: scored.values as unknown as Tree, baseline: baselineOfRecord(scored) };
    } catch {
      return undefined;
    }
  }

  private async summary(uri: string, kind: 'Validation' | 'Crossvalidation'): Promise<ValidationSummary | undefined> {
    const quads = await readTypedGraph(this.services.store, uri, ot(kind));
    if (!quads) return undefined;
    const tree = resourceTree(quads, uri, false);
    const statisticsUri = kind === 'Crossvalidation' ? this.services.uris.subgraph(uri, 'statistics') : uri;
    const scored = kind === 'Crossvalidation' ? resourceTree(await this.services.store.readGraph(statisticsUri), statisticsUri, false) : tree;
    const statistics = (scored.regressionStatistics ?? scored.classificationStatistics) as Tree | undefined;
    if (!statistics) return undefined;
    for (const k of ['numInstances', 'numUnpredicted']) if (typeof scored[k] === 'number') statistics[k] = scored[k];
    const task = scored.classificationStatistics ? 'classification' : 'regression';
    return { uri, tree, statistics, task, baseline: baselineOfStatistics(statistics, task, scored), conformal: scored.conformalStatistics as Tree[] | undefined };
  }

  /**
   * A validation or cross-validation to attach to a QMRF of `model`, and whether it is about that
   * model: a validation of the model itself, of its algorithm on its training set or on a sample
   * of it (bootstrapping), or a cross-validation of its algorithm on its training set.
   */
  async validationOf(uri: string, model: string): Promise<(ValidationSummary & { ofModel: boolean }) | undefined> {
    const described = await this.models.describe(model);
    const isCrossvalidation = !!(await readTypedGraph(this.services.store, uri, ot('Crossvalidation')));
    const summary = await this.summary(uri, isCrossvalidation ? 'Crossvalidation' : 'Validation');
    if (!summary || !described) return summary && { ...summary, ofModel: false };
    const { algorithm, trainingDataset } = described.description;
    const t = summary.tree;
    let ofModel: boolean;
    if (t.model === model) ofModel = true;
    // a model with no training set here (an imported one) has no recipe: only its own validations are of it
    else if (!trainingDataset) ofModel = false;
    else if (isCrossvalidation) ofModel = t.algorithm === algorithm && t.dataset === trainingDataset;
    else {
      const training = typeof t.trainingDataset === 'string' ? await this.datasets.readMeta(t.trainingDataset) : undefined;
      const source = training?.quads.find((q) => q.subject.value === training.uri && q.predicate.equals(ot('hasSource')))?.object.value;
      ofModel = t.algorithm === algorithm && (t.trainingDataset === trainingDataset || source === trainingDataset);
    }
    return { ...summary, ofModel };
  }

  /** Validations of the model itself, and attached ones. */
  private async validations(model: string, attached: string[]): Promise<ValidationSummary[]> {
    const uris = [...new Set([...(await selectUris(this.services.store, validationQueries.validations({ model }))).filter((v) => this.services.uris.isIn('validation', v)), ...attached])];
    return (await Promise.all(uris.map((u) => this.summary(u, 'Validation')))).filter((v): v is ValidationSummary => !!v);
  }

  /** Cross-validations of the model's algorithm (or its learners) on its training set, and attached ones. */
  private async crossvalidations(algorithms: string[], dataset: string | undefined, attached: string[]): Promise<ValidationSummary[]> {
    // a model with no training dataset here (an imported one) has no recipe to cross-validate
    const found = dataset ? await Promise.all(algorithms.map((algorithm) => selectUris(this.services.store, validationQueries.crossvalidations({ algorithm, dataset })))) : [];
    const uris = [...new Set([...found.flat(), ...attached])];
    return (await Promise.all(uris.map((u) => this.summary(u, 'Crossvalidation')))).filter((v): v is ValidationSummary => !!v);
  }
}
