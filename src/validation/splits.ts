import { compoundOf } from '../core/uri-scheme.ts';
import { Random } from '../learning/random.ts';

/**
 * Deterministic ways to divide the rows of a dataset (indices 0..n-1) for validation. The same
 * seed always gives the same division. Every division is drawn over structures, not rows
 * (DESIGN.md "Validation splits"): `groups[i]` is the structure of row i, and all rows of one
 * structure fall on the same side. When every row is its own structure, each division is the
 * same as a division of rows with the same seed.
 */

/** The structure of each row: rows of one compound (or of its conformers) share an index. */
export function structureGroups(compounds: string[]): number[] {
  const index = new Map<string, number>();
  return compounds.map((c) => {
    const key = compoundOf(c);
    if (!index.has(key)) index.set(key, index.size);
    return index.get(key)!;
  });
}

/** How many rows and distinct structures a side holds. */
export function sideCounts(indices: number[], groups: number[]): { rows: number; structures: number } {
  return { rows: indices.length, structures: new Set(indices.map((i) => groups[i])).size };
}

/** The structures in order of first appearance in `rows`, each with its rows. */
function membersInOrder(rows: number[], groups: number[]): number[][] {
  const members = new Map<number, number[]>();
  for (const r of rows) {
    const g = groups[r];
    if (!members.has(g)) members.set(g, []);
  }
  for (let r = 0; r < groups.length; r++) members.get(groups[r])?.push(r);
  return [...members.values()];
}

/**
 * Training/test split: structures in random order go to the training set until it holds
 * round(n · ratio) rows (at most one structure's rows more); the rest is the test set.
 */
export function trainingTestSplit(groups: number[], ratio: number, seed: number): { training: number[]; test: number[] } {
  const n = groups.length;
  const order = new Random(seed).shuffle([...Array(n).keys()]);
  const size = Math.round(n * ratio);
  const training: number[] = [];
  const test: number[] = [];
  for (const members of membersInOrder(order, groups)) (training.length < size ? training : test).push(...members);
  return { training: training.sort((a, b) => a - b), test: test.sort((a, b) => a - b) };
}

/**
 * Bootstrap: round(s · fraction) structures drawn with replacement (s structures); every draw
 * puts all rows of the structure in the training set; the test set is the rows of the
 * structures never drawn.
 */
export function bootstrapSample(groups: number[], fraction: number, seed: number): { training: number[]; test: number[] } {
  const random = new Random(seed);
  const members = membersInOrder([...groups.keys()], groups);
  const draws = Math.max(1, Math.round(members.length * fraction));
  const drawn = Array.from({ length: draws }, () => random.int(members.length)).sort((a, b) => a - b);
  const training = drawn.flatMap((g) => members[g]).sort((a, b) => a - b);
  const picked = new Set(drawn);
  return { training, test: members.flatMap((m, g) => (picked.has(g) ? [] : m)).sort((a, b) => a - b) };
}

/**
 * Deals structures to k folds: each goes to the fold with the fewest rows so far (ties to the
 * next fold in turn), so fold sizes stay even however many rows a structure has.
 */
class FoldDealer {
  readonly fold: number[];
  private readonly sizes: number[];
  private cursor = 0;

  private readonly k: number;
  constructor(n: number, k: number) {
    this.k = k;
    this.fold = new Array<number>(n);
    this.sizes = new Array<number>(k).fill(0);
  }

  deal(members: number[]): void {
    let best = this.cursor;
    for (let step = 1; step < this.k; step++) {
      const f = (this.cursor + step) % this.k;
      if (this.sizes[f] < this.sizes[best]) best = f;
    }
    for (const r of members) this.fold[r] = best;
    this.sizes[best] += members.length;
    this.cursor = (best + 1) % this.k;
  }
}

/** Folds of a cross-validation: fold index (0..k-1) per row, structures in random order dealt to the folds. */
export function randomFolds(groups: number[], k: number, seed: number): number[] {
  const order = new Random(seed).shuffle([...groups.keys()]);
  const dealer = new FoldDealer(groups.length, k);
  for (const members of membersInOrder(order, groups)) dealer.deal(members);
  return dealer.fold;
}

/**
 * Stratified folds: the structures of each class (the class of a structure's first row), in
 * random order, are dealt to the folds in turn, continuing where the previous class stopped, so
 * every fold holds each class's share within about one structure.
 */
export function stratifiedFolds(classes: string[], groups: number[], k: number, seed: number): number[] {
  const random = new Random(seed);
  const byClass = new Map<string, number[]>();
  const seen = new Set<number>();
  classes.forEach((c, i) => {
    if (seen.has(groups[i])) return;
    seen.add(groups[i]);
    byClass.set(c, [...(byClass.get(c) ?? []), i]);
  });
  const dealer = new FoldDealer(classes.length, k);
  for (const c of [...byClass.keys()].sort()) {
    for (const members of membersInOrder(random.shuffle(byClass.get(c)!), groups)) dealer.deal(members);
  }
  return dealer.fold;
}

/**
 * "Super" stratification for a numeric target: structures sorted by their mean target value are
 * taken in blocks of k, and each block is dealt to the k folds in a random order, so every fold
 * covers the whole range of the target evenly.
 */
export function sortedStratifiedFolds(values: number[], groups: number[], k: number, seed: number): number[] {
  const random = new Random(seed);
  const members = membersInOrder([...groups.keys()], groups);
  const mean = members.map((m) => m.reduce((s, r) => s + values[r], 0) / m.length);
  const order = [...members.keys()].sort((a, b) => mean[a] - mean[b] || members[a][0] - members[b][0]);
  const fold = new Array<number>(values.length);
  for (let start = 0; start < order.length; start += k) {
    const slots = random.shuffle([...Array(k).keys()]);
    order.slice(start, start + k).forEach((g, i) => members[g].forEach((r) => (fold[r] = slots[i])));
  }
  return fold;
}

/** Leave one structure out: one fold per structure. */
export function leaveOneOutFolds(groups: number[]): number[] {
  return [...groups];
}

/** A permutation of 0..n-1 (y-scrambling). */
export function permutation(n: number, seed: number): number[] {
  return new Random(seed).shuffle([...Array(n).keys()]);
}
