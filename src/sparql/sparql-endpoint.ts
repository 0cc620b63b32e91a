import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { badRequest, HttpError } from '../core/errors.ts';
import { currentUser } from '../core/request-context.ts';
import { runUpdate } from './sparql-update.ts';
import { policyFetch } from '../outbound/outbound-fetch.ts';
import { sendNegotiated, sendRdf, rdfRenderers, type Renderer } from '../http/respond.ts';
import { df, dc, rdf } from '../rdf/namespaces.ts';
import { escapeHtml, renderPage } from '../rdf/html.ts';
import type { GraphScope } from '../store/triple-store.ts';
import { allSolutions } from '../store/solution-batches.ts';
import type { Services } from '../core/services.ts';
import { prepareQuery, readSparqlRequest } from './sparql-request.ts';
import { RESULT_TYPES, writeBindings, writeBoolean } from './results-format.ts';

/** The query form shown to a browser that opens an endpoint without a query. */
function queryForm(endpoint: string, title: string, example: string): string {
  return renderPage({
    title,
    head: '<link rel="stylesheet" href="/static/yasgui.min.css"><link rel="stylesheet" href="/static/sparql.css"><script src="/static/yasgui.min.js" defer></script><script src="/static/sparql.js" defer></script>',
    intro: `<form class="sparql" method="get" action="${escapeHtml(endpoint)}"><textarea name="query" rows="12">${escapeHtml(example)}</textarea>
<p><label>Results as <select name="media"><option>text/html</option><option>application/sparql-results+json</option><option>application/sparql-results+xml</option><option>text/csv</option><option>text/turtle</option><option>application/rdf+xml</option></select></label>
<button type="submit">Run query</button></p></form>
${STORED_SHAPE}`,
  });
}

/**
 * How the resources are stored, with queries over that shape: a query written from a dataset's
 * own Turtle (its values as ot:values of ot:dataEntry) finds nothing, because the rows are kept
 * in a graph of their own (issue 55).
 */
const STORED_SHAPE = `<details open><summary>How the data is stored, and example queries</summary>
<p>Every resource is a named graph whose name is its URI (<code>GRAPH &lt;…/feature/3&gt; { … }</code>). A dataset's
metadata is in its own graph; its rows are in the graph <code>{dataset}/entries</code>, one node per row with
<code>ot:compound</code>, its row number <code>ot:index</code> and one statement per value, whose predicate is the feature's URI.</p>
<pre>${escapeHtml(`PREFIX ot: <http://www.opentox.org/api/1.1#>
# the values of every dataset, row by row (replace ?d with a dataset's URI for one)
SELECT ?d ?index ?compound ?feature ?value WHERE {
  GRAPH ?entries { ?d ot:dataEntry ?row . ?row ot:compound ?compound ; ot:index ?index ; ?feature ?value FILTER(?feature NOT IN (ot:compound, ot:index)) }
} ORDER BY ?d ?index LIMIT 100`)}</pre>
<pre>${escapeHtml(`PREFIX ot: <http://www.opentox.org/api/1.1#>
PREFIX dc: <http://purl.org/dc/elements/1.1/>
# the datasets that hold a compound, with their titles
SELECT DISTINCT ?c ?d ?title WHERE { GRAPH ?entries { ?d ot:dataEntry ?row . ?row ot:compound ?c } OPTIONAL { GRAPH ?d { ?d dc:title ?title } } } LIMIT 100`)}</pre>
</details>`;

const EXAMPLE = `PREFIX ot: <http://www.opentox.org/api/1.1#>
PREFIX dc: <http://purl.org/dc/elements/1.1/>
SELECT ?feature ?title WHERE { ?feature a ot:Feature ; dc:title ?title } LIMIT 100`;

/**
 * Answer one SPARQL 1.1 protocol request over the part of the store `scope` allows.
 * Results are collected under the time limit before anything is sent, so a timeout still
 * answers with a proper error report.
 */
export async function answerSparql(
  ctx: Context,
  services: Pick<Services, 'config' | 'uris' | 'store' | 'published' | 'access'>,
  scope: GraphScope | undefined,
  title: string,
  options: { updates?: boolean } = {},
): Promise<void> {
  const { config } = services;
  const request = await readSparqlRequest(ctx, config.bodyLimit);
  if (request.update !== undefined) {
    if (!options.updates) throw badRequest(`${title} answers queries only; SPARQL updates go to /sparql`);
    await runUpdate(services, request, currentUser.getStore());
    ctx.status = 204;
    return;
  }
  if (!request.query && ctx.method === 'GET' && (ctx.get('accept') ?? '').includes('text/html')) {
    ctx.type = 'text/html';
    ctx.set('Content-Type', 'text/html');
    ctx.body = queryForm(ctx.path, title, EXAMPLE);
    return;
  }
  // GET without a query: the SPARQL 1.1 service description of the endpoint
  if (!request.query && ctx.method === 'GET') {
    await sendRdf(ctx, serviceDescription(services, services.uris.ofPath(ctx.path), !!options.updates), `${title}: service description`);
    return;
  }
  const prepared = prepareQuery(request, { allowService: config.sparqlService, baseIri: services.uris.ofPath(ctx.path) });
  await answerQuery(ctx, services, scope, prepared, title);
}

/**
 * Answer a parsed query in the negotiated format within the query time limit: results, a boolean,
 * or RDF (a query this service wrote itself, such as a predefined one, comes here directly).
 */
export async function answerQuery(
  ctx: Context,
  services: Pick<Services, 'config' | 'uris' | 'store'>,
  scope: GraphScope | undefined,
  prepared: { text: string; federated?: boolean },
  title: string,
): Promise<void> {
  const { config, store } = services;
  const baseIri = services.uris.ofPath(ctx.path);
  const controller = new AbortController();
  // When the time is up the timer ends both the query (its signal) and the wait for it. No
  // listener on the signal: with one (the wait rejected from it), about 5 KB more of each
  // request's objects outlived the young generation's collections (measured with
  // --trace-gc-nvp at 50 clients), and the old generation's collections came twice as often.
  let expire: (reason: unknown) => void = () => undefined;
  const deadline = new Promise<never>((_, reject) => {
    expire = reject;
  });
  const timer = setTimeout(() => {
    // the error is made when the time is up (an Error's stack costs each request otherwise)
    const timeout = new HttpError(503, 'QueryTimeout', `the query did not finish within ${config.queryTimeoutMs} ms`);
    controller.abort(timeout);
    expire(timeout);
  }, config.queryTimeoutMs);
  let renderers: Record<string, Renderer>;
  try {
    const run = async (): Promise<Record<string, Renderer>> => {
      const result = await store.query(prepared.text, { scope, signal: controller.signal, baseIri, serviceFetch: prepared.federated ? policyFetch(config) : undefined });
      if (result.type === 'boolean') return resultRenderers((t) => writeBoolean(t, result.value), title);
      if (result.type === 'bindings') {
        const solutions = await allSolutions(result.solutions);
        return resultRenderers((t) => writeBindings(t, result.variables, solutions), title);
      }
      const quads: RDF.Quad[] = [];
      for await (const q of result.quads) quads.push(q);
      return rdfRenderers(ctx, () => quads, `${title}: ${quads.length} triple(s)`);
    };
    const running = run();
    running.catch(() => undefined); // after a timeout its own rejection is expected and moot
    renderers = await Promise.race([running, deadline]);
  } catch (e) {
    if (e instanceof HttpError) throw e;
    // The query parsed, so an engine error is about the query itself (unknown function, bad IRI...).
    throw new HttpError(400, 'QueryFailed', `the query could not be evaluated: ${(e as Error).message.split('\n')[0]}`);
  } finally {
    clearTimeout(timer);
  }
  await sendNegotiated(ctx, renderers);
}

function resultRenderers(write: (mediaType: string) => string, title: string): Record<string, Renderer> {
  const out: Record<string, Renderer> = {};
  for (const t of RESULT_TYPES) out[t] = t === 'text/html' ? () => renderPage({ title, intro: write(t) }) : () => write(t);
  // Plain JSON / XML clients get the standard result documents.
  out['application/json'] = () => write('application/sparql-results+json');
  out['application/xml'] = () => write('application/sparql-results+xml');
  return out;
}

const SD = 'http://www.w3.org/ns/sparql-service-description#';
const sd = (local: string) => df.namedNode(`${SD}${local}`);

/** What the endpoint supports (SPARQL 1.1 Service Description): languages, result formats, features. */
function serviceDescription(services: Pick<Services, 'config' | 'access'>, endpoint: string, updates: boolean): RDF.Quad[] {
  const s = df.namedNode(`${endpoint}#service`);
  const formats = [
    'http://www.w3.org/ns/formats/SPARQL_Results_XML',
    'http://www.w3.org/ns/formats/SPARQL_Results_JSON',
    'http://www.w3.org/ns/formats/SPARQL_Results_CSV',
    'http://www.w3.org/ns/formats/SPARQL_Results_TSV',
    'http://www.w3.org/ns/formats/RDF_XML',
    'http://www.w3.org/ns/formats/Turtle',
    'http://www.w3.org/ns/formats/N-Triples',
    'http://www.w3.org/ns/formats/JSON-LD',
    'http://www.w3.org/ns/formats/N3',
  ];
  const languages = ['SPARQL11Query', ...(updates && (services.access.enabled || services.config.sparqlUpdate) ? ['SPARQL11Update'] : [])];
  return [
    df.quad(s, rdf('type'), sd('Service')),
    df.quad(s, sd('endpoint'), df.namedNode(endpoint)),
    ...languages.map((l) => df.quad(s, sd('supportedLanguage'), sd(l))),
    ...formats.map((f) => df.quad(s, sd('resultFormat'), df.namedNode(f))),
    // the default graph of a query is the union of the graphs it may see
    df.quad(s, sd('feature'), sd('UnionDefaultGraph')),
    ...(services.config.sparqlService ? [df.quad(s, sd('feature'), sd('BasicFederatedQuery'))] : []),
    df.quad(s, dc('title'), df.literal(`ToxGraph SPARQL endpoint ${endpoint}`)),
  ];
}
