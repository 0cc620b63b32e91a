import type * as RDF from '@rdfjs/types';
import { termKey } from '../rdf/terms.ts';
import { isBulkGraph } from './bulk-partition.ts';
import { allQuads, batchesOf, type QuadFinder } from './graph-pattern-query.ts';

/** Lookups of subjects in one bulk graph (of one predicate) after which one query reads them at once. */
const LOOKUPS_BEFORE_READ = 32;
/** The most quads one read may take (a predicate's over every graph, or one graph's); past it, the lookups go on. */
const MOST_QUADS_READ = 20_000;

/**
 * A finder for one query that reads a bulk graph's (a dataset's rows') quads at once after that
 * query has looked up many of its subjects: a dataset's values by row (`?row ot:compound ?c ;
 * ot:index ?i ; <feature> ?v` in `GRAPH <dataset/entries>`) is one lookup per row and pattern on
 * the index, each a LevelDB iterator, where one read serves every row. With the predicate bound,
 * the quads of that predicate are read (on the predicate-first index, the graph's kept), else
 * or when those are too many the whole graph (in subject order). At most MOST_QUADS_READ quads
 * are kept per read; beyond, the lookups go on. Nothing is kept after the query.
 */
export function bulkGraphReads(find: QuadFinder, mostQuadsRead = MOST_QUADS_READ): QuadFinder {
  const lookups = new Map<string, number>();
  const reads = new Map<string, Promise<Map<string, RDF.Quad[]> | undefined>>();
  return (s, p, o, g, limit) => {
    if (!s || s.termType === 'Variable' || g?.termType !== 'NamedNode' || !isBulkGraph(g.value)) return find(s, p, o, g, limit);
    const predicate = p?.termType === 'NamedNode' ? p : undefined;
    const key = predicate ? `${g.value} ${predicate.value}` : g.value;
    let read = reads.get(key);
    if (!read) {
      const n = (lookups.get(key) ?? 0) + 1;
      lookups.set(key, n);
      if (n <= LOOKUPS_BEFORE_READ) return find(s, p, o, g, limit);
      const graph = g;
      // the predicate's quads, else the graph's (a graph read is shared by its predicates)
      read = (predicate ? bySubject(find(undefined, predicate, undefined, undefined), graph, mostQuadsRead) : Promise.resolve(undefined)).then(
        (found) => found ?? wholeGraph(reads, find, graph, mostQuadsRead),
      );
      reads.set(key, read);
    }
    return read.then(async (subjects) => {
      if (!subjects) return allQuads(find(s, p, o, g, limit));
      // the terms themselves: a pattern matches terms (the index finds numbers by value)
      return (subjects.get(termKey(s)) ?? []).filter((q) => (!p || p.termType === 'Variable' || p.equals(q.predicate)) && (!o || o.termType === 'Variable' || o.equals(q.object)));
    });
  };
}

function wholeGraph(reads: Map<string, Promise<Map<string, RDF.Quad[]> | undefined>>, find: QuadFinder, graph: RDF.NamedNode, mostQuadsRead: number): Promise<Map<string, RDF.Quad[]> | undefined> {
  let read = reads.get(graph.value);
  if (!read) {
    read = bySubject(find(undefined, undefined, undefined, graph), graph, mostQuadsRead);
    reads.set(graph.value, read);
  }
  return read;
}

/** The quads found that are in `graph`, by subject; undefined when more than `most` were read. */
async function bySubject(found: ReturnType<QuadFinder>, graph: RDF.NamedNode, most: number): Promise<Map<string, RDF.Quad[]> | undefined> {
  const subjects = new Map<string, RDF.Quad[]>();
  const add = (q: RDF.Quad) => {
    if (!q.graph.equals(graph)) return;
    const key = termKey(q.subject);
    const list = subjects.get(key);
    if (list) list.push(q);
    else subjects.set(key, [q]);
  };
  if (found instanceof Promise) {
    const quads = await found;
    if (quads.length > most) return undefined;
    for (const q of quads) add(q);
    return subjects;
  }
  let count = 0;
  try {
    for await (const batch of batchesOf(found)) {
      count += batch.length;
      if (count > most) return undefined;
      for (const q of batch) add(q);
    }
  } finally {
    found.destroy();
  }
  return subjects;
}
