import type { QueryEngine } from '@comunica/query-sparql-rdfjs';

/**
 * The Comunica engines of this process, loaded and built when a query or update first needs one
 * (the store's own evaluators answer most requests without it): loading the engine costs about
 * 0.3 s of CPU and building it 0.3 s more, which every server start and every test process paid
 * before. An engine keeps no state between queries (each has its own context: sources, scope,
 * signal), so every store of the process shares it.
 */
let local: Promise<QueryEngine> | undefined;
let federated: Promise<QueryEngine> | undefined;

/** The engine over RDF/JS sources (the store's quads). */
export function comunicaEngine(): Promise<QueryEngine> {
  local ??= import('@comunica/query-sparql-rdfjs').then((m) => new m.QueryEngine());
  return local;
}

/** The engine with HTTP and SPARQL-endpoint actors, for SERVICE (federated query). */
export function federatedComunicaEngine(): Promise<QueryEngine> {
  federated ??= import('@comunica/query-sparql').then((m) => new m.QueryEngine() as unknown as QueryEngine);
  return federated;
}
