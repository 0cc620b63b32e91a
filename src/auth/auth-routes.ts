import type Router from '@koa/router';
import { badRequest, HttpError } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { sendText } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import { callerToken } from './caller-token.ts';
import type { Action } from './access-control.ts';
import { LoginThrottle } from './login-throttle.ts';
import { adminRoutes } from './admin-routes.ts';
import { policyRoutes } from './policy-routes.ts';

/** The embedded authentication and policy service (spec 5), in the shape OpenTox clients call: tokens here, users and groups in admin-routes.ts, policies in policy-routes.ts. */
export function authRoutes(router: Router, services: Services): void {
  const { access, config } = services;
  const throttle = new LoginThrottle();

  router.post('/auth/authenticate', async (ctx) => {
    const p = await Params.fromRequest(ctx, config.bodyLimit);
    const name = p.required('username');
    const password = p.required('password');
    // brute force is slowed down per user name and per address
    const keys = [`user:${name}`, `ip:${ctx.ip}`];
    throttle.check(keys);
    const token = await access.authenticate(name, password);
    if (!token) {
      throttle.failed(keys);
      throw new HttpError(401, 'Unauthorized', 'wrong user name or password');
    }
    throttle.succeeded(`user:${name}`);
    sendText(ctx, `token.id=${token}\n`);
  });

  router.post('/auth/isTokenValid', async (ctx) => {
    const p = await Params.fromRequest(ctx, config.bodyLimit);
    sendText(ctx, `boolean=${!!(await access.userOfToken(p.get('tokenid') ?? callerToken(ctx, p)))}\n`);
  });

  router.post('/auth/authorize', async (ctx) => {
    const p = await Params.fromRequest(ctx, config.bodyLimit);
    const action = p.required('action').toUpperCase();
    if (!['GET', 'POST', 'PUT', 'DELETE'].includes(action)) throw badRequest('action is GET, POST, PUT or DELETE');
    const user = await access.userOfToken(callerToken(ctx, p));
    sendText(ctx, `boolean=${!!user && access.allowed(user, p.required('uri'), action as Action)}\n`);
  });

  router.post('/auth/logout', async (ctx) => {
    const p = await Params.fromRequest(ctx, config.bodyLimit);
    const token = callerToken(ctx, p);
    if (token) await access.logout(token);
    sendText(ctx, '');
  });

  adminRoutes(router, services);
  policyRoutes(router, services);
}
