import type * as RDF from '@rdfjs/types';
import { badRequest } from '../core/errors.ts';
import { dc, df, literal, ot, rdf } from '../rdf/namespaces.ts';
import { doubleLiteral } from '../rdf/terms.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import type { Services } from '../core/services.ts';
import type { AnalogueSearch, SourcedValue } from './analogue-search.ts';
import type { Category, CategoryRole } from './category-codec.ts';

/** How several measured values of one compound become one cell; the rule is stated with the matrix. */
export const COLLAPSE_RULES = ['all', 'mean', 'median', 'min', 'max'] as const;
export type CollapseRule = (typeof COLLAPSE_RULES)[number];

/** The descriptors that matter beside the endpoints (RDKit): name in the descriptor set, title. */
export const MATRIX_DESCRIPTORS = [
  { name: 'CrippenClogP', title: 'log P (Wildman–Crippen)' },
  { name: 'amw', title: 'molecular weight (g/mol)' },
] as const;

export interface MatrixColumn {
  /** The endpoint (feature or term) or the descriptor's feature. */
  uri: string;
  title: string;
  kind: 'endpoint' | 'descriptor';
}

export interface MatrixRow {
  compound: string;
  smiles?: string;
  role: CategoryRole;
  similarity?: number;
  /** Per column: the cell (a number, text, or the values as text when several are kept), undefined when there is none. */
  cells: (number | string | undefined)[];
  /** Per endpoint column: the values behind the cell, with their sources. */
  sources: SourcedValue[][];
}

export interface DataMatrix {
  category: string;
  collapse: CollapseRule;
  columns: MatrixColumn[];
  rows: MatrixRow[];
}

/** The descriptors of compounds: one row per compound, one value per MATRIX_DESCRIPTORS entry; and their features. */
export type MatrixDescriptors = (compounds: string[]) => Promise<{ features: string[]; values: (number | undefined)[][] }>;

/**
 * A category's data matrix (issue 56): its members (target first) × its endpoints, plus log P
 * and molecular weight. Several values of one compound are collapsed by the rule: all (each
 * kept, `; `-separated), mean, median, min or max of numbers; for classes every rule but `all`
 * keeps the most frequent (ties: the first in sorted order).
 */
export async function dataMatrix(
  services: Pick<Services, 'store'>,
  search: AnalogueSearch,
  describe: MatrixDescriptors,
  smilesOf: (compounds: string[]) => Promise<(string | undefined)[]>,
  category: Category,
  collapse: CollapseRule,
  canRead: (uri: string) => boolean,
  /** Values taken out (an assessment's): kept out of the cells. */
  removed: { compound: string; dataset: string }[] = [],
): Promise<DataMatrix> {
  const members = category.members.filter((m) => m.included);
  const compounds = members.map((m) => m.compound);
  const byEndpoint: Map<string, SourcedValue[]>[] = [];
  for (const endpoint of category.endpoints) {
    const ranked = await search.ranked(category.target, endpoint, canRead).catch(() => undefined);
    const kept = (compound: string, list: SourcedValue[]) => list.filter((v) => !removed.some((r) => r.compound === compound && r.dataset === v.dataset));
    const values = new Map<string, SourcedValue[]>((ranked?.candidates ?? []).map((c) => [c.compound, kept(c.compound, c.values)]));
    if (ranked?.targetValues.length) values.set(category.target, ranked.targetValues);
    byEndpoint.push(values);
  }
  const titles = await readFeatureRecords(services.store, category.endpoints);
  const [smiles, descriptors] = await Promise.all([smilesOf(compounds), describe(compounds)]);
  const columns: MatrixColumn[] = [
    ...category.endpoints.map((e): MatrixColumn => ({ uri: e, title: titles.get(e)?.title ?? e.replace(/^.*[#/]/, '').replace(/_/g, ' '), kind: 'endpoint' })),
    ...MATRIX_DESCRIPTORS.map((d, i): MatrixColumn => ({ uri: descriptors.features[i], title: d.title, kind: 'descriptor' })),
  ];
  const rows = members.map((m, r): MatrixRow => {
    const sources = byEndpoint.map((values) => values.get(m.compound) ?? []);
    return {
      compound: m.compound,
      smiles: smiles[r],
      role: m.role,
      similarity: m.similarity,
      cells: [...sources.map((values) => collapsed(values, collapse)), ...descriptors.values[r]],
      sources,
    };
  });
  return { category: category.uri, collapse, columns, rows };
}

export function collapseRule(given: string | undefined): CollapseRule {
  const rule = (given?.trim() || 'all') as CollapseRule;
  if (!COLLAPSE_RULES.includes(rule)) throw badRequest(`collapse: ${given} is none of ${COLLAPSE_RULES.join(', ')}`);
  return rule;
}

/** One cell of several values by the rule. */
export function collapsed(values: SourcedValue[], rule: CollapseRule): number | string | undefined {
  if (!values.length) return undefined;
  const texts = values.map((v) => v.value.value.trim());
  const numbers = texts.map(Number);
  const numeric = numbers.every((n, i) => texts[i] !== '' && Number.isFinite(n));
  if (rule === 'all') return values.length === 1 ? (numeric ? numbers[0] : texts[0]) : texts.join('; ');
  if (!numeric) {
    const counts = new Map<string, number>();
    for (const t of texts) counts.set(t, (counts.get(t) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
  }
  const sorted = [...numbers].sort((a, b) => a - b);
  switch (rule) {
    case 'mean':
      return numbers.reduce((a, b) => a + b, 0) / numbers.length;
    case 'median': {
      const mid = sorted.length >> 1;
      return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }
    case 'min':
      return sorted[0];
    default:
      return sorted[sorted.length - 1];
  }
}

/** The matrix as a dataset's RDF (so OpenTox clients read it as one): an entry per member, a value per cell (every value under `all`). */
export function matrixQuads(m: DataMatrix): RDF.Quad[] {
  const s = df.namedNode(`${m.category}/matrix`);
  const quads: RDF.Quad[] = [
    df.quad(s, rdf('type'), ot('Dataset')),
    df.quad(s, dc('title'), literal(`Data matrix of ${m.category} (several values: ${m.collapse})`)),
    df.quad(s, dc('source'), df.namedNode(m.category)),
  ];
  m.rows.forEach((row, r) => {
    const entry = df.namedNode(`${m.category}/matrix#entry-${r + 1}`);
    quads.push(df.quad(s, ot('dataEntry'), entry), df.quad(entry, rdf('type'), ot('DataEntry')), df.quad(entry, ot('compound'), df.namedNode(row.compound)));
    let k = 0;
    const value = (feature: string, v: RDF.Literal) => {
      const node = df.namedNode(`${m.category}/matrix#entry-${r + 1}-value-${++k}`);
      quads.push(df.quad(entry, ot('values'), node), df.quad(node, rdf('type'), ot('FeatureValue')), df.quad(node, ot('feature'), df.namedNode(feature)), df.quad(node, ot('value'), v));
    };
    m.columns.forEach((c, j) => {
      const cell = row.cells[j];
      if (cell === undefined) return;
      if (c.kind === 'endpoint' && m.collapse === 'all') for (const v of row.sources[j]) value(c.uri, v.value);
      else value(c.uri, typeof cell === 'number' ? doubleLiteral(cell) : literal(cell));
    });
  });
  return quads;
}
