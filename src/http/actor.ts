import type { Context } from 'koa';

const SECRET_PARAMS = ['subjectid', 'tokenid', 'token', 'password', 'access_token'];

/** The URL that was called, without credentials: used in error reports and logs. */
export function actorOf(ctx: Context, baseUrl: string): string {
  const q = new URLSearchParams(ctx.querystring);
  for (const p of SECRET_PARAMS) if (q.has(p)) q.set(p, 'REDACTED');
  const qs = q.toString();
  return `${baseUrl}${ctx.path}${qs ? `?${qs}` : ''}`;
}
