import type Router from '@koa/router';
import type { Context } from 'koa';
import { badRequest, notFound } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { sendText } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import { requireAdmin } from './caller-token.ts';

/** Users and groups, managed by administrators (`/auth/user`, `/auth/group`). */
export function adminRoutes(router: Router, services: Services): void {
  const { access, config } = services;

  /** An administrator's form, and a user or group name from it. */
  const adminForm = async (ctx: Context) => {
    await requireAdmin(ctx, services);
    return Params.fromRequest(ctx, config.bodyLimit);
  };
  const nameIn = (p: Params, key: string) => {
    const name = p.required(key);
    if (!/^[A-Za-z0-9._@-]{1,64}$/.test(name)) throw badRequest(`${key}: 1 to 64 letters, digits, . _ @ -`);
    return name;
  };

  router.post('/auth/user', async (ctx) => {
    const p = await adminForm(ctx);
    const name = nameIn(p, 'username');
    const password = p.required('password');
    if (password.length < 8) throw badRequest('password: at least 8 characters');
    await access.setUser(name, password);
    sendText(ctx, `${name}\n`);
  });

  router.delete('/auth/user/:name', async (ctx) => {
    await requireAdmin(ctx, services);
    if (!(await access.removeUser(ctx.params.name))) throw notFound(`no user ${ctx.params.name}`);
    sendText(ctx, '');
  });

  router.post('/auth/group', async (ctx) => {
    const p = await adminForm(ctx);
    const name = nameIn(p, 'name');
    const members = p
      .all('members')
      .flatMap((m) => m.split(','))
      .map((m) => m.trim())
      .filter(Boolean);
    const unknown = members.filter((m) => !access.hasUser(m));
    if (unknown.length) throw badRequest(`unknown users: ${unknown.join(', ')}`);
    await access.setGroup(name, members);
    sendText(ctx, `${name}\n`);
  });

  router.delete('/auth/group/:name', async (ctx) => {
    await requireAdmin(ctx, services);
    if (!access.hasGroup(ctx.params.name)) throw notFound(`no group ${ctx.params.name}`);
    await access.setGroup(ctx.params.name, []);
    sendText(ctx, '');
  });
}
