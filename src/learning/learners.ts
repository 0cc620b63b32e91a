import type { Learner } from './learner.js';

/** Every supervised learner the algorithm catalogue offers, in catalogue order. */
export const LEARNERS: Learner[] = [];

export function learnerById(id: string): Learner | undefined {
  return LEARNERS.find((l) => l.id === id);
}
