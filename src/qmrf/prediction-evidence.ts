import type { PredictionFacts } from './qprf-facts.ts';
import { standardisedInputText } from '../model/standardisation-record.ts';

/** A literal's value as JSON: a number when it reads as one. */
const value = (literal: { value: string } | undefined) =>
  literal === undefined ? null : Number.isFinite(Number(literal.value)) && literal.value.trim() !== '' ? Number(literal.value) : literal.value;

/**
 * What a QPRF reports about one prediction, as plain JSON (for agents and scripts): the
 * prediction with its confidence or conformal interval/p-values, each applicability domain's
 * verdict, and the nearest training compounds with their measured and predicted values.
 */
export function predictionEvidence(facts: PredictionFacts) {
  const levels = facts.model.conformal?.state.levels ?? [];
  const standardised = facts.standardisation;
  const conformal = facts.prediction.conformal;
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
    },
    applicability_domains: facts.prediction.domains.map((d) => ({ model: d.model, metric: d.metric ?? null, inside: d.inside ?? null })),
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
