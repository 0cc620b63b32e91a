import type { Learner, LearnerContext, Matrix, ParamValue, TrainingData } from '../learning/learner.ts';
import { confidenceLevels, DIFFICULTY_NEIGHBOURS, difficultyBeta, partOutput, type CalibrationPart, type ConformalMethod, type ConformalState, type Normalisation } from '../learning/conformal.ts';
import { Random } from '../learning/random.ts';
import { selectedRows } from '../learning/sparse-matrix.ts';
import { DOMAIN_MODULE } from './domain-training.ts';
import { PREDICT_MODULE, type PartPrediction } from './predict-in-worker.ts';
import { timePhase } from '../core/phase-times.ts';
import { badRequest } from '../core/errors.ts';

/** A learner's conformal parameters, checked (conformal.ts CONFORMAL_PARAMETERS). */
export interface ConformalRequest {
  method: Exclude<ConformalMethod, 'none'>;
  levels: number[];
  fraction: number;
  sets: number;
  normalisation: Normalisation;
}

/**
 * The conformal calibration a learner's parameters ask for (undefined: none), checked against
 * the learner: a RangeError naming the parameter otherwise.
 */
export function conformalRequest(learner: Pick<Learner, 'id' | 'task' | 'jackknife'>, parameters: Record<string, ParamValue>): ConformalRequest | undefined {
  const method = String(parameters.conformal ?? 'none') as ConformalMethod;
  const normalisation = String(parameters.conformal_normalisation ?? 'none') as Normalisation;
  if (method === 'none') return undefined;
  const levels = confidenceLevels(parameters.confidence_level ?? '0.9');
  if (method === 'jackknife+' && !learner.jackknife)
    throw new RangeError(`conformal: jackknife+ needs a learner that computes its leave-one-out predictions when it trains (genra), and ${learner.id} does not`);
  if (method === 'jackknife+' && normalisation === 'knn') throw new RangeError('conformal_normalisation: jackknife+ takes none or spread');
  if (normalisation !== 'none' && learner.task !== 'regression')
    throw new RangeError(`conformal_normalisation: ${normalisation} applies to regression; classification is calibrated per class on the learner's probabilities`);
  if (normalisation === 'spread' && !learner.id.startsWith('random-forest') && !learner.id.startsWith('genra'))
    throw new RangeError(`conformal_normalisation: spread is the spread of a random forest's trees or of a read-across's neighbours' values, and ${learner.id} is neither (use knn)`);
  return { method, levels, fraction: Number(parameters.calibration_fraction ?? 0.25), sets: Number(parameters.calibration_sets ?? 5), normalisation };
}

/** The rows of `data` at `rows`. */
function subset(data: TrainingData, rows: number[]): TrainingData {
  const ids = data.ids;
  return {
    x: selectedRows(data.x, rows),
    binary: data.binary,
    y: Float64Array.from(rows, (r) => data.y[r]),
    classes: data.classes,
    ids: ids && rows.map((r) => ids[r]),
    columnGroups: data.columnGroups,
  };
}

/** Row indices grouped by class (classification), or all in one group (regression), each group shuffled. */
function shuffledStrata(data: TrainingData, random: Random): number[][] {
  const groups = new Map<number, number[]>();
  for (let r = 0; r < data.y.length; r++) {
    const key = data.classes.length ? data.y[r] : 0;
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  return [...groups.keys()].sort((a, b) => a - b).map((k) => random.shuffle(groups.get(k)!));
}

/** A calibration split: within each class (regression: all rows), round(fraction · n) rows calibrate, at least one, never all. */
export function calibrationSplit(data: TrainingData, fraction: number, seed: number): { training: number[]; calibration: number[] } {
  const training: number[] = [];
  const calibration: number[] = [];
  for (const stratum of shuffledStrata(data, new Random(seed))) {
    const take = stratum.length < 2 ? 0 : Math.min(stratum.length - 1, Math.max(1, Math.round(stratum.length * fraction)));
    calibration.push(...stratum.slice(0, take));
    training.push(...stratum.slice(take));
  }
  return { training: training.sort((a, b) => a - b), calibration: calibration.sort((a, b) => a - b) };
}

/** cv+ folds: each class's shuffled rows dealt to the k folds in turn (regression: all rows). */
export function calibrationFolds(data: TrainingData, k: number, seed: number): number[][] {
  const folds: number[][] = Array.from({ length: k }, () => []);
  let next = 0;
  for (const stratum of shuffledStrata(data, new Random(seed))) for (const r of stratum) folds[next++ % k].push(r);
  return folds.map((f) => f.sort((a, b) => a - b));
}

/** The parts to calibrate: which rows train each part's model and which calibrate it. */
function calibrationPlan(data: TrainingData, request: ConformalRequest, seed: number): { training: number[]; calibration: number[] }[] {
  const n = data.y.length;
  if (request.method === 'split') return [calibrationSplit(data, request.fraction, seed)];
  if (request.method === 'aggregated') return Array.from({ length: request.sets }, (_, b) => calibrationSplit(data, request.fraction, seed + 7919 * (b + 1)));
  const k = Math.min(request.sets, n);
  const folds = calibrationFolds(data, k, seed);
  return folds
    .filter((f) => f.length)
    .map((calibration) => {
      const held = new Set(calibration);
      return { training: [...Array(n).keys()].filter((r) => !held.has(r)), calibration };
    });
}

/**
 * Train a learner with a conformal calibration: its model (for `split`, trained on the proper
 * training rows; otherwise on all rows) and the calibration of every part. Each part's model
 * predicts the rows it did not learn from; their scores are the calibration.
 */
export async function trainConformal(
  learner: Learner,
  data: TrainingData,
  params: Record<string, ParamValue>,
  context: LearnerContext,
  request: ConformalRequest,
): Promise<{ state: unknown; conformal: ConformalState; warnings: string[] }> {
  if (request.method === 'jackknife+') {
    // the leave-one-out residuals training computes are the calibration: the model is trained once
    const state = await learner.train(data, params, context);
    const conformal: ConformalState = { method: 'jackknife+', task: learner.task, levels: request.levels, normalisation: request.normalisation, parts: [], calibrationRows: data.y.length };
    return { state, conformal, warnings: [] };
  }
  const plan = calibrationPlan(data, request, context.seed);
  const tooSmall = plan.find((p) => p.training.length < 2 || !p.calibration.length);
  if (tooSmall) throw badRequest(`conformal ${request.method}: ${data.y.length} training rows are too few to hold out calibration rows`);
  const parts: CalibrationPart[] = [];
  let mainState: unknown;
  for (const [i, { training, calibration }] of plan.entries()) {
    const proper = subset(data, training);
    const state = await timePhase('conformal: part trained', () => learner.train(proper, params, { ...context, seed: context.seed + i }));
    let difficulty: unknown;
    if (request.normalisation === 'knn') difficulty = await context.run(DOMAIN_MODULE, 'fitDomain', knnDifficulty(proper));
    const held = subset(data, calibration);
    const predicted = await timePhase('conformal: calibration predicted', () =>
      context.run<PartPrediction>(PREDICT_MODULE, 'predictPart', [learner.id, state, request.normalisation, difficulty, held.x]),
    );
    const beta = predicted.difficulty ? difficultyBeta(predicted.difficulty) : undefined;
    const output = partOutput({ task: learner.task }, predicted.predictions, predicted.difficulty, beta, data.classes.length);
    const part: CalibrationPart = { difficulty, beta };
    if (learner.task === 'regression') {
      part.scores = calibration.map((r, j) => Math.abs(data.y[r] - output.values![j]) / (output.sigma?.[j] ?? 1)).sort((a, b) => a - b);
    } else {
      part.classScores = data.classes.map((_, k) => calibration.flatMap((r, j) => (data.y[r] === k ? [output.classScores![j][k]] : [])).sort((a, b) => a - b));
    }
    if (request.method === 'split') mainState = state;
    else part.state = state;
    parts.push(part);
  }
  if (request.method !== 'split') mainState = await timePhase('conformal: model trained on all rows', () => learner.train(data, params, context));
  const conformal: ConformalState = {
    method: request.method,
    task: learner.task,
    levels: request.levels,
    normalisation: request.normalisation,
    parts,
    calibrationRows: plan.reduce((n, p) => n + p.calibration.length, 0),
  };
  return { state: mainState, conformal, warnings: calibrationWarnings(conformal, data.classes) };
}

/** The calibration rows a level needs for a finite quantile: n with ⌈(n + 1) · level⌉ ≤ n. */
export function rowsNeeded(level: number): number {
  return Math.ceil(level / (1 - level) - 1e-9);
}

/**
 * Levels the calibration is too small for (a split part's rows, or cv+'s all; for classes, per
 * class): their intervals are unbounded, their sets always hold the class. Said on the model.
 */
export function calibrationWarnings(state: ConformalState, classes: string[]): string[] {
  const rows = (count: (part: CalibrationPart) => number) => (state.method === 'cv+' ? state.parts.reduce((n, p) => n + count(p), 0) : Math.min(...state.parts.map(count)));
  const groups =
    state.task === 'regression' ? [{ name: '', n: rows((p) => p.scores?.length ?? 0) }] : classes.map((c, k) => ({ name: ` of class ${c}`, n: rows((p) => p.classScores?.[k]?.length ?? 0) }));
  const out: string[] = [];
  for (const level of state.levels) {
    const needed = rowsNeeded(level);
    for (const g of groups.filter((x) => x.n < needed))
      out.push(
        `conformal: the calibration has ${g.n} row(s)${g.name}${state.method === 'cv+' ? '' : ' per calibration set'}, fewer than the ${needed} the ${Number((level * 100).toPrecision(6))} % level needs: ${state.task === 'regression' ? 'its intervals are unbounded' : `its sets always hold that class`}`,
      );
  }
  return out;
}

/** fitDomain's arguments for the k-NN difficulty of a part's training rows: Tanimoto on fingerprints, else Euclidean on standardised descriptors. */
function knnDifficulty(proper: TrainingData): [string, Matrix, Record<string, ParamValue>] {
  if (proper.binary.length && proper.binary.every((b) => b)) return ['ad-tanimoto', proper.x, { threshold: 0 }];
  return ['ad-euclidean-knn', proper.x, { k: DIFFICULTY_NEIGHBOURS, Z: 1.645 }];
}
