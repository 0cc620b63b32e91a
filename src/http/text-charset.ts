import type { Middleware } from 'koa';

/**
 * Every text answer names its character set: `text/csv; charset=utf-8`, and so for HTML, URI
 * lists, Turtle, ARFF, YAML and plain text (every body this server writes is UTF-8). Without it
 * a client that follows HTTP's old default for `text/*` (ISO-8859-1: Python's requests does)
 * reads "Déjà vu €" as "DÃ©jÃ  vu â‚¬". The media type itself stays the one negotiated.
 */
export function textCharset(): Middleware {
  return async (ctx, next) => {
    await next();
    const type = ctx.response.get('Content-Type');
    if (typeof type === 'string' && /^text\//i.test(type) && !/;\s*charset=/i.test(type)) ctx.set('Content-Type', `${type}; charset=utf-8`);
  };
}
