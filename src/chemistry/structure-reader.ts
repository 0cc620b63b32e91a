import { runInChunks, type WorkerPool } from '../task/worker-pool.ts';
import { parseWith, type SearchableResult, type StructureInput, type StructureResult } from './structure-worker.ts';

export { parseWith };
import type { Chemistry } from './chemistry.ts';

export type { SearchableResult, StructureInput, StructureResult };

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
    if (here && inputs.length <= INLINE_MAX) {
      // its Indigo (InChI) is loaded by the first ready(), not at start
      await here.ready();
      return parseWith(here, inputs);
    }
    return runInChunks(workers, { module: WORKER_MODULE, fn: 'parseStructures', chunk: CHUNK }, inputs, { signal, progress });
  };
}

/** What the structure index keeps of stored SMILES (structure-worker.ts's searchableOfSmiles), on the worker pool in chunks that run in parallel; one result per input, in order. */
export function searchableReaderOn(workers: WorkerPool): (inputs: StructureInput[]) => Promise<SearchableResult[]> {
  return (inputs) => runInChunks(workers, { module: WORKER_MODULE, fn: 'searchableOfSmiles', chunk: CHUNK }, inputs);
}

/** The SMILES of chemical names, one answer per input of kind `name`, in order, or why there is none (compound-names.ts). */
export type NameResolver = (names: StructureInput[]) => Promise<({ smiles: string } | { error: string })[]>;

/**
 * A reader that also reads chemical names: they are resolved to SMILES first (`resolve`), then
 * read with the other structures; each name's structure keeps the name (`name`), and a name that
 * resolves to nothing answers the resolver's words.
 */
export function readingNames(read: StructureReader, resolve: NameResolver): StructureReader {
  return async (inputs, progress) => {
    const names = inputs.filter((input) => input.kind === 'name');
    if (!names.length) return read(inputs, progress);
    const resolved = await resolve(names);
    let k = 0;
    const given = inputs.map((input) => ({ input, smiles: input.kind === 'name' ? resolved[k++] : undefined }));
    const toRead = given.flatMap(({ input, smiles }): StructureInput[] => {
      if (!smiles) return [input];
      return 'smiles' in smiles ? [{ kind: 'smiles', text: smiles.smiles, what: `structure of ${input.what} ${JSON.stringify(input.text)}` }] : [];
    });
    const parsed = toRead.length ? await read(toRead, progress) : [];
    let j = 0;
    return given.map(({ input, smiles }): StructureResult => {
      if (!smiles) return parsed[j++];
      if ('error' in smiles) return smiles;
      const result = parsed[j++];
      return 'error' in result ? result : { ...result, name: input.text };
    });
  };
}
