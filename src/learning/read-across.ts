/**
 * Read-across as in GenRA (Shah et al. 2016; Helman et al. 2019): a target's value is the
 * similarity-weighted mean of the measured values of its k most similar source compounds with
 * similarity ≥ s0, Σ sᵢ·yᵢ / Σ sᵢ, computed row by row (a batch predicts each row exactly as
 * it predicts it alone).
 *
 * Similarity, per block of columns, then a weighted mean over the blocks (a hybrid):
 *  - each fingerprint (a feature of 0/1 bits): Jaccard |a ∧ b| / |a ∨ b| (0 when both are empty:
 *    nothing in common is no evidence of likeness);
 *  - the numeric columns together (descriptors): 1 / (1 + d), d the root-mean-square difference
 *    of the standardised columns.
 * Ties are broken by similarity descending, then by compound id (the rank of the training
 * compound's URI in numeric-aware order), so the neighbours never depend on row order.
 *
 * No neighbour at or above s0 (or only neighbours of similarity 0): the row is *not predicted*,
 * with the reason; never a fallback number.
 *
 * Training stores the sources and computes every source's leave-one-out prediction (the source
 * itself is never its own neighbour) in one pass. Classification (two classes): the activity
 * score is the weighted mean of the 0/1 outcomes (1 = the positive class); the decision
 * threshold is chosen on the target's neighbourhood, the neighbours' own leave-one-out scores
 * against their measured classes, to maximise balanced accuracy; the neighbourhood's AUC comes
 * with a permutation p-value (100 seeded shuffles of the labels, (1 + #{AUC* ≥ AUC}) / 101), and
 * when p > 0.2 (or the neighbourhood lacks a class) the threshold is 0.5. More than two classes:
 * the weighted class votes, the most voted class.
 */
import type { Learner, LearnerContext, Matrix, ParamValue, ParameterSpec, Prediction, TrainingData } from './learner.ts';
import { Random } from './random.ts';
import { conformalQuantile, predictionSet, type ConformalAnswer, type ConformalState } from './conformal.ts';
import { applyScaler, decodeF32, decodeF64, decodeU32, decodedCache, encodeF32, encodeF64, encodeU32, fitScaler, packBits, popcount, selectColumns, wordsPerRow, type Scaler } from './scaling.ts';

/** How many label shuffles the neighbourhood's AUC p-value takes. */
export const PERMUTATIONS = 100;
/** Above this p-value the neighbourhood's threshold is not trusted: 0.5 instead. */
export const P_VALUE_LIMIT = 0.2;

type Block = { kind: 'bits'; columns: number[]; weight: number; bits: string } | { kind: 'numeric'; columns: number[]; weight: number; scaler: Scaler; rows: string };

export interface ReadAcrossState {
  kind: 'genra-regression' | 'genra-classification';
  k: number;
  /** s0: the least similarity of a neighbour. */
  threshold: number;
  n: number;
  blocks: Block[];
  /** Measured values, or class indices (base64 Float64). */
  y: string;
  /** Each source's place in compound-id order (ties), base64 Float64. */
  rank: string;
  /** The sources' compound URIs, when training knew them (a prediction names its neighbours). */
  ids?: string[];
  classes: number;
  /** Two classes: the class index whose outcome is 1. */
  positive: number;
  seed: number;
  /**
   * Every source's leave-one-out prediction (NaN: not predicted), the neighbours it used, and
   * for jackknife+: regression, the neighbours' spread; classes, the probability it gave the
   * source's own class; two classes, its activity score.
   */
  loo: { value: string; score?: string; used: string; spread?: string; ownClass?: string };
}

/** A neighbour of a prediction: the source's row in the training data and its similarity. */
export interface Neighbour {
  index: number;
  similarity: number;
}

/** Read-across's answer for one row: a Prediction, its neighbours, and why it is not predicted when it is not. */
export interface ReadAcrossPrediction extends Prediction {
  neighbours: (Neighbour & { compound?: string; measured: number })[];
  /** Classification: the activity score, the threshold used, the neighbourhood's AUC and its p-value. */
  score?: number;
  decisionThreshold?: number;
  auc?: number;
  pValue?: number;
}

const POSITIVE_NAMES = /^(1|true|yes|active|positive|toxic|mutagen(ic)?|carcinogen(ic)?|sensiti[sz]er|irritant|corrosive|y)$/i;

/** The class whose outcome counts as 1: the one named, else one named like "active"/"positive"/"1", else the second in sorted order. */
export function positiveClass(classes: string[], named: string): number {
  if (named) {
    const i = classes.indexOf(named);
    if (i < 0) throw new RangeError(`positive_class ${named} is not one of the classes ${classes.join(', ')}`);
    return i;
  }
  const i = classes.findIndex((c) => POSITIVE_NAMES.test(c.trim()));
  return i >= 0 ? i : Math.min(1, classes.length - 1);
}

/** Numeric-aware order of compound URIs (…/compound/9 before …/compound/10). */
const byId = new Intl.Collator('en', { numeric: true }).compare;

/** The blocks of columns: each fingerprint its own; the numeric columns together, where the first of them is. */
function blocksOf(data: TrainingData, weights: number[]): { kind: 'bits' | 'numeric'; columns: number[] }[] {
  const groups = data.columnGroups;
  const width = new Map<number, number>();
  if (groups) for (const g of groups) width.set(g, (width.get(g) ?? 0) + 1);
  const out: { kind: 'bits' | 'numeric'; columns: number[] }[] = [];
  const byGroup = new Map<number, { kind: 'bits'; columns: number[] }>();
  let numeric: { kind: 'numeric'; columns: number[] } | undefined;
  data.binary.forEach((binary, c) => {
    // a fingerprint is a variable of several 0/1 columns (without groups: every 0/1 column together); a lone 0/1 descriptor is numeric
    const group = groups ? groups[c] : -1;
    if (binary && (!groups || (width.get(group) ?? 0) > 1)) {
      let b = byGroup.get(group);
      if (!b) {
        b = { kind: 'bits', columns: [] };
        byGroup.set(group, b);
        out.push(b);
      }
      b.columns.push(c);
    } else {
      if (!numeric) {
        numeric = { kind: 'numeric', columns: [] };
        out.push(numeric);
      }
      numeric.columns.push(c);
    }
  });
  if (weights.length && weights.length !== out.length)
    throw new RangeError(
      `fingerprint_weights: ${weights.length} weight(s) for ${out.length} fingerprint(s) (${out.map((b) => (b.kind === 'bits' ? `${b.columns.length} bits` : `${b.columns.length} descriptors`)).join(', ')})`,
    );
  return out;
}

export function parseWeights(text: string): number[] {
  const parts = text
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  const weights = parts.map(Number);
  if (weights.some((w) => !Number.isFinite(w) || w < 0)) throw new RangeError(`fingerprint_weights: ${text} is not a list of non-negative numbers`);
  if (weights.length && weights.every((w) => w === 0)) throw new RangeError('fingerprint_weights: at least one weight must be positive');
  return weights;
}

/** Stores the sources (pure, no leave-one-out yet). */
export function readAcrossSources(data: TrainingData, params: Record<string, ParamValue>, seed: number): ReadAcrossState {
  const k = Math.floor(Number(params.k ?? 10));
  const threshold = Number(params.similarity_threshold ?? 0);
  if (!(k >= 1)) throw new RangeError(`k must be at least 1 (got ${params.k})`);
  if (!(threshold >= 0 && threshold <= 1)) throw new RangeError(`similarity_threshold must be in [0, 1] (got ${params.similarity_threshold})`);
  const weights = parseWeights(String(params.fingerprint_weights ?? ''));
  const classification = data.classes.length > 0;
  const blocks = blocksOf(data, weights).map((b, i): Block => {
    const weight = weights.length ? weights[i] : 1;
    if (b.kind === 'bits') return { kind: 'bits', columns: b.columns, weight, bits: encodeU32(packBits(selectColumns(data.x, b.columns).data, data.x.rows, b.columns.length)) };
    const part = selectColumns(data.x, b.columns);
    const scaler = fitScaler(part);
    return { kind: 'numeric', columns: b.columns, weight, scaler, rows: encodeF32(applyScaler(scaler, part).data) };
  });
  if (!blocks.length) throw new RangeError('read-across needs fingerprint or descriptor columns');
  const n = data.x.rows;
  const ids = data.ids;
  const order = Array.from({ length: n }, (_, i) => i);
  if (ids) order.sort((a, b) => byId(ids[a], ids[b]) || a - b);
  const rank = new Float64Array(n);
  order.forEach((row, place) => {
    rank[row] = place;
  });
  return {
    kind: classification ? 'genra-classification' : 'genra-regression',
    k,
    threshold,
    n,
    blocks,
    y: encodeF64(data.y),
    rank: encodeF64(rank),
    ids,
    classes: data.classes.length,
    positive: classification ? positiveClass(data.classes, String(params.positive_class ?? '')) : 0,
    seed,
    loo: { value: '', used: '' },
  };
}

interface Decoded {
  y: Float64Array;
  rank: Float64Array;
  blocks: ({ kind: 'bits'; weight: number; w: number; bits: Uint32Array; counts: Uint32Array } | { kind: 'numeric'; weight: number; p: number; rows: Float32Array })[];
  totalWeight: number;
  looScore?: Float64Array;
}

const decode = decodedCache(
  (s: ReadAcrossState): Decoded => ({
    y: decodeF64(s.y),
    rank: decodeF64(s.rank),
    blocks: s.blocks.map((b) => {
      if (b.kind === 'numeric') return { kind: 'numeric' as const, weight: b.weight, p: b.scaler.columns.length, rows: decodeF32(b.rows) };
      const w = wordsPerRow(b.columns.length);
      const bits = decodeU32(b.bits);
      const counts = new Uint32Array(s.n);
      for (let r = 0; r < s.n; r++) for (let i = 0; i < w; i++) counts[r] += popcount(bits[r * w + i]);
      return { kind: 'bits' as const, weight: b.weight, w, bits, counts };
    }),
    totalWeight: s.blocks.reduce((t, b) => t + b.weight, 0),
    looScore: s.loo.score ? decodeF64(s.loo.score) : undefined,
  }),
);

/** A query row in the blocks' own encodings. */
interface Query {
  bits: (Uint32Array | undefined)[];
  counts: number[];
  z: (Float64Array | undefined)[];
}

function queriesOf(state: ReadAcrossState, x: Matrix): (r: number) => Query {
  const packed = state.blocks.map((b) =>
    b.kind === 'bits'
      ? packBits(
          selectColumns(x, b.columns).data.map((v) => (v >= 0.5 ? 1 : 0)),
          x.rows,
          b.columns.length,
        )
      : undefined,
  );
  const scaled = state.blocks.map((b) => (b.kind === 'numeric' ? applyScaler(b.scaler, selectColumns(x, b.columns)).data : undefined));
  return (r) => {
    const q: Query = { bits: [], counts: [], z: [] };
    state.blocks.forEach((b, i) => {
      if (b.kind === 'bits') {
        const w = wordsPerRow(b.columns.length);
        const bits = packed[i]!.subarray(r * w, (r + 1) * w);
        let c = 0;
        for (let j = 0; j < w; j++) c += popcount(bits[j]);
        q.bits.push(bits);
        q.counts.push(c);
        q.z.push(undefined);
      } else {
        const p = b.scaler.columns.length;
        q.bits.push(undefined);
        q.counts.push(0);
        q.z.push(scaled[i]!.subarray(r * p, (r + 1) * p));
      }
    });
    return q;
  };
}

/** The similarity of a query to source t. */
function similarity(d: Decoded, q: Query, t: number): number {
  let s = 0;
  for (let b = 0; b < d.blocks.length; b++) {
    const block = d.blocks[b];
    if (block.weight === 0) continue;
    let sim: number;
    if (block.kind === 'bits') {
      const bits = q.bits[b]!;
      let both = 0;
      const o = t * block.w;
      for (let i = 0; i < block.w; i++) both += popcount(bits[i] & block.bits[o + i]);
      const union = q.counts[b] + block.counts[t] - both;
      sim = union === 0 ? 0 : both / union;
    } else {
      const z = q.z[b]!;
      const o = t * block.p;
      let ss = 0;
      for (let j = 0; j < block.p; j++) {
        const diff = z[j] - block.rows[o + j];
        ss += diff * diff;
      }
      sim = 1 / (1 + (block.p > 0 ? Math.sqrt(ss / block.p) : 0));
    }
    s += block.weight * sim;
  }
  return d.totalWeight > 0 ? s / d.totalWeight : 0;
}

/** The k most similar sources with similarity ≥ s0 (not `exclude`): similarity descending, then compound id. */
function neighboursOf(state: ReadAcrossState, d: Decoded, q: Query, exclude: number, wanted = state.k): Neighbour[] {
  const k = Math.min(wanted, state.n);
  const index = new Int32Array(k);
  const sim = new Float64Array(k);
  let size = 0;
  // a ranks before b: more similar, or as similar and earlier by compound id
  const before = (sa: number, a: number, sb: number, b: number) => sa > sb || (sa === sb && d.rank[a] < d.rank[b]);
  for (let t = 0; t < state.n; t++) {
    if (t === exclude) continue;
    const s = similarity(d, q, t);
    if (s < state.threshold) continue;
    if (size === k && !before(s, t, sim[k - 1], index[k - 1])) continue;
    let j = size < k ? size++ : k - 1;
    while (j > 0 && before(s, t, sim[j - 1], index[j - 1])) {
      sim[j] = sim[j - 1];
      index[j] = index[j - 1];
      j--;
    }
    sim[j] = s;
    index[j] = t;
  }
  return Array.from({ length: size }, (_, i) => ({ index: index[i], similarity: sim[i] }));
}

/** Σ sᵢ·vᵢ / Σ sᵢ over the neighbours (NaN when every similarity is 0). */
function weightedMean(neighbours: Neighbour[], value: (i: number) => number): number {
  let num = 0;
  let den = 0;
  for (const n of neighbours) {
    num += n.similarity * value(n.index);
    den += n.similarity;
  }
  return den > 0 ? num / den : Number.NaN;
}

/** The area under the ROC curve of scores against 0/1 labels (ties count ½); NaN without both labels. */
export function aucOf(scores: number[], labels: number[]): number {
  let pos = 0;
  let neg = 0;
  let wins = 0;
  for (let i = 0; i < scores.length; i++) {
    if (labels[i] !== 1) continue;
    pos++;
    for (let j = 0; j < scores.length; j++) {
      if (labels[j] === 1) continue;
      if (scores[i] > scores[j]) wins += 1;
      else if (scores[i] === scores[j]) wins += 0.5;
    }
  }
  for (const l of labels) if (l !== 1) neg++;
  return pos && neg ? wins / (pos * neg) : Number.NaN;
}

/** The threshold t (predict 1 when score ≥ t) among the scores that maximises balanced accuracy; ties: nearest 0.5, then the lower. */
export function balancedThreshold(scores: number[], labels: number[]): number {
  const pos = labels.filter((l) => l === 1).length;
  const neg = labels.length - pos;
  let best = 0.5;
  let bestBa = -1;
  for (const t of [...new Set(scores)].sort((a, b) => a - b)) {
    let tp = 0;
    let tn = 0;
    scores.forEach((s, i) => {
      if (s >= t && labels[i] === 1) tp++;
      if (s < t && labels[i] !== 1) tn++;
    });
    const ba = (tp / pos + tn / neg) / 2;
    if (ba > bestBa + 1e-12 || (Math.abs(ba - bestBa) <= 1e-12 && Math.abs(t - 0.5) < Math.abs(best - 0.5))) {
      best = t;
      bestBa = ba;
    }
  }
  return best;
}

/** The neighbourhood's threshold, AUC and p-value: its neighbours' leave-one-out scores against their classes. */
export function neighbourhoodThreshold(scores: number[], labels: number[], seed: number): { threshold: number; auc: number; pValue: number } {
  const auc = aucOf(scores, labels);
  if (Number.isNaN(auc)) return { threshold: 0.5, auc, pValue: 1 };
  const random = new Random(seed);
  const shuffled = [...labels];
  let atLeast = 0;
  for (let i = 0; i < PERMUTATIONS; i++) {
    random.shuffle(shuffled);
    if (aucOf(scores, shuffled) >= auc - 1e-12) atLeast++;
  }
  const pValue = (1 + atLeast) / (1 + PERMUTATIONS);
  return { threshold: pValue > P_VALUE_LIMIT ? 0.5 : balancedThreshold(scores, labels), auc, pValue };
}

function notPredicted(state: ReadAcrossState, neighbours: ReadAcrossPrediction['neighbours']): ReadAcrossPrediction {
  const reason = neighbours.length
    ? `every one of the ${neighbours.length} nearest source compounds has similarity 0`
    : `no source compound has similarity ≥ ${state.threshold} (similarity_threshold)`;
  return { value: Number.NaN, confidence: Number.NaN, neighbours, reason };
}

/** One row's read-across from its neighbours (classification reads the neighbours' leave-one-out scores). */
function readAcrossRow(state: ReadAcrossState, d: Decoded, found: Neighbour[]): ReadAcrossPrediction {
  const neighbours = found.map((n) => ({ ...n, compound: state.ids?.[n.index], measured: d.y[n.index] }));
  const used = neighbours.filter((n) => n.similarity > 0);
  if (!used.length) return notPredicted(state, neighbours);
  const confidence = used.reduce((t, n) => t + n.similarity, 0) / used.length;
  const similarity = `${used.length} source(s) used, similarity mean ${confidence.toFixed(3)}, least ${Math.min(...used.map((n) => n.similarity)).toFixed(3)}`;
  if (state.kind === 'genra-regression') {
    const value = weightedMean(used, (i) => d.y[i]);
    const spread = Math.sqrt(
      Math.max(
        0,
        weightedMean(used, (i) => (d.y[i] - value) ** 2),
      ),
    );
    return { value, confidence, spread, neighbours, neighbourhood: `${similarity}; similarity-weighted SD of their values ${spread.toPrecision(3)}` };
  }
  if (state.classes !== 2) {
    const votes = new Array<number>(state.classes).fill(0);
    for (const n of used) votes[d.y[n.index]] += n.similarity;
    const total = votes.reduce((a, b) => a + b, 0);
    const probabilities = votes.map((v) => v / total);
    let value = 0;
    for (let c = 1; c < votes.length; c++) if (probabilities[c] > probabilities[value]) value = c;
    return { value, confidence: probabilities[value], probabilities, neighbours, neighbourhood: `${similarity}; similarity-weighted votes` };
  }
  const score = weightedMean(used, (i) => (d.y[i] === state.positive ? 1 : 0));
  const negative = 1 - state.positive;
  const probabilities = [0, 0];
  probabilities[state.positive] = score;
  probabilities[negative] = 1 - score;
  // the neighbourhood: the neighbours' own leave-one-out scores (at training, before they exist: 0.5)
  const scored = d.looScore ? used.filter((n) => !Number.isNaN(d.looScore![n.index])) : [];
  const { threshold, auc, pValue } = neighbourhoodThreshold(
    scored.map((n) => d.looScore![n.index]),
    scored.map((n) => (d.y[n.index] === state.positive ? 1 : 0)),
    state.seed,
  );
  const value = score >= threshold ? state.positive : negative;
  const chosen = Number.isNaN(auc)
    ? 'threshold 0.5 (the neighbourhood lacks a class)'
    : `threshold ${threshold.toPrecision(3)} ${pValue > P_VALUE_LIMIT ? `(0.5: the neighbourhood's AUC ${auc.toFixed(3)} has permutation p = ${pValue.toFixed(3)} > ${P_VALUE_LIMIT})` : `chosen on the neighbourhood for balanced accuracy (AUC ${auc.toFixed(3)}, permutation p = ${pValue.toFixed(3)})`}`;
  return {
    value,
    confidence: probabilities[value],
    probabilities,
    neighbours,
    score,
    decisionThreshold: threshold,
    auc,
    pValue,
    neighbourhood: `${similarity}; activity score ${score.toFixed(3)}, ${chosen}`,
  };
}

/** Predicts rows (pure): each row from its own neighbours, whatever else is in the batch. */
export function predictReadAcross(state: ReadAcrossState, x: Matrix): ReadAcrossPrediction[] {
  const d = decode(state);
  const query = queriesOf(state, x);
  return Array.from({ length: x.rows }, (_, r) => readAcrossRow(state, d, neighboursOf(state, d, query(r), -1)));
}

/** A source's row of the training matrix, as a query. */
function sourceQuery(d: Decoded, t: number): Query {
  const q: Query = { bits: [], counts: [], z: [] };
  d.blocks.forEach((b) => {
    if (b.kind === 'bits') {
      q.bits.push(b.bits.subarray(t * b.w, (t + 1) * b.w));
      q.counts.push(b.counts[t]);
      q.z.push(undefined);
    } else {
      q.bits.push(undefined);
      q.counts.push(0);
      q.z.push(Float64Array.from(b.rows.subarray(t * b.p, (t + 1) * b.p)));
    }
  });
  return q;
}

/**
 * Every source's leave-one-out read-across (worker-pool entry: the n × n similarities). Answers
 * the state with `loo` filled: values (NaN: not predicted), classification scores, neighbours used.
 */
export function leaveOneOut(state: ReadAcrossState): ReadAcrossState {
  const d = decode(state);
  const neighbours = Array.from({ length: state.n }, (_, t) => neighboursOf(state, d, sourceQuery(d, t), t));
  const used = Float64Array.from(neighbours, (ns) => ns.filter((n) => n.similarity > 0).length);
  if (state.kind === 'genra-regression') {
    const rows = neighbours.map((ns) => readAcrossRow(state, d, ns));
    const loo = { value: encodeF64(rows.map((r) => r.value)), used: encodeF64(used), spread: encodeF64(rows.map((r) => r.spread ?? Number.NaN)) };
    return { ...state, loo };
  }
  // two classes: first every source's score (its neighbourhood's threshold reads its neighbours')
  const score =
    state.classes === 2
      ? Float64Array.from(neighbours, (ns) => {
          const u = ns.filter((n) => n.similarity > 0);
          return u.length ? weightedMean(u, (i) => (d.y[i] === state.positive ? 1 : 0)) : Number.NaN;
        })
      : undefined;
  const scored: ReadAcrossState = score ? { ...state, loo: { value: '', score: encodeF64(score), used: '' } } : state;
  const sd = decode(scored);
  const rows = neighbours.map((ns) => readAcrossRow(scored, sd, ns));
  const ownClass = rows.map((r, t) => r.probabilities?.[d.y[t]] ?? Number.NaN);
  return { ...state, loo: { value: encodeF64(rows.map((r) => r.value)), ...(score ? { score: encodeF64(score) } : {}), used: encodeF64(used), ownClass: encodeF64(ownClass) } };
}

/** The jackknife+ calibration of a trained read-across: each source's leave-one-out residual (regression, over σ) or nonconformity (classes). */
const calibrationOf = decodedCache((state: ReadAcrossState) => {
  const y = decodeF64(state.y);
  const value = decodeF64(state.loo.value);
  const spread = state.loo.spread ? decodeF64(state.loo.spread) : undefined;
  const ownClass = state.loo.ownClass ? decodeF64(state.loo.ownClass) : undefined;
  // β: a tenth of the median spread (never 0), as the other learners' normalised scores have it
  const spreads = spread ? [...spread].filter(Number.isFinite).sort((a, b) => a - b) : [];
  const beta = spreads.length && spreads[spreads.length >> 1] > 0 ? spreads[spreads.length >> 1] / 10 : 1e-6;
  return { y, value, spread, ownClass, beta };
});

/**
 * The jackknife+ answers of rows (Barber et al. 2021) for a read-across: source i's
 * leave-one-out model predicts a row as the full model does unless i is among the row's k
 * nearest, when the (k + 1)-th takes its place; the interval's bounds are the conformal
 * quantiles of those predictions minus and plus source i's residual. Classes (Mondrian): a class's
 * p-value counts the sources of that class whose leave-one-out nonconformity (1 − the probability
 * of their own class) is at least the row's (1 − the probability of the class).
 */
export function jackknifeAnswers(state: ReadAcrossState, conformal: ConformalState, x: Matrix): ConformalAnswer[] {
  const d = decode(state);
  const cal = calibrationOf(state);
  const query = queriesOf(state, x);
  const spreadOn = conformal.normalisation === 'spread';
  return Array.from({ length: x.rows }, (_, r): ConformalAnswer => {
    const wide = neighboursOf(state, d, query(r), -1, state.k + 1);
    const full = readAcrossRow(state, d, wide.slice(0, state.k));
    if (state.kind === 'genra-classification') {
      const pValues = Array.from({ length: state.classes }, (_, c) => {
        const alpha = 1 - (full.probabilities?.[c] ?? 0);
        let n = 0;
        let atLeast = 0;
        for (let i = 0; i < state.n; i++) {
          if (cal.y[i] !== c) continue;
          n++;
          const own = cal.ownClass?.[i];
          if ((own === undefined || Number.isNaN(own) ? 1 : 1 - own) >= alpha - 1e-12) atLeast++;
        }
        return Number.isNaN(full.value) ? Number.NaN : (atLeast + 1) / (n + 1);
      });
      return { pValues, sets: conformal.levels.map((l) => predictionSet(pValues, l)) };
    }
    if (Number.isNaN(full.value)) return { intervals: conformal.levels.map((): [number, number] => [Number.NaN, Number.NaN]) };
    const nearest = new Set(wide.slice(0, state.k).map((n) => n.index));
    const without = new Map<number, ReadAcrossPrediction>();
    const lower: number[] = [];
    const upper: number[] = [];
    for (let i = 0; i < state.n; i++) {
      const sigmaI = spreadOn ? (cal.spread![i] || 0) + cal.beta : 1;
      const residual = Math.abs(cal.y[i] - cal.value[i]) / sigmaI;
      if (!Number.isFinite(residual)) continue;
      let p = full;
      if (nearest.has(i)) {
        p = without.get(i) ?? readAcrossRow(state, d, wide.filter((n) => n.index !== i).slice(0, state.k));
        without.set(i, p);
      }
      // a leave-one-out model that cannot predict the row: its bounds are unbounded
      const sigma = spreadOn ? (p.spread ?? 0) + cal.beta : 1;
      lower.push(Number.isNaN(p.value) ? Number.NEGATIVE_INFINITY : p.value - residual * sigma);
      upper.push(Number.isNaN(p.value) ? Number.POSITIVE_INFINITY : p.value + residual * sigma);
    }
    const negated = Float64Array.from(lower, (v) => -v).sort();
    const up = Float64Array.from(upper).sort();
    return { intervals: conformal.levels.map((l): [number, number] => [-conformalQuantile(negated, 1 - l), conformalQuantile(up, 1 - l)]) };
  });
}

/** Worker-pool entry: the sources stored and every source's leave-one-out read-across. */
export function trainReadAcross(data: TrainingData, params: Record<string, ParamValue>, seed: number): ReadAcrossState {
  return leaveOneOut(readAcrossSources(data, params, seed));
}

/** The leave-one-out predictions training made: value (NaN: not predicted), score (two classes), neighbours used. */
export function leaveOneOutOf(state: ReadAcrossState): { value: Float64Array; score?: Float64Array; used: Float64Array } {
  return { value: decodeF64(state.loo.value), score: state.loo.score ? decodeF64(state.loo.score) : undefined, used: decodeF64(state.loo.used) };
}

export const READ_ACROSS_PARAMETERS: ParameterSpec[] = [
  { name: 'k', description: 'The number of nearest source compounds read across from', type: 'integer', default: 10, min: 1, max: 1000 },
  { name: 'similarity_threshold', description: 's0: a source is a neighbour only with similarity ≥ s0; a target with none is not predicted', type: 'number', default: 0, min: 0, max: 1 },
  {
    name: 'fingerprint',
    description:
      'What similarity is measured on: morgan (Morgan bits, Jaccard), maccs (MACCS keys, Jaccard), or a descriptor algorithm’s id or URI (standardised Euclidean distance d, similarity 1 / (1 + d)); several, separated by commas, for a hybrid. Calculated for the training compounds, and for every compound predicted.',
    type: 'string',
    default: 'morgan',
  },
  { name: 'morgan_radius', description: 'The Morgan fingerprint’s radius (2: ECFP4-like)', type: 'integer', default: 2, min: 1, max: 6 },
  { name: 'morgan_bits', description: 'The Morgan fingerprint’s length in bits', type: 'integer', default: 2048, min: 64, max: 16384 },
  {
    name: 'fingerprint_weights',
    description: 'A hybrid’s weights, one per fingerprint in the order given (empty: equal); the similarity is the weighted mean of the fingerprints’ similarities',
    type: 'string',
    default: '',
  },
  {
    name: 'positive_class',
    description: 'Two classes: the class whose outcome is 1 in the activity score (empty: one named active, positive, toxic, mutagen, carcinogen or 1, else the second in sorted order)',
    type: 'string',
    default: '',
  },
];

const MODULE = import.meta.url;

function learner(classification: boolean): Learner {
  return {
    id: classification ? 'genra-classification' : 'genra-regression',
    title: 'Read-across (GenRA)',
    description:
      'Generalised read-across (GenRA): the similarity-weighted mean of the measured values (for classes, of the 0/1 outcomes: an activity score with a threshold chosen on the neighbourhood) of the k most similar source compounds with similarity ≥ s0. A target without such a neighbour is not predicted. Training computes every source’s leave-one-out read-across.',
    task: classification ? 'classification' : 'regression',
    types: [classification ? 'Classification' : 'Regression', 'LazyLearning', 'ApplicabilityDomain'],
    parameters: READ_ACROSS_PARAMETERS,
    explains: true,
    async train(data: TrainingData, params: Record<string, ParamValue>, context: LearnerContext) {
      // all of it on the worker pool: the fingerprints' dense matrix is made there, never on the main thread
      return context.run<ReadAcrossState>(MODULE, 'trainReadAcross', [data, params, context.seed], { background: true });
    },
    predict(state: unknown, x: Matrix): Prediction[] {
      return predictReadAcross(state as ReadAcrossState, x);
    },
    jackknife(state: unknown, conformal: ConformalState, x: Matrix): ConformalAnswer[] {
      return jackknifeAnswers(state as ReadAcrossState, conformal, x);
    },
  };
}

export const readAcrossRegression = learner(false);
export const readAcrossClassification = learner(true);

/** `/algorithm/genra`: one algorithm for both tasks; a model is trained with the form for its target (classes for a nominal one). */
export const readAcross: Learner = {
  ...readAcrossRegression,
  id: 'genra',
  types: ['Regression', 'Classification', 'LazyLearning', 'ApplicabilityDomain'],
  forTarget: (target) => (target.nominal && !target.numeric ? readAcrossClassification : readAcrossRegression),
};

/** The measured values (or class indices) of the sources, in training order. */
export function measuredOf(state: ReadAcrossState): Float64Array {
  return decodeF64(state.y);
}

/**
 * Every source's leave-one-out interval at each level, calibrated by the other sources'
 * leave-one-out residuals (so the interval never saw the source): its leave-one-out value ± the
 * conformal quantile of the others' residuals (× its σ under spread normalisation). NaN where
 * the source is not predicted. What a conformal read-across claims, measured on its own sources.
 */
export function leaveOneOutIntervals(state: ReadAcrossState, levels: number[], normalisation: string): [number, number][][] {
  const cal = calibrationOf(state);
  const spreadOn = normalisation === 'spread';
  const sigma = (i: number) => (spreadOn ? (cal.spread![i] || 0) + cal.beta : 1);
  const residual = Array.from({ length: state.n }, (_, i) => Math.abs(cal.y[i] - cal.value[i]) / sigma(i));
  const sorted = Float64Array.from(residual.filter(Number.isFinite)).sort();
  const m = sorted.length;
  return residual.map((own, i) =>
    levels.map((level): [number, number] => {
      if (Number.isNaN(cal.value[i])) return [Number.NaN, Number.NaN];
      let q: number;
      if (!Number.isFinite(own)) q = conformalQuantile(sorted, 1 - level);
      else {
        // the rank among the m − 1 others' residuals: own removed from the sorted list
        const rank = Math.ceil(m * level - 1e-9);
        if (rank > m - 1) q = Number.POSITIVE_INFINITY;
        else {
          let pos = 0;
          while (pos < m && sorted[pos] < own) pos++;
          q = rank - 1 < pos ? sorted[Math.max(0, rank - 1)] : sorted[rank];
        }
      }
      return [cal.value[i] - q * sigma(i), cal.value[i] + q * sigma(i)];
    }),
  );
}
