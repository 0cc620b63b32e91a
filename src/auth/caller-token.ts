import type { Context } from 'koa';
import { Params } from '../http/params.ts';
import { requestMediaType } from '../http/body.ts';
import { HttpError } from '../core/errors.ts';
import type { Services } from '../core/services.ts';

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

/** The user whose token the request carries (undefined without one, or with a bad one). */
export async function callerUser(ctx: Context, services: Pick<Services, 'config' | 'access'>): Promise<string | undefined> {
  return services.access.userOfToken(await callerTokenOf(ctx, services.config.bodyLimit));
}

/** The caller, who must be known: 401 otherwise. */
export async function requireCaller(ctx: Context, services: Pick<Services, 'config' | 'access'>): Promise<string> {
  const user = await callerUser(ctx, services);
  if (!user) throw new HttpError(401, 'Unauthorized', 'send a token');
  return user;
}

/** The caller, who must be an administrator: 401 without a valid token, 403 for other users. */
export async function requireAdmin(ctx: Context, services: Pick<Services, 'config' | 'access'>): Promise<string> {
  const user = await callerUser(ctx, services);
  if (!user) throw new HttpError(401, 'Unauthorized', 'send an administrator token in the subjectid header');
  if (!services.access.isAdmin(user)) throw new HttpError(403, 'Forbidden', 'only an administrator may manage users');
  return user;
}
