import { partGraphs } from '../store/intermediate-parts.ts';
import type * as RDF from '@rdfjs/types';
import { ot } from '../rdf/namespaces.ts';
import { readTypedGraph, selectUris, type ListOptions } from '../store/query-helpers.ts';
import { validationQueries } from './validation-queries.ts';
import type { Services } from '../core/services.ts';
import type { DatasetMeta, DatasetRow } from '../dataset/dataset-store.ts';
import { numberOf } from '../rdf/terms.ts';
import { conformalStatisticsOf, statisticsOf, type PairedValue } from './evaluation.ts';
import type { StoredModel } from '../model/model-codec.ts';
import { leaveOneOutFolds, randomFolds, sideCounts, sortedStratifiedFolds, stratifiedFolds, structureGroups } from './splits.ts';
import { crossvalidationFolds, crossvalidationQuads, foldNumber, validationQuads } from './validation-record.ts';
import type { Job, LearningSetup, ValidationRunner } from './validation-runner.ts';
import type { CrossValidate } from '../model/superalgorithm.ts';
import { timePhase } from '../core/phase-times.ts';

export type Stratification = 'true' | 'false' | 'super';

export interface CrossvalidationRequest {
  setup: LearningSetup;
  dataset: DatasetMeta;
  rows: DatasetRow[];
  /** The version of the dataset's rows when `rows` were read (ValidationRunner.rowsVersion, read first). */
  rowsVersion: number | undefined;
  numFolds: number;
  randomSeed: number;
  stratified: Stratification;
  leaveOneOut: boolean;
  /** How the folds were made when the request left it to a default (dc:description). */
  note?: string;
}

/**
 * Fold of each row, drawn over structures (all rows of one compound in one fold): random,
 * stratified by class (`true`), or `super`: by class for classification and by sorted target
 * values for regression; leave-one-out leaves one structure out per fold.
 */
export function assignFolds(request: CrossvalidationRequest, groups: number[]): number[] {
  const { rows, numFolds, randomSeed, stratified, setup } = request;
  if (request.leaveOneOut) return leaveOneOutFolds(groups);
  if (stratified === 'false') return randomFolds(groups, numFolds, randomSeed);
  if (setup.def.learner.task === 'classification')
    return stratifiedFolds(
      rows.map((r) => r.values.get(setup.predictionFeature)?.value.trim() ?? ''),
      groups,
      numFolds,
      randomSeed,
    );
  const values = rows.map((r) => numberOf(r.values.get(setup.predictionFeature)));
  return sortedStratifiedFolds(
    values.map((v) => (Number.isNaN(v) ? Infinity : v)),
    groups,
    numFolds,
    randomSeed,
  );
}

/**
 * Cross-validation (spec 4.2): k fold validations, each training on the other folds and
 * testing on its own (folds run in parallel on the worker pool), then the statistics of all
 * fold predictions pooled (never an average of folds) at `{uri}/statistics`. The
 * cross-validation and its statistics are written in one batch at the end; when a fold fails,
 * the fold validations already made are removed with everything else the task created
 * (TaskRunner's rollback).
 */
export class Crossvalidations {
  readonly collection: string;

  private readonly services: Pick<Services, 'config' | 'uris' | 'store' | 'ids'>;
  private readonly runner: ValidationRunner;
  constructor(services: Crossvalidations['services'], runner: ValidationRunner) {
    this.services = services;
    this.runner = runner;
    this.collection = services.uris.collection('crossvalidation');
  }

  statisticsUri(uri: string): string {
    return this.services.uris.subgraph(uri, 'statistics');
  }

  async run(request: CrossvalidationRequest, job: Job = {}): Promise<string> {
    const { setup, dataset, rows } = request;
    const uri = await this.services.ids.next(this.collection);
    const groups = structureGroups(rows.map((r) => r.compound));
    const folds = assignFolds(request, groups);
    const k = request.leaveOneOut ? new Set(groups).size : request.numFolds;
    const results: { uri: string; pairs: PairedValue[]; classes: string[]; conformal: StoredModel['conformal'] }[] = new Array(k);
    const started = performance.now();
    // checked once: every fold has the dataset's features and target
    const plan = setup.yScrambleSeed === undefined ? await timePhase('training planned', () => this.runner.plan(setup, dataset.uri)) : undefined;
    let done = 0;
    let next = 0;
    const runFold = async (fold: number) => {
      const test = folds.map((f, i) => (f === fold ? i : -1)).filter((i) => i >= 0);
      const training = folds.map((f, i) => (f !== fold ? i : -1)).filter((i) => i >= 0);
      const name = `${dataset.title ?? dataset.uri}, fold ${fold + 1} of ${k}`;
      const result = await this.runner.validateSides(
        setup,
        dataset,
        rows,
        { training, test, trainingTitle: `${name}: training set`, testTitle: `${name}: test set`, rowsVersion: request.rowsVersion },
        {
          validationType: 'crossvalidation',
          title: `Fold ${fold + 1} of the ${request.leaveOneOut ? 'leave-one-out' : `${k}-fold`} cross-validation of ${setup.def.title} on ${dataset.title ?? dataset.uri}`,
          randomSeed: request.randomSeed,
          crossvalidation: { uri, fold: fold + 1 },
          sides: { training: sideCounts(training, groups), test: sideCounts(test, groups) },
        },
        { signal: job.signal },
        plan,
      );
      results[fold] = { uri: result.uri, pairs: result.pairs, classes: result.model.classes, conformal: result.model.conformal };
      job.progress?.(++done / k, `fold ${done} of ${k} done`);
    };
    const lanes = Math.max(1, Math.min(k, this.services.config.workerThreads));
    let failed = false;
    const lane = async () => {
      while (next < k && !failed && !job.signal?.aborted) {
        try {
          await runFold(next++);
        } catch (e) {
          failed = true;
          throw e;
        }
      }
    };
    const outcomes = await Promise.allSettled(Array.from({ length: lanes }, lane));
    const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failure || job.signal?.aborted) {
      throw failure?.reason ?? job.signal?.reason;
    }
    const pairs = results.flatMap((r) => r.pairs);
    const classes = [...new Set(results.flatMap((r) => r.classes))];
    const statistics = await timePhase('statistics', () => statisticsOf(pairs, setup.def.learner.task, classes));
    const quads = crossvalidationQuads(uri, {
      algorithm: setup.algorithmUri,
      algorithmParams: setup.parametersText,
      predictionFeature: setup.predictionFeature,
      dataset: dataset.uri,
      numFolds: k,
      stratified: request.leaveOneOut ? 'false' : request.stratified,
      randomSeed: request.randomSeed,
      leaveOneOut: request.leaveOneOut,
      yScrambleSeed: setup.yScrambleSeed,
      note: request.note,
      folds: results.map((r) => r.uri),
      date: new Date(),
      title: `${request.leaveOneOut ? 'Leave-one-out' : `${k}-fold`} cross-validation of ${setup.def.title} on ${dataset.title ?? dataset.uri}`,
    });
    const statisticsUri = this.statisticsUri(uri);
    const pooled = validationQuads(statisticsUri, {
      validationType: 'crossvalidation',
      algorithm: setup.algorithmUri,
      algorithmParams: setup.parametersText,
      testDataset: dataset.uri,
      testTargetDataset: dataset.uri,
      predictionFeature: setup.predictionFeature,
      randomSeed: request.randomSeed,
      crossvalidation: { uri, fold: 0 },
      realRuntimeMs: performance.now() - started,
      date: new Date(),
      statistics,
      pooled: true,
      // every fold's model is calibrated alike: the pooled rows give the guarantee's coverage over the whole dataset
      conformal: conformalStatisticsOf(pairs, setup.def.learner.task, results[0]?.conformal, classes),
    }).filter((q) => !q.predicate.equals(ot('crossvalidationFold')));
    await timePhase('cross-validation written', () => this.services.store.replaceGraphs({ [uri]: quads, [statisticsUri]: pooled }));
    return uri;
  }

  /**
   * 10-fold cross-validation of a learning recipe (a supermodel's learner on its final
   * features): stratified by class, or on the sorted target for regression, seed 1.
   */
  readonly ofRecipe: CrossValidate = async (input, job) => {
    const dataset = await this.runner.requireDataset(input.dataset, 'dataset_uri');
    const rowsVersion = await this.runner.rowsVersion(dataset);
    const rows = await this.runner.datasets.allRows(dataset.uri);
    const setup: LearningSetup = {
      algorithmUri: input.algorithmUri,
      def: input.learner,
      parameters: input.parameters,
      parametersText: Object.entries(input.parameters)
        .map(([k, v]) => `${k}=${v}`)
        .join(';'),
      predictionFeature: input.predictionFeature,
    };
    const stratified: Stratification = input.learner.learner.task === 'regression' ? 'super' : 'true';
    return this.run({ setup, dataset, rows, rowsVersion, numFolds: Math.min(10, rows.length), randomSeed: 1, stratified, leaveOneOut: false }, job);
  };

  read(uri: string): Promise<RDF.Quad[] | undefined> {
    return readTypedGraph(this.services.store, uri, ot('Crossvalidation'));
  }

  list(filter: { algorithm?: string; dataset?: string }, options: ListOptions = {}): Promise<string[]> {
    return selectUris(this.services.store, validationQueries.crossvalidations(filter, options));
  }

  /** The fold validations of a cross-validation, in fold order, with their graphs. */
  async folds(uri: string, quads: RDF.Quad[]): Promise<{ uri: string; quads: RDF.Quad[] }[]> {
    const folds = await Promise.all(crossvalidationFolds(quads, uri).map(async (f) => ({ uri: f, quads: await this.services.store.readGraph(f) })));
    return folds.sort((a, b) => foldNumber(a.quads) - foldNumber(b.quads));
  }

  /** The pooled statistics (a validation graph), read whole. */
  statistics(uri: string): Promise<RDF.Quad[]> {
    return this.services.store.readGraph(this.statisticsUri(uri));
  }

  /** The cross-validation, its pooled statistics and its fold validations. */
  /** It, its folds' validations, and the work made inside it (the folds' datasets, models and predictions). */
  async delete(uri: string, quads: RDF.Quad[]): Promise<void> {
    const parts = await partGraphs(this.services.store, uri, (r) => this.services.uris.graphsOf(r));
    await this.services.store.deleteGraphs([...new Set([uri, this.statisticsUri(uri), ...crossvalidationFolds(quads, uri), ...parts])]);
  }
}
