import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { LearningTask } from '../learning/learner.ts';
import type { ValidateLeaveOneOut } from '../model/read-across-loo.ts';
import { conformalStatisticsOf, pairValues, statisticsOf } from './evaluation.ts';
import type { ValidationStore } from './validation-store.ts';

/**
 * A read-across's leave-one-out predictions as a validation of the model: every training
 * compound predicted from the others (statistics pooled over them; sources without a neighbour
 * at or above s0 count as unpredicted, so coverage is 100 % − percentUnpredicted).
 */
export function leaveOneOutValidation(datasets: DatasetStore, validations: ValidationStore): ValidateLeaveOneOut {
  return async ({ model, dataset, predicted, conformal }) => {
    const started = performance.now();
    const kind = model.task as LearningTask;
    const pairs = await pairValues(datasets, {
      targetDataset: dataset,
      predictionFeature: model.dependent,
      predictionDataset: dataset,
      predictedFeature: predicted,
      kind,
      classes: model.classes,
      conformal,
    });
    return validations.create({
      validationType: 'leave_one_out_read_across',
      title: `Leave-one-out read-across of ${model.title}`,
      model: model.uri,
      algorithm: model.algorithm,
      trainingDataset: model.trainingDataset,
      testDataset: model.trainingDataset,
      predictionDataset: dataset,
      predictionFeature: model.dependent,
      statistics: statisticsOf(pairs, kind, model.classes),
      // a conformal read-across: how often its sources' leave-one-out intervals hold them
      conformal: conformalStatisticsOf(pairs, kind, conformal, model.classes),
      pooled: true,
      realRuntimeMs: performance.now() - started,
      date: new Date(),
    });
  };
}
