import type * as RDF from '@rdfjs/types';
import { df, dc, ot, literal } from '../rdf/namespaces.ts';
import { badRequest, conflict, notFound } from '../core/errors.ts';
import type { ParamValue } from '../learning/learner.ts';
import type { Services } from '../core/services.ts';
import type { DatasetMeta, DatasetRow, DatasetStore } from '../dataset/dataset-store.ts';
import type { ModelStore, StoredModel } from '../model/model-store.ts';
import { isPredictive, type PredictiveModel } from '../model/model-codec.ts';
import { createPredictionDataset, type PredictedValues, type Predictor } from '../model/prediction.ts';
import { identifierColumns } from '../model/prediction-operations.ts';
import { planTraining, trainModel, type TrainingPlan } from '../model/training.ts';
import { algorithmById, type AlgorithmDefinition } from '../algorithm/catalogue.ts';
import { checkParameters } from '../algorithm/parameters.ts';
import { conformalStatisticsOf, pairValues, statisticsOf, type PairedValue } from './evaluation.ts';
import { conformalObservation } from '../model/model-codec.ts';
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

/** What a validation record says besides its model, sets and statistics. */
export type ValidationExtra = { validationType: string; title?: string; randomSeed?: number; crossvalidation?: { uri: string; fold: number }; sides?: ValidationRecord['sides'] };

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

  /** A copy of all rows of `source` with the targets permuted (y-scrambling). */
  private async scrambled(source: DatasetMeta, rows: DatasetRow[], title: string, scramble: { feature: string; seed: number }): Promise<string> {
    const picked = rows.map((r) => new Map(r.values));
    const withTarget = picked.map((v, i) => (v.has(scramble.feature) ? i : -1)).filter((i) => i >= 0);
    const values = withTarget.map((i) => picked[i].get(scramble.feature)!);
    permutation(values.length, scramble.seed).forEach((from, k) => picked[withTarget[k]].set(scramble.feature, values[from]));
    return this.datasets.createFromRows(
      sideAnnotations(source, title),
      source.features,
      rows.map((r, k) => ({ compound: r.compound, values: source.features.filter((f) => picked[k].has(f)).map((f) => [f, picked[k].get(f)!] as [string, RDF.Literal]) })),
    );
  }

  /** Check a training set before queueing work (dataset, prediction feature, learner fit). */
  async checkTraining(setup: LearningSetup, datasetUri: string): Promise<void> {
    await this.plan(setup, datasetUri);
  }

  /** Train on a dataset (a y-scrambled copy of it when the setup says so). */
  async train(setup: LearningSetup, trainingDataset: string, job: Job = {}): Promise<string> {
    let dataset = trainingDataset;
    if (setup.yScrambleSeed !== undefined) {
      const meta = await this.requireDataset(trainingDataset, 'training_dataset_uri');
      const rows = await this.datasets.allRows(meta.uri);
      dataset = await this.scrambled(meta, rows, `${meta.title ?? meta.uri} (y-scrambled, seed ${setup.yScrambleSeed})`, { feature: setup.predictionFeature, seed: setup.yScrambleSeed });
    }
    const plan = await this.plan(setup, dataset);
    return trainModel(this.services, this.datasets, this.models, plan, job);
  }

  /**
   * Predict a dataset with a model into a new prediction dataset (its rows given when the caller
   * holds them), the test set's identifier and name columns kept beside the predictions, as a
   * dataset predicted through the model keeps them; answers it and the predictions.
   */
  async predict(model: StoredModel, testDataset: DatasetMeta, job: Job = {}, given?: DatasetRow[]): Promise<{ uri: string; predictions: PredictedValues[] }> {
    const plan = await timePhase('prediction inputs planned', () => this.predictor.planInputs(model, testDataset.features));
    // the predictor adds calculated descriptors to the rows' values: copies, never the caller's
    const rows = given ? given.map((r) => ({ ...r, values: new Map(r.values) })) : await timePhase('test rows read', () => this.datasets.allRows(testDataset.uri));
    const predictions = await timePhase('prediction', () => this.predictor.predict(model, rows, plan, job));
    const kept = await identifierColumns(this.services.store, model, testDataset.features);
    return { uri: await timePhase('prediction dataset written', () => createPredictionDataset(this.datasets, model, rows, predictions, testDataset, kept)), predictions };
  }

  /** Predict the test set with a model and compare with the targets; answers the record and the pairs. */
  async testModel(
    model: PredictiveModel,
    test: { testDataset: string; testTargetDataset: string; predictionFeature: string; testMeta?: DatasetMeta },
    job: Job = {},
    /** The test dataset's rows when the caller holds them. */
    rows?: DatasetRow[],
  ): Promise<{ record: Omit<ValidationRecord, 'validationType' | 'realRuntimeMs' | 'date'>; pairs: PairedValue[] }> {
    const testMeta = test.testMeta ?? (await timePhase('test set read', () => this.requireDataset(test.testDataset, 'test_dataset_uri')));
    const { uri: predictionDataset, predictions } = await this.predict(model, testMeta, job, rows);
    // the test set's own targets, held already: paired with the predictions row by row
    const pairs =
      rows && test.testTargetDataset === test.testDataset
        ? rows.map((r, i): PairedValue => {
            const predicted = new Map(predictions[i]);
            return {
              actual: r.values.get(test.predictionFeature),
              predicted: predicted.get(model.predicted),
              confidence: predicted.get(model.confidence),
              conformal: conformalObservation(model.conformal, model.classes, (f) => predicted.get(f)),
            };
          })
        : await pairValues(this.datasets, {
            targetDataset: test.testTargetDataset,
            predictionFeature: test.predictionFeature,
            predictionDataset,
            predictedFeature: model.predicted,
            confidenceFeature: model.confidence,
            kind: model.task,
            classes: model.classes,
            conformal: model.conformal,
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
        conformal: conformalStatisticsOf(pairs, model.task, model.conformal, model.classes),
      },
    };
  }

  /** Train on one dataset, test on another, and store the validation. */
  async trainAndTest(
    setup: LearningSetup,
    sets: { trainingDataset: string; testDataset: string; testTargetDataset: string },
    extra: ValidationExtra,
    job: Job = {},
  ): Promise<{ uri: string; pairs: PairedValue[]; model: PredictiveModel }> {
    const started = performance.now();
    const modelUri = await this.train(setup, sets.trainingDataset, trainingPart(job));
    return this.testAndRecord(setup, modelUri, { testDataset: sets.testDataset, testTargetDataset: sets.testTargetDataset, predictionFeature: setup.predictionFeature }, extra, job, started);
  }

  /**
   * A validation on two sides of a dataset whose rows the caller holds (a split, a
   * cross-validation's fold). Both sides are written as selections of the dataset while the
   * model learns from the training side's rows and predicts the test side's; the validation is
   * stored once they are written. `plan`: the training checked once on the dataset itself (a
   * cross-validation's, for all its folds; the sides have its features); made here otherwise.
   */
  async validateSides(
    setup: LearningSetup,
    source: DatasetMeta,
    rows: DatasetRow[],
    /** `rowsVersion`: the version of the source's rows when `rows` were read (rowsVersion). */
    sides: { training: number[]; test: number[]; trainingTitle: string; testTitle: string; rowsVersion: number | undefined },
    extra: ValidationExtra,
    job: Job = {},
    plan?: TrainingPlan,
  ): Promise<{ uri: string; pairs: PairedValue[]; model: PredictiveModel }> {
    const started = performance.now();
    const trainingRows = sides.training.map((i) => rows[i]);
    const testRows = sides.test.map((i) => rows[i]);
    const writes: Promise<void>[] = [];
    try {
      const training = await this.datasets.startSelection(source, trainingRows, sideAnnotations(source, sides.trainingTitle));
      writes.push(training.written);
      const test = await this.datasets.startSelection(source, testRows, sideAnnotations(source, sides.testTitle));
      writes.push(test.written);
      const written = Promise.all(writes).then(
        // the sides name the source's rows by number: rows rewritten since they were read are other rows
        () => this.checkRowsUnchanged(source, sides.rowsVersion),
      );
      written.catch(() => undefined); // awaited below, after the training

      let modelUri: string;
      if (setup.yScrambleSeed === undefined) {
        const checked = plan ?? (await this.plan(setup, source.uri));
        modelUri = await trainModel(this.services, this.datasets, this.models, { ...checked, dataset: training.meta }, trainingPart(job), trainingRows);
      } else {
        // a scrambled copy of the training side is read back from the store
        await written;
        modelUri = await this.train(setup, training.meta.uri, trainingPart(job));
      }
      const testing = { testDataset: test.meta.uri, testTargetDataset: test.meta.uri, predictionFeature: setup.predictionFeature, testMeta: test.meta };
      return await this.testAndRecord(setup, modelUri, testing, extra, job, started, testRows, written);
    } catch (e) {
      // nothing may land after the task's rollback has removed what it made
      await Promise.allSettled(writes);
      throw e;
    }
  }

  /** The version of the rows a dataset shows (its own, or those of the dataset it selects from): when they were last written. */
  async rowsVersion(dataset: DatasetMeta): Promise<number | undefined> {
    return (await this.datasets.readMeta(dataset.rowsOf ?? dataset.uri))?.modified?.getTime();
  }

  /** 409 when the rows read at `version` have been written since (a merge, a deletion renumbers them). */
  async checkRowsUnchanged(dataset: DatasetMeta, version: number | undefined): Promise<void> {
    const now = await this.rowsVersion(dataset);
    if (now === version) return;
    // both versions named: a dataset rewritten meanwhile, or one whose description could not be read again
    const stamp = (v: number | undefined) => (v === undefined ? 'none' : new Date(v).toISOString());
    throw conflict(
      `the rows of dataset ${dataset.rowsOf ?? dataset.uri} were changed while the validation ran on the rows it had read (modified ${stamp(version)} then, ${stamp(now)} now); run it again`,
    );
  }

  /** Test a model just trained and store the validation (once `written`, the sets' own writes, has settled). */
  private async testAndRecord(
    setup: LearningSetup,
    modelUri: string,
    test: Parameters<ValidationRunner['testModel']>[1],
    extra: ValidationExtra,
    job: Job,
    started: number,
    testRows?: DatasetRow[],
    written?: Promise<unknown>,
  ): Promise<{ uri: string; pairs: PairedValue[]; model: PredictiveModel }> {
    const model = (await timePhase('model read back', () => this.models.load(modelUri))) as PredictiveModel; // a learner's model
    const { record, pairs } = await this.testModel(model, test, { signal: job.signal, progress: (f) => job.progress?.(0.7 + f * 0.3) }, testRows);
    if (written) await timePhase('side datasets written', () => written);
    const uri = await timePhase('validation written', () =>
      this.validations.create({
        ...record,
        ...extra,
        algorithm: setup.algorithmUri,
        algorithmParams: setup.parametersText,
        realRuntimeMs: performance.now() - started,
        date: new Date(),
      }),
    );
    return { uri, pairs, model };
  }

  /** The training of a setup on a dataset, checked (400/404 naming the problem). */
  plan(setup: LearningSetup, datasetUri: string): Promise<TrainingPlan> {
    return planTraining(this.services, this.datasets, {
      algorithmUri: setup.algorithmUri,
      learner: setup.def.learner,
      parameters: setup.parameters,
      datasetUri,
      predictionFeature: setup.predictionFeature,
    });
  }
}

/** The training's share of a validation's progress. */
function trainingPart(job: Job): Job {
  return { signal: job.signal, progress: (f) => job.progress?.(f * 0.7) };
}

/** The annotations of a dataset made from another's rows. */
function sideAnnotations(source: DatasetMeta, title: string): [RDF.NamedNode, RDF.Term][] {
  return [
    [dc('title'), literal(title)],
    [ot('hasSource'), df.namedNode(source.uri)],
  ];
}
