import { badRequest, notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { DescriptorCalculation } from '../algorithm/descriptor-calculation.ts';
import { descriptorValues } from './descriptor-values.ts';
import type { AnalogueSearch } from './analogue-search.ts';
import { buildCategory, type CategoryRequest } from './category-builder.ts';
import type { Category } from './category-codec.ts';
import { CategoryStore } from './category-store.ts';
import { dataMatrix, MATRIX_DESCRIPTORS, type CollapseRule, type DataMatrix, type MatrixDescriptors } from './data-matrix.ts';
import { fillGaps, type GapFilling, type QsarAnswer } from './gap-filling.ts';
import type { ModelStore } from '../model/model-store.ts';
import type { Predictor } from '../model/prediction.ts';
import { isPredictive } from '../model/model-codec.ts';
import { select } from '../store/query-helpers.ts';
import { readAcrossQueries } from './read-across-queries.ts';

/** The most QSAR models one gap filling applies per endpoint. */
const MAX_QSAR_MODELS = 10;

/** Categories for read-across (issue 56): made around a target, read, listed, deleted; and their data matrices. */
export class Categories {
  private readonly services: Pick<Services, 'store' | 'uris' | 'ids'>;
  private readonly search: AnalogueSearch;
  private readonly descriptors: DescriptorCalculation;
  private readonly models: { store: ModelStore; predictor: Predictor };
  readonly store: CategoryStore;
  constructor(services: Categories['services'], search: AnalogueSearch, descriptors: DescriptorCalculation, models: Categories['models']) {
    this.services = services;
    this.search = search;
    this.descriptors = descriptors;
    this.models = models;
    this.store = new CategoryStore(services);
  }

  /** A new category (400/404 naming what is wrong before anything is written); answers its URI. */
  async create(request: Omit<CategoryRequest, 'parent'> & { parent?: string }): Promise<string> {
    const parent = request.parent === undefined ? undefined : await this.store.read(request.parent);
    if (request.parent !== undefined && !parent) throw notFound(`parent: category ${request.parent} not found`);
    if (parent && !request.canRead(parent.uri)) throw notFound(`parent: category ${request.parent} not found`);
    if (!request.endpoints.length) throw badRequest('missing required parameter endpoint (a feature URI or an ontology term)');
    return this.store.create(await buildCategory(this.search, { ...request, parent }));
  }

  /** A compound's profile (the profiler component's, through the analogue search). */
  profileOf(compound: string) {
    return this.search.profileOf(compound);
  }

  async require(uri: string): Promise<Category> {
    const found = await this.store.read(uri);
    if (!found) throw notFound(`category ${uri} not found`);
    return found;
  }

  async delete(uri: string): Promise<void> {
    await this.require(uri);
    await this.store.delete(uri);
  }

  /** The categories the caller may read; with `parent`, the subcategories of that one. */
  async list(canRead: (uri: string) => boolean, parent?: string): Promise<string[]> {
    return (await this.store.list()).filter((c) => canRead(c.uri) && (parent === undefined || c.parent === parent)).map((c) => c.uri);
  }

  matrix(category: Category, collapse: CollapseRule, canRead: (uri: string) => boolean, removed: { compound: string; dataset: string }[] = []): Promise<DataMatrix> {
    return dataMatrix(this.services, this.search, this.describeAsFeatures, (c) => this.descriptors.smilesOf(c), category, collapse, canRead, removed);
  }

  /** The target's data gaps filled side by side (gap-filling.ts), the trend on `descriptor` (an RDKit descriptor of the matrix). */
  gapFilling(category: Category, descriptor: string, canRead: (uri: string) => boolean, removed: { compound: string; dataset: string }[] = []): Promise<GapFilling> {
    return fillGaps({ search: this.search, describe: this.describe, qsar: (endpoint, features, target) => this.qsar(endpoint, features, target, canRead) }, category, descriptor, canRead, removed);
  }

  /** Every QSAR model of the endpoint (of its features, or owl:sameAs its term) the caller may read, applied to the target. */
  private async qsar(endpoint: string, features: string[], target: string, canRead: (uri: string) => boolean): Promise<QsarAnswer[]> {
    const { uris, store } = this.services;
    const ofFeatures = features.length ? (await select(store, readAcrossQueries.modelsOf(features))).map((r) => r.m.value) : [];
    const ofTerm = uris.isIn('feature', endpoint) ? [] : await this.models.store.list(endpoint);
    const found = [...new Set([...ofFeatures, ...ofTerm])].filter((m) => uris.isIn('model', m) && canRead(m)).slice(0, MAX_QSAR_MODELS);
    const answers: QsarAnswer[] = [];
    for (const uri of found) {
      const model = await this.models.store.load(uri);
      if (!model || !isPredictive(model)) continue;
      try {
        const plan = await this.models.predictor.planInputs(model, []);
        const [values] = await this.models.predictor.predict(model, [{ compound: target, values: new Map() }], plan);
        const answer = new Map(values.map(([f, v]) => [f, v.value]));
        const value = answer.get(model.predicted);
        const inside = model.domain ? answer.get(model.domain.membership) : undefined;
        answers.push({
          model: uri,
          title: model.title,
          value,
          ...(inside === undefined ? {} : { inside: inside === 'true' }),
          ...(value === undefined ? { reason: (model.explanations && answer.get(model.explanations.reason)) || 'not predicted: the model cannot read this structure' } : {}),
        });
      } catch (e) {
        answers.push({ model: uri, title: model.title, reason: (e as Error).message });
      }
    }
    return answers;
  }

  /** log P and molecular weight (RDKit, on the worker pool), as a descriptor calculation of this service (its features). */
  private readonly describe: MatrixDescriptors = (compounds) =>
    this.search.describe(
      MATRIX_DESCRIPTORS.map((d) => d.name),
      compounds,
    );

  /** The same as features of the service's descriptor calculation (a matrix's columns name them). */
  private readonly describeAsFeatures: MatrixDescriptors = (compounds) =>
    descriptorValues(this.descriptors, true)(
      MATRIX_DESCRIPTORS.map((d) => d.name),
      compounds,
    );
}
