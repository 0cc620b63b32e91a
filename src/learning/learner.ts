import type { ConformalAnswer, ConformalState } from './conformal.ts';
/**
 * The one interface every supervised learner implements (spec 2.4 `Supervised`). The model
 * component turns a dataset into `TrainingData`, calls `train`, stores the returned state (a
 * JSON value) in the model resource, and later calls `predict` with that state.
 *
 * Heavy work never runs on the server's main thread: `train` is an orchestrator that hands
 * pure, exported functions to `context.run` (the worker pool in the server; a direct call in
 * tests and benchmarks). `predict` is a pure function of the state and the rows.
 */

/** Row-major matrix: the value of row r, column c is data[r * cols + c]. */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float64Array;
}

export type LearningTask = 'regression' | 'classification';

export interface TrainingData {
  /** Independent variables: no NaN (missing values are imputed before), not scaled. */
  x: Matrix;
  /** Per column: true when the column holds only 0/1 (a fingerprint bit). */
  binary: boolean[];
  /** Regression: the target. Classification: the class index into `classes`. */
  y: Float64Array;
  /** Classification: the class values, sorted; [] for regression. */
  classes: string[];
  /** The rows' compound URIs, for learners whose answers name training compounds (read-across: its neighbours, its ties by compound id). */
  ids?: string[];
  /** Per column: the independent variable it encodes (a fingerprint's bits share one), for learners that weigh variables (read-across's hybrid similarity). */
  columnGroups?: number[];
}

export interface Prediction {
  /** Regression: the predicted value. Classification: the index of the predicted class. */
  value: number;
  /** In [0, 1]: the class probability, or a spread-based confidence for regression. */
  confidence: number;
  /** Classification: one probability per class (sums to 1). */
  probabilities?: number[];
  /** Ensembles' regression: the standard deviation of their members' predictions (a difficulty estimate for conformal intervals). */
  spread?: number;
  /** Why the row is not predicted (value NaN): read-across without a neighbour at or above its threshold. */
  reason?: string;
  /** The training compounds the prediction comes from (read-across), most similar first: measured is the value or class index. */
  neighbours?: { compound?: string; similarity: number; measured: number }[];
  /** The neighbourhood's statistics in words (read-across): how many were used, their similarity, the spread or the threshold and its AUC. */
  neighbourhood?: string;
}

export type ParamValue = number | boolean | string;

export interface ParameterSpec {
  name: string;
  description: string;
  type: 'integer' | 'number' | 'boolean' | 'string';
  default: ParamValue;
  /** Inclusive bounds for numbers. */
  min?: number;
  max?: number;
  /** Exclusive bounds for numbers. */
  greaterThan?: number;
  lessThan?: number;
  /** Allowed values of a string parameter. */
  choices?: string[];
}

/** Runs an exported function of a module (by URL) off the main thread. */
/** Runs a pure function of a module off the main thread; `background`: a piece of long work (see WorkerPool's RunOptions). */
export type RunFunction = <T>(moduleUrl: string, exportName: string, args: unknown[], options?: { background?: boolean }) => Promise<T>;

export interface LearnerContext {
  /** Seed of every random choice: the same seed and data give the same model. */
  seed: number;
  /** How many calls of `run` may usefully proceed at once (the number of worker threads). */
  parallelism: number;
  run: RunFunction;
  signal?: AbortSignal;
}

export interface Learner {
  /** The algorithm id under /algorithm/ (e.g. `random-forest-classification`). */
  id: string;
  title: string;
  description: string;
  task: LearningTask;
  /** Algorithm types, local names in the ota: ontology (besides `Supervised`). */
  types: string[];
  /** owl:sameAs: an entry of the Blue Obelisk algorithm ontology, when one exists. */
  sameAs?: string;
  parameters: ParameterSpec[];
  /** Parameters arrive checked and complete (defaults filled in). Answers a JSON value. */
  train(data: TrainingData, params: Record<string, ParamValue>, context: LearnerContext): Promise<unknown>;
  predict(state: unknown, x: Matrix): Prediction[];
  /**
   * Linear models: the model as intercept + coefficients of the (unscaled) columns, so that it
   * can be exported (PMML). Undefined for models that are not linear in the columns.
   */
  linearForm?(state: unknown): { intercept: number; coefficients: number[] } | undefined;
  /**
   * A learner of either task (read-across): its form for a target, classification for a nominal
   * one, else regression. Training and validation ask it once they know the prediction feature.
   */
  forTarget?(target: { numeric: boolean; nominal: boolean }): Learner;
  /** Its predictions name the training compounds they come from (Prediction.neighbours) and say why a row is not predicted (Prediction.reason). */
  explains?: boolean;
  /**
   * Learners that compute every training row's leave-one-out prediction when they train
   * (read-across): the `jackknife+` conformal answers of rows, calibrated by those residuals.
   */
  jackknife?(state: unknown, conformal: ConformalState, x: Matrix): ConformalAnswer[];
}

/** The learner a target is learnt with: the learner itself, or its form for the target's kind. */
export function learnerForTarget(learner: Learner, target: { numeric: boolean; nominal: boolean }): Learner {
  return learner.forTarget?.(target) ?? learner;
}

/** Call `run` in-process (tests, benchmarks and the worker itself). */
export const runInProcess: RunFunction = async <T>(moduleUrl: string, exportName: string, args: unknown[]) => {
  const mod = await import(moduleUrl);
  return (await mod[exportName](...args)) as T;
};

export function row(x: Matrix, r: number): Float64Array {
  return x.data.subarray(r * x.cols, (r + 1) * x.cols);
}
