import { badRequest } from '../core/errors.ts';
import { sendDone, sendGraphList, sendUri, sendUris } from '../http/respond.ts';
import { answers, MEDIA, type DescribedRoutes } from '../http/route-description.ts';
import { STRUCTURE_ANSWERS, STRUCTURE_TYPES, type StructureResources } from './structure-resources.ts';

/** Conformers of a compound (spec 4.9): list, POST, GET, PUT, DELETE. */
export function conformerRoutes(routes: DescribedRoutes, structures: StructureResources): void {
  const { store } = structures.services;
  const { compounds } = structures;
  const tag = 'compound';

  routes.add({ method: 'GET', path: '/compound/:id/conformer', summary: 'Conformers of a compound', tag, responses: answers(MEDIA.list, 404) }, async (ctx) => {
    const uri = structures.compoundUri(ctx);
    await structures.require(uri);
    const uris = await compounds.conformerUris(uri);
    await sendGraphList(ctx, store, uris, `Conformers of ${uri}`);
  });

  routes.add(
    { method: 'POST', path: '/compound/:id/conformer', summary: 'Add conformers (3D structures of the same compound)', tag, body: STRUCTURE_TYPES, responses: answers(MEDIA.uri, 400, 404) },
    async (ctx) => {
      const { s: parent } = await structures.require(structures.compoundUri(ctx));
      const posted = await structures.readConformers(ctx, parent);
      await sendUris(ctx, await compounds.addConformers(parent.uri, posted));
    },
  );

  routes.add({ method: 'DELETE', path: '/compound/:id/conformer', summary: 'Delete every conformer', tag, responses: answers([], 404) }, async (ctx) => {
    const uri = structures.compoundUri(ctx);
    await structures.require(uri);
    await compounds.deleteConformers(await compounds.conformerUris(uri));
    sendDone(ctx);
  });

  routes.add({ method: 'GET', path: '/compound/:id/conformer/:cid', summary: 'A conformer', tag, responses: answers(STRUCTURE_ANSWERS, 404) }, (ctx) =>
    structures.send(ctx, structures.conformerUri(ctx)),
  );

  routes.add({ method: 'PUT', path: '/compound/:id/conformer/:cid', summary: 'Replace a conformer', tag, body: STRUCTURE_TYPES, responses: { ...answers(MEDIA.uri, 400, 404) } }, async (ctx) => {
    const uri = structures.conformerUri(ctx);
    await structures.require(uri);
    const { s: parent } = await structures.require(structures.compoundUri(ctx));
    const posted = await structures.readConformers(ctx, parent);
    if (posted.length !== 1) throw badRequest(`PUT takes one structure; the body holds ${posted.length}`);
    await compounds.replaceConformer(uri, parent.uri, posted[0]);
    await sendUri(ctx, uri);
  });

  routes.add({ method: 'DELETE', path: '/compound/:id/conformer/:cid', summary: 'Delete a conformer', tag, responses: answers([], 404) }, async (ctx) => {
    const uri = structures.conformerUri(ctx);
    await structures.require(uri);
    await compounds.deleteConformers([uri]);
    sendDone(ctx);
  });
}
