import { featureRef } from '../core/uri-scheme.ts';
import type { Context } from 'koa';
import { z } from 'zod';
import { sendDone, sendList, sendUri } from '../http/respond.ts';
import { answers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';
import type { StructureResources } from './structure-resources.ts';

/** Feature values set on a compound or conformer itself (spec 4.8): GET, POST/PUT, DELETE. */
export function structureFeatureRoutes(routes: DescribedRoutes, structures: StructureResources): void {
  const { uris } = structures.services;
  const { values } = structures;
  const tag = 'compound';
  const selected = z.object({ feature_uris: param.list('Only these features (all when not given)') });
  const setting = z.object({ feature_uri: param.required('The feature'), value: z.string().describe('Its value (typed as the feature says)') });

  const featureRoutes = (path: string, what: string, uriOf: (ctx: Context) => string) => {
    routes.add({ method: 'GET', path, summary: `Feature values of ${what}`, tag, params: selected, responses: answers(MEDIA.list, 404) }, async (ctx, p) => {
      const uri = uriOf(ctx);
      await structures.require(uri);
      const requested = p.feature_uris ?? [];
      const found = await values.read(uri, requested.length ? requested : undefined);
      const features = [...new Set(found.map((v) => v.feature))];
      await sendList(ctx, features, async (members) => [...(await structures.graphsOf(members.filter((f) => uris.isLocal(f)))), ...values.quads(uri, found)], `Features of ${uri}`);
    });
    const setValue = async (ctx: Context, p: z.infer<typeof setting>) => {
      const uri = uriOf(ctx);
      await structures.require(uri);
      await values.set(uri, p.feature_uri, await values.typedValue(p.feature_uri, p.value));
      await sendUri(ctx, featureRef(uri, [p.feature_uri]));
    };
    routes.add({ method: 'POST', path, summary: `Set a feature value of ${what}`, tag, params: setting, responses: answers(MEDIA.uri, 400, 404) }, setValue);
    routes.add({ method: 'PUT', path, summary: `Set a feature value of ${what} (as POST)`, tag, params: setting, responses: answers(MEDIA.uri, 400, 404) }, setValue);
    routes.add({ method: 'DELETE', path, summary: `Delete feature values of ${what}`, tag, params: selected, responses: answers([], 404) }, async (ctx, p) => {
      const uri = uriOf(ctx);
      await structures.require(uri);
      await values.remove(uri, p.feature_uris?.length ? p.feature_uris : undefined);
      sendDone(ctx);
    });
  };
  featureRoutes('/compound/:id/feature', 'a compound', (ctx) => structures.compoundUri(ctx));
  featureRoutes('/compound/:id/conformer/:cid/feature', 'a conformer', (ctx) => structures.conformerUri(ctx));
}
