import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Where a job's time goes: the work of a task is run inside `recordPhases`, and the steps it
 * goes through (reading rows, encoding, training, predicting, writing) are wrapped in
 * `timePhase`. Outside a recording `timePhase` only runs the step. Phases of steps that run at
 * once (a cross-validation's folds) add up, so the totals can exceed the job's own time.
 */
export type PhaseTimes = Map<string, { ms: number; count: number }>;

const recording = new AsyncLocalStorage<PhaseTimes>();

export function recordPhases<T>(times: PhaseTimes, work: () => Promise<T>): Promise<T> {
  return recording.run(times, work);
}

export async function timePhase<T>(phase: string, step: () => Promise<T> | T): Promise<T> {
  const times = recording.getStore();
  if (!times) return step();
  const started = performance.now();
  try {
    return await step();
  } finally {
    const entry = times.get(phase) ?? { ms: 0, count: 0 };
    entry.ms += performance.now() - started;
    entry.count++;
    times.set(phase, entry);
  }
}

/** The totals as a plain object (milliseconds rounded), largest first: for a log line. */
export function phaseSummary(times: PhaseTimes): Record<string, { ms: number; count: number }> {
  return Object.fromEntries([...times].sort((a, b) => b[1].ms - a[1].ms).map(([phase, { ms, count }]) => [phase, { ms: Math.round(ms), count }]));
}
