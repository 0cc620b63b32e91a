import type { Solution } from './triple-store.ts';

/**
 * A SELECT's solutions as the store's evaluators make them: in batches. Read as any
 * AsyncIterable it gives one solution at a time; a reader that takes them all (the SPARQL
 * endpoint, the named templates) reads the batches with `allSolutions`, a promise per batch
 * instead of two per solution, and a result already in memory (a LIMIT's rows, sorted
 * solutions) is handed over as it is.
 */
export class SolutionBatches implements AsyncIterable<Solution> {
  readonly batches: AsyncIterable<Solution[]> | Iterable<Solution[]>;

  constructor(batches: AsyncIterable<Solution[]> | Iterable<Solution[]>) {
    this.batches = batches;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Solution> {
    for await (const batch of this.batches) yield* batch;
  }
}

/** Solutions already in memory, as one batch. */
export function solutionsOfArray(solutions: Solution[]): SolutionBatches {
  return new SolutionBatches([solutions]);
}

/** Every solution, in order (batch by batch when the store made them so). */
export async function allSolutions(solutions: AsyncIterable<Solution>): Promise<Solution[]> {
  if (!(solutions instanceof SolutionBatches)) {
    const out: Solution[] = [];
    for await (const s of solutions) out.push(s);
    return out;
  }
  const { batches } = solutions;
  // one batch in memory: no copy
  if (Array.isArray(batches) && batches.length === 1) return batches[0];
  const out: Solution[] = [];
  for await (const batch of batches) for (const s of batch) out.push(s);
  return out;
}
