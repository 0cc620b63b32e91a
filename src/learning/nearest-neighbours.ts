/**
 * k-nearest neighbours regression (`knn-regression`) and classification (`knn-classification`).
 *
 * Own code: ml-knn has no Tanimoto (Jaccard) similarity, the usual measure for fingerprints.
 * Lazy learning: "training" only stores the rows (one pass over the data, done in place: there
 * is nothing to hand to a worker), compactly: standardised descriptors as base64 Float32,
 * fingerprint bits packed 32 to a word.
 *
 * Distances (`distance` parameter):
 *  - `tanimoto`: Tanimoto similarity |a ∧ b| / |a ∨ b| of the binary columns (two empty
 *    fingerprints count as identical);
 *  - `euclidean`: d = Euclidean distance of the standardised non-constant columns divided by
 *    √(number of columns) (a root-mean-square difference, so that the similarity does not sink
 *    with the number of descriptors), similarity 1 / (1 + d);
 *  - `auto`: Tanimoto when every column is binary, else Euclidean.
 * The k most similar training rows (ties: the earlier row) vote with weights = their similarity
 * (equal weights if every similarity is 0). Regression: the weighted mean, confidence = the mean
 * similarity of the k neighbours. Classification: probabilities = weighted class votes, the class
 * is the most probable one and the confidence its probability.
 */
import type { Learner, Matrix, ParamValue, ParameterSpec, Prediction, TrainingData } from './learner.ts';
import {
  applyScaler,
  argmax,
  classCount,
  decodeF32,
  decodeF64,
  decodeU32,
  decodedCache,
  encodeF32,
  encodeF64,
  encodeU32,
  fitScaler,
  mean,
  normalise,
  packBits,
  popcount,
  selectColumns,
  wordsPerRow,
  type Scaler,
} from './scaling.ts';

type Metric = 'euclidean' | 'tanimoto';

interface KnnState {
  kind: 'knn-regression' | 'knn-classification';
  metric: Metric;
  k: number;
  n: number;
  /** Euclidean: the standardiser and the standardised rows (n × columns, base64 Float32). */
  scaler?: Scaler;
  rows?: string;
  /** Tanimoto: the binary columns and the rows' bits (n × words, base64 Uint32). */
  bitColumns?: number[];
  bits?: string;
  /** Targets or class indices (base64 Float64). */
  y: string;
  classes: number;
}

function metricOf(data: TrainingData, distance: string): Metric {
  if (distance === 'euclidean' || distance === 'tanimoto') return distance;
  if (distance !== 'auto') throw new Error(`unknown distance ${distance}`);
  return data.x.cols > 0 && data.binary.length === data.x.cols && data.binary.every(Boolean) ? 'tanimoto' : 'euclidean';
}

/** Stores the training rows (pure; cheap, so it is called in place). */
export function trainKnn(data: TrainingData, k: number, distance: string, classification: boolean): KnnState {
  const metric = metricOf(data, distance);
  const state: KnnState = {
    kind: classification ? 'knn-classification' : 'knn-regression',
    metric,
    k: Math.max(1, Math.floor(k)),
    n: data.x.rows,
    y: encodeF64(data.y),
    classes: classification ? classCount(data) : 0,
  };
  if (metric === 'tanimoto') {
    const columns = data.binary.flatMap((b, c) => (b ? [c] : []));
    if (!columns.length) throw new Error('the Tanimoto distance needs binary (fingerprint) columns');
    state.bitColumns = columns;
    state.bits = encodeU32(packBits(selectColumns(data.x, columns).data, data.x.rows, columns.length));
  } else {
    state.scaler = fitScaler(data.x);
    state.rows = encodeF32(applyScaler(state.scaler, data.x).data);
  }
  return state;
}

const decode = decodedCache((s: KnnState) => ({
  y: decodeF64(s.y),
  rows: s.rows === undefined ? new Float32Array(0) : decodeF32(s.rows),
  bits: s.bits === undefined ? new Uint32Array(0) : decodeU32(s.bits),
  /** Bits set per training row. */
  counts: s.bits === undefined ? new Uint32Array(0) : bitCounts(decodeU32(s.bits), s.n, wordsPerRow(s.bitColumns!.length)),
}));

function bitCounts(bits: Uint32Array, n: number, w: number): Uint32Array {
  const out = new Uint32Array(n);
  for (let r = 0; r < n; r++) {
    let c = 0;
    for (let i = 0; i < w; i++) c += popcount(bits[r * w + i]);
    out[r] = c;
  }
  return out;
}

/** The k most similar rows: indices and similarities, most similar first. */
class TopK {
  readonly index: Int32Array;
  readonly sim: Float64Array;
  size = 0;
  readonly k: number;
  constructor(k: number) {
    this.k = k;
    this.index = new Int32Array(k);
    this.sim = new Float64Array(k);
  }
  clear(): void {
    this.size = 0;
  }
  offer(i: number, s: number): void {
    if (this.size === this.k && s <= this.sim[this.size - 1]) return;
    let j = this.size < this.k ? this.size++ : this.size - 1;
    while (j > 0 && this.sim[j - 1] < s) {
      this.sim[j] = this.sim[j - 1];
      this.index[j] = this.index[j - 1];
      j--;
    }
    this.sim[j] = s;
    this.index[j] = i;
  }
}

export function predictKnn(state: KnnState, x: Matrix): Prediction[] {
  const d = decode(state);
  const top = new TopK(Math.min(state.k, Math.max(1, state.n)));
  const out: Prediction[] = [];
  let query: (r: number) => void;
  if (state.metric === 'tanimoto') {
    const cols = state.bitColumns!;
    const w = wordsPerRow(cols.length);
    const qbits = packBits(
      selectColumns(x, cols).data.map((v) => (v >= 0.5 ? 1 : 0)),
      x.rows,
      cols.length,
    );
    query = (r) => {
      let qc = 0;
      for (let i = 0; i < w; i++) qc += popcount(qbits[r * w + i]);
      for (let t = 0; t < state.n; t++) {
        let both = 0;
        for (let i = 0; i < w; i++) both += popcount(qbits[r * w + i] & d.bits[t * w + i]);
        const union = qc + d.counts[t] - both;
        top.offer(t, union === 0 ? 1 : both / union);
      }
    };
  } else {
    const z = applyScaler(state.scaler!, x);
    const p = z.cols;
    query = (r) => {
      const o = r * p;
      for (let t = 0; t < state.n; t++) {
        const q = t * p;
        let s = 0;
        for (let j = 0; j < p; j++) {
          const diff = z.data[o + j] - d.rows[q + j];
          s += diff * diff;
        }
        const dist = p > 0 ? Math.sqrt(s / p) : 0;
        top.offer(t, 1 / (1 + dist));
      }
    };
  }
  for (let r = 0; r < x.rows; r++) {
    top.clear();
    query(r);
    let wsum = 0;
    for (let i = 0; i < top.size; i++) wsum += top.sim[i];
    // Similarity weights; equal weights when every similarity is 0.
    const weight = (i: number) => (wsum > 0 ? top.sim[i] : 1);
    if (state.kind === 'knn-regression') {
      let value = 0;
      let total = 0;
      for (let i = 0; i < top.size; i++) {
        value += weight(i) * d.y[top.index[i]];
        total += weight(i);
      }
      out.push({ value: total > 0 ? value / total : 0, confidence: top.size ? mean(top.sim.subarray(0, top.size)) : 0 });
    } else {
      const votes = new Array<number>(state.classes).fill(0);
      for (let i = 0; i < top.size; i++) votes[d.y[top.index[i]]] += weight(i);
      const probabilities = normalise(votes);
      const value = argmax(probabilities);
      out.push({ value, confidence: probabilities[value], probabilities });
    }
  }
  return out;
}

const PARAMETERS: ParameterSpec[] = [
  { name: 'k', description: 'Number of neighbours', type: 'integer', default: 5, min: 1, max: 1000 },
  {
    name: 'distance',
    description: 'auto: Tanimoto when every descriptor is binary, else Euclidean; euclidean: on standardised descriptors; tanimoto: on the binary (fingerprint) columns',
    type: 'string',
    default: 'auto',
    choices: ['auto', 'euclidean', 'tanimoto'],
  },
];

function learner(classification: boolean): Learner {
  return {
    id: classification ? 'knn-classification' : 'knn-regression',
    title: classification ? 'k-nearest neighbours classification' : 'k-nearest neighbours regression',
    description: classification
      ? 'Lazy learning: the class votes of the k most similar training compounds (Tanimoto on fingerprints, Euclidean on standardised descriptors), weighted by similarity, give the class probabilities.'
      : 'Lazy learning: the similarity-weighted mean of the k most similar training compounds (Tanimoto on fingerprints, Euclidean on standardised descriptors). Confidence: the mean similarity of the k neighbours (Tanimoto, or 1 / (1 + root-mean-square standardised distance)).',
    task: classification ? 'classification' : 'regression',
    // the distance to the k nearest training compounds doubles as an embedded applicability domain
    types: [classification ? 'Classification' : 'Regression', 'LazyLearning', 'ApplicabilityDomain'],
    sameAs: undefined,
    parameters: PARAMETERS,
    async train(data: TrainingData, params: Record<string, ParamValue>) {
      return trainKnn(data, Number(params.k), String(params.distance ?? 'auto'), classification);
    },
    predict(state: unknown, x: Matrix): Prediction[] {
      return predictKnn(state as KnnState, x);
    },
  };
}

export const knnRegression = learner(false);
export const knnClassification = learner(true);
