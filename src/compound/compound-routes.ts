import { badRequest, notFound } from '../core/errors.ts';
import { sendDone, sendUris } from '../http/respond.ts';
import { z } from 'zod';
import { answers, MEDIA, param, type DescribedRoutes } from '../http/route-description.ts';
import { findCompounds, type CompoundQuery } from './compound-search.ts';
import { sendCompoundHits } from './compound-page.ts';
import type { Services } from '../core/services.ts';
import type { CompoundRegistry } from './compound-registry.ts';
import { readStructures } from './structure-input.ts';
import { COMPOUND_INPUT_TYPES, STRUCTURE_ANSWERS, StructureResources } from './structure-resources.ts';
import { conformerRoutes } from './conformer-routes.ts';
import { structureFeatureRoutes } from './structure-feature-routes.ts';

/** Compound component (spec 2.3, 4.8, 4.10), with its conformers and feature values. */
export function compoundRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'uris' | 'store' | 'workers' | 'shapes'>, compounds: CompoundRegistry): void {
  const { config } = services;
  const chemistry = compounds.chemistry;
  const base = compounds.collection;
  const structures = new StructureResources(services, compounds);

  const limit = config.searchResultLimit;
  const { whole } = param;
  routes.add(
    {
      method: 'GET',
      path: '/compound',
      summary: 'Compounds, or a search: exact (search: SMILES, InChI, InChIKey, name, CAS; a trailing * searches names by prefix), sameas, substructure (smarts, in pages), similarity',
      tag: 'compound',
      params: z.object({
        search: param.optional('SMILES, InChI, InChIKey, a name or CAS number (name* for a prefix)'),
        sameas: param.optional('Compounds owl:sameAs this IRI'),
        smarts: param.optional('A substructure (SMARTS, or SMILES)'),
        page: whole('page', 0, Number.MAX_SAFE_INTEGER, 'Substructure hits: the page (from 0)'),
        pagesize: whole('pagesize', 1, limit, `Substructure hits: per page (at most ${limit})`),
        similarity: param.optional('A structure (SMILES or molfile) to find similar compounds to'),
        threshold: z
          .string()
          .optional()
          .refine((v) => v === undefined || (Number.isFinite(Number(v)) && Number(v) >= 0 && Number(v) <= 1), { message: 'threshold must be a number between 0 and 1' })
          .transform((v) => (v === undefined ? 0.7 : Number(v)))
          .describe('Similarity: the least Tanimoto similarity (Morgan, radius 2, 2048 bits; default 0.7)'),
        top: whole('top', 1, limit, `Similarity: at most this many, the most similar first (at most ${limit})`),
        kind: param.optional("The compound page's search form: which search q is (search, smarts or similarity; anything else is ignored)"),
        q: param.optional("The compound page's search form: what to search for"),
      }),
      responses: answers([...MEDIA.list, 'text/csv'], 400, 404),
    },
    async (ctx, p) => {
      // the search form of the compound page: kind and q stand for one of the search parameters
      const kind = (['search', 'smarts', 'similarity'] as const).find((k) => k === p.kind);
      const given = kind && p.q ? { ...p, [kind]: p.q } : p;
      const blank = (['similarity', 'smarts', 'search', 'sameas'] as const).find((name) => given[name] !== undefined && given[name].trim() === '');
      if (blank) throw badRequest(`missing required parameter ${blank}`);
      // errors name the parameter the text came in (structure-limits.ts: 400 beyond a limit)
      const parameter = (name: 'similarity' | 'smarts' | 'search') => (kind === name && p.q ? 'q' : name);
      const query: CompoundQuery =
        given.similarity !== undefined
          ? { kind: 'similarity', query: given.similarity, threshold: given.threshold, top: given.top ?? limit, parameter: parameter('similarity') }
          : given.smarts !== undefined
            ? { kind: 'smarts', pattern: given.smarts, page: given.page ?? 0, pagesize: given.pagesize ?? limit, parameter: parameter('smarts') }
            : given.search !== undefined
              ? { kind: 'search', text: given.search, parameter: parameter('search') }
              : given.sameas !== undefined
                ? { kind: 'sameas', iri: given.sameas }
                : { kind: 'all' };
      const hits = await findCompounds(compounds, query);
      if (!hits.uris.length && query.kind !== 'all' && query.kind !== 'sameas' && p.page === undefined) throw notFound('no compound matches');
      await sendCompoundHits(ctx, hits, (uris) => structures.graphsOf(uris));
    },
  );

  routes.add(
    {
      method: 'POST',
      path: '/compound',
      summary: 'Register structures, or chemical names (text/plain, one a line); the same structure always gets the same URI',
      tag: 'compound',
      body: COMPOUND_INPUT_TYPES,
      // 503: OPSIN's queue is full (chemical names)
      responses: answers(MEDIA.uri, 400, 503),
    },
    async (ctx) => {
      const posted = await readStructures(ctx, chemistry, services.shapes, config.bodyLimit, `${base}/`, compounds.reader());
      await sendUris(ctx, await compounds.register(posted));
    },
  );

  routes.add(
    {
      method: 'GET',
      path: '/compound/:id',
      summary: 'A compound in any chemical format, as an image or RDF',
      tag: 'compound',
      params: z.object({
        media: param.optional('The media type wanted, where a link cannot set Accept'),
        w: param.optional('A picture: its width in pixels (50–2000, default 300)'),
        h: param.optional('A picture: its height in pixels (50–2000, default 240)'),
      }),
      responses: answers(STRUCTURE_ANSWERS, 404),
    },
    (ctx) => structures.send(ctx, structures.compoundUri(ctx)),
  );

  routes.add({ method: 'PUT', path: '/compound/:id', summary: 'Replace a compound’s names and links', tag: 'compound', body: COMPOUND_INPUT_TYPES, responses: answers([], 400, 404) }, async (ctx) => {
    const uri = structures.compoundUri(ctx);
    const { s } = await structures.require(uri);
    const posted = await readStructures(ctx, chemistry, services.shapes, config.bodyLimit, uri, compounds.reader());
    if (posted.length !== 1) throw badRequest(`PUT takes one structure; the body holds ${posted.length}`);
    await compounds.replace(uri, s, posted[0]);
    sendDone(ctx);
  });

  routes.add({ method: 'DELETE', path: '/compound/:id', summary: 'Delete a compound', tag: 'compound', responses: answers([], 404) }, async (ctx) => {
    const uri = structures.compoundUri(ctx);
    const { s } = await structures.require(uri);
    await compounds.delete(uri, s.inchiKey);
    sendDone(ctx);
  });

  conformerRoutes(routes, structures);
  structureFeatureRoutes(routes, structures);
}
