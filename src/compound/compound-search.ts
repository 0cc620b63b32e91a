import type { CompoundRegistry } from './compound-registry.ts';

/** What `GET /compound` asks for: every compound, or one of the searches (spec 4.8, 4.10). */
export type CompoundQuery =
  | { kind: 'all' }
  | { kind: 'sameas'; iri: string }
  | { kind: 'search'; text: string; parameter?: string }
  | { kind: 'smarts'; pattern: string; page: number; pagesize: number; parameter?: string }
  | { kind: 'similarity'; query: string; threshold: number; top: number; parameter?: string };

/** How an error names the query's text: the request parameter that gave it. */
const named = (query: { parameter?: string }, otherwise: string) => (query.parameter ? `parameter ${query.parameter}` : otherwise);

/** What a query found, in order: compounds, their similarity (similarity searches), and whether a page follows (substructure pages). */
export interface CompoundHits {
  query: CompoundQuery;
  uris: string[];
  similarity?: Map<string, number>;
  more?: boolean;
  title: string;
}

/** Run a compound query on the structure index (exact, substructure and similarity searches) or the store (all, sameas). */
export async function findCompounds(compounds: CompoundRegistry, query: CompoundQuery): Promise<CompoundHits> {
  switch (query.kind) {
    case 'similarity': {
      const hits = await compounds.similar(query.query, query.threshold, query.top, named(query, 'structure'));
      return {
        query,
        uris: hits.map((h) => h.uri),
        similarity: new Map(hits.map((h) => [h.uri, h.similarity])),
        title: `Compounds similar to ${query.query} (Tanimoto ≥ ${query.threshold})`,
      };
    }
    case 'smarts': {
      const found = await compounds.substructure(query.pattern, query.page * query.pagesize, query.pagesize, named(query, 'SMARTS pattern'));
      return { query, uris: found.uris, more: found.more, title: `Compounds containing ${query.pattern}` };
    }
    case 'search':
      return { query, uris: await compounds.search(query.text, named(query, 'search text')), title: `Compounds matching ${query.text}` };
    case 'sameas':
      return { query, uris: await compounds.sameAs(query.iri), title: `Compounds with owl:sameAs ${query.iri}` };
    default:
      return { query, uris: await compounds.list(), title: 'Compounds' };
  }
}
