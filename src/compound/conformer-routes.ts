import type Router from '@koa/router';
import { badRequest } from '../core/errors.ts';
import { sendDone, sendGraphList, sendUri, sendUris } from '../http/respond.ts';
import type { StructureResources } from './structure-resources.ts';

/** Conformers of a compound (spec 4.9): list, POST, GET, PUT, DELETE. */
export function conformerRoutes(router: Router, structures: StructureResources): void {
  const { store } = structures.services;
  const { compounds } = structures;

  router.get('/compound/:id/conformer', async (ctx) => {
    const uri = structures.compoundUri(ctx);
    await structures.require(uri);
    const uris = await compounds.conformerUris(uri);
    await sendGraphList(ctx, store, uris, `Conformers of ${uri}`);
  });

  router.post('/compound/:id/conformer', async (ctx) => {
    const { s: parent } = await structures.require(structures.compoundUri(ctx));
    const posted = await structures.readConformers(ctx, parent);
    await sendUris(ctx, await compounds.addConformers(parent.uri, posted));
  });

  router.delete('/compound/:id/conformer', async (ctx) => {
    const uri = structures.compoundUri(ctx);
    await structures.require(uri);
    await compounds.deleteConformers(await compounds.conformerUris(uri));
    sendDone(ctx);
  });

  router.get('/compound/:id/conformer/:cid', (ctx) => structures.send(ctx, structures.conformerUri(ctx)));

  router.put('/compound/:id/conformer/:cid', async (ctx) => {
    const uri = structures.conformerUri(ctx);
    await structures.require(uri);
    const { s: parent } = await structures.require(structures.compoundUri(ctx));
    const posted = await structures.readConformers(ctx, parent);
    if (posted.length !== 1) throw badRequest(`PUT takes one structure; the body holds ${posted.length}`);
    await compounds.replaceConformer(uri, parent.uri, posted[0]);
    await sendUri(ctx, uri);
  });

  router.delete('/compound/:id/conformer/:cid', async (ctx) => {
    const uri = structures.conformerUri(ctx);
    await structures.require(uri);
    await compounds.deleteConformers([uri]);
    sendDone(ctx);
  });
}
