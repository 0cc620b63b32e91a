/**
 * The integration files a remote store (TOXGRAPH_TEST_STORE) runs: what depends on the store
 * (docs/development.md, "The remote-store runs", says why each). The others run on the embedded
 * store only; the templates and store calls they make are made by these files too
 * (TOXGRAPH_TEMPLATE_LOG, see src/store/sparql-template.ts). `node test/run-tier.ts integration <files…>` runs any file on a
 * remote store all the same.
 */
export const STORE_SUITE = [
  // the store seam: values, partial reads, reads during writes, retries, signing in to the store
  'remote-store',
  // queries and updates through the protocols, and text the store holds written back out
  'sparql',
  'sparql-update',
  'sparql-federation',
  'graph-store',
  'rdf-output',
  // writes in one batch, restarts, cleanup at start, task records, kill -9 mid-task
  'dataset',
  'task',
  'task-service',
  'operations',
  'structure-search',
  // access scopes: policies, users and keys in the store; SPARQL scoped per caller; cache dropped on writes
  'auth',
  'opensso',
  'mcp',
  'representation-cache',
  // several serve and worker processes on one store (Virtuoso with Redis)
  'scale-out',
  // one end-to-end pass of every component, and every resource against its shape
  'compound',
  'feature',
  'algorithm',
  'model',
  'validation',
  'report',
  'qmrf',
  'ontology',
  'web',
  'shapes',
  // read-across: endpoint values across every dataset's graph, categories, assessments and their PROV-O queries
  'assessments',
  'profiler',
].map((name) => `${name}.test.ts`);
