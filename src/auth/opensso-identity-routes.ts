import type { Context } from 'koa';
import { z } from 'zod';
import { HttpError, notFound } from '../core/errors.ts';
import { answers, param, type DescribedRoutes } from '../http/route-description.ts';
import { sendText } from '../http/respond.ts';
import type { Services } from '../core/services.ts';
import { callerTokenOf } from './caller-token.ts';

/** Where OpenTox's LDAP put its people and groups, as OpenSSO named them. */
const LDAP_BASE = 'dc=opentox,dc=org';

/** A user's attributes as OpenSSO's LDAP gave them: the user name is the uid, the common name and the surname. */
function attributesOf(user: string, asked: string[] | undefined): [string, string][] {
  const all: [string, string][] = [
    ['uid', user],
    ['cn', user],
    ['sn', user],
  ];
  return asked?.length ? all.filter(([name]) => asked.includes(name)) : all;
}

/** `{prefix}.attribute.name=…` and `{prefix}.attribute.value=…` lines. */
function attributeLines(prefix: string, attributes: [string, string][]): string {
  return attributes.map(([name, value]) => `${prefix}.attribute.name=${name}\n${prefix}.attribute.value=${value}\n`).join('');
}

/**
 * OpenSSO's REST identity services as the OpenTox AA 1.2 clients call them
 * (`/opensso/identity/…`, GET or POST): `attributes` of the caller's own token, and `read` of a
 * user by name (the caller's own record, or any for an administrator). `authenticate`,
 * `isTokenValid`, `authorize` and `logout` are the routes of auth-routes.ts under these paths too.
 */
export function openSsoIdentityRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'access'>): void {
  const { access, config } = services;
  /** The caller and its token (a token given as `admin`, read's name for it, first): 401 without a valid one. */
  const callerOf = async (ctx: Context, given?: string) => {
    const token = given || (await callerTokenOf(ctx, config.bodyLimit));
    const user = await access.userOfToken(token);
    if (!token || !user) throw new HttpError(401, 'Unauthorized', 'send a valid token (subjectid)');
    return { token, user };
  };
  const ATTRIBUTE_NAMES = param.list('Only these attributes (uid, cn, sn)');

  for (const method of ['GET', 'POST'] as const) {
    routes.add(
      {
        method,
        path: '/opensso/identity/attributes',
        summary: 'The attributes of the caller’s token (OpenSSO’s userdetails text)',
        tag: 'auth',
        params: z.object({ subjectid: param.optional('The token (else the subjectid header, or Authorization: Bearer)'), attributes_names: ATTRIBUTE_NAMES }),
        responses: answers(['text/plain'], 401),
      },
      async (ctx, p) => {
        const { token, user } = await callerOf(ctx);
        const roles = access.groupsOf(user).map((g) => `userdetails.role=id=${g},ou=group,${LDAP_BASE}\n`);
        sendText(ctx, `userdetails.token.id=${token}\n${attributeLines('userdetails', attributesOf(user, p.attributes_names))}${roles.join('')}`);
      },
    );

    routes.add(
      {
        method,
        path: '/opensso/identity/read',
        summary: 'A user’s record by name (OpenSSO’s identitydetails text): one’s own, or any for an administrator',
        tag: 'auth',
        params: z.object({
          name: param.required('The user'),
          admin: param.optional('The caller’s token (else subjectid)'),
          subjectid: param.optional('The caller’s token'),
          attributes_names: ATTRIBUTE_NAMES,
        }),
        responses: answers(['text/plain'], 400, 401, 403, 404),
      },
      async (ctx, p) => {
        const { user } = await callerOf(ctx, p.admin);
        if (p.name !== user && !access.isAdmin(user)) throw new HttpError(403, 'Forbidden', 'a user reads only their own record (an administrator reads any)');
        if (p.name !== user && !access.hasUser(p.name)) throw notFound(`no user ${p.name.slice(0, 100)}`);
        const groups = access.groupsOf(p.name).map((g) => `identitydetails.group=${g}\n`);
        const head = `identitydetails.name=${p.name}\nidentitydetails.type=user\nidentitydetails.realm=${LDAP_BASE}\n${groups.join('')}identitydetails.attribute=\n`;
        sendText(ctx, `${head}${attributeLines('identitydetails', attributesOf(p.name, p.attributes_names))}`);
      },
    );
  }
}
