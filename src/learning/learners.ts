import type { Learner } from './learner.ts';
import { multipleLinearRegression } from './linear-regression.ts';
import { logisticRegression } from './logistic-regression.ts';
import { naiveBayes } from './naive-bayes.ts';
import { knnClassification, knnRegression } from './nearest-neighbours.ts';
import { plsDiscriminantAnalysis, plsRegression } from './pls.ts';
import { supportVectorClassification, supportVectorRegression } from './svm.ts';
import { randomForestClassification, randomForestRegression } from './random-forest.ts';
import { gradientBoostingClassification, gradientBoostingRegression } from './gradient-boosting.ts';
import { consensusPredictors } from './consensus.ts';
import { selectionPipeline } from './selection-pipeline.ts';
import { readAcross, readAcrossClassification, readAcrossRegression } from './read-across.ts';

/** Every supervised learner the algorithm catalogue offers, in catalogue order. */
export const LEARNERS: Learner[] = [
  randomForestRegression,
  randomForestClassification,
  gradientBoostingRegression,
  gradientBoostingClassification,
  multipleLinearRegression,
  plsRegression,
  supportVectorRegression,
  knnRegression,
  supportVectorClassification,
  logisticRegression,
  knnClassification,
  naiveBayes,
  plsDiscriminantAnalysis,
  readAcross,
];

/**
 * The learners that predict for stored composite models: consensus models (supermodels of
 * several learners) and the fold models of a supermodel recipe's cross-validation (feature
 * selection inside the fold). Their states name their parts.
 */
const COMPOSITES = [...consensusPredictors((id) => learnerById(id)), selectionPipeline([], undefined, (id) => learnerById(id))];

/** The forms a model of a learner for either task is stored with (read-across's). */
const FORMS = [readAcrossRegression, readAcrossClassification];

export function learnerById(id: string): Learner | undefined {
  return LEARNERS.find((l) => l.id === id) ?? FORMS.find((l) => l.id === id) ?? COMPOSITES.find((l) => l.id === id);
}
