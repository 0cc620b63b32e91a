import type * as RDF from '@rdfjs/types';
import type { LearningTask } from '../learning/learner.ts';
import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { featureTitles, readFeatureRecords } from '../feature/feature-record.ts';
import type { ModelStore } from '../model/model-store.ts';
import { algorithmById } from '../algorithm/catalogue.ts';
import { ot } from '../rdf/namespaces.ts';
import { ask, readTypedGraph } from '../store/query-helpers.ts';
import { validationQueries } from '../validation/validation-queries.ts';
import { notFound, badRequest } from '../core/errors.ts';
import { pairValues, type PairedValue } from '../validation/evaluation.ts';
import { crossvalidationRecord, foldNumber, validationRecord, type CrossvalidationRecord, type ValidationRecord } from '../validation/validation-record.ts';

/**
 * What a report says about validations, read from the store: the validation records, the
 * resources they name (with titles and sizes) and the paired actual and predicted values the
 * plots are drawn from.
 */

/** A resource named in a report: its URI and, when it is stored here, its title. */
export interface Named {
  uri: string;
  title?: string;
}

export interface ValidationFacts {
  uri: string;
  /** What the validation records. */
  record: ValidationRecord;
  task: LearningTask;
  /** The scalar statistics (counts included). */
  statistics: Record<string, number>;
  model?: Named;
  algorithm?: Named;
  predictionFeature: Named;
  datasets: { role: string; uri: string; title?: string; rows?: number }[];
  /** Actual and predicted values (and confidences), one per test row; empty when the predictions are gone. */
  pairs: PairedValue[];
  fold?: number;
}

export interface CrossvalidationFacts {
  uri: string;
  record: CrossvalidationRecord;
  task: LearningTask;
  algorithm: Named;
  dataset: Named & { rows?: number };
  predictionFeature: Named;
  /** Pooled over all folds. */
  pooled: ValidationFacts;
  folds: ValidationFacts[];
}

export class ReportFacts {
  private readonly services: Pick<Services, 'store' | 'uris'>;
  private readonly datasets: DatasetStore;
  private readonly models: ModelStore;
  constructor(services: Pick<Services, 'store' | 'uris'>, datasets: DatasetStore, models: ModelStore) {
    this.services = services;
    this.datasets = datasets;
    this.models = models;
  }

  private async named(uri: string | undefined, kind: 'model' | 'algorithm' | 'feature'): Promise<Named | undefined> {
    if (!uri) return undefined;
    if (kind === 'algorithm') {
      const id = this.services.uris.idIn('algorithm', uri);
      return { uri, title: id ? algorithmById(id)?.title : undefined };
    }
    if (kind === 'model') return { uri, title: (await this.models.describe(uri))?.description.title };
    return { uri, title: (await featureTitles(this.services.store, [uri])).get(uri) };
  }

  private async datasetFacts(role: string, uri: string | undefined): Promise<ValidationFacts['datasets']> {
    if (!uri) return [];
    const meta = await this.datasets.readMeta(uri);
    return [{ role, uri, title: meta?.title, rows: meta ? await this.datasets.count(uri) : undefined }];
  }

  /**
   * The graph of a validation (`kind` Validation) or cross-validation, and the task it scored:
   * the quick check of a report request. 404 when there is none, 400 when it is the other kind.
   */
  async require(uri: string, kind: 'Validation' | 'Crossvalidation', parameter = 'validation_uris'): Promise<{ quads: RDF.Quad[]; task: LearningTask }> {
    const quads = await readTypedGraph(this.services.store, uri, ot(kind));
    if (!quads) {
      const other = kind === 'Validation' ? 'Crossvalidation' : 'Validation';
      if (await readTypedGraph(this.services.store, uri, ot(other)))
        throw badRequest(
          kind === 'Validation' ? `${parameter}: ${uri} is a cross-validation; report it with the crossvalidation report type` : `${parameter}: ${uri} is a validation, not a cross-validation`,
        );
      throw notFound(`${parameter}: ${kind === 'Validation' ? 'validation' : 'cross-validation'} ${uri} not found`);
    }
    // what a report reads must all be here (a copy of another service's validation may lack it):
    // a request is refused before its task starts, never failed inside it
    const statisticsUri = this.services.uris.subgraph(uri, 'statistics');
    const complete = kind === 'Validation' ? validationRecord(quads, uri) : crossvalidationRecord(quads, uri) && validationRecord(await this.services.store.readGraph(statisticsUri), statisticsUri);
    if (!complete)
      throw badRequest(
        `${parameter}: ${uri} is not a ${kind === 'Validation' ? 'validation' : 'cross-validation'} this service can report: it lacks ${kind === 'Validation' ? 'its statistics, date, run time or prediction feature' : 'its pooled statistics or what it was made of'}`,
      );
    const classification =
      kind === 'Validation' ? quads.some((q) => q.predicate.equals(ot('classificationStatistics'))) : await ask(this.services.store, validationQueries.classificationStatistics(statisticsUri));
    return { quads, task: classification ? 'classification' : 'regression' };
  }

  /** A validation (spec 2.6); 404 when it is not one, 400 when it is a cross-validation. */
  async validation(uri: string, parameter = 'validation_uris'): Promise<ValidationFacts> {
    const { quads } = await this.require(uri, 'Validation', parameter);
    return this.validationOf(uri, quads);
  }

  private async validationOf(uri: string, quads: RDF.Quad[]): Promise<ValidationFacts> {
    const record = validationRecord(quads, uri);
    if (!record) throw notFound(`validation ${uri} not found`);
    const task = record.statistics.kind;
    const statistics: Record<string, number> = {};
    for (const [k, v] of Object.entries(record.statistics.values)) if (typeof v === 'number') statistics[k] = v;
    if (record.pooled && statistics.rSquare !== undefined) statistics.q2 = statistics.rSquare;
    const model = await this.named(record.model, 'model');
    const { trainingDataset, testDataset, testTargetDataset, predictionDataset } = record;
    const datasets = [
      ...(await this.datasetFacts('training dataset', trainingDataset)),
      ...(await this.datasetFacts('test dataset', testDataset)),
      ...(testTargetDataset && testTargetDataset !== testDataset ? await this.datasetFacts('test target dataset', testTargetDataset) : []),
      ...(await this.datasetFacts('prediction dataset', predictionDataset)),
    ];
    const predictionFeature = (await this.named(record.predictionFeature, 'feature'))!;
    return {
      uri,
      record,
      task,
      statistics,
      model,
      algorithm: await this.named(record.algorithm, 'algorithm'),
      predictionFeature,
      datasets,
      pairs: await this.pairs(task, model?.uri, testTargetDataset ?? testDataset, predictionDataset, predictionFeature.uri),
      fold: record.crossvalidation?.fold,
    };
  }

  /** The actual values of the test rows paired with the model's predictions (none when the model or the datasets are gone). */
  private async pairs(task: LearningTask, model: string | undefined, target: string | undefined, predictions: string | undefined, feature: string): Promise<PairedValue[]> {
    if (!model || !target || !predictions) return [];
    const description = await this.models.describe(model);
    if (!description || !(await this.datasets.readMeta(target)) || !(await this.datasets.readMeta(predictions))) return [];
    const records = await readFeatureRecords(this.services.store, description.description.predictedVariables);
    const confidence = [...records.values()].find((r) => r.confidenceOf)?.uri;
    // the predicted feature: neither the confidence nor a conformal bound, p-value or set
    const predicted = description.description.predictedVariables.find((f) => f !== confidence && !records.get(f)?.conformalOf);
    if (!predicted) return [];
    return pairValues(this.datasets, { targetDataset: target, predictionFeature: feature, predictionDataset: predictions, predictedFeature: predicted, confidenceFeature: confidence, kind: task });
  }

  /** A cross-validation with its pooled statistics and its folds in order; 404 when it is not one. */
  async crossvalidation(uri: string, parameter = 'validation_uris'): Promise<CrossvalidationFacts> {
    const { quads } = await this.require(uri, 'Crossvalidation', parameter);
    const record = crossvalidationRecord(quads, uri);
    if (!record) throw notFound(`${parameter}: cross-validation ${uri} not found`);
    const foldGraphs = await Promise.all(record.folds.map(async (f) => ({ uri: f, quads: await this.services.store.readGraph(f) })));
    foldGraphs.sort((a, b) => foldNumber(a.quads) - foldNumber(b.quads));
    const folds = await Promise.all(foldGraphs.filter((f) => f.quads.length).map((f) => this.validationOf(f.uri, f.quads)));
    const statisticsUri = this.services.uris.subgraph(uri, 'statistics');
    const pooledQuads = await this.services.store.readGraph(statisticsUri);
    const pooled = await this.validationOf(statisticsUri, pooledQuads);
    // the pooled predictions are those of every fold
    pooled.pairs = folds.flatMap((f) => f.pairs);
    const [dataset] = await this.datasetFacts('dataset', record.dataset);
    return {
      uri,
      record,
      task: pooled.task,
      algorithm: (await this.named(record.algorithm, 'algorithm'))!,
      dataset: { uri: dataset.uri, title: dataset.title, rows: dataset.rows },
      predictionFeature: (await this.named(record.predictionFeature, 'feature'))!,
      pooled,
      folds,
    };
  }
}
