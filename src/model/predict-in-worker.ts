import type { Matrix, Prediction } from '../learning/learner.ts';
import { learnerById } from '../learning/learners.ts';
import { estimateDomain, type DomainState } from '../learning/applicability-domain.ts';
import { conformalAnswers, partOutput, type ConformalAnswer, type ConformalState, type Normalisation } from '../learning/conformal.ts';

/** This module, whose exported functions run on the worker pool. */
export const PREDICT_MODULE = import.meta.url;

/** Worker-pool entry: apply a trained learner state to rows. */
export function predictWith(learnerId: string, state: unknown, x: Matrix): Prediction[] {
  const learner = learnerById(learnerId);
  if (!learner) throw new Error(`unknown learner ${learnerId}`);
  return learner.predict(state, x);
}

/** A model's predictions of rows and, for a normalised conformal score, each row's difficulty (before β). */
export interface PartPrediction {
  predictions: Prediction[];
  difficulty?: number[];
}

/**
 * Each row's difficulty for a normalised conformal score (before β): the spread of the ensemble,
 * or the mean distance to the nearest training compounds of the part (1 − the Tanimoto
 * similarity of the nearest one, on fingerprints); undefined without normalisation.
 */
function difficultyOf(normalisation: Normalisation, difficulty: unknown, predictions: Prediction[], x: Matrix): number[] | undefined {
  if (normalisation === 'spread') return predictions.map((p) => p.spread ?? Number.NaN);
  if (normalisation !== 'knn' || !difficulty) return undefined;
  const domain = difficulty as DomainState;
  return estimateDomain(domain, x).map((e) => (domain.kind === 'ad-tanimoto' ? 1 - e.metric : e.metric));
}

/** Worker-pool entry: one calibrated part's predictions of rows, with their difficulties. */
export function predictPart(learnerId: string, state: unknown, normalisation: Normalisation, difficulty: unknown, x: Matrix): PartPrediction {
  const predictions = predictWith(learnerId, state, x);
  return { predictions, difficulty: difficultyOf(normalisation, difficulty, predictions, x) };
}

/** Worker-pool entry: a conformal model's predictions (its main state's) and each row's intervals or class p-values and sets. */
export function predictConformal(learnerId: string, state: unknown, conformal: ConformalState, x: Matrix, classes: number): { predictions: Prediction[]; answers: ConformalAnswer[] } {
  const main = predictWith(learnerId, state, x);
  if (conformal.method === 'jackknife+') {
    const learner = learnerById(learnerId);
    if (!learner?.jackknife) throw new Error(`the learner ${learnerId} has no jackknife+ calibration`);
    return { predictions: main, answers: learner.jackknife(state, conformal, x) };
  }
  const outputs = conformal.parts.map((part) => {
    // a split calibration's part is the main model itself
    const predictions = part.state === undefined ? main : predictWith(learnerId, part.state, x);
    return partOutput(conformal, predictions, difficultyOf(conformal.normalisation, part.difficulty, predictions, x), part.beta, classes);
  });
  return { predictions: main, answers: conformalAnswers(conformal, outputs, x.rows, classes) };
}
