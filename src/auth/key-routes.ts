import type { Context } from 'koa';
import { z } from 'zod';
import { notFound } from '../core/errors.ts';
import { answers, param, type DescribedRoutes } from '../http/route-description.ts';
import { sendNegotiated, sendText } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import type { ApiKey } from './auth-codec.ts';
import { requireCaller } from './caller-token.ts';

const DAY_MS = 24 * 3600 * 1000;
/** The longest a key lives (days). */
const MAX_KEY_DAYS = 3650;

/** What a key's listing shows (never the key, which is not kept). */
function shown(k: ApiKey) {
  const iso = (t: number | undefined) => (t === undefined ? null : new Date(t).toISOString());
  return { id: k.id, name: k.name, scope: k.scope, created: iso(k.created), expires: iso(k.expires), lastUsed: iso(k.lastUsed), revoked: k.revoked };
}

/**
 * A user's API keys (`/auth/key`): named, read-only or read-write, with an expiry, revocable,
 * their last use shown. A key works wherever a token does (the subjectid header or parameter,
 * `Authorization: Bearer`); it is shown once, when it is made, and only its hash is kept.
 */
export function keyRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'access'>): void {
  const { access } = services;
  const guard = (ctx: Context) => requireCaller(ctx, services);

  routes.add(
    {
      method: 'POST',
      path: '/auth/key',
      summary: 'Make an API key of the caller (shown once)',
      tag: 'auth',
      guard,
      params: z.object({
        name: param
          .required('What the key is for')
          .refine((v) => v.length >= 1 && v.length <= 100 && !/[\u0000-\u001f]/.test(v), { message: 'name: 1 to 100 characters, no control characters' })
          .describe('What the key is for (1 to 100 characters)'),
        scope: param
          .optional('read (GET, and SPARQL queries) or write (everything the user may do); write by default')
          .refine((v) => v === undefined || v === 'read' || v === 'write', { message: 'scope: read or write' }),
        expires_in_days: param
          .optional(`Days until it expires (default 90, at most ${MAX_KEY_DAYS}; fractions allowed)`)
          .refine((v) => v === undefined || (Number(v) > 0 && Number(v) <= MAX_KEY_DAYS), { message: `expires_in_days: a number of days above 0 and at most ${MAX_KEY_DAYS}` }),
      }),
      responses: { ...answers(['application/json', 'text/plain'], 400, 401, 403), 201: ['application/json', 'text/plain'] },
    },
    async (ctx, p, user) => {
      const { key, record } = await access.createKey(user, p.name, p.scope === 'read' ? 'read' : 'write', Number(p.expires_in_days ?? 90) * DAY_MS);
      await sendNegotiated(
        ctx,
        {
          'application/json': () => `${JSON.stringify({ key, ...shown(record) })}\n`,
          'text/plain': () => `key=${key}\nkey.id=${record.id}\nexpires=${new Date(record.expires).toISOString()}\n`,
        },
        201,
      );
    },
  );

  routes.add(
    { method: 'GET', path: '/auth/key', summary: 'The caller’s API keys: name, scope, expiry, last use, revoked (never the keys)', tag: 'auth', guard, responses: answers(['application/json'], 401) },
    async (ctx, _p, user) => {
      await sendNegotiated(ctx, { 'application/json': () => `${JSON.stringify(access.keysOf(user).map(shown))}\n` });
    },
  );

  routes.add(
    { method: 'DELETE', path: '/auth/key/:id', summary: 'Revoke one of the caller’s API keys (an administrator: anyone’s)', tag: 'auth', guard, responses: answers([], 401, 404) },
    async (ctx, _p, user) => {
      if (!(await access.revokeKey(user, ctx.params.id))) throw notFound(`no API key ${ctx.params.id} of ${user}`);
      sendText(ctx, '');
    },
  );
}
