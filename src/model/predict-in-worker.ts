import type { Matrix, Prediction } from '../learning/learner.js';
import { learnerById } from '../learning/learners.js';

/** Worker-pool entry: apply a trained learner state to rows. */
export function predictWith(learnerId: string, state: unknown, x: Matrix): Prediction[] {
  const learner = learnerById(learnerId);
  if (!learner) throw new Error(`unknown learner ${learnerId}`);
  return learner.predict(state, x);
}
