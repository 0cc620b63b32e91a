import { featureQueries } from '../feature/feature-queries.ts';
import type * as RDF from '@rdfjs/types';
import { select } from '../store/query-helpers.ts';
import type { Services } from '../core/services.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { numberOf } from '../rdf/terms.ts';
import { classificationStatistics, regressionStatistics } from './statistics.ts';
import type { ValidationRecord } from './validation-record.ts';
import type { StoredModel } from '../model/model-codec.ts';
import { intervalStatistics, setStatistics, type ConformalStatistics } from './conformal-statistics.ts';
import type { ConformalObservation } from '../learning/conformal.ts';
import { conformalObservation } from '../model/model-codec.ts';

export interface Comparison {
  /** The dataset with the actual values, and the feature holding them. */
  targetDataset: string;
  predictionFeature: string;
  /** The dataset with the predictions, the feature holding them and (if any) their confidences. */
  predictionDataset: string;
  predictedFeature: string;
  confidenceFeature?: string;
  kind: 'classification' | 'regression';
  /** Class values known beforehand (a model's), so that classes never predicted still get cells. */
  classes?: string[];
  /** A conformal model's calibration: its features' values are read too. */
  conformal?: StoredModel['conformal'];
}

/** One actual value and its prediction, joined on the compound. */
export interface PairedValue {
  actual?: RDF.Literal;
  predicted?: RDF.Literal;
  confidence?: RDF.Literal;
  /** A conformal model's interval or class p-values for the row. */
  conformal?: ConformalObservation;
}

/** The conformal statistics of paired values at the model's levels (none for a model without calibration). */
export function conformalStatisticsOf(pairs: PairedValue[], kind: Comparison['kind'], conformal: StoredModel['conformal'], classes: string[]): ConformalStatistics[] | undefined {
  if (!conformal) return undefined;
  const { levels } = conformal.state;
  if (kind === 'regression')
    return intervalStatistics(
      pairs.map((p) => ({ actual: Number.isNaN(numberOf(p.actual)) ? undefined : numberOf(p.actual), observation: p.conformal })),
      levels,
    );
  return setStatistics(
    pairs.map((p) => ({ actual: p.actual && p.actual.value.trim() !== '' ? p.actual.value.trim() : undefined, observation: p.conformal })),
    levels,
    classes,
  );
}

/**
 * Pair each row of the target dataset with a prediction for the same compound (the k-th row of a
 * compound with the k-th prediction for it), so that a prediction dataset made from the test
 * dataset lines up row by row, and any other one lines up by compound.
 */
export async function pairValues(datasets: DatasetStore, c: Comparison): Promise<PairedValue[]> {
  const byCompound = new Map<string, { predicted?: RDF.Literal; confidence?: RDF.Literal; conformal?: ConformalObservation }[]>();
  for await (const r of datasets.rows(c.predictionDataset)) {
    const list = byCompound.get(r.compound) ?? [];
    list.push({
      predicted: r.values.get(c.predictedFeature),
      confidence: c.confidenceFeature ? r.values.get(c.confidenceFeature) : undefined,
      conformal: conformalObservation(c.conformal, c.classes ?? [], (f) => r.values.get(f)),
    });
    byCompound.set(r.compound, list);
  }
  const out: PairedValue[] = [];
  for await (const r of datasets.rows(c.targetDataset)) {
    const prediction = byCompound.get(r.compound)?.shift();
    out.push({ actual: r.values.get(c.predictionFeature), ...prediction });
  }
  return out;
}

/** Statistics of paired values (DESIGN.md): counts, then the statistics of the predicted ones. */
export function statisticsOf(pairs: PairedValue[], kind: Comparison['kind'], knownClasses: string[] = []): ValidationRecord['statistics'] {
  const confidence = (p: PairedValue) => {
    const n = numberOf(p.confidence);
    return Number.isNaN(n) ? 1 : Math.min(1, Math.max(0, n));
  };
  if (kind === 'regression') {
    const instances = pairs.map((p) => {
      const actual = numberOf(p.actual);
      const predicted = numberOf(p.predicted);
      return { actual: Number.isNaN(actual) ? undefined : actual, predicted: Number.isNaN(predicted) ? undefined : predicted, confidence: confidence(p) };
    });
    return { kind, values: regressionStatistics(instances) };
  }
  const text = (l?: RDF.Literal) => (l && l.value.trim() !== '' ? l.value.trim() : undefined);
  const instances = pairs.map((p) => ({ actual: text(p.actual), predicted: text(p.predicted), confidence: confidence(p) }));
  const classes = [...new Set([...knownClasses, ...instances.flatMap((i) => [i.actual, i.predicted]).filter((v): v is string => v !== undefined)])].sort();
  return { kind, values: classificationStatistics(instances, classes) };
}

/** The feature of a prediction dataset that holds the confidences of `predicted`, if there is one. */
export async function confidenceFeatureOf(services: Pick<Services, 'store'>, features: string[], predicted: string): Promise<string | undefined> {
  if (!features.length) return undefined;
  const rows = await select(services.store, featureQueries.confidenceOf(predicted));
  return rows.map((r) => r.f.value).find((f) => features.includes(f));
}
