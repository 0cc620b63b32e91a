import { featureRef } from '../core/uri-scheme.ts';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { badRequest } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { sendDone, sendList, sendUri } from '../http/respond.ts';
import type { StructureResources } from './structure-resources.ts';

/** Feature values set on a compound or conformer itself (spec 4.8): GET, POST/PUT, DELETE. */
export function structureFeatureRoutes(router: Router, structures: StructureResources): void {
  const { config, uris } = structures.services;
  const { values } = structures;

  const featureRoutes = (path: string, uriOf: (ctx: Context) => string) => {
    router.get(path, async (ctx) => {
      const uri = uriOf(ctx);
      await structures.require(uri);
      const requested = Params.fromQuery(ctx).all('feature_uris');
      const found = await values.read(uri, requested.length ? requested : undefined);
      const features = [...new Set(found.map((v) => v.feature))];
      await sendList(ctx, features, async (members) => [...(await structures.graphsOf(members.filter((f) => uris.isLocal(f)))), ...values.quads(uri, found)], `Features of ${uri}`);
    });
    const setValue = async (ctx: Context) => {
      const uri = uriOf(ctx);
      await structures.require(uri);
      const p = await Params.fromRequest(ctx, config.bodyLimit);
      const feature = p.required('feature_uri');
      const raw = p.get('value');
      if (raw === undefined) throw badRequest('missing required parameter value');
      await values.set(uri, feature, await values.typedValue(feature, raw));
      const result = featureRef(uri, [feature]);
      await sendUri(ctx, result);
    };
    router.post(path, setValue);
    router.put(path, setValue);
    router.delete(path, async (ctx) => {
      const uri = uriOf(ctx);
      await structures.require(uri);
      const p = await Params.fromRequest(ctx, config.bodyLimit);
      const selected = p.all('feature_uris');
      await values.remove(uri, selected.length ? selected : undefined);
      sendDone(ctx);
    });
  };
  featureRoutes('/compound/:id/feature', (ctx) => structures.compoundUri(ctx));
  featureRoutes('/compound/:id/conformer/:cid/feature', (ctx) => structures.conformerUri(ctx));
}
