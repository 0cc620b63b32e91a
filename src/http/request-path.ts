import type { Context, Next } from 'koa';
import { canonicalPath, isCanonicalPath } from '../core/canonical-path.ts';
import { HttpError } from '../core/errors.ts';
import { sendErrorReport } from './error-handler.ts';
import { checkedText } from './params.ts';

/**
 * The first thing every request meets: its path becomes the canonical spelling
 * (core/canonical-path.ts), so that routing, access control, quotas, the representation cache,
 * logs and the MCP tools (which call this server) all see one resource for one request.
 * `/dataset//1/` and `/dataset/%31` are answered as `/dataset/1`, with a `Content-Location` that
 * names it; `/DATASET/1` is another path, which no route answers (404). A path that is not
 * well-formed percent-encoding is a 400 here, before anything else has looked at it, and so is
 * a query whose text XML cannot carry (params.ts, checkedText).
 */
export function canonicalRequestPath(baseUrl: string) {
  return async (ctx: Context, next: Next) => {
    const path = ctx.path;
    let canonical: string;
    try {
      if (ctx.querystring) checkedText(new URLSearchParams(ctx.querystring));
      if (isCanonicalPath(path)) return next();
      canonical = canonicalPath(path);
    } catch (e) {
      if (!(e instanceof HttpError)) throw e;
      return sendErrorReport(ctx, e, baseUrl);
    }
    if (canonical !== path) {
      ctx.path = canonical;
      ctx.set('Content-Location', `${baseUrl}${canonical}`);
    }
    return next();
  };
}
