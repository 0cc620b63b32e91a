import type { Context } from 'koa';
import { parseRdf } from '../rdf/parse.ts';
import type * as RDF from '@rdfjs/types';

/** What a request to the service answered. */
export interface ServiceAnswer {
  status: number;
  text: string;
  location?: string;
  retryAfter?: string;
}

/** A tool argument that is wrong: its name and why (answered as an MCP tool error). */
export class ArgumentError extends Error {
  readonly argument: string;
  constructor(argument: string, message: string) {
    super(`${argument}: ${message}`);
    this.argument = argument;
  }
}

/** The service answered with an error status: its own explanation, and the status. */
export class ServiceError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * The service's own REST interface as one caller sees it, for the MCP tools: every tool call is
 * one or a few requests to this same process over loopback, carrying the caller's token. So a
 * tool reads and writes exactly what the caller may through HTTP, under the same checks, quotas,
 * read-only keys and error statuses: one implementation of each operation, never a second one.
 */
export class ServiceClient {
  private readonly self: string;
  /** The service's base URL: the prefix of every URI it mints. */
  readonly baseUrl: string;
  /** The caller's token, sent with every request (none: anonymous). */
  readonly token?: string;
  constructor(self: string, base: string, token?: string) {
    this.self = self;
    this.baseUrl = base.replace(/\/+$/, '');
    this.token = token;
  }

  /** The client of the caller of this request: the process's own address and the caller's token (header or Bearer). */
  static of(ctx: Context, baseUrl: string): ServiceClient {
    const address = (ctx.req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
    const host = address.includes(':') ? `[${address}]` : address;
    // read as everywhere else (caller-token.ts), but never from the JSON-RPC body
    const query = ctx.query.subjectid;
    const token = ctx.get('subjectid') || (typeof query === 'string' ? query : undefined) || /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1] || undefined;
    return new ServiceClient(`http://${host}:${ctx.req.socket.localPort}`, baseUrl, token);
  }

  /** A URI of this service (under its base URL), checked as the argument it came in. */
  uriArgument(argument: string, uri: string, collection?: string): string {
    const prefix = `${this.baseUrl}/${collection ? `${collection}/` : ''}`;
    if (!uri.startsWith(prefix) || /[\s<>"{}|\\^`]/.test(uri)) throw new ArgumentError(argument, `not a URI of this service${collection ? `'s ${collection}s` : ''} (${prefix}…)`);
    return uri;
  }

  /**
   * A path of the service, or one of its URIs, as reached on this process. Anything that would
   * leave it (`http://base@elsewhere/`, a base URL followed by anything but a path, a query or a
   * fragment) is refused: the caller's token goes to this process only.
   */
  private local(target: string): URL {
    const rest = target.startsWith(this.baseUrl) ? target.slice(this.baseUrl.length) : target;
    if (!(rest === '' || /^[/?#]/.test(rest))) throw new ServiceError(400, `not a URI of this service: ${target.slice(0, 200)}`);
    const url = new URL(this.self + rest);
    if (url.origin !== new URL(this.self).origin) throw new ServiceError(400, `not a URI of this service: ${target.slice(0, 200)}`);
    return url;
  }

  /** One request: a path of the service or one of its URIs; a form body from `form`. */
  async request(
    method: 'GET' | 'POST',
    target: string,
    options: { form?: Record<string, string | string[] | undefined>; query?: Record<string, string | undefined>; body?: string; contentType?: string; accept?: string } = {},
  ): Promise<ServiceAnswer> {
    const url = this.local(target);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, v);
    let body: string | undefined = options.body;
    let contentType = options.contentType;
    if (options.form) {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(options.form)) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) form.append(k, x);
      body = form.toString();
      contentType = 'application/x-www-form-urlencoded';
    }
    const response = await fetch(url, {
      method,
      body,
      redirect: 'manual',
      // errors as JSON ot:ErrorReports (what a route answers is always among the types asked first)
      headers: { Accept: `${options.accept ?? 'text/uri-list'}, application/json;q=0.01`, ...(contentType ? { 'Content-Type': contentType } : {}), ...(this.token ? { subjectid: this.token } : {}) },
    });
    return { status: response.status, text: await response.text(), location: response.headers.get('location') ?? undefined, retryAfter: response.headers.get('retry-after') ?? undefined };
  }

  /** The same, where only a success will do: the service's own error report otherwise. */
  async expect(method: 'GET' | 'POST', target: string, options: Parameters<ServiceClient['request']>[2] = {}, ok: number[] = [200]): Promise<ServiceAnswer> {
    const answer = await this.request(method, target, options);
    if (!ok.includes(answer.status)) throw new ServiceError(answer.status, explanation(answer));
    return answer;
  }

  /** A resource's triples. */
  async triples(uri: string): Promise<RDF.Quad[]> {
    return this.parse(await this.expect('GET', uri, { accept: 'application/n-triples' }));
  }

  /** The triples of an answer asked for as N-Triples (read by the project's own RDF parser). */
  parse(answer: ServiceAnswer): Promise<RDF.Quad[]> {
    return parseRdf(answer.text, 'application/n-triples', this.baseUrl);
  }
}

/** What an error answer says: its ot:ErrorReport's message, or its text. */
export function explanation(answer: ServiceAnswer): string {
  const text = answer.text.trim();
  // an ot:ErrorReport in JSON, N-Triples or Turtle, whichever the request's Accept gave
  const message =
    /"(?:message|explanation)"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ??
    /(?:#message>|ot:message)\s+"((?:[^"\\]|\\.)*)"/.exec(text)?.[1] ??
    /<ot:message[^>]*>([^<]*)</.exec(text)?.[1] ??
    text.split('\n').slice(0, 3).join(' ');
  const retry = answer.status === 429 && answer.retryAfter ? ` (again in ${answer.retryAfter} s)` : '';
  return `${answer.status}: ${message.slice(0, 600)}${retry}`;
}

/** A JSON answer of the service; one that is not JSON is the service's error about `argument`. */
export function json(text: string, argument: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ArgumentError(argument, `the service did not answer JSON: ${text.slice(0, 200)}`);
  }
}

/** A value as a number where it is one, else as it is. */
export const number = (v: string | undefined) => (v === undefined ? undefined : Number.isFinite(Number(v)) ? Number(v) : v);
