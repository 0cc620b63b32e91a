import type { Context } from 'koa';
import { z } from 'zod';
import { policyQuads } from './auth-codec.ts';
import { HttpError, badRequest, notFound } from '../core/errors.ts';
import { answers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';
import { sendRdf, sendText } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import { requireCaller } from './caller-token.ts';
import { keepNamedWithin } from './opensso-policies.ts';

/** Policies (`/auth/policy`): the owner reads them and changes who may read; who calls is checked before what is given. */
export function policyRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'access'>): void {
  const { access } = services;
  const guard = (ctx: Context) => requireCaller(ctx, services);

  /** Policies: the owner reads them and changes who may read. */
  routes.add(
    {
      method: 'GET',
      path: '/auth/policy',
      summary: 'The access policies the caller owns',
      tag: 'auth',
      guard,
      params: z.object({ uri: param.optional('Only the policy of this resource') }),
      responses: answers(MEDIA.rdf, 401, 404),
    },
    async (ctx, { uri }, user) => {
      const policies = access.policiesOwnedBy(user).filter((p) => !uri || p.resource === access.resourceOf(uri));
      if (uri && !policies.length) throw notFound(`no policy of yours for ${uri}`);
      await sendRdf(ctx, policies.flatMap(policyQuads), 'Policies');
    },
  );

  routes.add(
    {
      method: 'POST',
      path: '/auth/policy',
      summary: 'Set a resource’s policy (owner); what is not given stays as it was',
      tag: 'auth',
      guard,
      params: z.object({
        uri: param.required('The resource'),
        public_read: param.optional('May anyone read it? (true, 1, yes or public; anything else: no)'),
        access: param.optional('The same as public_read'),
        group: param.list('The groups that may read it (each value may list several, comma-separated; given empty: none)'),
      }),
      responses: answers(['text/plain'], 400, 401, 403, 404),
    },
    async (ctx, p, user) => {
      const resource = access.resourceOf(p.uri);
      if (!resource) throw badRequest('uri is not a resource of this service');
      const policy = access.policyOf(resource);
      access.checkPolicyChange(user, resource, policy);
      // what is not given stays as it was
      const flag = p.public_read ?? p.access;
      const publicRead = flag === undefined ? (policy?.publicRead ?? false) : ['true', '1', 'yes', 'public'].includes(flag.toLowerCase());
      const readers = p.group
        ? p.group
            .flatMap((g) => g.split(','))
            .map((g) => g.trim())
            .filter(Boolean)
        : (policy?.readers ?? []);
      const unknown = readers.filter((g) => !access.hasGroup(g));
      if (unknown.length) throw badRequest(`unknown groups: ${unknown.join(', ')}`);
      // its OpenSSO policies stay, narrowed to what the record now grants
      await access.setPolicy(keepNamedWithin({ resource, owner: policy?.owner ?? user, publicRead, readers }, policy));
      sendText(ctx, `${resource}\n`);
    },
  );

  /** Deleting a policy takes back every grant: only the owner (and administrators) keep access. */
  routes.add(
    {
      method: 'DELETE',
      path: '/auth/policy',
      summary: 'Remove a resource’s sharing (owner)',
      tag: 'auth',
      guard,
      params: z.object({ uri: param.required('The resource') }),
      paramsIn: 'query',
      responses: answers([], 400, 401, 403, 404),
    },
    async (ctx, { uri }, user) => {
      const resource = access.resourceOf(uri);
      const policy = resource ? access.policyOf(resource) : undefined;
      if (!resource || !policy) throw notFound('no policy for that uri');
      if (policy.owner !== user && !access.isAdmin(user)) throw new HttpError(403, 'Forbidden', 'only the owner deletes a policy');
      // its OpenSSO policies go with its sharing
      await access.setPolicy({ resource, owner: policy.owner, publicRead: false, readers: [] });
      sendText(ctx, '');
    },
  );
}
