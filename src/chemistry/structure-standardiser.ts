import { runInChunks, type WorkerPool } from '../task/worker-pool.ts';
import type { StandardisationOptions } from './standardisation.ts';
import type { StandardisedStructure } from './standardisation-worker.ts';

export type { StandardisedStructure };

const WORKER_MODULE = new URL('./standardisation-worker.ts', import.meta.url).href;
/** Structures per worker call: the rules cost a few milliseconds a structure, so a chunk is a fraction of a second. */
const CHUNK = 100;

/**
 * Standardise many SMILES on the worker pool, in chunks that run in parallel (the main thread
 * does none of the chemistry); one result per input, in order.
 */
export async function standardiseOn(
  workers: WorkerPool,
  smiles: string[],
  options: StandardisationOptions,
  job: { signal?: AbortSignal; progress?: (fraction: number) => void } = {},
): Promise<StandardisedStructure[]> {
  return runInChunks(workers, { module: WORKER_MODULE, fn: 'standardiseStructures', chunk: CHUNK, args: [options] }, smiles, job);
}
