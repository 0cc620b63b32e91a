import { Random } from '../learning/random.js';

/**
 * Deterministic ways to divide the rows of a dataset (indices 0..n-1) for validation. The same
 * seed always gives the same division.
 */

/** Training/test split: |training| = round(n · ratio), the rest is the test set. */
export function trainingTestSplit(n: number, ratio: number, seed: number): { training: number[]; test: number[] } {
  const order = new Random(seed).shuffle([...Array(n).keys()]);
  const size = Math.round(n * ratio);
  return { training: order.slice(0, size).sort((a, b) => a - b), test: order.slice(size).sort((a, b) => a - b) };
}

/** Bootstrap: round(n · fraction) rows drawn with replacement; the test set is the rows never drawn. */
export function bootstrapSample(n: number, fraction: number, seed: number): { training: number[]; test: number[] } {
  const random = new Random(seed);
  const draws = Math.max(1, Math.round(n * fraction));
  const training = Array.from({ length: draws }, () => random.int(n)).sort((a, b) => a - b);
  const drawn = new Set(training);
  return { training, test: [...Array(n).keys()].filter((i) => !drawn.has(i)) };
}

/** Folds of a cross-validation: fold index (0..k-1) per row, by random assignment of equal sizes. */
export function randomFolds(n: number, k: number, seed: number): number[] {
  const order = new Random(seed).shuffle([...Array(n).keys()]);
  const fold = new Array<number>(n);
  order.forEach((row, i) => (fold[row] = i % k));
  return fold;
}

/**
 * Stratified folds: the rows of each class, in random order, are dealt to the folds in turn,
 * continuing where the previous class stopped, so every fold holds each class's share within
 * one row and the fold sizes differ by at most one.
 */
export function stratifiedFolds(classes: string[], k: number, seed: number): number[] {
  const random = new Random(seed);
  const byClass = new Map<string, number[]>();
  classes.forEach((c, i) => byClass.set(c, [...(byClass.get(c) ?? []), i]));
  const fold = new Array<number>(classes.length);
  let next = 0;
  for (const c of [...byClass.keys()].sort()) {
    for (const row of random.shuffle(byClass.get(c)!)) fold[row] = next++ % k;
  }
  return fold;
}

/**
 * "Super" stratification for a numeric target: rows sorted by the target are taken in blocks of
 * k, and each block is dealt to the k folds in a random order, so every fold covers the whole
 * range of the target evenly.
 */
export function sortedStratifiedFolds(values: number[], k: number, seed: number): number[] {
  const random = new Random(seed);
  const order = [...values.keys()].sort((a, b) => values[a] - values[b] || a - b);
  const fold = new Array<number>(values.length);
  for (let start = 0; start < order.length; start += k) {
    const slots = random.shuffle([...Array(k).keys()]);
    order.slice(start, start + k).forEach((row, i) => (fold[row] = slots[i]));
  }
  return fold;
}

/** A permutation of 0..n-1 (y-scrambling). */
export function permutation(n: number, seed: number): number[] {
  return new Random(seed).shuffle([...Array(n).keys()]);
}
