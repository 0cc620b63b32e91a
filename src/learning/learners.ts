import type { Learner } from './learner.js';
import { multipleLinearRegression } from './linear-regression.js';
import { logisticRegression } from './logistic-regression.js';
import { naiveBayes } from './naive-bayes.js';
import { knnClassification, knnRegression } from './nearest-neighbours.js';
import { plsDiscriminantAnalysis, plsRegression } from './pls.js';
import { supportVectorClassification, supportVectorRegression } from './svm.js';
import { randomForestClassification, randomForestRegression } from './random-forest.js';
import { gradientBoostingClassification, gradientBoostingRegression } from './gradient-boosting.js';
import { consensusPredictors } from './consensus.js';
import { selectionPipeline } from './selection-pipeline.js';

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
];

/**
 * The learners that predict for stored composite models: consensus models (supermodels of
 * several learners) and the fold models of a supermodel recipe's cross-validation (feature
 * selection inside the fold). Their states name their parts.
 */
const COMPOSITES = [...consensusPredictors((id) => learnerById(id)), selectionPipeline([], undefined, (id) => learnerById(id))];

export function learnerById(id: string): Learner | undefined {
  return LEARNERS.find((l) => l.id === id) ?? COMPOSITES.find((l) => l.id === id);
}
