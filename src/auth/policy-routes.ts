import type Router from '@koa/router';
import { policyQuads } from './auth-codec.ts';
import { HttpError, badRequest, notFound } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { sendRdf, sendText } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import { requireCaller } from './caller-token.ts';

/** Policies (`/auth/policy`): the owner reads them and changes who may read. */
export function policyRoutes(router: Router, services: Services): void {
  const { access, config } = services;

  /** Policies: the owner reads them and changes who may read. */
  router.get('/auth/policy', async (ctx) => {
    const user = await requireCaller(ctx, services);
    const uri = Params.fromQuery(ctx).get('uri');
    const policies = access.policiesOwnedBy(user).filter((p) => !uri || p.resource === access.resourceOf(uri));
    if (uri && !policies.length) throw notFound(`no policy of yours for ${uri}`);
    await sendRdf(ctx, policies.flatMap(policyQuads), 'Policies');
  });

  router.post('/auth/policy', async (ctx) => {
    const user = await requireCaller(ctx, services);
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
    sendText(ctx, `${resource}\n`);
  });

  /** Deleting a policy takes back every grant: only the owner (and administrators) keep access. */
  router.delete('/auth/policy', async (ctx) => {
    const user = await requireCaller(ctx, services);
    const resource = access.resourceOf(Params.fromQuery(ctx).required('uri'));
    const policy = resource ? access.policyOf(resource) : undefined;
    if (!resource || !policy) throw notFound('no policy for that uri');
    if (policy.owner !== user && !access.isAdmin(user)) throw new HttpError(403, 'Forbidden', 'only the owner deletes a policy');
    await access.setPolicy({ resource, owner: policy.owner, publicRead: false, readers: [] });
    sendText(ctx, '');
  });
}
