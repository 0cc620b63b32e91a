import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Where a job's time goes: the work of a task is run inside `recordPhases`, and the steps it
 * goes through (reading rows, encoding, training, predicting, writing) are wrapped in
 * `timePhase`. A step inside another is recorded under both names ("training › binning") and
 * is part of its parent's time. Outside a recording `timePhase` only runs the step. Steps that
 * run at once (a cross-validation's folds) add up, so totals can exceed the job's own time.
 */
export type PhaseTimes = Map<string, { ms: number; count: number }>;

/** The separator of a nested phase's name. */
export const NESTED = ' › ';

const recording = new AsyncLocalStorage<{ times: PhaseTimes; path?: string }>();

export function recordPhases<T>(times: PhaseTimes, work: () => Promise<T>): Promise<T> {
  return recording.run({ times }, work);
}

export async function timePhase<T>(phase: string, step: () => Promise<T> | T): Promise<T> {
  const current = recording.getStore();
  if (!current) return step();
  const name = nameOf(current, phase);
  const started = performance.now();
  try {
    return await recording.run({ times: current.times, path: name }, step);
  } finally {
    add(current.times, name, performance.now() - started);
  }
}

/** Time measured elsewhere (in a worker thread) added as a phase of the current step. */
export function addPhaseTime(phase: string, ms: number): void {
  const current = recording.getStore();
  if (current) add(current.times, nameOf(current, phase), ms);
}

function nameOf(current: { path?: string }, phase: string): string {
  return current.path ? `${current.path}${NESTED}${phase}` : phase;
}

function add(times: PhaseTimes, name: string, ms: number): void {
  const entry = times.get(name) ?? { ms: 0, count: 0 };
  entry.ms += ms;
  entry.count++;
  times.set(name, entry);
}

/** The totals as a plain object (milliseconds rounded), largest first: for a log line. */
export function phaseSummary(times: PhaseTimes): Record<string, { ms: number; count: number }> {
  return Object.fromEntries([...times].sort((a, b) => b[1].ms - a[1].ms).map(([phase, { ms, count }]) => [phase, { ms: Math.round(ms), count }]));
}
