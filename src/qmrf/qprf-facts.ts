import type * as RDF from '@rdfjs/types';
import { badRequest, notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { CompoundRegistry } from '../compound/compound-registry.ts';
import type { StoredStructure } from '../compound/compound-codec.ts';
import { FeatureValues } from '../compound/feature-values.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { DescriptorCalculation } from '../algorithm/descriptor-calculation.ts';
import type { ModelStore, StoredModel } from '../model/model-store.ts';
import { conformalObservation } from '../model/model-codec.ts';
import type { ConformalObservation } from '../learning/conformal.ts';
import type { Predictor, PredictionRow } from '../model/prediction.ts';
import { numberOf } from '../rdf/terms.ts';
import { readFeatureRecords, type FeatureRecord } from '../feature/feature-record.ts';
import { ot } from '../rdf/namespaces.ts';
import type { StandardisationOptions } from '../chemistry/standardisation.ts';
import { standardisationOf } from '../model/standardisation-record.ts';
import { domainLimit, type DomainLimit } from './prediction-reading.ts';
import { outOfFoldPredictions, type NeighbourPredictionSource } from './out-of-fold.ts';

const SIMILARITY_MODULE = new URL('../chemistry/similarity.ts', import.meta.url).href;
/** How many of the most similar training compounds a QPRF shows. */
const NEIGHBOURS = 5;

export interface PredictedRow {
  value?: RDF.Literal;
  confidence?: RDF.Literal;
  /** Each applicability domain's metric and membership (embedded or linked), with its model. */
  domains: { model: string; metric?: number; inside?: boolean; limit?: DomainLimit }[];
  /** A conformal model's interval (per level) or class p-values for the row. */
  conformal?: ConformalObservation;
}

export interface Neighbour {
  compound: StoredStructure;
  similarity: number;
  measured?: string;
  /** Its out-of-fold prediction (by a model that did not see it), never the model's own re-prediction. */
  predicted?: string;
}

/** What a QPRF reports about one prediction: the substance, the model, the prediction, its domain and its nearest training compounds. */
export interface PredictionFacts {
  compound: StoredStructure;
  model: StoredModel;
  /** Where the prediction comes from: made now, or a row of a prediction dataset. */
  source: { kind: 'made' } | { kind: 'dataset'; uri: string };
  prediction: PredictedRow;
  neighbours: Neighbour[];
  /** The model's structure standardisation (standardisation-record.ts): the compound was predicted from this parent, and its neighbours found by it. */
  standardisation?: { options: StandardisationOptions; parent: string };
  /** Where the neighbours' predicted values come from (out of fold), or why there are none. */
  neighbourPredictions: NeighbourPredictionSource;
  trainingRows: number;
  /** The dependent variable: its title, units, endpoint term, species and test guideline as the upload gave them. */
  endpoint?: FeatureRecord;
}

export class QprfFacts {
  private readonly services: Pick<Services, 'uris' | 'store' | 'workers' | 'config'>;
  private readonly compounds: CompoundRegistry;
  private readonly datasets: DatasetStore;
  private readonly models: ModelStore;
  private readonly predictor: Predictor;
  private readonly descriptors: DescriptorCalculation;
  constructor(services: QprfFacts['services'], compounds: CompoundRegistry, datasets: DatasetStore, models: ModelStore, predictor: Predictor, descriptors: DescriptorCalculation) {
    this.services = services;
    this.compounds = compounds;
    this.datasets = datasets;
    this.models = models;
    this.predictor = predictor;
    this.descriptors = descriptors;
  }

  /** Check a request at once: the compound, and the model or the prediction dataset (404/400 naming the parameter). */
  async check(request: { modelUri?: string; datasetUri?: string; compoundUri: string }): Promise<{ model: StoredModel; compound: StoredStructure; dataset?: string }> {
    const compound = this.compounds.isCompoundUri(request.compoundUri) ? await this.compounds.read(request.compoundUri) : undefined;
    if (!compound) throw notFound(`compound_uri: compound ${request.compoundUri} not found`);
    let modelUri = request.modelUri;
    if (request.datasetUri) {
      const meta = await this.datasets.requireMeta(request.datasetUri, 'dataset_uri');
      const source = meta.annotations.find(([p]) => p.equals(ot('hasSource')))?.[1].value;
      if (!source || !this.services.uris.isIn('model', source)) throw badRequest(`dataset_uri: ${meta.uri} is not a prediction dataset (its ot:hasSource is not a model)`);
      if (modelUri && modelUri !== source) throw badRequest(`model_uri: the predictions of dataset ${meta.uri} are by ${source}, not ${modelUri}`);
      modelUri = source;
    }
    if (!modelUri) throw badRequest('missing required parameter model_uri (or dataset_uri of a prediction dataset)');
    const model = await this.models.load(modelUri);
    if (!model) throw notFound(`model_uri: model ${modelUri} not found`);
    if (model.task !== 'regression' && model.task !== 'classification') throw badRequest(`model_uri: ${modelUri} does not predict (it is an applicability-domain or filtering model)`);
    return { model, compound, dataset: request.datasetUri };
  }

  async of(checked: { model: StoredModel; compound: StoredStructure; dataset?: string }, signal?: AbortSignal): Promise<PredictionFacts> {
    const { model, compound } = checked;
    const predicted = checked.dataset ? await this.fromDataset(model, checked.dataset, compound.uri) : (await this.predict(model, [compound.uri]))[0];
    // each domain's metric with the limit it is judged against (the model's own state, or its linked AD model's)
    const domains = await Promise.all(predicted.domains.map(async (d) => ({ ...d, limit: domainLimit(d.model === model.uri ? model.domain?.state : (await this.models.load(d.model))?.state) })));
    const prediction = { ...predicted, domains };
    // the most similar training compounds, with their measured and out-of-fold predicted values
    // an imported model may name no training dataset: then no neighbours
    const rows = model.trainingDataset ? await this.datasets.allRows(model.trainingDataset) : [];
    const trainingCompounds = [...new Set(rows.map((r) => r.compound))];
    const smiles = await this.descriptors.smilesOf(trainingCompounds);
    // a model that standardises reads the compound's parent: its neighbours are the parent's
    const options = standardisationOf(model);
    const parent = options ? ((await this.predictor.structuresFor(model, [compound.uri], signal))[0] ?? compound.smiles) : compound.smiles;
    const nearest = await this.services.workers.run<{ index: number; similarity: number }[]>(SIMILARITY_MODULE, 'nearestNeighbours', [parent, smiles.map((s) => s ?? ''), NEIGHBOURS], signal);
    const standardisation = options && { options, parent };
    const chosen = nearest.map((n) => trainingCompounds[n.index]);
    // out of fold: the model's own re-predictions of its training rows would agree by construction
    const outOfFold = await outOfFoldPredictions({ services: this.services, datasets: this.datasets, models: this.models }, model, chosen, rows, signal);
    const neighbours: Neighbour[] = [];
    const structures = await this.compounds.readAll(chosen);
    for (const [k, n] of nearest.entries()) {
      const structure = structures.get(chosen[k]);
      if (!structure) continue;
      const measured = rows.find((r) => r.compound === chosen[k])?.values.get(model.dependent)?.value;
      neighbours.push({ compound: structure, similarity: n.similarity, measured, predicted: outOfFold.values.get(chosen[k]) });
    }
    const endpoint = (await readFeatureRecords(this.services.store, [model.dependent])).get(model.dependent);
    return {
      compound,
      model,
      source: checked.dataset ? { kind: 'dataset', uri: checked.dataset } : { kind: 'made' },
      prediction,
      neighbours,
      standardisation,
      neighbourPredictions: outOfFold.source,
      trainingRows: rows.length,
      endpoint,
    };
  }

  /** Predict compounds with the model (their own feature values, descriptors calculated as needed). */
  private async predict(model: StoredModel, compounds: string[]): Promise<PredictedRow[]> {
    // no neighbours (an imported model without a training set): nothing to plan inputs for
    if (!compounds.length) return [];
    const values = new FeatureValues(this.services.store, this.services.uris);
    const rows: PredictionRow[] = [];
    for (const c of compounds) rows.push({ compound: c, values: new Map((await values.read(c, model.independent)).map((v) => [v.feature, v.value])) });
    const plan = await this.predictor.planInputs(model, [...new Set(rows.flatMap((r) => [...r.values.keys()]))]);
    const predictions = await this.predictor.predict(model, rows, plan);
    return predictions.map((p) => this.rowOf(model, new Map(p)));
  }

  private async fromDataset(model: StoredModel, dataset: string, compound: string): Promise<PredictedRow> {
    for await (const r of this.datasets.rows(dataset)) if (r.compound === compound) return this.rowOf(model, r.values);
    throw badRequest(`compound_uri: dataset ${dataset} has no prediction of ${compound}`);
  }

  private rowOf(model: StoredModel, values: Map<string, RDF.Literal>): PredictedRow {
    const domains = [...(model.domain ? [{ ...model.domain, model: model.uri }] : []), ...model.linkedDomains].map((d) => {
      const metric = numberOf(values.get(d.metric));
      const inside = values.get(d.membership)?.value;
      return { model: d.model, metric: Number.isFinite(metric) ? metric : undefined, inside: inside === undefined ? undefined : inside === 'true' };
    });
    return { value: values.get(model.predicted), confidence: values.get(model.confidence), domains, conformal: conformalObservation(model.conformal, model.classes, (f) => values.get(f)) };
  }
}
