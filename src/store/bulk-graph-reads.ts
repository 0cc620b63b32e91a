import type * as RDF from '@rdfjs/types';
import { termKey } from '../rdf/terms.ts';
import { isBulkGraph } from './bulk-partition.ts';
import { batchesOf, type QuadFinder } from './graph-pattern-query.ts';

/** Lookups of subjects in one bulk graph after which one query reads the graph whole. */
const LOOKUPS_BEFORE_READ = 32;
/** The most quads one query keeps of a bulk graph it reads whole; a larger graph is looked up subject by subject. */
const MOST_QUADS_READ = 20_000;

/**
 * A finder for one query that reads a bulk graph (a dataset's rows) whole once that query has
 * looked up many of its subjects: a dataset's values by row (`?row ot:compound ?c ; ot:index ?i ;
 * <feature> ?v` in `GRAPH <dataset/entries>`) is one lookup per row and pattern on the index,
 * each a LevelDB iterator, where one read of the graph in subject order serves every row. A
 * graph of more than MOST_QUADS_READ quads is not kept (the lookups go on), so a query holds
 * at most that many quads; nothing is kept after the query.
 */
export function bulkGraphReads(find: QuadFinder): QuadFinder {
  const lookups = new Map<string, number>();
  const graphs = new Map<string, Promise<Map<string, RDF.Quad[]> | undefined>>();
  return (s, p, o, g, limit) => {
    if (!s || s.termType === 'Variable' || g?.termType !== 'NamedNode' || !isBulkGraph(g.value)) return find(s, p, o, g, limit);
    let read = graphs.get(g.value);
    if (!read) {
      const n = (lookups.get(g.value) ?? 0) + 1;
      lookups.set(g.value, n);
      if (n <= LOOKUPS_BEFORE_READ) return find(s, p, o, g, limit);
      read = bySubject(find, g);
      graphs.set(g.value, read);
    }
    return read.then(async (subjects) => {
      if (!subjects) return all(find(s, p, o, g, limit));
      // the terms themselves: a pattern matches terms (the index finds numbers by value)
      return (subjects.get(termKey(s)) ?? []).filter((q) => (!p || p.termType === 'Variable' || p.equals(q.predicate)) && (!o || o.termType === 'Variable' || o.equals(q.object)));
    });
  };
}

/** A bulk graph's quads by subject, or undefined when it holds more than MOST_QUADS_READ. */
async function bySubject(find: QuadFinder, graph: RDF.NamedNode): Promise<Map<string, RDF.Quad[]> | undefined> {
  const found = find(undefined, undefined, undefined, graph);
  const subjects = new Map<string, RDF.Quad[]>();
  let count = 0;
  const add = (q: RDF.Quad) => {
    const key = termKey(q.subject);
    const list = subjects.get(key);
    if (list) list.push(q);
    else subjects.set(key, [q]);
  };
  if (found instanceof Promise) {
    const quads = await found;
    if (quads.length > MOST_QUADS_READ) return undefined;
    for (const q of quads) add(q);
    return subjects;
  }
  try {
    for await (const batch of batchesOf(found)) {
      count += batch.length;
      if (count > MOST_QUADS_READ) return undefined;
      for (const q of batch) add(q);
    }
  } finally {
    found.destroy();
  }
  return subjects;
}

async function all(found: ReturnType<QuadFinder>): Promise<RDF.Quad[]> {
  if (found instanceof Promise) return found;
  const quads: RDF.Quad[] = [];
  try {
    for await (const batch of batchesOf(found)) quads.push(...batch);
  } finally {
    found.destroy();
  }
  return quads;
}
