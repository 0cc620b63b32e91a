import type Router from '@koa/router';
import type { Context } from 'koa';
import { df, ot, literal, xsd } from '../rdf/namespaces.ts';
import { badRequest, notFound } from '../core/errors.ts';
import { Params } from '../http/params.ts';
import { alternateLinks, sendNegotiated, rdfRenderers, sendDone, sendUris, uriList } from '../http/respond.ts';
import { renderPage } from '../rdf/html.ts';
import { RDF_OUTPUT_TYPES } from '../rdf/serialize.ts';
import { compoundGridHtml, searchFormHtml } from './compound-page.ts';
import type { Services } from '../core/services.ts';
import type { CompoundRegistry } from './compound-registry.ts';
import { readStructures } from './structure-input.ts';
import { structureReaderOn } from '../chemistry/structure-reader.ts';
import { StructureResources } from './structure-resources.ts';
import { conformerRoutes } from './conformer-routes.ts';
import { structureFeatureRoutes } from './structure-feature-routes.ts';

/** Compound component (spec 2.3, 4.8, 4.10), with its conformers and feature values. */
export function compoundRoutes(router: Router, services: Services, compounds: CompoundRegistry): void {
  const { config } = services;
  const chemistry = compounds.chemistry;
  const base = compounds.collection;
  const structures = new StructureResources(services, compounds);

  router.get('/compound', async (ctx) => {
    let p = Params.fromQuery(ctx);
    let uris: string[];
    let similarity: Map<string, number> | undefined;
    let title = 'Compounds';
    // the search form of the compound page: kind and q stand for one of the search parameters
    const kind = p.get('kind');
    if (kind && ['search', 'smarts', 'similarity'].includes(kind) && p.get('q')) p = new Params(new URLSearchParams([...p.entries().filter(([k]) => k !== 'kind' && k !== 'q'), [kind, p.get('q')!]]));
    const limit = config.searchResultLimit;
    if (p.has('similarity')) {
      const threshold = p.get('threshold') === undefined ? 0.7 : Number(p.get('threshold'));
      if (!Number.isFinite(threshold) || threshold < 0 || threshold > 1) throw badRequest('threshold must be a number between 0 and 1');
      const top = count(p, 'top', limit, limit);
      const hits = await compounds.similar(p.required('similarity'), threshold, top);
      uris = hits.map((h) => h.uri);
      similarity = new Map(hits.map((h) => [h.uri, h.similarity]));
      title = `Compounds similar to ${p.get('similarity')} (Tanimoto ≥ ${threshold})`;
    } else if (p.has('smarts')) {
      const pagesize = count(p, 'pagesize', limit, limit);
      const page = count(p, 'page', 0, Number.MAX_SAFE_INTEGER, 0);
      const found = await compounds.substructure(p.required('smarts'), page * pagesize, pagesize);
      uris = found.uris;
      if (found.more) ctx.append('Link', `<${pageLink(ctx, page + 1, pagesize)}>; rel="next"`);
      if (page > 0) ctx.append('Link', `<${pageLink(ctx, page - 1, pagesize)}>; rel="prev"`);
      title = `Compounds containing ${p.get('smarts')}`;
    } else if (p.has('search')) {
      uris = await compounds.search(p.required('search'));
      title = `Compounds matching ${p.get('search')}`;
    } else if (p.has('sameas')) {
      uris = await compounds.sameAs(p.required('sameas'));
    } else {
      uris = await compounds.list();
    }
    if (uris.length === 0 && title !== 'Compounds' && !p.has('page')) throw notFound('no compound matches');
    const canRead: (uri: string) => boolean = ctx.state.canRead ?? (() => true);
    const visible = uris.filter(canRead);
    const rdf = async () => {
      const quads = await structures.graphsOf(visible);
      if (similarity) for (const [u, v] of similarity) if (canRead(u)) quads.push(df.quad(df.namedNode(u), ot('similarity'), literal(String(v), xsd('double'))));
      return quads;
    };
    const searched = (['search', 'smarts', 'similarity'] as const).find((k) => p.has(k));
    const html = () =>
      renderPage({
        title,
        intro: `${searchFormHtml({ kind: searched, text: searched && p.get(searched), threshold: p.get('threshold') })}${compoundGridHtml(visible, similarity)}`,
        alternates: alternateLinks(ctx, ['text/uri-list', ...RDF_OUTPUT_TYPES]),
      });
    const scores = similarity;
    await sendNegotiated(ctx, {
      'text/uri-list': () => uriList(visible),
      ...rdfRenderers(ctx, rdf, title),
      ...(scores ? { 'text/csv': () => `compound,similarity\r\n${visible.map((u) => `${u},${scores.get(u)}\r\n`).join('')}` } : {}),
      'text/html': html,
    });
  });

  router.post('/compound', async (ctx) => {
    const posted = await readStructures(ctx, chemistry, services.shapes, config.bodyLimit, `${base}/`, structureReaderOn(services.workers, undefined, chemistry));
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

/** A whole-number parameter from `min` to `max` (`fallback` when absent), or 400 naming it. */
function count(p: Params, name: string, fallback: number, max: number, min = 1): number {
  const text = p.get(name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min || n > max) throw badRequest(`${name} must be a whole number from ${min} to ${max}`);
  return n;
}

/** This request on another page (relative to the service, as a dataset's page links are). */
function pageLink(ctx: Context, page: number, pagesize: number): string {
  const q = new URLSearchParams(ctx.querystring);
  q.set('page', String(page));
  q.set('pagesize', String(pagesize));
  return `${ctx.path}?${q}`;
}
