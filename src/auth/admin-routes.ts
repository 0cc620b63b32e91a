import type { Context } from 'koa';
import { z } from 'zod';
import { badRequest, notFound } from '../core/errors.ts';
import { answers, param, type DescribedRoutes } from '../http/route-description.ts';
import { sendText } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import { requireAdmin } from './caller-token.ts';

/** A user or group name: 1 to 64 letters, digits, . _ @ - (400 naming the parameter otherwise). */
const name = (key: string, description: string) =>
  param
    .required(description)
    .refine((v) => /^[A-Za-z0-9._@-]{1,64}$/.test(v), { message: `${key}: 1 to 64 letters, digits, . _ @ -` })
    .describe(`${description} (1 to 64 letters, digits, . _ @ -)`);

/** Users and groups, managed by administrators (`/auth/user`, `/auth/group`): who calls is checked before what is given. */
export function adminRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'access'>): void {
  const { access } = services;
  const guard = (ctx: Context) => requireAdmin(ctx, services);

  routes.add(
    {
      method: 'POST',
      path: '/auth/user',
      summary: 'Create a user or set a password (administrators)',
      tag: 'auth',
      guard,
      params: z.object({
        username: name('username', 'The user'),
        password: param
          .required('The password')
          .refine((v) => v.length >= 8, { message: 'password: at least 8 characters' })
          .describe('The password (at least 8 characters)'),
      }),
      responses: answers(['text/plain'], 400, 401, 403),
    },
    async (ctx, { username, password }) => {
      await access.setUser(username, password);
      sendText(ctx, `${username}\n`);
    },
  );

  routes.add({ method: 'DELETE', path: '/auth/user/:name', summary: 'Delete a user (administrators)', tag: 'auth', guard, responses: answers([], 401, 403, 404) }, async (ctx) => {
    if (!(await access.removeUser(ctx.params.name))) throw notFound(`no user ${ctx.params.name}`);
    sendText(ctx, '');
  });

  routes.add(
    {
      method: 'POST',
      path: '/auth/group',
      summary: 'Create or change a group (administrators)',
      tag: 'auth',
      guard,
      params: z.object({ name: name('name', 'The group'), members: param.list('Its members, user names (each value may list several, comma-separated)') }),
      responses: answers(['text/plain'], 400, 401, 403),
    },
    async (ctx, p) => {
      const members = (p.members ?? [])
        .flatMap((m) => m.split(','))
        .map((m) => m.trim())
        .filter(Boolean);
      const unknown = members.filter((m) => !access.hasUser(m));
      if (unknown.length) throw badRequest(`unknown users: ${unknown.join(', ')}`);
      await access.setGroup(p.name, members);
      sendText(ctx, `${p.name}\n`);
    },
  );

  routes.add({ method: 'DELETE', path: '/auth/group/:name', summary: 'Delete a group (administrators)', tag: 'auth', guard, responses: answers([], 401, 403, 404) }, async (ctx) => {
    if (!access.hasGroup(ctx.params.name)) throw notFound(`no group ${ctx.params.name}`);
    await access.setGroup(ctx.params.name, []);
    sendText(ctx, '');
  });
}
