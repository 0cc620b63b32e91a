import { runInChunks, type WorkerPool } from '../task/worker-pool.ts';
import { parseWith, type StructureInput, type StructureResult } from './structure-worker.ts';

export { parseWith };
import type { Chemistry } from './chemistry.ts';

export type { StructureInput, StructureResult };

/** Parses many structures; answers one result per input, in order. */
export type StructureReader = (inputs: StructureInput[], progress?: (fraction: number) => void) => Promise<StructureResult[]>;

const WORKER_MODULE = new URL('./structure-worker.ts', import.meta.url).href;
/** Structures per worker call: large enough to amortise the message, small enough to spread over the pool. */
const CHUNK = 200;
/** Structures parsed on the calling thread when it has a toolkit (see structureReaderOn). */
const INLINE_MAX = 8;

/** Structure parsing on the worker pool, in chunks that run in parallel. */
export function structureReaderOn(workers: WorkerPool, signal?: AbortSignal, here?: Chemistry): StructureReader {
  return async (inputs, progress) => {
    // a few structures (a small upload answered at once) with the toolkit already loaded here:
    // a millisecond or two, where the pool's threads (background priority) could keep a
    // request waiting for hundreds of ms while the cores are busy
    if (here && inputs.length <= INLINE_MAX) return parseWith(here, inputs);
    return runInChunks(workers, { module: WORKER_MODULE, fn: 'parseStructures', chunk: CHUNK }, inputs, { signal, progress });
  };
}
