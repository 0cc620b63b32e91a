import { readGraphs } from '../store/query-helpers.js';
import type Router from '@koa/router';
import { df, ot, literal, xsd } from '../rdf/namespaces.js';
import { badRequest, notFound } from '../core/errors.js';
import { Params } from '../http/params.js';
import { sendList, sendNegotiated, rdfRenderers, sendDone, sendUris, uriList } from '../http/respond.js';
import { escapeHtml, renderPage } from '../rdf/html.js';
import type { Services } from '../core/services.js';
import type { CompoundRegistry } from './compound-registry.js';
import { readStructures } from './structure-input.js';
import { StructureResources } from './structure-resources.js';
import { conformerRoutes } from './conformer-routes.js';
import { structureFeatureRoutes } from './structure-feature-routes.js';

/** Compound component (spec 2.3, 4.8, 4.10), with its conformers and feature values. */
export function compoundRoutes(router: Router, services: Services, compounds: CompoundRegistry): void {
  const { store, config } = services;
  const chemistry = compounds.chemistry;
  const base = compounds.collection;
  const structures = new StructureResources(services, compounds);

  router.get('/compound', async (ctx) => {
    const p = Params.fromQuery(ctx);
    let uris: string[];
    let similarity: Map<string, number> | undefined;
    let title = 'Compounds';
    if (p.has('similarity')) {
      const threshold = p.get('threshold') === undefined ? 0.7 : Number(p.get('threshold'));
      if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) throw badRequest('threshold must be a number between 0 and 1');
      const hits = await compounds.similar(p.required('similarity'), threshold);
      uris = hits.map((h) => h.uri);
      similarity = new Map(hits.map((h) => [h.uri, h.similarity]));
      title = `Compounds similar to ${p.get('similarity')} (Tanimoto ≥ ${threshold})`;
    } else if (p.has('smarts')) {
      uris = await compounds.substructure(p.required('smarts'));
      title = `Compounds containing ${p.get('smarts')}`;
    } else if (p.has('search')) {
      uris = await compounds.search(p.required('search'));
      title = `Compounds matching ${p.get('search')}`;
    } else if (p.has('sameas')) {
      uris = await compounds.sameAs(p.required('sameas'));
    } else {
      uris = await compounds.list();
    }
    if (uris.length === 0 && title !== 'Compounds') throw notFound('no compound matches');
    const rdf = async () => {
      const quads = await readGraphs(store, uris);
      if (similarity) for (const [u, v] of similarity) quads.push(df.quad(df.namedNode(u), ot('similarity'), literal(String(v), xsd('double'))));
      return quads;
    };
    if (!similarity) return sendList(ctx, uris, rdf, title);
    const scores = similarity;
    await sendNegotiated(ctx, {
      'text/uri-list': () => uriList(uris),
      ...rdfRenderers(ctx, rdf, title),
      'text/csv': () => `compound,similarity\r\n${uris.map((u) => `${u},${scores.get(u)}\r\n`).join('')}`,
      'text/html': () =>
        renderPage({
          title,
          intro: `<table><thead><tr><th>compound</th><th>similarity</th></tr></thead><tbody>${uris.map((u) => `<tr><td><a href="${escapeHtml(u)}">${escapeHtml(u)}</a></td><td>${scores.get(u)!.toFixed(3)}</td></tr>`).join('')}</tbody></table>`,
        }),
    });
  });

  router.post('/compound', async (ctx) => {
    const posted = await readStructures(ctx, chemistry, services.shapes, config.bodyLimit, `${base}/`);
    const uris = await compounds.register(posted);
    await sendUris(ctx, uris);
  });

  router.get('/compound/:id', (ctx) => structures.send(ctx, structures.compoundUri(ctx)));

  router.put('/compound/:id', async (ctx) => {
    const uri = structures.compoundUri(ctx);
    const { s } = await structures.require(uri);
    const posted = await readStructures(ctx, chemistry, services.shapes, config.bodyLimit, uri);
    if (posted.length !== 1) throw badRequest(`PUT takes one structure; the body holds ${posted.length}`);
    await compounds.replace(uri, s, posted[0]);
    sendDone(ctx);
  });

  router.delete('/compound/:id', async (ctx) => {
    const uri = structures.compoundUri(ctx);
    const { s } = await structures.require(uri);
    await compounds.delete(uri, s.inchiKey);
    sendDone(ctx);
  });

  conformerRoutes(router, structures);
  structureFeatureRoutes(router, structures);
}
