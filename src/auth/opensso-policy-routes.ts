import type { Context } from 'koa';
import { z } from 'zod';
import { badRequest, unsupportedType } from '../core/errors.ts';
import { answers, param, type DescribedRoutes } from '../http/route-description.ts';
import { requestMediaType, readText } from '../http/body.ts';
import { sendNegotiated, sendText } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import { requireCaller } from './caller-token.ts';
import { OpenSsoPolicies } from './opensso-policies.ts';
import { readOpenSsoPolicies, writeOpenSsoPolicies } from './opensso-policy-xml.ts';

/** A policy document is a few kilobytes; this is far above any a client sends. */
const POLICY_DOCUMENT_LIMIT = 1024 * 1024;
const XML_TYPES = ['application/xml', 'text/xml'];

/** One line each (the policy service's text answers). */
const lines = (values: string[]) => values.map((v) => `${v}\n`).join('');

/**
 * The OpenSSO policy service as the OpenTox AA 1.2 clients call it: `/pol` and
 * `/Pol/opensso-pol` (the router is case-sensitive; both paths were OpenSSO's and both answer
 * every method). `uri`, `id` and `polnames` are read from the query or, as most of those
 * clients send them, from headers of those names.
 */
export function openSsoPolicyRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'access'>): void {
  const policies = new OpenSsoPolicies(services.access);
  const guard = (ctx: Context) => requireCaller(ctx, services);
  const fromHeader = (ctx: Context, name: string, given: string | undefined) => given ?? (ctx.get(name) || undefined);
  const paths = { path: '/pol', aliases: ['/Pol/opensso-pol'] };

  routes.add(
    {
      method: 'GET',
      ...paths,
      summary: 'The caller’s policy names, one a line; with uri: the owner of that resource (then, with polnames=true, its policy names); with id: that policy as OpenSSO XML',
      tag: 'auth',
      guard,
      params: z.object({
        uri: param.optional('A resource: its owner is answered (or a uri header)'),
        polnames: param.optional('With uri, true: the policy names follow the owner (or a polnames header)'),
        id: param.optional('A policy name: its OpenSSO XML is answered (or an id header)'),
      }),
      responses: answers(['text/plain', 'application/xml'], 401, 403, 404),
    },
    async (ctx, p, user) => {
      const id = fromHeader(ctx, 'id', p.id);
      const uri = fromHeader(ctx, 'uri', p.uri);
      if (id) return sendNegotiated(ctx, { 'application/xml': () => writeOpenSsoPolicies(policies.document(user, id)) });
      if (uri) return sendText(ctx, lines(policies.ownerOf(user, uri, fromHeader(ctx, 'polnames', p.polnames)?.toLowerCase() === 'true')));
      sendText(ctx, lines(policies.namesOwnedBy(user)));
    },
  );

  // the document is read before the caller is asked for: with access control on a request without a valid token never gets here (auth-middleware.ts)
  routes.add(
    {
      method: 'POST',
      path: '/Pol/opensso-pol',
      aliases: ['/pol'],
      summary: 'Create policies from an OpenSSO policy document (application/xml): groups or every signed-in user let read a resource of the caller; answers their names',
      tag: 'auth',
      ownInput: true,
      body: XML_TYPES,
      responses: answers(['text/plain'], 400, 401, 403, 409, 413),
    },
    async (ctx) => {
      const type = requestMediaType(ctx);
      if (type && !XML_TYPES.includes(type)) throw unsupportedType(`a policy document is ${XML_TYPES.join(' or ')}, not ${type.slice(0, 100)}`);
      const document = readOpenSsoPolicies(await readText(ctx, Math.min(POLICY_DOCUMENT_LIMIT, services.config.bodyLimit)));
      sendText(ctx, lines(await policies.create(await requireCaller(ctx, services), document)));
    },
  );

  routes.add(
    {
      method: 'DELETE',
      ...paths,
      summary: 'Delete a policy of the caller by its name (id, or an id header): what it granted is taken back',
      tag: 'auth',
      guard,
      params: z.object({ id: param.optional('The policy name (or an id header)') }),
      paramsIn: 'query',
      responses: answers([], 400, 401, 403, 404),
    },
    async (ctx, p, user) => {
      const id = fromHeader(ctx, 'id', p.id);
      if (!id) throw badRequest('missing required parameter id');
      await policies.delete(user, id);
      sendText(ctx, '');
    },
  );
}
