import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { badRequest, notFound } from '../core/errors.ts';
import { isConformer } from '../core/uri-scheme.ts';
import { readGraphs, select } from '../store/query-helpers.ts';
import { compoundQueries } from './compound-queries.ts';
import type { Services } from '../core/services.ts';
import { Params } from '../http/params.ts';
import { sendNegotiated } from '../http/respond.ts';
import { storeRepresentation } from '../http/representation-cache.ts';
import { featureTitles } from '../feature/feature-record.ts';
import type { CompoundRegistry } from './compound-registry.ts';
import { structureFrom, type StoredStructure } from './compound-codec.ts';
import { FeatureValues } from './feature-values.ts';
import { readStructures } from './structure-input.ts';
import { STRUCTURE_OUTPUT_TYPES, structureRenderers, type StructureDetails } from './structure-views.ts';
import { STRUCTURE_INPUT_TYPES } from './structure-input.ts';
import { MEDIA } from '../http/route-description.ts';

/** What a structure is posted as: a chemical format, or RDF. */
export const STRUCTURE_TYPES = [...STRUCTURE_INPUT_TYPES, ...MEDIA.rdf.filter((t) => t !== 'text/html')];
/** What a compound is posted as: a structure, or chemical names (`text/plain`, spec 4.10; not a conformer, which needs coordinates). */
export const COMPOUND_INPUT_TYPES = [...new Set([...STRUCTURE_TYPES, 'text/plain'])];
/** What a structure is answered as: chemical formats, pictures, RDF and its page. */
export const STRUCTURE_ANSWERS = [...new Set([...STRUCTURE_OUTPUT_TYPES, ...MEDIA.rdf])];

/** What the compound, conformer and structure-feature routes share: finding, reading and answering a structure. */
export class StructureResources {
  readonly values: FeatureValues;

  readonly services: Pick<Services, 'config' | 'uris' | 'store' | 'shapes'>;
  readonly compounds: CompoundRegistry;
  constructor(services: StructureResources['services'], compounds: CompoundRegistry) {
    this.services = services;
    this.compounds = compounds;
    this.values = new FeatureValues(services.store, services.uris);
  }

  /** The graphs of the given resources (compounds, conformers, features), in that order. */
  graphsOf(uris: string[]): Promise<RDF.Quad[]> {
    return readGraphs(this.services.store, uris);
  }

  compoundUri(ctx: Context): string {
    return this.services.uris.item('compound', ctx.params.id);
  }

  conformerUri(ctx: Context): string {
    return this.services.uris.conformer(this.compoundUri(ctx), ctx.params.cid);
  }

  /** A compound's or conformer's graph and structure; 404 when there is none. */
  async require(uri: string): Promise<{ s: StoredStructure; quads: RDF.Quad[] }> {
    const quads = await this.services.store.readGraph(uri);
    const s = structureFrom(quads, uri);
    if (!s) throw notFound(`${isConformer(uri) ? 'conformer' : 'compound'} ${uri} not found`);
    return { s, quads };
  }

  /** GET of a compound or conformer in any representation; feature_uris[] adds those values. */
  async send(ctx: Context, uri: string): Promise<void> {
    const { s, quads } = await this.require(uri);
    const { store, uris } = this.services;
    const values = this.values;
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
        const conformers = s.parent ? [] : await this.compounds.conformerUris(uri);
        // the datasets that hold it
        const datasets = (await select(store, compoundQueries.datasetsHolding(uri))).map((r) => r.d.value).filter(ctx.state.canRead ?? (() => true));
        // their measured endpoints, by ontology term when they have one (read across pools its datasets)
        const endpoints = new Map<string, string>();
        for (const r of datasets.length ? await select(store, compoundQueries.measuredEndpoints(datasets)) : []) {
          const term = r.term?.value;
          const title = r.title?.value ?? r.f.value;
          if (term) endpoints.set(term, `${term.replace(/^.*[#/]/, '').replace(/_/g, ' ')} (${term})`);
          else if (!endpoints.has(r.f.value)) endpoints.set(r.f.value, title);
        }
        return {
          rdf: [...quads, ...values.quads(uri, shown)],
          values: requested.length ? shown : all,
          titles: await featureTitles(
            store,
            all.map((v) => v.feature).filter((f) => uris.isLocal(f)),
          ),
          related: [{ label: 'Conformers', uris: conformers }, { label: 'Datasets that hold it', uris: datasets }, ...(s.parent ? [{ label: 'Parent compound', uris: [s.parent] }] : [])],
          endpoints: [...endpoints].map(([endpoint, title]) => ({ endpoint, title })),
        };
      })());
    // RDF shows the graph, and feature values only when asked for: no query for what it never shows
    const rdf = () => (requested.length ? details().then((d) => d.rdf) : quads);
    // after a crash of the toolkit, its fresh instance (pictures, molfiles)
    await this.compounds.chemistry.ready();
    await sendNegotiated(ctx, structureRenderers(ctx, this.compounds.chemistry, s, details, rdf));
    storeRepresentation(ctx);
  }

  /** Parse posted 3D structures and check that each is the parent's structure. */
  async readConformers(ctx: Context, parent: StoredStructure) {
    const { config, shapes, uris } = this.services;
    const posted = await readStructures(ctx, this.compounds.chemistry, shapes, config.bodyLimit, `${uris.conformers(parent.uri)}/`);
    posted.forEach((p, i) => {
      const where = posted.length > 1 ? `record ${i + 1}: ` : '';
      if (p.structure.inchiKey !== parent.inchiKey) {
        throw badRequest(`${where}the conformer's structure (InChIKey ${p.structure.inchiKey}) is not that of the compound (${parent.inchiKey})`);
      }
      if (!p.structure.has3d) throw badRequest(`${where}a conformer needs 3D coordinates (every z coordinate is 0)`);
    });
    return posted;
  }
}
