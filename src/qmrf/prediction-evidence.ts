import type { PredictionFacts } from './qprf-facts.ts';
import { standardisedInputText } from '../model/standardisation-record.ts';
import { neighbourSourceText, predictionReading } from './prediction-reading.ts';

/** A literal's value as JSON: a number when it reads as one. */
const value = (literal: { value: string } | undefined) =>
  literal === undefined ? null : Number.isFinite(Number(literal.value)) && literal.value.trim() !== '' ? Number(literal.value) : literal.value;

/**
 * What a QPRF reports about one prediction, as plain JSON (for agents and scripts): the
 * prediction with its confidence or conformal interval/p-values, each applicability domain's
 * verdict with the limit its metric is judged against, the nearest training compounds with their
 * measured and out-of-fold predicted values (and where those come from), and how the numbers read:
 * an uncertain class, a tie, a prediction that disagrees with all its neighbours.
 */
export function predictionEvidence(facts: PredictionFacts) {
  const levels = facts.model.conformal?.state.levels ?? [];
  const standardised = facts.standardisation;
  const conformal = facts.prediction.conformal;
  const reading = predictionReading(facts);
  return {
    compound: { uri: facts.compound.uri, smiles: facts.compound.smiles, names: facts.compound.names },
    // a model that standardises predicts the compound's parent
    ...(standardised ? { structure_predicted: { smiles: standardised.parent, standardisation: standardisedInputText(standardised.options, standardised.parent) } } : {}),
    model: { uri: facts.model.uri, title: facts.model.title, learner: facts.model.learnerId, endpoint: facts.endpoint?.title ?? facts.model.dependent, units: facts.endpoint?.units },
    prediction: {
      value: value(facts.prediction.value),
      confidence: value(facts.prediction.confidence),
      ...(conformal?.intervals ? { intervals: conformal.intervals.map(([lower, upper], i) => ({ confidence_level: levels[i], lower, upper })) } : {}),
      ...(conformal?.pValues ? { p_values: Object.fromEntries(conformal.pValues) } : {}),
      ...(reading.certainty ? { uncertain: reading.certainty.uncertain, tie: reading.certainty.tie, uncertain_below: reading.certainty.threshold, reading: reading.certainty.text } : {}),
      disagrees_with_all_neighbours: reading.disagreesWithNeighbours ? reading.disagreesWithNeighbours.text : false,
    },
    applicability_domains: facts.prediction.domains.map((d) => ({
      model: d.model,
      metric: d.metric ?? null,
      inside: d.inside ?? null,
      limit: d.limit ? { inside_when: d.limit.inside, value: d.limit.value } : null,
    })),
    neighbour_predictions: {
      source: { crossvalidation: 'out-of-fold', 'held-out': 'held-out', none: 'none' }[facts.neighbourPredictions.kind],
      ...(facts.neighbourPredictions.kind === 'crossvalidation' ? { crossvalidation: facts.neighbourPredictions.crossvalidation } : {}),
      note: neighbourSourceText(facts),
    },
    nearest_training_compounds: facts.neighbours.map((n) => ({
      uri: n.compound.uri,
      smiles: n.compound.smiles,
      similarity: n.similarity,
      measured: n.measured ?? null,
      predicted: n.predicted ?? null,
    })),
    training_rows: facts.trainingRows,
  };
}
