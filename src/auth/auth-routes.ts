import type Router from '@koa/router';
import type { Context } from 'koa';
import { df, ot, literal } from '../rdf/namespaces.js';
import { HttpError, badRequest, notFound } from '../core/errors.js';
import { Params } from '../http/params.js';
import { sendRdf } from '../http/respond.js';
import type { Services } from '../core/services.js';
import { callerToken, callerTokenOf } from './caller-token.js';
import type { Action } from './access-control.js';

const FAILURE_WINDOW_MS = 15 * 60 * 1000;
const FREE_FAILURES = 5;

function plain(ctx: Context, body: string, status = 200) {
  ctx.status = status;
  ctx.set('Content-Type', 'text/plain');
  ctx.body = body;
}

/** The embedded authentication and policy service (spec 5), in the shape OpenTox clients call. */
export function authRoutes(router: Router, services: Services): void {
  const { access, config } = services;
  const failures = new Map<string, { count: number; since: number }>();

  const caller = async (ctx: Context) => await access.userOfToken(await callerTokenOf(ctx, config.bodyLimit));
  const requireAdmin = async (ctx: Context) => {
    const user = await caller(ctx);
    if (!user) throw new HttpError(401, 'Unauthorized', 'send an administrator token in the subjectid header');
    if (!access.isAdmin(user)) throw new HttpError(403, 'Forbidden', 'only an administrator may manage users');
    return user;
  };

  router.post('/auth/authenticate', async (ctx) => {
    const p = await Params.fromRequest(ctx, config.bodyLimit);
    const name = p.required('username');
    const password = p.required('password');
    // brute force is slowed down per user name and per address
    const keys = [`user:${name}`, `ip:${ctx.ip}`];
    const now = Date.now();
    for (const k of keys) {
      const f = failures.get(k);
      if (f && now - f.since < FAILURE_WINDOW_MS && f.count >= FREE_FAILURES) {
        throw new HttpError(429, 'TooManyAttempts', 'too many failed logins; try again later', undefined, { 'Retry-After': String(Math.ceil((f.since + FAILURE_WINDOW_MS - now) / 1000)) });
      }
    }
    const token = await access.authenticate(name, password);
    if (!token) {
      for (const k of keys) {
        const f = failures.get(k);
        failures.set(k, f && now - f.since < FAILURE_WINDOW_MS ? { count: f.count + 1, since: f.since } : { count: 1, since: now });
      }
      throw new HttpError(401, 'Unauthorized', 'wrong user name or password');
    }
    failures.delete(`user:${name}`);
    plain(ctx, `token.id=${token}\n`);
  });

  router.post('/auth/isTokenValid', async (ctx) => {
    const p = await Params.fromRequest(ctx, config.bodyLimit);
    plain(ctx, `boolean=${!!(await access.userOfToken(p.get('tokenid') ?? callerToken(ctx, p)))}\n`);
  });

  router.post('/auth/authorize', async (ctx) => {
    const p = await Params.fromRequest(ctx, config.bodyLimit);
    const action = p.required('action').toUpperCase();
    if (!['GET', 'POST', 'PUT', 'DELETE'].includes(action)) throw badRequest('action is GET, POST, PUT or DELETE');
    const user = await access.userOfToken(callerToken(ctx, p));
    plain(ctx, `boolean=${!!user && access.allowed(user, p.required('uri'), action as Action)}\n`);
  });

  router.post('/auth/logout', async (ctx) => {
    const p = await Params.fromRequest(ctx, config.bodyLimit);
    const token = callerToken(ctx, p);
    if (token) await access.logout(token);
    plain(ctx, '');
  });

  /** An administrator's form, and a user or group name from it. */
  const adminForm = async (ctx: Context) => {
    await requireAdmin(ctx);
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
    plain(ctx, `${name}\n`);
  });

  router.delete('/auth/user/:name', async (ctx) => {
    await requireAdmin(ctx);
    if (!(await access.removeUser(ctx.params.name))) throw notFound(`no user ${ctx.params.name}`);
    plain(ctx, '');
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
    plain(ctx, `${name}\n`);
  });

  router.delete('/auth/group/:name', async (ctx) => {
    await requireAdmin(ctx);
    if (!access.hasGroup(ctx.params.name)) throw notFound(`no group ${ctx.params.name}`);
    await access.setGroup(ctx.params.name, []);
    plain(ctx, '');
  });

  /** Policies: the owner reads them and changes who may read. */
  router.get('/auth/policy', async (ctx) => {
    const user = await caller(ctx);
    if (!user) throw new HttpError(401, 'Unauthorized', 'send a token');
    const uri = Params.fromQuery(ctx).get('uri');
    const policies = access.policiesOwnedBy(user).filter((p) => !uri || p.resource === access.resourceOf(uri));
    if (uri && !policies.length) throw notFound(`no policy of yours for ${uri}`);
    const quads = policies.flatMap((p) => [
      df.quad(df.namedNode(p.resource), ot('owner'), literal(p.owner)),
      df.quad(df.namedNode(p.resource), ot('publicRead'), literal(p.publicRead)),
      ...p.readers.map((g) => df.quad(df.namedNode(p.resource), ot('readableBy'), literal(g))),
    ]);
    await sendRdf(ctx, quads, 'Policies');
  });

  router.post('/auth/policy', async (ctx) => {
    const user = await caller(ctx);
    if (!user) throw new HttpError(401, 'Unauthorized', 'send a token');
    const p = await Params.fromRequest(ctx, config.bodyLimit);
    const resource = access.resourceOf(p.required('uri'));
    if (!resource) throw badRequest('uri is not a resource of this service');
    const policy = access.policyOf(resource);
    if (policy && policy.owner !== user && !access.isAdmin(user)) throw new HttpError(403, 'Forbidden', 'only the owner changes a policy');
    // what is not given stays as it was
    const flag = p.get('public_read') ?? p.get('access');
    const publicRead = flag === undefined ? (policy?.publicRead ?? false) : ['true', '1', 'yes', 'public'].includes(flag.toLowerCase());
    const readers = p.has('group')
      ? p
          .all('group')
          .flatMap((g) => g.split(','))
          .map((g) => g.trim())
          .filter(Boolean)
      : (policy?.readers ?? []);
    const unknown = readers.filter((g) => !access.hasGroup(g));
    if (unknown.length) throw badRequest(`unknown groups: ${unknown.join(', ')}`);
    await access.setPolicy({ resource, owner: policy?.owner ?? user, publicRead, readers });
    plain(ctx, `${resource}\n`);
  });

  /** Deleting a policy takes back every grant: only the owner (and administrators) keep access. */
  router.delete('/auth/policy', async (ctx) => {
    const user = await caller(ctx);
    if (!user) throw new HttpError(401, 'Unauthorized', 'send a token');
    const resource = access.resourceOf(Params.fromQuery(ctx).required('uri'));
    const policy = resource ? access.policyOf(resource) : undefined;
    if (!resource || !policy) throw notFound('no policy for that uri');
    if (policy.owner !== user && !access.isAdmin(user)) throw new HttpError(403, 'Forbidden', 'only the owner deletes a policy');
    await access.setPolicy({ resource, owner: policy.owner, publicRead: false, readers: [] });
    plain(ctx, '');
  });
}
