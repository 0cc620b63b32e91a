import type * as RDF from '@rdfjs/types';
import { Readable } from 'node:stream';
import { StreamParser } from 'n3';
import { SparqlJsonParser } from 'sparqljson-parse';
import type { Agent } from 'undici';
import type { Solution } from '../triple-store.ts';
import type { SparqlText } from '../sparql-template.ts';
import { StoreAuthentication, type StoreCredentials } from './store-authentication.ts';
import { HttpError } from '../../core/errors.ts';

/** Where the remote store is and how to sign in (`--store-url`, `--store-update-url`, `--store-user`, `--store-password`, `--store-token`). */
export interface RemoteStoreConfig extends StoreCredentials {
  queryUrl: string;
  updateUrl: string;
}

/**
 * The SPARQL 1.1 Protocol, client side: queries and updates as form posts, results read as
 * streams (SPARQL JSON results, N-Triples). Connections to the server are kept alive and
 * shared; a failing request throws with the server's own message.
 */
export class SparqlProtocolClient {
  // idle connections are closed well before servers close them (Virtuoso: 10 s by default)
  // made with the first request: undici is loaded then, not with the server (about 70 ms)
  private agent?: Agent;
  private readonly authentication: StoreAuthentication;

  private readonly config: RemoteStoreConfig;
  constructor(config: RemoteStoreConfig) {
    this.config = config;
    this.authentication = new StoreAuthentication(config);
  }

  /**
   * One request. Sent again (at most twice more) when the connection was closed under it or the
   * server reports a deadlock between transactions: every request this store sends leaves the
   * same state when sent twice (queries; graph replacements; updates as computed changes).
   */
  private async post(url: string, field: 'query' | 'update', text: SparqlText | string, accept: string, signal?: AbortSignal): Promise<Response> {
    const { fetch, Agent } = await import('undici');
    this.agent ??= new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000, connections: 16 });
    const body = new URLSearchParams({ [field]: String(text) }).toString();
    // a challenge (401 with WWW-Authenticate) is answered once per request, apart from the retries below
    let challengesAnswered = 0;
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= 2;
      let response: Response;
      const authorization = this.authentication.header('POST', url);
      try {
        response = (await fetch(url, {
          method: 'POST',
          headers: { ...(authorization ? { Authorization: authorization } : {}), 'Content-Type': 'application/x-www-form-urlencoded', Accept: accept },
          body,
          dispatcher: this.agent,
          signal,
        })) as unknown as Response;
      } catch (e) {
        if (!last && !signal?.aborted && connectionLost(e)) continue;
        // the system's reason (fetch's own error only says "fetch failed")
        throw unreachable(e) ? new StoreNotAnswering((e as Error).cause ?? e) : e;
      }
      if (response.ok) return response;
      if (response.status === 401 && challengesAnswered < 2 && this.authentication.challenged(response.headers.get('www-authenticate'), authorization)) {
        challengesAnswered++;
        attempt--;
        await response.arrayBuffer();
        continue;
      }
      const message = (await response.text()).slice(0, 2000);
      if (!last && /\b40001\b|SR172|deadlock/i.test(message)) {
        await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
        continue;
      }
      const error = new Error(`the SPARQL store answered ${response.status} to a ${field}: ${message}`);
      // a proxy in front of the store says it is not there
      throw [502, 503, 504].includes(response.status) ? new StoreNotAnswering(error) : error;
    }
  }

  private bodyOf(response: Response): Readable {
    return Readable.fromWeb(response.body as never);
  }

  /** A SELECT's variables and its solutions as a stream. */
  async selectWithVariables(query: SparqlText | string, signal?: AbortSignal): Promise<{ variables: string[]; solutions: AsyncIterable<Solution> }> {
    const response = await this.post(this.config.queryUrl, 'query', query, 'application/sparql-results+json', signal);
    const body = this.bodyOf(response);
    const stream = new SparqlJsonParser({ prefixVariableQuestionMark: false }).parseJsonResultsStream(body);
    const variables = new Promise<string[]>((resolve, reject) => {
      stream.once('variables', (vars: RDF.Variable[]) => resolve(vars.map((v) => v.value)));
      stream.once('error', reject);
      stream.once('end', () => resolve([]));
    });
    // the head comes first; reading it does not consume solutions (they wait in the stream)
    stream.pause();
    const names = await variables;
    return { variables: names, solutions: untilDone(stream as unknown as AsyncIterable<Solution>, body) };
  }

  /** A SELECT's solutions as a stream (the request is sent when reading starts). */
  async *selectStream(query: SparqlText | string, signal?: AbortSignal): AsyncIterable<Solution> {
    const { solutions } = await this.selectWithVariables(query, signal);
    yield* solutions;
  }

  async select(query: SparqlText | string, signal?: AbortSignal): Promise<Solution[]> {
    const out: Solution[] = [];
    for await (const s of this.selectStream(query, signal)) out.push(s);
    return out;
  }

  async ask(query: SparqlText | string, signal?: AbortSignal): Promise<boolean> {
    const response = await this.post(this.config.queryUrl, 'query', query, 'application/sparql-results+json', signal);
    const body = (await response.json()) as { boolean?: boolean; results?: { bindings?: Record<string, { value: string }>[] } };
    if (typeof body.boolean === 'boolean') return body.boolean;
    // Virtuoso 7.2 answers ASK in JSON as a SELECT of ?__ASK_RETVAL: one row of 1, or no row
    const rows = body.results?.bindings;
    if (Array.isArray(rows)) return rows.length > 0 && ['1', 'true'].includes(rows[0].__ASK_RETVAL?.value ?? '');
    throw new Error('the SPARQL store gave no answer to an ASK query');
  }

  /** A CONSTRUCT's (or DESCRIBE's) triples, as quads in the default graph. */
  async construct(query: SparqlText | string, signal?: AbortSignal): Promise<AsyncIterable<RDF.Quad>> {
    const response = await this.post(this.config.queryUrl, 'query', query, 'application/n-triples, text/turtle;q=0.9', signal);
    const type = response.headers.get('content-type') ?? 'text/turtle';
    const parser = new StreamParser({ format: /n-triples/.test(type) ? 'application/n-triples' : 'text/turtle' });
    const body = this.bodyOf(response);
    return untilDone(body.pipe(parser) as unknown as AsyncIterable<RDF.Quad>, body);
  }

  async update(update: SparqlText | string): Promise<void> {
    const response = await this.post(this.config.updateUrl, 'update', update, '*/*');
    await response.arrayBuffer();
  }

  async close(): Promise<void> {
    if (this.agent && !this.agent.closed && !this.agent.destroyed) await this.agent.close();
  }
}

/** The parsed items of a response; a reader that stops early closes the response (its connection goes back to the pool). */
async function* untilDone<T>(items: AsyncIterable<T>, body: Readable): AsyncIterable<T> {
  try {
    yield* items;
  } finally {
    if (!body.destroyed) body.destroy();
  }
}

/**
 * The remote store did not answer a request (nothing listens, its name is not known yet, the
 * connection was lost again and again, or a proxy said it is not there), as when it starts beside
 * this process: the service is unavailable for now, and the client is told so (503 with
 * Retry-After), not given an internal error; `cause` is the reason, for the log. A refusal of the
 * credentials or of the request is not this.
 */
export class StoreNotAnswering extends HttpError {
  constructor(reason: unknown) {
    super(503, 'ServiceUnavailable', 'the SPARQL store does not answer; try again shortly', undefined, { 'Retry-After': '1' });
    this.cause = reason;
  }
}

/** A request that reached no store: nothing listens, the name is unknown, or the connection was lost. */
function unreachable(e: unknown): boolean {
  const code = (e as { cause?: { code?: string } })?.cause?.code ?? '';
  return ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT'].includes(code) || connectionLost(e);
}

/** A request that failed because its connection closed (a reused keep-alive connection the server had just closed). */
function connectionLost(e: unknown): boolean {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  return ['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED'].includes(cause?.code ?? '') || /other side closed/i.test(cause?.message ?? '');
}
