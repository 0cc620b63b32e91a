import { Readable } from 'node:stream';
import type * as RDF from '@rdfjs/types';
import { Parser as N3Parser } from 'n3';
import sparqljs from 'sparqljs';
import type { TripleStore } from '../../src/store/triple-store.ts';
import { DEFAULT_GRAPH_IRI } from '../../src/store/triple-store.ts';
import { DataFactory } from 'rdf-data-factory';
import { QueryResultQuads, TestCaseQueryEvaluationHandler, type IQueryResult } from './suite.ts';

/**
 * An rdf-test-suite IQueryEngine that runs every test against a real ToxGraph server:
 * the test data goes into the store through the TripleStore seam, the query goes over HTTP
 * to /sparql (SPARQL 1.1 protocol), and the HTTP response is parsed back into RDF/JS terms.
 */
const DF = new DataFactory();

export class HttpSparqlEngine {
  /** Tests run one at a time; a test that the runner timed out must not overlap the next one. */
  private queue: Promise<unknown> = Promise.resolve();

  private readonly endpoint: string;
  private readonly store: TripleStore;
  /** Syntax tests of the update suite send their text as an update. */
  private readonly syntaxAs: 'query' | 'update';
  constructor(endpoint: string, store: TripleStore, syntaxAs: 'query' | 'update' = 'query') {
    this.syntaxAs = syntaxAs;
    this.endpoint = endpoint;
    this.store = store;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Syntax tests: the endpoint must refuse a malformed query (400 InvalidInput "malformed SPARQL
   * query") and accept a well-formed one. A query that parsed but that the engine then could not
   * evaluate (400 QueryFailed, e.g. an unknown extension function) counts as accepted, unless
   * the engine's own parser is what failed.
   */
  parse(queryString: string, options: Record<string, any>): Promise<void> {
    return this.serial(async () => {
      await this.store.update('DROP ALL');
      if (this.syntaxAs === 'update') {
        // a well-formed update runs on the empty store; a malformed one must be refused as malformed
        const res = await fetch(`${this.endpoint}/sparql`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/plain' },
          body: new URLSearchParams({ update: withBase(queryString, options.baseIRI) }),
        });
        const text = await res.text();
        if (res.status >= 300 && /malformed SPARQL update|this is a query/.test(text)) throw new Error(`HTTP ${res.status} from /sparql: ${text.trim().slice(0, 500)}`);
        return;
      }
      const form = formOf(queryString, options.baseIRI);
      try {
        await this.send(withBase(queryString, options.baseIRI), form ?? 'SELECT');
      } catch (e) {
        const message = (e as Error).message;
        if (!/ QueryFailed: /.test(message) || /Parse error/i.test(message)) throw e;
      }
    });
  }

  query(data: RDF.Quad[], queryString: string, options: Record<string, any>): Promise<IQueryResult> {
    return this.serial(async () => {
      await this.store.update('DROP ALL');
      // Default-graph quads go to the store's unnamed default graph, graphData keeps its IRI.
      if (data.length) await this.store.bulkLoad(data);
      const parsed = parseQuery(queryString, options.baseIRI);
      const form = (parsed?.queryType ?? 'SELECT') as Form;
      // /sparql's default graph is the union of all graphs. A test's dataset is its qt:data as
      // the default graph and its qt:graphData as the named graphs, so unless the query has its
      // own FROM / FROM NAMED, name exactly that dataset with the protocol parameters. (The
      // protocol replaces the whole dataset: default-graph-uri alone leaves no named graphs.)
      const ownDataset = !!parsed?.from && (parsed.from.default.length > 0 || parsed.from.named.length > 0);
      const dataset = ownDataset ? undefined : { defaultGraphs: [DEFAULT_GRAPH_IRI], namedGraphs: namedGraphsOf(data) };
      const text = await this.send(withBase(queryString, options.baseIRI), form, dataset);
      if (form === 'CONSTRUCT' || form === 'DESCRIBE') {
        return new QueryResultQuads(new N3Parser({ format: 'application/n-triples' }).parse(text) as RDF.Quad[]);
      }
      return TestCaseQueryEvaluationHandler.parseSparqlResults('json', Readable.from([text]));
    });
  }

  /**
   * Update evaluation tests: the initial dataset goes into a fresh store through the seam, the
   * update goes over HTTP to /sparql (`update=`), and the dataset afterwards is read back from
   * the store: its default graph and every named graph.
   */
  update(data: RDF.Quad[], updateString: string, options: Record<string, any>): Promise<RDF.Quad[]> {
    return this.serial(async () => {
      await this.store.update('DROP ALL');
      if (data.length) await this.store.bulkLoad(data);
      const res = await fetch(`${this.endpoint}/sparql`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/plain' },
        body: new URLSearchParams({ update: withBase(updateString, options.baseIRI) }),
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`HTTP ${res.status} from /sparql: ${text.trim().slice(0, 1000)}`);
      return this.dataset();
    });
  }

  /** Every quad of the store: the default graph's (named by DEFAULT_GRAPH_IRI in FROM) and the named graphs'. */
  private async dataset(): Promise<RDF.Quad[]> {
    const out: RDF.Quad[] = [];
    const collect = async (query: string, graph: (row: Record<string, RDF.Term>) => RDF.Quad['graph']) => {
      const result = await this.store.query(query);
      if (result.type !== 'bindings') return;
      for await (const row of result.solutions) out.push(DF.quad(row.s as RDF.Quad['subject'], row.p as RDF.Quad['predicate'], row.o as RDF.Quad['object'], graph(row)));
    };
    await collect(`SELECT ?s ?p ?o FROM <${DEFAULT_GRAPH_IRI}> WHERE { ?s ?p ?o }`, () => DF.defaultGraph());
    await collect('SELECT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }', (row) => row.g as RDF.NamedNode);
    return out;
  }

  private async send(query: string, form: Form, dataset?: { defaultGraphs: string[]; namedGraphs: string[] }): Promise<string> {
    const body = new URLSearchParams({ query });
    for (const iri of dataset?.defaultGraphs ?? []) body.append('default-graph-uri', iri);
    for (const iri of dataset?.namedGraphs ?? []) body.append('named-graph-uri', iri);
    const res = await fetch(`${this.endpoint}/sparql`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        // text/plain is never a result format here; it makes error reports readable.
        Accept: `${form === 'CONSTRUCT' || form === 'DESCRIBE' ? 'application/n-triples' : 'application/sparql-results+json'}, text/plain;q=0.1`,
      },
      body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`HTTP ${res.status} from /sparql: ${text.trim().slice(0, 1000)}`);
    return text;
  }
}

function namedGraphsOf(data: RDF.Quad[]): string[] {
  return [...new Set(data.filter((q) => q.graph.termType === 'NamedNode').map((q) => q.graph.value))];
}

type Form = 'SELECT' | 'ASK' | 'CONSTRUCT' | 'DESCRIBE';

function parseQuery(queryString: string, baseIRI?: string): any {
  try {
    return new sparqljs.Parser({ baseIRI }).parse(queryString);
  } catch {
    return undefined; // the endpoint will say what is wrong with it
  }
}

function formOf(queryString: string, baseIRI?: string): Form | undefined {
  return parseQuery(queryString, baseIRI)?.queryType;
}

/**
 * The test query's base IRI is the URL of its file. A leading BASE gives the query that base
 * without changing its meaning (a BASE of the query itself is resolved against it).
 */
function withBase(queryString: string, baseIRI?: string): string {
  return baseIRI ? `BASE <${baseIRI}>\n${queryString}` : queryString;
}
