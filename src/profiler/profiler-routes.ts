import { resourceRenderers, sendNegotiated } from '../http/respond.ts';
import { answers, MEDIA, type DescribedRoutes } from '../http/route-description.ts';
import type { Services } from '../core/services.ts';
import type { Profiles } from './profiles.ts';
import { profileGraphOf, profileQuads, ruleQuads } from './profile.ts';
import { profileHtml, profileJson } from './profiler-views.ts';

/** GET /compound/{id}/profile: the compound's profile by every profiler (issue 56). */
export function profilerRoutes(routes: DescribedRoutes, services: Pick<Services, 'uris'>, profiles: Profiles): void {
  routes.add(
    {
      method: 'GET',
      path: '/compound/:id/profile',
      summary: 'The compound’s profile: functional groups, Benigni–Bossa alerts, Verhaar class; each rule with its SMARTS and source',
      tag: 'compound',
      responses: answers(MEDIA.resource, 400, 404),
    },
    async (ctx) => {
      const profile = await profiles.profileOf(services.uris.item('compound', ctx.params.id));
      const quads = [...profileQuads(profile), ...ruleQuads(profile)];
      const renderers = resourceRenderers(ctx, profileGraphOf(profile.compound), quads, `Profile of ${profile.compound}`, { intro: profileHtml(profile) });
      const json = () => `${JSON.stringify(profileJson(profile), null, 2)}\n`;
      await sendNegotiated(ctx, { ...renderers, 'application/json': json, 'text/x-json': json });
    },
  );
}
