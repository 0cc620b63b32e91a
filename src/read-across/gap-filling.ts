import jstat from 'jstat';
import { badRequest } from '../core/errors.ts';
import { positiveClass } from '../learning/read-across.ts';
import type { AnalogueSearch, SourcedValue } from './analogue-search.ts';
import type { Category } from './category-codec.ts';
import { collapsed, MATRIX_DESCRIPTORS, type MatrixDescriptors } from './data-matrix.ts';

/** Sources agree when their spread is under this share of the endpoint's spread over all its data. */
export const AGREEMENT_RATIO = 0.5;
/** Classes agree when this share of the sources holds the majority class. */
export const AGREEMENT_SHARE = 0.8;

export interface SourceRow {
  compound: string;
  similarity: number;
  /** The source's value: the mean of its numbers, or its most frequent class. */
  value: number | string;
  /** The trend's descriptor (numbers only). */
  descriptor?: number;
  /** The measured values behind `value`, each with its dataset. */
  measured: SourcedValue[];
}

/** A QSAR model of the endpoint applied to the target. */
export interface QsarAnswer {
  model: string;
  title: string;
  value?: string;
  /** Its applicability domain's verdict, when it has one. */
  inside?: boolean;
  reason?: string;
}

/** One endpoint's gap filled side by side, each answer with its uncertainty or why there is none. */
export interface EndpointFilling {
  endpoint: string;
  kind: 'numeric' | 'classes';
  /** The target's own measured values: then there is no gap. */
  targetValues: SourcedValue[];
  sources: SourceRow[];
  readAcross: { value?: number | string; reason?: string; n: number; weightedSd?: number; score?: number; positive?: string; meanSimilarity?: number; minSimilarity?: number };
  trend: {
    descriptor: string;
    n: number;
    reason?: string;
    slope?: number;
    intercept?: number;
    rSquare?: number;
    pSlope?: number;
    at?: number;
    value?: number;
    interval?: [number, number];
    interpolated?: boolean;
  };
  worstCase: { lowest?: SourceRow; highest?: SourceRow; positive?: { value: string; compounds: string[] }; reason?: string };
  qsar: QsarAnswer[];
  consistency: { agree?: boolean; sd?: number; endpointSd?: number; majorityShare?: number; regular?: boolean; text: string };
}

export interface GapFilling {
  category: string;
  target: string;
  descriptor: string;
  endpoints: EndpointFilling[];
}

export interface GapFillingDeps {
  search: AnalogueSearch;
  describe: MatrixDescriptors;
  /** The QSAR models of an endpoint's features (or term) the caller may read, applied to the target. */
  qsar: (endpoint: string, features: string[], target: string) => Promise<QsarAnswer[]>;
}

/**
 * Data-gap filling for a category's target (issue 56), per endpoint and side by side: the
 * read-across (GenRA: the similarity-weighted mean of the sources, or the activity score of the
 * positive class), a trend of the endpoint on a descriptor within the category (least squares:
 * n, R², the slope's p-value and a 95 % prediction interval at the target), the worst case among
 * the sources, each QSAR model of the endpoint's prediction with its domain, and whether the
 * sources agree and potency varies regularly with the descriptor.
 */
export async function fillGaps(
  deps: GapFillingDeps,
  category: Category,
  descriptorName: string,
  canRead: (uri: string) => boolean,
  /** Values taken out (an assessment's): a compound's values from that dataset are not used. */
  removed: { compound: string; dataset: string }[] = [],
): Promise<GapFilling> {
  const d = MATRIX_DESCRIPTORS.findIndex((x) => x.name === descriptorName);
  if (d < 0) throw badRequest(`descriptor: ${descriptorName} is none of ${MATRIX_DESCRIPTORS.map((x) => x.name).join(', ')}`);
  const endpoints: EndpointFilling[] = [];
  for (const endpoint of category.endpoints) {
    const ranked = await deps.search.ranked(category.target, endpoint, canRead).catch(() => undefined);
    const kept = (compound: string, values: SourcedValue[]) => values.filter((v) => !removed.some((r) => r.compound === compound && r.dataset === v.dataset));
    const byCompound = new Map((ranked?.candidates ?? []).map((c) => [c.compound, kept(c.compound, c.values)]).filter(([, values]) => values.length > 0) as [string, SourcedValue[]][]);
    const members = category.members.filter((m) => m.included && m.sourceFor.includes(endpoint) && byCompound.has(m.compound));
    const all = [...byCompound.values()].flat();
    const numeric = all.every((v) => Number.isFinite(Number(v.value.value)) && v.value.value.trim() !== '');
    const kind = numeric ? 'numeric' : 'classes';
    const { values: described } = await deps.describe([category.target, ...members.map((m) => m.compound)]);
    const sources = members.map(
      (m, i): SourceRow => ({
        compound: m.compound,
        similarity: m.similarity ?? 0,
        value: collapsed(byCompound.get(m.compound)!, numeric ? 'mean' : 'median')!,
        descriptor: described[i + 1][d],
        measured: byCompound.get(m.compound)!,
      }),
    );
    const classes = [...new Set(all.map((v) => v.value.value.trim()))].sort();
    endpoints.push({
      endpoint,
      kind,
      targetValues: ranked?.targetValues ?? [],
      sources,
      readAcross: readAcrossOf(sources, kind, classes),
      trend: numeric ? trendOf(sources, described[0][d], MATRIX_DESCRIPTORS[d].title) : { descriptor: MATRIX_DESCRIPTORS[d].title, n: sources.length, reason: 'classes: a trend needs numbers' },
      worstCase: worstCaseOf(sources, kind, classes),
      qsar: await deps.qsar(endpoint, ranked?.features ?? [], category.target),
      consistency: { text: '' },
    });
    const filled = endpoints[endpoints.length - 1];
    filled.consistency = consistencyOf(filled, numeric ? all.map((v) => Number(v.value.value)) : []);
  }
  return { category: category.uri, target: category.target, descriptor: MATRIX_DESCRIPTORS[d].title, endpoints };
}

function readAcrossOf(sources: SourceRow[], kind: 'numeric' | 'classes', classes: string[]): EndpointFilling['readAcross'] {
  const used = sources.filter((s) => s.similarity > 0);
  if (!used.length) return { n: 0, reason: 'not predicted: the category has no source of this endpoint with a similarity above 0' };
  const total = used.reduce((t, s) => t + s.similarity, 0);
  const similarity = { meanSimilarity: total / used.length, minSimilarity: Math.min(...used.map((s) => s.similarity)) };
  if (kind === 'numeric') {
    const value = used.reduce((t, s) => t + s.similarity * Number(s.value), 0) / total;
    const weightedSd = Math.sqrt(used.reduce((t, s) => t + s.similarity * (Number(s.value) - value) ** 2, 0) / total);
    return { value, n: used.length, weightedSd, ...similarity };
  }
  const positive = classes[positiveClass(classes, '')];
  const score = used.reduce((t, s) => t + s.similarity * (s.value === positive ? 1 : 0), 0) / total;
  const negative = classes.find((c) => c !== positive) ?? positive;
  return { value: score >= 0.5 ? positive : negative, score, positive, n: used.length, ...similarity };
}

/** Least squares of the endpoint on the descriptor over the sources, and its 95 % prediction interval at the target. */
export function trendOf(sources: SourceRow[], at: number | undefined, descriptor: string): EndpointFilling['trend'] {
  const points = sources.filter((s) => s.descriptor !== undefined && Number.isFinite(s.descriptor)).map((s) => [s.descriptor!, Number(s.value)]);
  const n = points.length;
  if (n < 3) return { descriptor, n, reason: `${n} source(s) with the descriptor: a trend needs at least 3` };
  if (at === undefined) return { descriptor, n, reason: 'the target’s descriptor could not be calculated' };
  const mx = points.reduce((t, [x]) => t + x, 0) / n;
  const my = points.reduce((t, [, y]) => t + y, 0) / n;
  const sxx = points.reduce((t, [x]) => t + (x - mx) ** 2, 0);
  const syy = points.reduce((t, [, y]) => t + (y - my) ** 2, 0);
  if (sxx === 0) return { descriptor, n, reason: 'the descriptor is the same for every source' };
  const slope = points.reduce((t, [x, y]) => t + (x - mx) * (y - my), 0) / sxx;
  const intercept = my - slope * mx;
  const sse = points.reduce((t, [x, y]) => t + (y - intercept - slope * x) ** 2, 0);
  const s2 = sse / (n - 2);
  const tSlope = s2 === 0 ? Number.POSITIVE_INFINITY : Math.abs(slope) / Math.sqrt(s2 / sxx);
  const pSlope = 2 * (1 - jstat.jStat.studentt.cdf(tSlope, n - 2));
  const value = intercept + slope * at;
  const half = jstat.jStat.studentt.inv(0.975, n - 2) * Math.sqrt(s2 * (1 + 1 / n + (at - mx) ** 2 / sxx));
  const xs = points.map(([x]) => x);
  return {
    descriptor,
    n,
    slope,
    intercept,
    rSquare: syy > 0 ? 1 - sse / syy : 1,
    pSlope,
    at,
    value,
    interval: [value - half, value + half],
    interpolated: at >= Math.min(...xs) && at <= Math.max(...xs),
  };
}

function worstCaseOf(sources: SourceRow[], kind: 'numeric' | 'classes', classes: string[]): EndpointFilling['worstCase'] {
  if (!sources.length) return { reason: 'no source' };
  if (kind === 'numeric') {
    const sorted = [...sources].sort((a, b) => Number(a.value) - Number(b.value));
    return { lowest: sorted[0], highest: sorted[sorted.length - 1] };
  }
  const positive = classes[positiveClass(classes, '')];
  const holding = sources.filter((s) => s.value === positive).map((s) => s.compound);
  return holding.length ? { positive: { value: positive, compounds: holding } } : { reason: `no source is ${positive}` };
}

function consistencyOf(f: EndpointFilling, allNumbers: number[]): EndpointFilling['consistency'] {
  if (f.sources.length < 2) return { text: `${f.sources.length} source: agreement cannot be judged` };
  if (f.kind === 'classes') {
    const counts = new Map<string, number>();
    for (const s of f.sources) counts.set(String(s.value), (counts.get(String(s.value)) ?? 0) + 1);
    const majorityShare = Math.max(...counts.values()) / f.sources.length;
    const agree = majorityShare >= AGREEMENT_SHARE;
    return {
      agree,
      majorityShare,
      text: `${Math.round(100 * majorityShare)} % of the sources share the majority class: they ${agree ? 'agree' : 'do not agree'} (agreement: ≥ ${100 * AGREEMENT_SHARE} %)`,
    };
  }
  const sd = standardDeviation(f.sources.map((s) => Number(s.value)));
  const endpointSd = standardDeviation(allNumbers);
  const agree = sd <= AGREEMENT_RATIO * endpointSd;
  const regular = f.trend.pSlope !== undefined && f.trend.pSlope < 0.05;
  return {
    agree,
    sd,
    endpointSd,
    regular,
    text: `the sources' standard deviation is ${sd.toFixed(3)} against ${endpointSd.toFixed(3)} over all ${allNumbers.length} values of the endpoint: they ${agree ? 'agree' : 'do not agree'} (agreement: ≤ ${AGREEMENT_RATIO} of it); potency ${regular ? 'varies regularly' : 'does not vary regularly'} with ${f.trend.descriptor}${f.trend.pSlope === undefined ? ` (${f.trend.reason})` : ` (slope p = ${f.trend.pSlope.toPrecision(2)})`}`,
  };
}

function standardDeviation(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((t, x) => t + (x - m) ** 2, 0) / (xs.length - 1));
}
