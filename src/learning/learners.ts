import type { Learner } from './learner.js';
import { randomForestClassification, randomForestRegression } from './random-forest.js';

/** Every supervised learner the algorithm catalogue offers, in catalogue order. */
export const LEARNERS: Learner[] = [randomForestRegression, randomForestClassification];

export function learnerById(id: string): Learner | undefined {
  return LEARNERS.find((l) => l.id === id);
}
