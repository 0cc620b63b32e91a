import type * as RDF from '@rdfjs/types';

/**
 * Characters of a quad's terms: near enough what each of its index keys costs in a LevelDB
 * write batch. A batch is one growing native string, copied whenever it grows, on the main
 * thread: batches of tens of megabytes stopped the event loop for 50–70 ms and held hundreds of
 * megabytes during large uploads.
 */
export function quadChars(q: RDF.Quad): number {
  const o = q.object;
  return q.subject.value.length + q.predicate.value.length + o.value.length + q.graph.value.length + (o.termType === 'Literal' ? o.datatype.value.length + o.language.length : 0);
}

/**
 * A write of many independent graphs (each one a whole resource, such as the compounds of an
 * upload) in groups of at most about `maxChars` and `maxGraphs`: every graph stays whole in one
 * group, so each resource is still written atomically, while no single batch grows without
 * bound (a remote store refuses an update request of too many operations: Virtuoso's "Query
 * too large" came at about 1,600 graphs in one request).
 */
export function* graphGroups(graphs: Record<string, RDF.Quad[]>, maxChars: number, maxGraphs = Infinity): Generator<Record<string, RDF.Quad[]>> {
  let group: Record<string, RDF.Quad[]> = {};
  let chars = 0;
  let size = 0;
  for (const [iri, quads] of Object.entries(graphs)) {
    const cost = quads.reduce((n, q) => n + quadChars(q), 0);
    if (size > 0 && (chars + cost > maxChars || size >= maxGraphs)) {
      yield group;
      group = {};
      chars = 0;
      size = 0;
    }
    group[iri] = quads;
    chars += cost;
    size++;
  }
  if (size > 0) yield group;
}
