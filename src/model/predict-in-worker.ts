import type { Matrix, Prediction } from '../learning/learner.ts';
import { learnerById } from '../learning/learners.ts';

/** Worker-pool entry: apply a trained learner state to rows. */
export function predictWith(learnerId: string, state: unknown, x: Matrix): Prediction[] {
  const learner = learnerById(learnerId);
  if (!learner) throw new Error(`unknown learner ${learnerId}`);
  return learner.predict(state, x);
}
