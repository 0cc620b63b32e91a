import type { DomainState } from '../learning/applicability-domain.ts';
import { formatNumber } from '../rdf/html.ts';
import type { PredictionFacts } from './qprf-facts.ts';

/**
 * How a predicted number reads, said beside it wherever it is shown (the prediction page, the
 * QPRF, the evidence JSON and so MCP `predict`): a class probability close to an even split is
 * uncertain, not a firm class; an exact tie says how it was resolved; a prediction that
 * disagrees with every nearest training compound is flagged; a domain's metric comes with the
 * limit it is judged against.
 */

/** A class probability below an even split (1/k) plus this margin reads as uncertain (0.6 for two classes). */
export const UNCERTAIN_MARGIN = 0.1;

export interface ClassCertainty {
  probability: number;
  /** The probability under which the class is uncertain: 1/k + UNCERTAIN_MARGIN. */
  threshold: number;
  uncertain: boolean;
  /** An exact tie of the highest probabilities: resolved to the first class in the model's order. */
  tie: boolean;
  text: string;
}

/** A domain's limit: inside when the metric is at most (or at least) the value. */
export interface DomainLimit {
  inside: 'at most' | 'at least';
  value: number;
  text: string;
}

export interface PredictionReading {
  certainty?: ClassCertainty;
  /** The prediction disagrees with every nearest training compound's measured value. */
  disagreesWithNeighbours?: { text: string };
}

/** The certainty of a class prediction from its probability (the confidence) and the model's classes; undefined for regression. */
export function classCertainty(f: Pick<PredictionFacts, 'model' | 'prediction'>): ClassCertainty | undefined {
  if (f.model.task !== 'classification' || !f.prediction.value || !f.prediction.confidence) return undefined;
  const probability = Number(f.prediction.confidence.value);
  const k = Math.max(2, f.model.classes.length);
  if (!Number.isFinite(probability)) return undefined;
  const threshold = 1 / k + UNCERTAIN_MARGIN;
  const tie = k === 2 && Math.abs(probability - 0.5) < 1e-9;
  const uncertain = probability < threshold;
  const value = f.prediction.value.value;
  const text = tie
    ? `uncertain: a tie (probability 0.5 for both classes), resolved to “${value}”, the first of the model’s classes in its order (${f.model.classes.join(', ')}); read it as no prediction`
    : uncertain
      ? `uncertain: probability ${formatNumber(probability)} is below ${formatNumber(threshold)} (an even split of ${k} classes plus ${UNCERTAIN_MARGIN}); “${value}” is barely favoured`
      : `probability ${formatNumber(probability)}, at least ${formatNumber(threshold)} (an even split of ${k} classes plus ${UNCERTAIN_MARGIN})`;
  return { probability, threshold, uncertain: uncertain || tie, tie, text };
}

/** Whether the prediction disagrees with all nearest training compounds' measured values (a class none of them has; a value outside their range). */
export function disagreement(f: Pick<PredictionFacts, 'model' | 'prediction' | 'neighbours'>): { text: string } | undefined {
  const predicted = f.prediction.value?.value.trim();
  const measured = f.neighbours.flatMap((n) => (n.measured === undefined || n.measured.trim() === '' ? [] : [n.measured.trim()]));
  if (predicted === undefined || !measured.length) return undefined;
  if (f.model.task === 'classification') {
    if (measured.some((m) => m === predicted)) return undefined;
    return { text: `the prediction “${predicted}” disagrees with all ${measured.length} nearest training compounds (measured ${[...new Set(measured)].join(', ')}): check it against them` };
  }
  const values = measured.map(Number).filter(Number.isFinite);
  const p = Number(predicted);
  if (!values.length || !Number.isFinite(p)) return undefined;
  const [low, high] = [Math.min(...values), Math.max(...values)];
  if (p >= low && p <= high) return undefined;
  return {
    text: `the prediction ${formatNumber(p)} lies outside the measured values of all ${values.length} nearest training compounds (${formatNumber(low)} to ${formatNumber(high)}): check it against them`,
  };
}

export function predictionReading(f: Pick<PredictionFacts, 'model' | 'prediction' | 'neighbours'>): PredictionReading {
  const certainty = classCertainty(f);
  const disagrees = disagreement(f);
  return { ...(certainty ? { certainty } : {}), ...(disagrees ? { disagreesWithNeighbours: disagrees } : {}) };
}

/** The limit an applicability-domain state judges its metric against, as stored with the model. */
export function domainLimit(state: unknown): DomainLimit | undefined {
  const s = state as DomainState | undefined;
  switch (s?.kind) {
    case 'ad-tanimoto':
      return { inside: 'at least', value: s.threshold, text: `inside when at least ${formatNumber(s.threshold)}` };
    case 'ad-leverage':
      return { inside: 'at most', value: s.threshold, text: `inside when at most h* = 3p′/n = ${formatNumber(s.threshold)}` };
    case 'ad-euclidean-knn':
      return { inside: 'at most', value: s.threshold, text: `inside when at most ${formatNumber(s.threshold)} (the training compounds’ mean plus Z standard deviations)` };
    case 'ad-ranges':
      return { inside: 'at most', value: 0, text: 'inside when no descriptor is outside the training range (0)' };
    default:
      return undefined;
  }
}

/** Where the neighbours' predicted values come from, in words. */
export function neighbourSourceText(f: Pick<PredictionFacts, 'neighbourPredictions'>): string {
  const s = f.neighbourPredictions;
  if (s.kind === 'crossvalidation')
    return `“predicted” is out of fold: each compound’s prediction by the fold model of the ${s.folds}-fold cross-validation ${s.crossvalidation} of this model’s recipe that did not see it (never the model re-predicting its own training rows)`;
  if (s.kind === 'held-out')
    return `“predicted” is held out: no cross-validation of this model’s recipe is stored, so its learner was trained again with the same parameters on the ${s.trainingRows} training rows less these compounds, and predicted them (never the model re-predicting its own training rows); cross-validate the recipe for figures over the whole training set`;
  return `“predicted” is not shown: ${s.reason}; the model’s re-predictions of its own training rows agree with them by construction and are no evidence`;
}
