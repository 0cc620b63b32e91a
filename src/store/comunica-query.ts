import type * as RDF from '@rdfjs/types';
import type { QueryEngine } from '@comunica/query-sparql-rdfjs';
import type { QueryResult, Solution } from './triple-store.ts';

/** Run a query (a text, or its algebra) with a Comunica engine and answer it in the store seam's terms; aborting the signal ends its streams. */
export async function comunicaQuery(engine: QueryEngine, query: string | object, context: Record<string, unknown>, signal?: AbortSignal): Promise<QueryResult> {
  const result = await engine.query(query as any, context as any);
  switch (result.resultType) {
    case 'bindings': {
      const stream = await result.execute();
      const metadata = await result.metadata();
      const variables = metadata.variables.map((v: any) => (v.variable ?? v).value as string);
      abortOn(signal, stream);
      const solutions = stream.map((bindings: any) => {
        const solution: Solution = {};
        for (const [variable, term] of bindings) solution[variable.value] = term;
        return solution;
      });
      return { type: 'bindings', variables, solutions };
    }
    case 'quads': {
      const stream = await result.execute();
      abortOn(signal, stream);
      return { type: 'quads', quads: stream as unknown as AsyncIterable<RDF.Quad> };
    }
    case 'boolean':
      return { type: 'boolean', value: await withAbort(signal, result.execute()) };
    default:
      throw new Error('an update cannot be run as a query');
  }
}

export function abortOn(signal: AbortSignal | undefined, stream: { destroy(cause?: Error): void }): void {
  if (!signal) return;
  const stop = () => stream.destroy(signal.reason instanceof Error ? signal.reason : new Error('query aborted'));
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
}

export function withAbort<T>(signal: AbortSignal | undefined, work: Promise<T>): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason instanceof Error ? signal.reason : new Error('query aborted'));
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject);
  });
}
