import type * as RDF from '@rdfjs/types';
import type { ParameterSpec, ParamValue } from '../learning/learner.ts';
import { literal, xsd } from '../rdf/namespaces.ts';

/**
 * Data cleanup (spec 2.4 `DataCleanup`): applying one to a dataset answers a filtering model,
 * which remembers what it decided on that dataset; applying the model to any dataset answers
 * the cleaned copy. Pure functions of rows (compound + values), run where the rows are read.
 */
export interface CleanupMethod {
  /** The algorithm id under /algorithm/. */
  id: string;
  title: string;
  description: string;
  parameters: ParameterSpec[];
}

export const CLEANUP_METHODS: CleanupMethod[] = [
  {
    id: 'dc-missing-values',
    title: 'Remove compounds with missing values',
    description:
      'Features missing in more than maxMissing of the training rows are dropped; then every row that lacks a value of a remaining feature is removed. Applied to another dataset, the model drops the same features and removes the rows that lack the others.',
    parameters: [{ name: 'maxMissing', description: 'Largest fraction of rows a feature may lack and still be kept (1: keep every feature)', type: 'number', default: 1, min: 0, max: 1 }],
  },
  {
    id: 'dc-duplicates',
    title: 'Remove duplicate structures',
    description:
      'Rows of the same compound are merged into one: keep the first row (first), the mean of numeric values and the most common other value (mean), or drop every row of a structure whose rows disagree on a value (conflicts).',
    parameters: [{ name: 'keep', description: 'What one row of a repeated structure keeps', type: 'string', default: 'mean', choices: ['first', 'mean', 'conflicts'] }],
  },
];

export type CleanupState = { kind: 'dc-missing-values'; dropped: string[]; required: string[] } | { kind: 'dc-duplicates'; keep: 'first' | 'mean' | 'conflicts' };

export interface CleanupRow {
  compound: string;
  values: Map<string, RDF.Literal>;
}

/** What a method decides on the training rows over the given features. */
export function fitCleanup(methodId: string, params: Record<string, ParamValue>, features: string[], rows: CleanupRow[]): CleanupState {
  if (methodId === 'dc-duplicates') return { kind: 'dc-duplicates', keep: String(params.keep) as 'first' | 'mean' | 'conflicts' };
  const missing = (f: string) => rows.filter((r) => !present(r.values.get(f))).length / Math.max(1, rows.length);
  const dropped = features.filter((f) => missing(f) > Number(params.maxMissing));
  return { kind: 'dc-missing-values', dropped, required: features.filter((f) => !dropped.includes(f)) };
}

/** The cleaned rows, the features still in them, and what was done. */
export function applyCleanup(state: CleanupState, features: string[], rows: CleanupRow[]): { rows: CleanupRow[]; features: string[]; note: string } {
  if (state.kind === 'dc-missing-values') {
    const kept = features.filter((f) => !state.dropped.includes(f));
    const required = state.required.filter((f) => kept.includes(f));
    const out = rows.filter((r) => required.every((f) => present(r.values.get(f)))).map((r) => ({ compound: r.compound, values: new Map([...r.values].filter(([f]) => kept.includes(f))) }));
    return { rows: out, features: kept, note: `${rows.length - out.length} row(s) with missing values removed, ${features.length - kept.length} feature(s) dropped` };
  }
  const groups = new Map<string, CleanupRow[]>();
  for (const r of rows) groups.set(r.compound, [...(groups.get(r.compound) ?? []), r]);
  const out: CleanupRow[] = [];
  for (const [compound, group] of groups) {
    if (group.length === 1 || state.keep === 'first') {
      out.push(group[0]);
      continue;
    }
    if (state.keep === 'conflicts') {
      const agree = features.every((f) => new Set(group.map((r) => r.values.get(f)?.value.trim())).size === 1);
      if (agree) out.push(group[0]);
      continue;
    }
    out.push({
      compound,
      values: new Map(features.flatMap((f): [string, RDF.Literal][] => (group.some((r) => r.values.has(f)) ? [[f, merged(group.map((r) => r.values.get(f)).filter(present))]] : []))),
    });
  }
  return { rows: out, features, note: `${rows.length} row(s) of ${groups.size} structure(s) became ${out.length} row(s)` };
}

function present(v: RDF.Literal | undefined): v is RDF.Literal {
  return !!v && v.value.trim() !== '';
}

/** Numeric values: their mean; other values: the most common (the first of equals). */
function merged(values: RDF.Literal[]): RDF.Literal {
  const numbers = values.map((v) => Number(v.value.trim()));
  if (numbers.every((n) => Number.isFinite(n))) return literal(String(numbers.reduce((a, b) => a + b, 0) / numbers.length), xsd('double'));
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v.value, (counts.get(v.value) ?? 0) + 1);
  const top = Math.max(...counts.values());
  return values.find((v) => counts.get(v.value) === top)!;
}
