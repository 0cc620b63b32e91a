import type { Context } from 'koa';
import { Params } from '../http/params.js';
import { requestMediaType } from '../http/body.js';

/**
 * The caller's token, read the same way everywhere (access control, the auth service, tokens
 * forwarded to remote services): the `subjectid` header, then a `subjectid` parameter (query
 * string or form body), then `Authorization: Bearer …`.
 */
export function callerToken(ctx: Context, params: Params): string | undefined {
  return ctx.get('subjectid') || params.get('subjectid') || /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1] || undefined;
}

/** The same, reading the form body only when there is one and the header does not answer. */
export async function callerTokenOf(ctx: Context, bodyLimit: number): Promise<string | undefined> {
  const header = ctx.get('subjectid');
  if (header) return header;
  const form = ctx.method === 'POST' && requestMediaType(ctx) === 'application/x-www-form-urlencoded';
  return callerToken(ctx, form ? await Params.fromRequest(ctx, bodyLimit) : Params.fromQuery(ctx));
}
