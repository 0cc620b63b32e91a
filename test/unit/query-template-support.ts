/**
 * What the tests of the named SPARQL templates share (query-templates*.test.ts): a store in a
 * temporary directory, answers written as comparable strings, every answer checked against
 * Comunica's (the store's reference engine, which answers whatever its own evaluators do not), and
 * the hostile inputs.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as RDF from '@rdfjs/types';
import { QuadstoreTripleStore } from '../../src/store/quadstore-triple-store.ts';
import { ask, construct, select } from '../../src/store/query-helpers.ts';
import { sparql, type SparqlText } from '../../src/store/sparql-template.ts';
import type { GraphScope, QueryOptions } from '../../src/store/triple-store.ts';
import { df, xsd } from '../../src/rdf/namespaces.ts';
import { UriScheme } from '../../src/core/uri-scheme.ts';
import { HttpError } from '../../src/core/errors.ts';

export const BASE = 'http://toxgraph.test';
export const uris = new UriScheme(BASE);
export const n = (iri: string) => df.namedNode(iri);

/** A term written short: this server's URIs without the base, literals as JSON with their datatype's local name (none for strings). */
export function fmt(t: RDF.Term | undefined): string {
  if (!t) return '-';
  if (t.termType === 'NamedNode') return t.value.startsWith(`${BASE}/`) ? t.value.slice(BASE.length) : t.value;
  if (t.termType === 'Literal') {
    if (t.language) return `${JSON.stringify(t.value)}@${t.language}`;
    if (t.datatype.value === xsd('string').value) return JSON.stringify(t.value);
    return `${JSON.stringify(t.value)}^^${t.datatype.value.startsWith(xsd.iri) ? t.datatype.value.slice(xsd.iri.length) : t.datatype.value}`;
  }
  return `${t.termType}:${t.value}`;
}
export const rowKey = (row: Record<string, RDF.Term | undefined>, vars: string[]) => vars.map((v) => `${v}=${fmt(row[v])}`).join(' ');
export const tripleKey = (q: RDF.Quad) => `${fmt(q.subject)} ${fmt(q.predicate)} ${fmt(q.object)}`;
export const sorted = (xs: Iterable<string>) => [...xs].sort();

/** A literal that would break out of a careless template: it must match itself exactly and change nothing. */
export const EVIL = 'x" } ; DROP ALL ; INSERT DATA { GRAPH <a:b> { <a:b> <c:d> "e" } } #{\\';

/** IRIs that cannot be written into SPARQL: each is a 400 when the template is made, before any query runs. */
const BAD_IRIS = ['http://x> } ; DROP ALL ; INSERT DATA { <a:b> <c:d> "e" } #', 'http://x/with space', 'relative/iri', 'http://x/{}', 'http://x/"'];
const badIri = (e: unknown) => e instanceof HttpError && e.status === 400 && /not a valid absolute IRI/.test(e.message);
export function refusesBadIris(make: (iri: string) => unknown): void {
  for (const bad of BAD_IRIS) assert.throws(() => make(bad), badIri, bad);
}

/**
 * The scope of the reference answers: every named graph, not the unnamed default graph. Comunica
 * binds `GRAPH ?g` to the unnamed default graph too (which SPARQL and the store's own evaluators
 * do not: see the last read-only test of query-templates.test.ts), so unscoped it would disagree with the
 * store wherever the fixture wrote the default graph.
 */
const NAMED_GRAPHS: GraphScope = { includesDefaultGraph: false, allows: () => true };
const reference = (options: QueryOptions = {}): QueryOptions => ({ ...options, engine: 'comunica', scope: options.scope ?? NAMED_GRAPHS });

/** One store in a temporary directory, and the ways the tests read it. */
export async function openStore(name: string) {
  const dir = await mkdtemp(join(tmpdir(), `toxgraph-${name}-`));
  const store = await QuadstoreTripleStore.open(dir);

  /**
   * The rows of a SELECT as `var=value …` strings over `vars`, in the store's order; the same
   * query through Comunica must give the same multiset of rows (and, with `ordered`, the same order).
   */
  async function rows(query: SparqlText, vars: string[], options: QueryOptions & { ordered?: boolean } = {}): Promise<string[]> {
    const own = (await select(store, query, options)).map((r) => rowKey(r, vars));
    const expected = (await select(store, query, reference(options))).map((r) => rowKey(r, vars));
    if (options.ordered) assert.deepEqual(own, expected, `the store's order differs from Comunica's: ${query.text}`);
    else assert.deepEqual(sorted(own), sorted(expected), `the store's answer differs from Comunica's: ${query.text}`);
    return own;
  }

  return {
    store,
    rows,
    /** The values of one variable, sorted. */
    async col(query: SparqlText, v: string, options?: QueryOptions): Promise<string[]> {
      return sorted((await rows(query, [v], options)).map((r) => r.slice(v.length + 1)));
    },
    async yes(query: SparqlText, options?: QueryOptions): Promise<boolean> {
      const own = await ask(store, query, options);
      assert.equal(await ask(store, query, reference(options)), own, `the store's answer differs from Comunica's: ${query.text}`);
      return own;
    },
    /** The triples of a CONSTRUCT as a sorted set (the store's and Comunica's). */
    async triples(query: SparqlText, options?: QueryOptions): Promise<string[]> {
      const own = sorted(new Set((await construct(store, query, options)).map(tripleKey)));
      assert.deepEqual(sorted(new Set((await construct(store, query, reference(options))).map(tripleKey))), own, `the store's answer differs from Comunica's: ${query.text}`);
      return own;
    },
    /** A graph's triples, sorted. */
    async read(graph: string): Promise<string[]> {
      return sorted((await store.readGraph(graph)).map(tripleKey));
    },
    /** The statement EVIL would have inserted is nowhere. */
    async untouched(): Promise<void> {
      assert.equal(await store.hasGraph('a:b'), false);
      assert.equal(await ask(store, sparql`ASK { GRAPH ?g { ${n('a:b')} ?p ?o } }`), false);
    },
    async close(): Promise<void> {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
