import type { WorkerPool } from '../task/worker-pool.ts';
import type { StructureInput, StructureResult } from './structure-worker.ts';

export type { StructureInput, StructureResult };

/** Parses many structures; answers one result per input, in order. */
export type StructureReader = (inputs: StructureInput[], progress?: (fraction: number) => void) => Promise<StructureResult[]>;

const WORKER_MODULE = new URL('./structure-worker.ts', import.meta.url).href;
/** Structures per worker call: large enough to amortise the message, small enough to spread over the pool. */
const CHUNK = 200;

/** Structure parsing on the worker pool, in chunks that run in parallel. */
export function structureReaderOn(workers: WorkerPool, signal?: AbortSignal): StructureReader {
  return async (inputs, progress) => {
    const chunks: StructureInput[][] = [];
    for (let i = 0; i < inputs.length; i += CHUNK) chunks.push(inputs.slice(i, i + CHUNK));
    let done = 0;
    const results = await Promise.all(
      chunks.map(async (chunk) => {
        const out = await workers.run<StructureResult[]>(WORKER_MODULE, 'parseStructures', [chunk], signal);
        progress?.(++done / chunks.length);
        return out;
      }),
    );
    return results.flat();
  };
}
