import type { SparqlText } from '../store/sparql-template.ts';
import { majorityBaseline, meanBaseline, type Baseline } from '../validation/baseline.ts';
import { mcpQueries } from './mcp-queries.ts';
import { json, number, type ServiceClient } from './service-client.ts';

/** A validation's statistics as list_models answers them. */
export interface ValidationSummary {
  validation: string;
  kind: 'validation' | 'crossvalidation';
  folds?: number;
  algorithm_params?: string;
  y_scrambled?: boolean;
  statistics: Record<string, number | string>;
  baseline?: Baseline;
}

/** One statistic (or one class's actual count) of a model's validation or cross-validation: the values as the endpoint wrote them. */
export interface ValidationRow {
  model: string;
  validation: string;
  /** A cross-validation's: its folds, parameters and y-scrambling. */
  folds?: string;
  params?: string;
  scrambled?: string;
  statistic?: string;
  value?: string;
  /** A class's actual count: its true positives and false negatives. */
  class?: string;
  tp?: string;
  fn?: string;
}

type Bindings = Record<string, { value: string } | undefined>[];

/** Where a validation's statistics are: the result scored (the validation, or a cross-validation's pooled result) and its statistics node. */
interface Scored {
  model: string;
  validation: string;
  folds?: string;
  params?: string;
  scrambled?: string;
  scored: string;
  s: string;
}

/** A SELECT's bindings from the service's own endpoint, in the caller's scope; undefined when it did not answer them. */
async function select(client: ServiceClient, query: SparqlText): Promise<Bindings | undefined> {
  const sent = await client.request('POST', '/sparql', { form: { query: String(query) }, accept: 'application/sparql-results+json' });
  if (sent.status !== 200) return undefined;
  return (json(sent.text, 'endpoint') as { results: { bindings: Bindings } }).results.bindings;
}

/** Items grouped by a key (Map.groupBy, which the project's ES2022 library does not type). */
function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = out.get(k);
    if (group) group.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/**
 * The statistics of each model's validations and of the cross-validations of its recipe (the
 * ones its page lists), each with its baseline: a few SPARQL queries to the service's own
 * endpoint, in the caller's scope (mcp-queries.ts), joined here. Where each statistic is first
 * (the cross-validations, then the validations), then the statistics, counts and class counts of
 * those places, all of one step at once. No validations when the endpoint answers any of them
 * with an error.
 */
export async function validationStatistics(client: ServiceClient, models: string[]): Promise<Map<string, ValidationSummary[]>> {
  if (!models.length) return new Map();
  const places = await Promise.all([
    select(client, mcpQueries.crossvalidationsOfRecipe(models)),
    select(client, mcpQueries.crossvalidationsSeenAlso(models)),
    select(client, mcpQueries.validationsOf(models)),
  ]);
  if (places.some((p) => !p)) return new Map();
  const scored: Scored[] = places.flatMap((bindings) =>
    bindings!.map((b) => ({
      model: b.model!.value,
      validation: b.validation!.value,
      folds: b.folds?.value,
      params: b.params?.value,
      scrambled: b.scrambled?.value,
      scored: (b.scored ?? b.validation)!.value,
      s: b.s!.value,
    })),
  );
  if (!scored.length) return new Map();
  const statisticsNodes = [...new Set(scored.map((p) => p.s))];
  const [statistics, counts, classes] = await Promise.all([
    select(client, mcpQueries.statisticsOf(statisticsNodes)),
    select(client, mcpQueries.countsOf([...new Set(scored.map((p) => p.scored))])),
    select(client, mcpQueries.classCountsOf(statisticsNodes)),
  ]);
  if (!statistics || !counts || !classes) return new Map();
  const statisticsOf = groupBy(statistics, (b) => b.s!.value);
  const countsOf = groupBy(counts, (b) => b.scored!.value);
  const classesOf = groupBy(classes, (b) => b.s!.value);
  const rows: ValidationRow[] = scored.flatMap(({ model, validation, folds, params, scrambled, scored, s }) => {
    const place = { model, validation, ...(folds !== undefined ? { folds, params, scrambled } : {}) };
    return [
      ...[...(countsOf.get(scored) ?? []), ...(statisticsOf.get(s) ?? [])].map((b) => ({ ...place, statistic: b.statistic!.value, value: b.value!.value })),
      ...(classesOf.get(s) ?? []).map((b) => ({ ...place, class: b.class!.value, tp: b.tp!.value, fn: b.fn!.value })),
    ];
  });
  return validationSummaries(rows);
}

/**
 * Each model's validations summed up from their rows (in any order): the statistics by their local
 * name, the counts, the baseline.
 */
export function validationSummaries(rows: ValidationRow[]): Map<string, ValidationSummary[]> {
  const found = new Map<string, { model: string; summary: ValidationSummary; classes: Map<string, number> }>();
  for (const b of rows) {
    const key = `${b.model} ${b.validation}`;
    const entry = found.get(key) ?? {
      model: b.model,
      classes: new Map<string, number>(),
      summary: {
        validation: b.validation,
        kind: b.folds ? 'crossvalidation' : 'validation',
        ...(b.folds ? { folds: Number(b.folds), algorithm_params: b.params ?? '', y_scrambled: b.scrambled === 'true' } : {}),
        statistics: {},
      },
    };
    if (b.statistic && b.value) entry.summary.statistics[b.statistic.replace(/^.*[#/]/, '')] = number(b.value)!;
    if (b.class && b.tp && b.fn) entry.classes.set(b.class, Number(b.tp) + Number(b.fn));
    found.set(key, entry);
  }
  const out = new Map<string, ValidationSummary[]>();
  for (const { model, summary, classes } of found.values()) {
    const s = summary.statistics;
    const rows = Number(s.numInstances ?? 0) - Number(s.numWithoutClass ?? 0) - Number(s.numUnpredicted ?? 0);
    const baseline = classes.size
      ? // a tie goes to the first class value (in code point order, as the store keeps them), whatever the order of the rows
        majorityBaseline([...classes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([classValue, count]) => ({ classValue, count })))
      : meanBaseline(typeof s.targetVarianceActual === 'number' ? s.targetVarianceActual : undefined, rows);
    out.set(model, [...(out.get(model) ?? []), { ...summary, ...(baseline ? { baseline } : {}) }]);
  }
  return out;
}
