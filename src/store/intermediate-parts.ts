import { df } from '../rdf/namespaces.ts';
import { checkIri } from '../rdf/terms.ts';
import { PART_OF, selectUris } from './query-helpers.ts';
import { sparql } from './sparql-template.ts';
import type { TripleStore } from './triple-store.ts';

/**
 * What a task made on the way to a result is `dcterms:isPartOf` it (TaskRunner) and left out of
 * the lists. When the whole goes, its parts must not stay hidden for good: a cross-validation
 * takes its folds' work with it (deleteParts); a model or a dataset lets its parts go
 * (releaseParts), which become resources of their own, listed again.
 */
export async function partsOf(store: TripleStore, whole: string): Promise<string[]> {
  return selectUris(store, sparql`SELECT DISTINCT ?r WHERE { GRAPH ?r { ?r ${PART_OF} ${df.namedNode(checkIri(whole))} } }`);
}

/** The parts' graphs, for the whole's delete to remove with it. */
export async function partGraphs(store: TripleStore, whole: string, graphsOf: (resource: string) => string[]): Promise<string[]> {
  return (await partsOf(store, whole)).flatMap(graphsOf);
}

/** Each part's mark removed (in one write): they are listed again. */
export async function releaseParts(store: TripleStore, whole: string): Promise<void> {
  const graphs: Record<string, import('@rdfjs/types').Quad[]> = {};
  for (const part of await partsOf(store, whole)) graphs[part] = (await store.readGraph(part)).filter((q) => !(q.predicate.equals(PART_OF) && q.object.value === whole));
  if (Object.keys(graphs).length) await store.replaceGraphs(graphs);
}
