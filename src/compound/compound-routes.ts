import { featureTitles } from '../feature/feature-titles.js';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { df, ot, literal, xsd } from '../rdf/namespaces.js';
import { checkIri } from '../store/sparql-template.js';
import { badRequest, notFound } from '../core/errors.js';
import { Params } from '../http/params.js';
import { isConformer } from '../core/uri-scheme.js';
import { sendList, sendNegotiated, rdfRenderers, sendDone, sendUri, sendUris, uriList } from '../http/respond.js';
import { escapeHtml, renderPage } from '../rdf/html.js';
import type { Services } from '../core/services.js';
import { compoundQuads, structureFrom, type CompoundRegistry, type StoredStructure } from './compound-registry.js';
import { FeatureValues } from './feature-values.js';
import { readStructures } from './structure-input.js';
import { structureRenderers, type StructureDetails } from './structure-views.js';

/** Compound and conformer components (spec 2.3, 4.8, 4.9, 4.10). */
export function compoundRoutes(router: Router, services: Services, compounds: CompoundRegistry): void {
  const { store, config, ids, uris } = services;
  const chemistry = compounds.chemistry;
  const values = new FeatureValues(store, services.uris);
  const base = compounds.collection;

  const compoundUri = (ctx: Context) => uris.item('compound', ctx.params.id);
  const conformerUri = (ctx: Context) => uris.conformer(compoundUri(ctx), ctx.params.cid);

  async function requireStructure(uri: string): Promise<{ s: StoredStructure; quads: RDF.Quad[] }> {
    const quads = await store.readGraph(uri);
    const s = structureFrom(quads, uri);
    if (!s) throw notFound(`${isConformer(uri) ? 'conformer' : 'compound'} ${uri} not found`);
    return { s, quads };
  }

  /** GET of a compound or conformer in any representation; feature_uris[] adds those values. */
  async function getStructure(ctx: Context, uri: string) {
    const { s, quads } = await requireStructure(uri);
    const requested = Params.fromQuery(ctx).all('feature_uris');
    // feature values, titles and conformers only for the representations that show them:
    // a client asking for SMILES gets one graph read
    let loaded: Promise<StructureDetails> | undefined;
    const details = () =>
      (loaded ??= (async () => {
        const own = await values.read(uri);
        // values set on the structure itself win; the rest come from datasets that hold it
        const missing = requested.filter((f) => !own.some((v) => v.feature === f));
        const all = [...own, ...(await values.fromDatasets(uri, missing))];
        const shown = requested.length ? all.filter((v) => requested.includes(v.feature)) : [];
        const conformers = s.parent ? [] : await compounds.conformerUris(uri);
        return {
          rdf: [...quads, ...values.quads(uri, shown)],
          values: requested.length ? shown : all,
          titles: await featureTitles(
            store,
            all.map((v) => v.feature).filter((f) => uris.isLocal(f)),
          ),
          related: [{ label: 'Conformers', uris: conformers }, ...(s.parent ? [{ label: 'Parent compound', uris: [s.parent] }] : [])],
        };
      })());
    await sendNegotiated(ctx, structureRenderers(ctx, chemistry, s, details));
  }

  // --- compounds -----------------------------------------------------------------------

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
      uris = await compounds.sameAs(df.namedNode(checkIri(p.required('sameas'))));
    } else {
      uris = await compounds.list();
    }
    if (uris.length === 0 && title !== 'Compounds') throw notFound('no compound matches');
    const rdf = async () => {
      const quads = (await Promise.all(uris.map((u) => store.readGraph(u)))).flat();
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

  router.get('/compound/:id', (ctx) => getStructure(ctx, compoundUri(ctx)));

  router.put('/compound/:id', async (ctx) => {
    const uri = compoundUri(ctx);
    const { s } = await requireStructure(uri);
    const posted = await readStructures(ctx, chemistry, services.shapes, config.bodyLimit, uri);
    if (posted.length !== 1) throw badRequest(`PUT takes one structure; the body holds ${posted.length}`);
    await compounds.replace(uri, s, posted[0]);
    sendDone(ctx);
  });

  router.delete('/compound/:id', async (ctx) => {
    const uri = compoundUri(ctx);
    const { s } = await requireStructure(uri);
    await compounds.delete(uri, s.inchiKey);
    sendDone(ctx);
  });

  // --- conformers ----------------------------------------------------------------------

  router.get('/compound/:id/conformer', async (ctx) => {
    const uri = compoundUri(ctx);
    await requireStructure(uri);
    const uris = await compounds.conformerUris(uri);
    await sendList(ctx, uris, async () => (await Promise.all(uris.map((u) => store.readGraph(u)))).flat(), `Conformers of ${uri}`);
  });

  /** Parse posted 3D structures and check that each is the parent's structure. */
  async function readConformers(ctx: Context, parent: StoredStructure) {
    const posted = await readStructures(ctx, chemistry, services.shapes, config.bodyLimit, `${uris.conformers(parent.uri)}/`);
    posted.forEach((p, i) => {
      const where = posted.length > 1 ? `record ${i + 1}: ` : '';
      if (p.structure.inchiKey !== parent.inchiKey) {
        throw badRequest(`${where}the conformer's structure (InChIKey ${p.structure.inchiKey}) is not that of the compound (${parent.inchiKey})`);
      }
      if (!p.structure.has3d) throw badRequest(`${where}a conformer needs 3D coordinates (every z coordinate is 0)`);
    });
    return posted;
  }

  router.post('/compound/:id/conformer', async (ctx) => {
    const { s: parent } = await requireStructure(compoundUri(ctx));
    const posted = await readConformers(ctx, parent);
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
    const uri = compoundUri(ctx);
    await requireStructure(uri);
    const conformers = await compounds.conformerUris(uri);
    await store.deleteGraphs(conformers.flatMap((c) => [c, values.graphOf(c)]));
    sendDone(ctx);
  });

  router.get('/compound/:id/conformer/:cid', (ctx) => getStructure(ctx, conformerUri(ctx)));

  router.put('/compound/:id/conformer/:cid', async (ctx) => {
    const uri = conformerUri(ctx);
    await requireStructure(uri);
    const { s: parent } = await requireStructure(compoundUri(ctx));
    const posted = await readConformers(ctx, parent);
    if (posted.length !== 1) throw badRequest(`PUT takes one structure; the body holds ${posted.length}`);
    await store.replaceGraphs({ [uri]: compoundQuads(uri, posted[0].structure, posted[0].names, posted[0].sameAs, parent.uri) });
    await sendUri(ctx, uri);
  });

  router.delete('/compound/:id/conformer/:cid', async (ctx) => {
    const uri = conformerUri(ctx);
    await requireStructure(uri);
    await store.deleteGraphs([uri, values.graphOf(uri)]);
    sendDone(ctx);
  });

  // --- feature values of a compound or conformer (4.8) ----------------------------------

  const featureRoutes = (path: string, uriOf: (ctx: Context) => string) => {
    router.get(path, async (ctx) => {
      const uri = uriOf(ctx);
      await requireStructure(uri);
      const requested = Params.fromQuery(ctx).all('feature_uris');
      const found = await values.read(uri, requested.length ? requested : undefined);
      const features = [...new Set(found.map((v) => v.feature))];
      await sendList(
        ctx,
        features,
        async () => [...(await Promise.all(features.filter((f) => uris.isLocal(f)).map((f) => store.readGraph(f)))).flat(), ...values.quads(uri, found)],
        `Features of ${uri}`,
      );
    });
    const setValue = async (ctx: Context) => {
      const uri = uriOf(ctx);
      await requireStructure(uri);
      const p = await Params.fromRequest(ctx, config.bodyLimit);
      const feature = p.required('feature_uri');
      const raw = p.get('value');
      if (raw === undefined) throw badRequest('missing required parameter value');
      await values.set(uri, feature, await values.typedValue(feature, raw));
      const result = `${uri}?feature_uris[]=${encodeURIComponent(feature)}`;
      await sendUri(ctx, result);
    };
    router.post(path, setValue);
    router.put(path, setValue);
    router.delete(path, async (ctx) => {
      const uri = uriOf(ctx);
      await requireStructure(uri);
      const p = await Params.fromRequest(ctx, config.bodyLimit);
      const selected = p.all('feature_uris');
      await values.remove(uri, selected.length ? selected : undefined);
      sendDone(ctx);
    });
  };
  featureRoutes('/compound/:id/feature', compoundUri);
  featureRoutes('/compound/:id/conformer/:cid/feature', conformerUri);
}
