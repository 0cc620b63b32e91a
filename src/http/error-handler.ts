import type { Context, Next } from 'koa';
import { df } from '../rdf/namespaces.ts';
import { RDF_OUTPUT_TYPES, serializeRdf } from '../rdf/serialize.ts';
import { escapeHtml, renderPage } from '../rdf/html.ts';
import { HttpError } from '../core/errors.ts';
import { errorReportQuads } from '../rdf/error-report.ts';
import { negotiate } from './negotiate.ts';
import { acceptOf } from './respond.ts';
import { actorOf } from './actor.ts';
import type { Logger } from '../core/log.ts';

/** Koa errors (405 from the router, 400 from body parsing) carry a status; keep those. */
function toHttpError(err: unknown): HttpError | undefined {
  if (err instanceof HttpError) return err;
  const e = err as { status?: number; expose?: boolean; message?: string; headers?: Record<string, string> };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose) {
    const code = { 404: 'NotFound', 405: 'MethodNotAllowed', 413: 'PayloadTooLarge', 415: 'UnsupportedMediaType' }[e.status] ?? 'InvalidInput';
    return new HttpError(e.status, code, e.message ?? 'bad request', undefined, e.headers ?? {});
  }
  // The store is closed (shutting down) or not open yet: the spec's "service not available".
  if ((err as { code?: string })?.code === 'LEVEL_DATABASE_NOT_OPEN') return new HttpError(503, 'ServiceUnavailable', 'the store is not available; try again shortly');
  if (e?.status === 501) return new HttpError(405, 'MethodNotAllowed', 'method not implemented for this resource', undefined, e.headers ?? {});
  return undefined;
}

/**
 * Every error leaves as an ot:ErrorReport in the negotiated format. Unexpected errors are
 * logged with their stack and answered as a plain 500: no stack trace ever reaches a client.
 */
export function errorHandler(baseUrl: string, log: Logger) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new HttpError(404, 'NotFound', `no resource at ${ctx.path}`);
    } catch (err) {
      let error = toHttpError(err);
      // a 5xx with a cause (the remote store not answering): the cause is logged, never sent
      if (error && error.status >= 500 && (err as Error).cause !== undefined) log.warn(error.message, { path: ctx.path, method: ctx.method, cause: String((err as Error).cause) });
      if (!error) {
        log.error('unhandled error', { path: ctx.path, method: ctx.method, error: (err as Error)?.stack ?? String(err) });
        error = new HttpError(500, 'InternalError', 'internal server error');
      }
      await sendErrorReport(ctx, error, baseUrl);
    }
  };
}

export async function sendErrorReport(ctx: Context, error: HttpError, baseUrl: string): Promise<void> {
  const actor = actorOf(ctx, baseUrl);
  const quads = errorReportQuads(df.blankNode('error'), error, actor);
  const offered = [...RDF_OUTPUT_TYPES, 'text/html', 'application/json', 'text/plain'];
  // An error report is always sent, in RDF/XML when the client accepts none of these.
  let mediaType = negotiate(acceptOf(ctx), offered) ?? 'application/rdf+xml';
  let body: string;
  if (mediaType === 'text/html') {
    body = renderPage({
      title: `Error ${error.status}: ${error.code}`,
      intro: `<p class="error">${escapeHtml(error.message)}</p>${error.details ? `<pre>${escapeHtml(error.details)}</pre>` : ''}`,
    });
  } else if (mediaType === 'application/json') {
    body = JSON.stringify({ errorCode: error.code, message: error.message, statusCode: error.status, actor, errorCause: error.details });
  } else if (mediaType === 'text/plain') {
    body = `${error.status} ${error.code}: ${error.message}${error.details ? `\n${error.details}` : ''}\n`;
  } else {
    try {
      body = await serializeRdf(quads, mediaType);
    } catch {
      // e.g. a message holding a character XML cannot carry: the report still goes out, as text
      mediaType = 'text/plain';
      body = `${error.status} ${error.code}: ${error.message}\n`;
    }
  }
  ctx.status = error.status;
  for (const [k, v] of Object.entries(error.headers)) ctx.set(k, v);
  ctx.set('Content-Type', mediaType);
  ctx.body = body;
}
