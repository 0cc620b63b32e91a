import type { Context } from 'koa';
import { z } from 'zod';
import { HttpError } from '../core/errors.ts';
import { answers, param, type DescribedRoutes } from '../http/route-description.ts';
import { sendText } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import { callerTokenOf } from './caller-token.ts';
import type { Action } from './access-control.ts';
import { LoginThrottle } from './login-throttle.ts';
import { adminRoutes } from './admin-routes.ts';
import { policyRoutes } from './policy-routes.ts';
import { keyRoutes } from './key-routes.ts';
import { openSsoIdentityRoutes } from './opensso-identity-routes.ts';
import { openSsoPolicyRoutes } from './opensso-policy-routes.ts';

/** The caller's token as a parameter (else the subjectid header, or Authorization: Bearer; caller-token.ts reads it). */
const SUBJECTID = param.optional('The caller’s token (else the subjectid header, or Authorization: Bearer)');

const ACTIONS = ['GET', 'POST', 'PUT', 'DELETE'];

/** The embedded authentication and policy service (spec 5), in the shape OpenTox clients call: tokens here (also under OpenSSO's `/opensso/identity/…`), users and groups in admin-routes.ts, policies in policy-routes.ts, OpenSSO's identity and policy services in opensso-*-routes.ts. */
export function authRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'access'>): void {
  const { access, config } = services;
  const throttle = new LoginThrottle();
  /** The caller's token: the subjectid header, a subjectid parameter, Authorization: Bearer. */
  const tokenOf = (ctx: Context) => callerTokenOf(ctx, config.bodyLimit);

  routes.add(
    {
      method: 'POST',
      path: '/auth/authenticate',
      aliases: ['/opensso/identity/authenticate'],
      summary: 'Log in: a token for a user name and password',
      tag: 'auth',
      params: z.object({ username: param.required('The user name'), password: param.required('The password') }),
      responses: answers(['text/plain'], 400, 401, 429),
    },
    async (ctx, { username: name, password }) => {
      // brute force is slowed down per user name and per address
      const keys = [`user:${name}`, `ip:${ctx.ip}`];
      throttle.check(keys);
      const token = await access.authenticate(name, password);
      if (!token) {
        throttle.failed(keys);
        throw new HttpError(401, 'Unauthorized', `wrong user name or password${access.enabled ? '' : ' (access control is off here: no request needs a token)'}`);
      }
      throttle.succeeded(`user:${name}`);
      sendText(ctx, `token.id=${token}\n`);
    },
  );

  routes.add(
    {
      method: 'POST',
      path: '/auth/isTokenValid',
      aliases: ['/opensso/identity/isTokenValid'],
      summary: 'Is a token valid? (none given: false)',
      tag: 'auth',
      params: z.object({ tokenid: param.optional('The token to check (else the caller’s)'), subjectid: SUBJECTID }),
      responses: answers(['text/plain'], 400, 401),
    },
    async (ctx, { tokenid }) => {
      sendText(ctx, `boolean=${!!(await access.userOfToken(tokenid ?? (await tokenOf(ctx))))}\n`);
    },
  );

  routes.add(
    {
      method: 'POST',
      path: '/auth/authorize',
      aliases: ['/opensso/identity/authorize'],
      summary: 'May the token’s user do an action on a URI?',
      tag: 'auth',
      params: z.object({
        action: param
          .required('The action')
          .refine((v) => ACTIONS.includes(v.toUpperCase()), { message: 'action is GET, POST, PUT or DELETE' })
          .transform((v) => v.toUpperCase() as Action)
          .describe('The action: GET, POST, PUT or DELETE'),
        uri: param.required('The resource'),
        subjectid: SUBJECTID,
      }),
      responses: answers(['text/plain'], 400, 401),
    },
    async (ctx, { action, uri }) => {
      const user = await access.userOfToken(await tokenOf(ctx));
      sendText(ctx, `boolean=${!!user && access.allowed(user, uri, action)}\n`);
    },
  );

  routes.add(
    {
      method: 'POST',
      path: '/auth/logout',
      aliases: ['/opensso/identity/logout'],
      summary: 'Invalidate a token',
      tag: 'auth',
      params: z.object({ subjectid: SUBJECTID }),
      responses: answers(['text/plain'], 401),
    },
    async (ctx) => {
      const given = await tokenOf(ctx);
      if (given) await access.logout(given);
      sendText(ctx, '');
    },
  );

  adminRoutes(routes, services);
  policyRoutes(routes, services);
  keyRoutes(routes, services);
  openSsoIdentityRoutes(routes, services);
  openSsoPolicyRoutes(routes, services);
}
