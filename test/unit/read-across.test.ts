import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Matrix, TrainingData } from '../../src/learning/learner.ts';
import {
  aucOf,
  balancedThreshold,
  leaveOneOut,
  leaveOneOutOf,
  neighbourhoodThreshold,
  positiveClass,
  predictReadAcross,
  readAcrossSources,
  type ReadAcrossState,
} from '../../src/learning/read-across.ts';
import { Random } from '../../src/learning/random.ts';

/** Rows of 0/1 bits as a matrix. */
function bits(rows: number[][]): Matrix {
  return { rows: rows.length, cols: rows[0].length, data: Float64Array.from(rows.flat()) };
}

function data(x: Matrix, y: number[], extra: Partial<TrainingData> = {}): TrainingData {
  return { x, binary: new Array(x.cols).fill(true), y: Float64Array.from(y), classes: [], ...extra };
}

function train(d: TrainingData, params: Record<string, number | string> = {}): ReadAcrossState {
  return leaveOneOut(readAcrossSources(d, params, 7));
}

/** |a ∧ b| / |a ∨ b| of two 0/1 rows, written out. */
function jaccard(a: number[], b: number[]): number {
  const both = a.filter((v, i) => v && b[i]).length;
  const either = a.filter((v, i) => v || b[i]).length;
  return either ? both / either : 0;
}

const SOURCES = [
  [1, 1, 1, 1, 0, 0, 0, 0],
  [1, 1, 1, 0, 0, 0, 0, 0],
  [1, 1, 0, 0, 0, 0, 0, 0],
  [0, 0, 0, 0, 1, 1, 1, 1],
];
const VALUES = [2, 4, 8, 100];

test('regression: the similarity-weighted mean of the k nearest, computed by hand', () => {
  const state = train(data(bits(SOURCES), VALUES), { k: 2 });
  const query = [1, 1, 1, 1, 1, 0, 0, 0];
  // similarities 4/5, 3/5, 2/5, 1/8: the two nearest are sources 0 and 1
  const [p] = predictReadAcross(state, bits([query]));
  assert.ok(Math.abs(p.value - (0.8 * 2 + 0.6 * 4) / (0.8 + 0.6)) < 1e-12, String(p.value));
  assert.deepEqual(
    p.neighbours.map((n) => n.index),
    [0, 1],
  );
  assert.ok(Math.abs(p.neighbours[0].similarity - jaccard(query, SOURCES[0])) < 1e-12);
  // the confidence is the neighbours' mean similarity
  assert.ok(Math.abs(p.confidence - 0.7) < 1e-12);
});

test('no neighbour at or above s0: not predicted, with the reason, never a fallback number', () => {
  const state = train(data(bits(SOURCES), VALUES), { k: 3, similarity_threshold: 0.9 });
  const [p] = predictReadAcross(state, bits([[1, 1, 1, 1, 1, 0, 0, 0]]));
  assert.ok(Number.isNaN(p.value));
  assert.match(p.reason ?? '', /no source compound has similarity ≥ 0\.9/);
  assert.equal(p.neighbours.length, 0);
  // s0 = 0.7 keeps only source 0 (0.8): its value exactly
  const [q] = predictReadAcross(train(data(bits(SOURCES), VALUES), { k: 3, similarity_threshold: 0.7 }), bits([[1, 1, 1, 1, 1, 0, 0, 0]]));
  assert.equal(q.value, 2);
  // a query sharing no bit with any source: every similarity is 0, not predicted
  const [r] = predictReadAcross(train(data(bits(SOURCES.slice(0, 3)), VALUES.slice(0, 3)), { k: 2 }), bits([[0, 0, 0, 0, 0, 0, 0, 1]]));
  assert.ok(Number.isNaN(r.value));
  assert.match(r.reason ?? '', /similarity 0/);
});

test('ties: similarity descending, then compound id in numeric order, whatever the row order', () => {
  // sources 0 and 1 are equally similar to the query; their ids decide
  const x = bits([
    [1, 1, 0, 0],
    [1, 0, 1, 0],
    [0, 0, 0, 1],
  ]);
  const query = bits([[1, 1, 1, 0]]);
  const ids = ['http://x/compound/10', 'http://x/compound/9', 'http://x/compound/11'];
  const [p] = predictReadAcross(train(data(x, [1, 5, 9], { ids }), { k: 1 }), query);
  // compound/9 before compound/10 (numeric, not string, order)
  assert.equal(p.value, 5);
  const [q] = predictReadAcross(train(data(x, [1, 5, 9], { ids: ['http://x/compound/9', 'http://x/compound/10', 'http://x/compound/11'] }), { k: 1 }), query);
  assert.equal(q.value, 1);
});

test('leave-one-out never counts a source as its own neighbour; a duplicate structure is a neighbour', () => {
  const x = bits([...SOURCES, SOURCES[0]]);
  const state = train(data(x, [...VALUES, 6]), { k: 1 });
  const loo = leaveOneOutOf(state);
  // source 0's nearest other source is its duplicate (similarity 1): 6; the duplicate's is source 0: 2
  assert.equal(loo.value[0], 6);
  assert.equal(loo.value[4], 2);
  // source 3 shares no bit with any other: not predicted
  assert.ok(Number.isNaN(loo.value[3]));
  assert.deepEqual([...loo.used], [1, 1, 1, 0, 1]);
});

/** The read-across by brute force: every similarity, sorted, filtered, weighted; written independently of the module. */
function bruteForce(sources: number[][], y: number[], ids: string[], query: number[], k: number, s0: number, exclude = -1): number {
  const order = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });
  const ranked = sources
    .map((s, i) => ({ i, s: jaccard(query, s) }))
    .filter((n) => n.i !== exclude && n.s >= s0)
    .sort((a, b) => b.s - a.s || order(ids[a.i], ids[b.i]))
    .slice(0, k)
    .filter((n) => n.s > 0);
  const den = ranked.reduce((t, n) => t + n.s, 0);
  return den > 0 ? ranked.reduce((t, n) => t + n.s * y[n.i], 0) / den : Number.NaN;
}

function randomBits(random: Random, rows: number, cols: number, density: number): number[][] {
  return Array.from({ length: rows }, () => Array.from({ length: cols }, () => (random.next() < density ? 1 : 0)));
}

test('against a brute-force similarity scan: predictions and leave-one-out, for several k and s0', () => {
  const random = new Random(3);
  const sources = randomBits(random, 60, 40, 0.2);
  // coarse bits make many ties
  const y = sources.map(() => Math.round(random.next() * 100) / 10);
  const ids = sources.map((_, i) => `http://x/compound/${(i * 37) % 101}`);
  const queries = randomBits(random, 25, 40, 0.2);
  for (const [k, s0] of [
    [1, 0],
    [3, 0.2],
    [10, 0],
    [10, 0.35],
  ]) {
    const state = train(data(bits(sources), y, { ids }), { k, similarity_threshold: s0 });
    const predicted = predictReadAcross(state, bits(queries));
    queries.forEach((q, r) => {
      const expected = bruteForce(sources, y, ids, q, k, s0);
      assert.ok(Object.is(predicted[r].value, expected) || Math.abs(predicted[r].value - expected) < 1e-9, `k ${k}, s0 ${s0}, query ${r}: ${predicted[r].value} against ${expected}`);
    });
    const loo = leaveOneOutOf(state);
    sources.forEach((s, t) => {
      const expected = bruteForce(sources, y, ids, s, k, s0, t);
      assert.ok(Object.is(loo.value[t], expected) || Math.abs(loo.value[t] - expected) < 1e-9, `k ${k}, s0 ${s0}, source ${t}: ${loo.value[t]} against ${expected}`);
    });
  }
});

test('a batch predicts every row exactly as it predicts it alone (regression and classification)', () => {
  const random = new Random(5);
  const sources = randomBits(random, 50, 32, 0.25);
  const queries = randomBits(random, 20, 32, 0.25);
  const regression = train(
    data(
      bits(sources),
      sources.map((_, i) => (i % 7) * 1.5),
    ),
    { k: 5 },
  );
  const classification = train(
    data(
      bits(sources),
      sources.map((_, i) => (i % 3 === 0 ? 1 : 0)),
      { classes: ['active', 'inactive'] },
    ),
    { k: 5 },
  );
  for (const state of [regression, classification]) {
    const batch = predictReadAcross(state, bits(queries));
    queries.forEach((q, r) => {
      const [alone] = predictReadAcross(state, bits([q]));
      assert.deepEqual(alone, batch[r], `row ${r}`);
    });
  }
});

test('classification: the activity score is the weighted mean of the 0/1 outcomes; the threshold falls back to 0.5 when the neighbourhood cannot support one', () => {
  // classes sorted: active (0), inactive (1); "active" is the positive class
  const state = train(data(bits(SOURCES), [0, 0, 1, 1], { classes: ['active', 'inactive'] }), { k: 3 });
  const [p] = predictReadAcross(state, bits([[1, 1, 1, 1, 1, 0, 0, 0]]));
  const score = (0.8 * 1 + 0.6 * 1 + 0.4 * 0) / (0.8 + 0.6 + 0.4);
  assert.ok(Math.abs((p.score ?? -1) - score) < 1e-12);
  assert.ok(Math.abs((p.probabilities?.[0] ?? -1) - score) < 1e-12);
  // three neighbours cannot give a p-value ≤ 0.2: the threshold is 0.5
  assert.ok((p.pValue ?? 0) > 0.2);
  assert.equal(p.decisionThreshold, 0.5);
  assert.equal(p.value, 0);
});

test('AUC, the balanced-accuracy threshold and the permutation p-value by hand', () => {
  assert.equal(aucOf([0.9, 0.8, 0.3, 0.1], [1, 1, 0, 0]), 1);
  assert.equal(aucOf([0.9, 0.3, 0.8, 0.1], [1, 1, 0, 0]), 0.75);
  assert.equal(aucOf([0.5, 0.5], [1, 0]), 0.5);
  assert.ok(Number.isNaN(aucOf([0.2, 0.4], [1, 1])));
  // scores 0.9, 0.7 positive; 0.6, 0.2 negative: any t in (0.6, 0.7] separates; the candidates are the scores, so t = 0.7
  assert.equal(balancedThreshold([0.9, 0.7, 0.6, 0.2], [1, 1, 0, 0]), 0.7);
  // perfectly separated scores over 20 neighbours: p = 1/101, the balanced threshold is used
  const scores = Array.from({ length: 20 }, (_, i) => i / 20);
  const labels = scores.map((s) => (s >= 0.6 ? 1 : 0));
  const n = neighbourhoodThreshold(scores, labels, 11);
  assert.equal(n.auc, 1);
  assert.ok(Math.abs(n.pValue - 1 / 101) < 1e-12, String(n.pValue));
  assert.equal(n.threshold, 0.6);
  // the same seed gives the same p-value; labels unrelated to the scores give a large one and 0.5
  assert.deepEqual(neighbourhoodThreshold(scores, labels, 11), n);
  const unrelated = neighbourhoodThreshold(scores, [1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0], 11);
  assert.ok(unrelated.pValue > 0.2, String(unrelated.pValue));
  assert.equal(unrelated.threshold, 0.5);
});

test('the positive class: named, else recognised by its name, else the second', () => {
  assert.equal(positiveClass(['active', 'inactive'], ''), 0);
  assert.equal(positiveClass(['mutagen', 'nonmutagen'], ''), 0);
  assert.equal(positiveClass(['0', '1'], ''), 1);
  assert.equal(positiveClass(['a', 'b'], ''), 1);
  assert.equal(positiveClass(['a', 'b'], 'a'), 0);
  assert.throws(() => positiveClass(['a', 'b'], 'c'), /positive_class c is not one of the classes/);
});

test('a hybrid: the weighted mean of a fingerprint’s Jaccard and the descriptors’ 1 / (1 + d)', () => {
  // columns 0-3: one fingerprint (group 0); column 4: a descriptor (group 1)
  const x: Matrix = {
    rows: 3,
    cols: 5,
    data: Float64Array.from([1, 1, 0, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 1, 4]),
  };
  const d = data(x, [1, 2, 3], { binary: [true, true, true, true, false], columnGroups: [0, 0, 0, 0, 1] });
  const state = train(d, { k: 3, fingerprint_weights: '3,1' });
  const query: Matrix = { rows: 1, cols: 5, data: Float64Array.from([1, 1, 0, 0, 2]) };
  const [p] = predictReadAcross(state, query);
  // the descriptor standardised: mean 2, sd 2; the query's z = 0, the sources' −1, 0, 1
  const numeric = [1 / 2, 1, 1 / 2];
  const fingerprint = [1, 1 / 3, 0];
  const sims = numeric.map((s, i) => (3 * fingerprint[i] + s) / 4);
  const expected = (sims[0] * 1 + sims[1] * 2 + sims[2] * 3) / (sims[0] + sims[1] + sims[2]);
  assert.ok(Math.abs(p.value - expected) < 1e-9, `${p.value} against ${expected}`);
  assert.throws(() => readAcrossSources(d, { fingerprint_weights: '1' }, 1), /1 weight\(s\) for 2 fingerprint\(s\)/);
  assert.throws(() => readAcrossSources(d, { k: 0 }, 1), /k must be at least 1/);
  assert.throws(() => readAcrossSources(d, { similarity_threshold: 1.5 }, 1), /similarity_threshold must be in \[0, 1\]/);
});

test('jackknife+ intervals equal those of n models each trained without one source (brute force)', async () => {
  const { jackknifeAnswers } = await import('../../src/learning/read-across.ts');
  const { conformalQuantile } = await import('../../src/learning/conformal.ts');
  const random = new Random(9);
  const sources = randomBits(random, 30, 24, 0.3);
  const y = sources.map((s) => s.filter(Boolean).length * 0.7 + random.next());
  const queries = randomBits(random, 6, 24, 0.3);
  const k = 4;
  const state = train(data(bits(sources), y), { k });
  const levels = [0.8, 0.9];
  const conformal = { method: 'jackknife+' as const, task: 'regression' as const, levels, normalisation: 'none' as const, parts: [], calibrationRows: sources.length };
  const answers = jackknifeAnswers(state, conformal, bits(queries));
  const loo = leaveOneOutOf(state).value;
  // the n leave-one-out models, each trained without one source
  const without = sources.map((_, i) =>
    train(
      data(
        bits(sources.filter((_, j) => j !== i)),
        y.filter((_, j) => j !== i),
      ),
      { k },
    ),
  );
  queries.forEach((q, r) => {
    const lower: number[] = [];
    const upper: number[] = [];
    sources.forEach((_, i) => {
      const residual = Math.abs(y[i] - loo[i]);
      if (!Number.isFinite(residual)) return;
      const [p] = predictReadAcross(without[i], bits([q]));
      lower.push(Number.isNaN(p.value) ? Number.NEGATIVE_INFINITY : p.value - residual);
      upper.push(Number.isNaN(p.value) ? Number.POSITIVE_INFINITY : p.value + residual);
    });
    const negated = Float64Array.from(lower, (v) => -v).sort();
    const up = Float64Array.from(upper).sort();
    levels.forEach((l, li) => {
      const expected = [-conformalQuantile(negated, 1 - l), conformalQuantile(up, 1 - l)];
      const got = answers[r].intervals![li];
      assert.ok(Math.abs(got[0] - expected[0]) < 1e-9 && Math.abs(got[1] - expected[1]) < 1e-9, `query ${r} at ${l}: ${got} against ${expected}`);
    });
  });
});
