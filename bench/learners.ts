import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import initRDKitModule from '@rdkit/rdkit';
import type { Learner, Matrix, Prediction, RunFunction, TrainingData } from '../src/learning/learner.ts';
import { Random } from '../src/learning/random.ts';
import { randomForestClassification, randomForestRegression } from '../src/learning/random-forest.ts';
import { gradientBoostingClassification, gradientBoostingRegression } from '../src/learning/gradient-boosting.ts';
import { WorkerPool } from '../src/task/worker-pool.ts';
import { fmt, now, ratio, type Row } from './util.ts';

const DATA = new URL('../../shared/data/', import.meta.url);

/** scikit-learn RandomForestClassifier(n_estimators=100), stratified 10-fold CV of Kazius/Morgan 2048, two cores, on this machine. */
const SKLEARN = { accuracy: 0.838, auc: 0.903, seconds: 60.6 };

/** A QSAR table: one feature row per parsed compound. */
export interface QsarData {
  x: Matrix;
  binary: boolean[];
  /** Regression target, or class index into `classes`. */
  y: Float64Array;
  classes: string[];
  /** Rows of the CSV whose SMILES RDKit could not parse. */
  skipped: number;
}

interface Molecule {
  is_valid(): boolean;
  get_descriptors(): string;
  get_morgan_fp(details: string): string;
  delete(): void;
}
type Featurise = (mol: Molecule) => number[];
/** The RDKit.js typings declare no call signature for the module factory. */
const initRDKit = initRDKitModule as unknown as () => Promise<{ get_mol(smiles: string): Molecule | null }>;

async function loadCsv(file: string, featurise: Featurise, every = 1): Promise<{ features: number[][]; labels: string[]; skipped: number }> {
  const rdkit = await initRDKit();
  const records = parseCsv(readFileSync(new URL(file, DATA)), { from_line: 2 }) as string[][];
  const features: number[][] = [];
  const labels: string[] = [];
  let skipped = 0;
  for (const [smiles, label] of records.filter((_, i) => i % every === 0)) {
    const mol = rdkit.get_mol(smiles);
    if (!mol) {
      skipped++;
      continue;
    }
    try {
      if (!mol.is_valid()) {
        skipped++;
        continue;
      }
      features.push(featurise(mol));
      labels.push(label);
    } finally {
      mol.delete();
    }
  }
  return { features, labels, skipped };
}

function matrix(features: number[][]): Matrix {
  const rows = features.length;
  const cols = features[0].length;
  const data = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) data.set(features[r], r * cols);
  return { rows, cols, data };
}

/** EPAFHM fathead minnow -log10 LC50 (mmol) with the 43 RDKit.js descriptors. */
export async function loadEpafhm(): Promise<QsarData> {
  const { features, labels, skipped } = await loadCsv('EPAFHM_log10.csv', (mol) => Object.values(JSON.parse(mol.get_descriptors()) as Record<string, number>));
  const x = matrix(features);
  return { x, binary: new Array(x.cols).fill(false), y: Float64Array.from(labels, Number), classes: [], skipped };
}

/** EPAFHM with Morgan fingerprints (radius 2, `bits` bits) instead of descriptors. */
export async function loadEpafhmMorgan(bits = 2048): Promise<QsarData> {
  const { features, labels, skipped } = await loadCsv('EPAFHM_log10.csv', morganBits(bits));
  return { x: matrix(features), binary: new Array(bits).fill(true), y: Float64Array.from(labels, Number), classes: [], skipped };
}

function morganBits(bits: number): Featurise {
  const details = JSON.stringify({ radius: 2, nBits: bits });
  return (mol) => Array.from(mol.get_morgan_fp(details), (c) => (c === '1' ? 1 : 0));
}

/** Kazius mutagenicity with Morgan fingerprints (radius 2, `bits` bits); `every` > 1 keeps every so many rows only. */
export async function loadKazius(bits = 2048, every = 1): Promise<QsarData> {
  const { features, labels, skipped } = await loadCsv('kazius.csv', morganBits(bits), every);
  const classes = [...new Set(labels)].sort();
  return { x: matrix(features), binary: new Array(bits).fill(true), y: Float64Array.from(labels, (l) => classes.indexOf(l)), classes, skipped };
}

/** Fold of every row: stratified by class when `strata` is given, in a seeded random order. */
export function foldsOf(n: number, k: number, seed: number, strata?: Float64Array): Int32Array {
  const fold = new Int32Array(n);
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const g = strata ? strata[i] : 0;
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(i);
  }
  const rng = new Random(seed);
  let next = 0;
  for (const g of [...groups.keys()].sort((a, b) => a - b)) {
    for (const i of rng.shuffle(groups.get(g)!)) fold[i] = next++ % k;
  }
  return fold;
}

export function selectRows(data: QsarData, rows: number[]): TrainingData {
  const cols = data.x.cols;
  const x = new Float64Array(rows.length * cols);
  rows.forEach((r, i) => x.set(data.x.data.subarray(r * cols, (r + 1) * cols), i * cols));
  return { x: { rows: rows.length, cols, data: x }, binary: data.binary, y: Float64Array.from(rows, (r) => data.y[r]), classes: data.classes };
}

/** Cross-validated predictions of every row (each predicted by the model of the folds without it). */
export async function crossValidate(
  learner: Learner,
  data: QsarData,
  fold: Int32Array,
  params: Record<string, number | boolean | string>,
  run: RunFunction,
  parallelism: number,
): Promise<Prediction[]> {
  const k = Math.max(...fold) + 1;
  const predictions = new Array<Prediction>(data.x.rows);
  for (let f = 0; f < k; f++) {
    const train: number[] = [];
    const test: number[] = [];
    for (let i = 0; i < data.x.rows; i++) (fold[i] === f ? test : train).push(i);
    const state = await learner.train(selectRows(data, train), params, { seed: 1 + f, parallelism, run });
    const predicted = learner.predict(state, selectRows(data, test).x);
    test.forEach((i, j) => (predictions[i] = predicted[j]));
  }
  return predictions;
}

export function defaults(learner: Learner): Record<string, number | boolean | string> {
  return Object.fromEntries(learner.parameters.map((p) => [p.name, p.default]));
}

/** Area under the ROC curve of `scores` for `positive` labels (Mann-Whitney U, ties count one half). */
export function auc(scores: number[], positive: boolean[]): number {
  const order = scores.map((_, i) => i).sort((a, b) => scores[a] - scores[b]);
  let rankSumPositive = 0;
  let positives = 0;
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j < order.length && scores[order[j]] === scores[order[i]]) j++;
    const midRank = (i + 1 + j) / 2;
    for (let t = i; t < j; t++) {
      if (positive[order[t]]) {
        rankSumPositive += midRank;
        positives++;
      }
    }
    i = j;
  }
  const negatives = order.length - positives;
  return (rankSumPositive - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/** Q² = 1 - PRESS / SS_tot and RMSE of pooled cross-validated predictions. */
export function regressionQuality(observed: Float64Array, predicted: number[]): { q2: number; rmse: number } {
  const mean = observed.reduce((a, b) => a + b, 0) / observed.length;
  let press = 0;
  let total = 0;
  for (let i = 0; i < observed.length; i++) {
    press += (observed[i] - predicted[i]) ** 2;
    total += (observed[i] - mean) ** 2;
  }
  return { q2: 1 - press / total, rmse: Math.sqrt(press / observed.length) };
}

/**
 * Random forests under 10-fold cross-validation on a real worker pool of two threads:
 * Kazius mutagenicity (Morgan fingerprints) against scikit-learn on the same setup, and EPAFHM
 * fish toxicity (RDKit descriptors); gradient boosting on the same folds.
 */
export async function benchLearners(): Promise<Row[]> {
  const rows: Row[] = [];
  const pool = new WorkerPool(2);
  const run: RunFunction = (url, fn, args) => pool.run(url, fn, args);
  try {
    const kazius = await loadKazius();
    const mutagenic = kazius.classes.indexOf('mutagenic');
    const folds = foldsOf(kazius.x.rows, 10, 42, kazius.y);
    let t = now();
    const predicted = await crossValidate(randomForestClassification, kazius, folds, defaults(randomForestClassification), run, 2);
    const seconds = (now() - t) / 1000;
    const accuracy = predicted.filter((p, i) => p.value === kazius.y[i]).length / predicted.length;
    const area = auc(
      predicted.map((p) => p.probabilities![mutagenic]),
      Array.from(kazius.y, (y) => y === mutagenic),
    );
    const bench = `learners: Kazius ${kazius.x.rows} compounds (${kazius.skipped} unparsed), Morgan r2 2048 bits, RF 100 trees, stratified 10-fold CV, 2 workers`;
    rows.push(
      { bench, measure: 'accuracy (scikit-learn 0.838)', value: fmt(accuracy, 3) },
      { bench, measure: 'AUC mutagenic (scikit-learn 0.903)', value: fmt(area, 3) },
      { bench, measure: 'CV time s (scikit-learn 60.6 s)', value: fmt(seconds, 1), ratio: ratio(seconds / SKLEARN.seconds) },
    );
    t = now();
    const all = Array.from({ length: kazius.x.rows }, (_, i) => i);
    const model = await randomForestClassification.train(selectRows(kazius, all), defaults(randomForestClassification), { seed: 1, parallelism: 2, run });
    const trainSeconds = (now() - t) / 1000;
    rows.push(
      { bench, measure: 'model on all compounds: train s', value: fmt(trainSeconds, 1) },
      { bench, measure: 'model on all compounds: JSON MB', value: fmt(JSON.stringify(model).length / 1e6, 2) },
    );

    t = now();
    const boosted = await crossValidate(gradientBoostingClassification, kazius, folds, defaults(gradientBoostingClassification), run, 2);
    const boostedSeconds = (now() - t) / 1000;
    const boostedBench = `learners: Kazius, the same folds, gradient boosting 100 rounds of depth-3 trees (one worker: rounds are sequential)`;
    rows.push(
      { bench: boostedBench, measure: 'accuracy', value: fmt(boosted.filter((p, i) => p.value === kazius.y[i]).length / boosted.length, 3) },
      {
        bench: boostedBench,
        measure: 'AUC mutagenic',
        value: fmt(
          auc(
            boosted.map((p) => p.probabilities![mutagenic]),
            Array.from(kazius.y, (y) => y === mutagenic),
          ),
          3,
        ),
      },
      { bench: boostedBench, measure: 'CV time s', value: fmt(boostedSeconds, 1) },
    );

    const epafhm = await loadEpafhm();
    t = now();
    const regression = await crossValidate(randomForestRegression, epafhm, foldsOf(epafhm.x.rows, 10, 42), defaults(randomForestRegression), run, 2);
    const regressionSeconds = (now() - t) / 1000;
    const { q2, rmse } = regressionQuality(
      epafhm.y,
      regression.map((p) => p.value),
    );
    const bench2 = `learners: EPAFHM ${epafhm.x.rows} compounds (${epafhm.skipped} unparsed), 43 RDKit descriptors, RF regression 100 trees, 10-fold CV, 2 workers`;
    rows.push(
      { bench: bench2, measure: 'Q2', value: fmt(q2, 3) },
      { bench: bench2, measure: 'RMSE (-log10 mmol)', value: fmt(rmse, 3) },
      { bench: bench2, measure: 'CV time s', value: fmt(regressionSeconds, 1) },
    );
    t = now();
    const boostedRegression = await crossValidate(gradientBoostingRegression, epafhm, foldsOf(epafhm.x.rows, 10, 42), defaults(gradientBoostingRegression), run, 2);
    const boostedRegressionSeconds = (now() - t) / 1000;
    const boostedQuality = regressionQuality(
      epafhm.y,
      boostedRegression.map((p) => p.value),
    );
    const bench3 = `learners: EPAFHM, the same folds, gradient boosting regression 100 rounds of depth-3 trees`;
    rows.push(
      { bench: bench3, measure: 'Q2', value: fmt(boostedQuality.q2, 3) },
      { bench: bench3, measure: 'RMSE (-log10 mmol)', value: fmt(boostedQuality.rmse, 3) },
      { bench: bench3, measure: 'CV time s', value: fmt(boostedRegressionSeconds, 1) },
    );
  } finally {
    await pool.close();
  }
  return rows;
}
