import type * as RDF from '@rdfjs/types';
import { df, dc, ot, literal } from '../rdf/namespaces.ts';
import { badRequest, notFound } from '../core/errors.ts';
import type { ParamValue } from '../learning/learner.ts';
import type { Services } from '../core/services.ts';
import type { DatasetMeta, DatasetRow, DatasetStore } from '../dataset/dataset-store.ts';
import type { ModelStore, StoredModel } from '../model/model-store.ts';
import { isPredictive, type PredictiveModel } from '../model/model-codec.ts';
import { createPredictionDataset, type PredictedValues, type Predictor } from '../model/prediction.ts';
import { planTraining, trainModel } from '../model/training.ts';
import { algorithmById, type AlgorithmDefinition } from '../algorithm/catalogue.ts';
import { checkParameters } from '../algorithm/parameters.ts';
import { pairValues, statisticsOf, type PairedValue } from './evaluation.ts';
import { permutation } from './splits.ts';
import type { ValidationRecord } from './validation-record.ts';
import type { ValidationStore } from './validation-store.ts';
import { timePhase } from '../core/phase-times.ts';

export type LearnerDefinition = Extract<AlgorithmDefinition, { kind: 'learner' }>;

/** An algorithm to validate: the learner, its parameter values, and y-scrambling. */
export interface LearningSetup {
  algorithmUri: string;
  def: LearnerDefinition;
  parameters: Record<string, ParamValue>;
  /** `algorithm_params` as given (recorded in the validation). */
  parametersText: string;
  predictionFeature: string;
  /** Permute the training targets before learning, with this seed. */
  yScrambleSeed?: number;
}

export interface Job {
  signal?: AbortSignal;
  /** The share done, and what is being done in words. */
  progress?: (fraction: number, stage?: string) => void;
}

/** The learner behind an algorithm URI of this service (404 when there is none, 400 when it does not learn). */
export function learnerOf(services: Pick<Services, 'uris'>, algorithmUri: string): LearnerDefinition {
  const id = services.uris.idIn('algorithm', algorithmUri);
  const def = id === undefined ? undefined : algorithmById(id);
  if (!def) throw notFound(`algorithm_uri: algorithm ${algorithmUri} not found`);
  if (def.kind !== 'learner') throw badRequest(`algorithm_uri: ${algorithmUri} is not a supervised learning algorithm`);
  return def;
}

/** `algorithm_params`: `name=value;name2=value2` (or `&`-separated, URL-encoded), checked against the learner. */
export function parseAlgorithmParams(def: LearnerDefinition, text: string): Record<string, ParamValue> {
  const given: Record<string, string> = {};
  for (const part of text.split(/[;&]/)) {
    if (!part.trim()) continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw badRequest(`algorithm_params: "${part.slice(0, 60)}" is not name=value`);
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, ' ')).trim();
      } catch {
        throw badRequest(`algorithm_params: "${part.slice(0, 60)}" is not properly URL-encoded`);
      }
    };
    given[decode(part.slice(0, eq))] = decode(part.slice(eq + 1));
  }
  try {
    return checkParameters(def.parameters, given);
  } catch (e) {
    if (e instanceof Error) throw badRequest(`algorithm_params: ${e.message}`);
    throw e;
  }
}

/**
 * Runs validations (spec 4.1, 4.2): trains on a training set, predicts a test set into a
 * prediction dataset, and compares the predictions with the actual values. Training and test
 * sets made by splitting are real datasets, so every step can be inspected.
 */
export class ValidationRunner {
  private readonly services: Pick<Services, 'config' | 'uris' | 'store' | 'workers'>;
  readonly datasets: DatasetStore;
  private readonly models: ModelStore;
  private readonly predictor: Predictor;
  readonly validations: ValidationStore;
  constructor(services: ValidationRunner['services'], datasets: DatasetStore, models: ModelStore, predictor: Predictor, validations: ValidationStore) {
    this.services = services;
    this.datasets = datasets;
    this.models = models;
    this.predictor = predictor;
    this.validations = validations;
  }

  requireDataset(uri: string, parameter: string): Promise<DatasetMeta> {
    return this.datasets.requireMeta(uri, parameter);
  }

  async requireModel(uri: string): Promise<PredictiveModel> {
    const model = uri.startsWith(`${this.models.collection}/`) ? await this.models.load(uri) : undefined;
    if (!model) throw notFound(`model_uri: model ${uri} not found`);
    if (!isPredictive(model)) throw badRequest(`model_uri: ${uri} is an applicability-domain model: it makes no predictions to validate`);
    return model;
  }

  /** A new dataset of some rows of `source` (with the targets permuted when y-scrambling). */
  async subset(source: DatasetMeta, rows: DatasetRow[], indices: number[], title: string, scramble?: { feature: string; seed: number }): Promise<string> {
    // rows as they are: a selection of the source's, by reference
    if (!scramble)
      return this.datasets.createSelection(
        source,
        indices.map((i) => rows[i]),
        [
          [dc('title'), literal(title)],
          [ot('hasSource'), df.namedNode(source.uri)],
        ],
      );
    const picked = indices.map((i) => new Map(rows[i].values));
    if (scramble) {
      const withTarget = picked.map((v, i) => (v.has(scramble.feature) ? i : -1)).filter((i) => i >= 0);
      const values = withTarget.map((i) => picked[i].get(scramble.feature)!);
      permutation(values.length, scramble.seed).forEach((from, k) => picked[withTarget[k]].set(scramble.feature, values[from]));
    }
    const annotations: [RDF.NamedNode, RDF.Term][] = [
      [dc('title'), literal(title)],
      [ot('hasSource'), df.namedNode(source.uri)],
    ];
    return this.datasets.createFromRows(
      annotations,
      source.features,
      indices.map((i, k) => ({ compound: rows[i].compound, values: source.features.filter((f) => picked[k].has(f)).map((f) => [f, picked[k].get(f)!] as [string, RDF.Literal]) })),
    );
  }

  /** Check a training set before queueing work (dataset, prediction feature, learner fit). */
  async checkTraining(setup: LearningSetup, datasetUri: string): Promise<void> {
    await planTraining(this.services, this.datasets, {
      algorithmUri: setup.algorithmUri,
      learner: setup.def.learner,
      parameters: setup.parameters,
      datasetUri,
      predictionFeature: setup.predictionFeature,
    });
  }

  /** Train on a dataset (its rows given when the caller holds them: not read again, unless y-scrambled). */
  async train(setup: LearningSetup, trainingDataset: string, job: Job = {}, rows?: DatasetRow[]): Promise<string> {
    let dataset = trainingDataset;
    if (setup.yScrambleSeed !== undefined) {
      const meta = await this.requireDataset(trainingDataset, 'training_dataset_uri');
      const rows = await this.datasets.allRows(meta.uri);
      dataset = await this.subset(
        meta,
        rows,
        rows.map((_, i) => i),
        `${meta.title ?? meta.uri} (y-scrambled, seed ${setup.yScrambleSeed})`,
        { feature: setup.predictionFeature, seed: setup.yScrambleSeed },
      );
    }
    const plan = await planTraining(this.services, this.datasets, {
      algorithmUri: setup.algorithmUri,
      learner: setup.def.learner,
      parameters: setup.parameters,
      datasetUri: dataset,
      predictionFeature: setup.predictionFeature,
    });
    return trainModel(this.services, this.datasets, this.models, plan, job, dataset === trainingDataset ? rows : undefined);
  }

  /** Predict a dataset with a model into a new prediction dataset (its rows given when the caller holds them); answers it and the predictions. */
  async predict(model: StoredModel, testDataset: DatasetMeta, job: Job = {}, given?: DatasetRow[]): Promise<{ uri: string; predictions: PredictedValues[] }> {
    const plan = await timePhase('prediction inputs planned', () => this.predictor.planInputs(model, testDataset.features));
    // the predictor adds calculated descriptors to the rows' values: copies, never the caller's
    const rows = given ? given.map((r) => ({ ...r, values: new Map(r.values) })) : await timePhase('test rows read', () => this.datasets.allRows(testDataset.uri));
    const predictions = await timePhase('prediction', () => this.predictor.predict(model, rows, plan, job));
    return { uri: await timePhase('prediction dataset written', () => createPredictionDataset(this.datasets, model, rows, predictions, testDataset)), predictions };
  }

  /** Predict the test set with a model and compare with the targets; answers the record and the pairs. */
  async testModel(
    model: PredictiveModel,
    test: { testDataset: string; testTargetDataset: string; predictionFeature: string },
    job: Job = {},
    /** The test dataset's rows when the caller holds them. */
    rows?: DatasetRow[],
  ): Promise<{ record: Omit<ValidationRecord, 'validationType' | 'realRuntimeMs' | 'date'>; pairs: PairedValue[] }> {
    const testMeta = await timePhase('test set read', () => this.requireDataset(test.testDataset, 'test_dataset_uri'));
    const { uri: predictionDataset, predictions } = await this.predict(model, testMeta, job, rows);
    // the test set's own targets, held already: paired with the predictions row by row
    const pairs =
      rows && test.testTargetDataset === test.testDataset
        ? rows.map((r, i): PairedValue => {
            const predicted = new Map(predictions[i]);
            return { actual: r.values.get(test.predictionFeature), predicted: predicted.get(model.predicted), confidence: predicted.get(model.confidence) };
          })
        : await pairValues(this.datasets, {
            targetDataset: test.testTargetDataset,
            predictionFeature: test.predictionFeature,
            predictionDataset,
            predictedFeature: model.predicted,
            confidenceFeature: model.confidence,
            kind: model.task,
            classes: model.classes,
          });
    return {
      pairs,
      record: {
        model: model.uri,
        algorithm: model.algorithm,
        trainingDataset: model.trainingDataset,
        testDataset: test.testDataset,
        testTargetDataset: test.testTargetDataset,
        predictionDataset,
        predictionFeature: test.predictionFeature,
        statistics: await timePhase('statistics', () => statisticsOf(pairs, model.task, model.classes)),
      },
    };
  }

  /** Train on one dataset, test on another, and store the validation. */
  async trainAndTest(
    setup: LearningSetup,
    sets: { trainingDataset: string; testDataset: string; testTargetDataset: string },
    extra: { validationType: string; title?: string; randomSeed?: number; crossvalidation?: { uri: string; fold: number }; sides?: ValidationRecord['sides'] },
    job: Job = {},
    /** The two sets' rows when the caller holds them (a cross-validation's folds): not read back from the store. */
    rows?: { training: DatasetRow[]; test: DatasetRow[] },
  ): Promise<{ uri: string; pairs: PairedValue[]; model: PredictiveModel }> {
    const started = performance.now();
    const modelUri = await this.train(setup, sets.trainingDataset, { signal: job.signal, progress: (f) => job.progress?.(f * 0.7) }, rows?.training);
    const model = (await timePhase('model read back', () => this.models.load(modelUri))) as PredictiveModel; // a learner's model
    const { record, pairs } = await this.testModel(model, { ...sets, predictionFeature: setup.predictionFeature }, { signal: job.signal, progress: (f) => job.progress?.(0.7 + f * 0.3) }, rows?.test);
    const uri = await timePhase('validation written', () => this.validations.create({
      ...record,
      ...extra,
      algorithm: setup.algorithmUri,
      algorithmParams: setup.parametersText,
      realRuntimeMs: performance.now() - started,
      date: new Date(),
    }));
    return { uri, pairs, model };
  }
}
