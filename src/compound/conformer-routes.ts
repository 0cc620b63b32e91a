import type Router from '@koa/router';
import type * as RDF from '@rdfjs/types';
import { badRequest } from '../core/errors.js';
import { sendDone, sendGraphList, sendUri, sendUris } from '../http/respond.js';
import { compoundQuads } from './compound-codec.js';
import type { StructureResources } from './structure-resources.js';

/** Conformers of a compound (spec 4.9): list, POST, GET, PUT, DELETE. */
export function conformerRoutes(router: Router, structures: StructureResources): void {
  const { store, ids, uris } = structures.services;
  const { compounds, values } = structures;

  router.get('/compound/:id/conformer', async (ctx) => {
    const uri = structures.compoundUri(ctx);
    await structures.require(uri);
    const uris = await compounds.conformerUris(uri);
    await sendGraphList(ctx, store, uris, `Conformers of ${uri}`);
  });

  router.post('/compound/:id/conformer', async (ctx) => {
    const { s: parent } = await structures.require(structures.compoundUri(ctx));
    const posted = await structures.readConformers(ctx, parent);
    const graphs: Record<string, RDF.Quad[]> = {};
    const created: string[] = [];
    for (const p of posted) {
      const uri = await ids.next(uris.conformers(parent.uri));
      graphs[uri] = compoundQuads(uri, p.structure, p.names, p.sameAs, parent.uri);
      created.push(uri);
    }
    await store.replaceGraphs(graphs);
    await sendUris(ctx, created);
  });

  router.delete('/compound/:id/conformer', async (ctx) => {
    const uri = structures.compoundUri(ctx);
    await structures.require(uri);
    const conformers = await compounds.conformerUris(uri);
    await store.deleteGraphs(conformers.flatMap((c) => [c, values.graphOf(c)]));
    sendDone(ctx);
  });

  router.get('/compound/:id/conformer/:cid', (ctx) => structures.send(ctx, structures.conformerUri(ctx)));

  router.put('/compound/:id/conformer/:cid', async (ctx) => {
    const uri = structures.conformerUri(ctx);
    await structures.require(uri);
    const { s: parent } = await structures.require(structures.compoundUri(ctx));
    const posted = await structures.readConformers(ctx, parent);
    if (posted.length !== 1) throw badRequest(`PUT takes one structure; the body holds ${posted.length}`);
    await store.replaceGraphs({ [uri]: compoundQuads(uri, posted[0].structure, posted[0].names, posted[0].sameAs, parent.uri) });
    await sendUri(ctx, uri);
  });

  router.delete('/compound/:id/conformer/:cid', async (ctx) => {
    const uri = structures.conformerUri(ctx);
    await structures.require(uri);
    await store.deleteGraphs([uri, values.graphOf(uri)]);
    sendDone(ctx);
  });
}
