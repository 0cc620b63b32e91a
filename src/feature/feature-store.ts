import type * as RDF from '@rdfjs/types';
import { notFound } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import { select, readGraphs } from '../store/query-helpers.ts';
import { sortById } from '../store/id-minter.ts';
import { featureFromBody } from './feature-description.ts';
import { featureQueries } from './feature-queries.ts';
import { df, literal, ot } from '../rdf/namespaces.ts';

/**
 * Features as resources (spec 2.1, 4.7): one graph per feature, named by its URI. Reads are the
 * named queries of feature-queries.ts and whole-graph reads through the store seam; every write
 * is one graph replacement, checked against the SHACL shapes first.
 */
export class FeatureStore {
  readonly collection: string;

  private readonly services: Pick<Services, 'uris' | 'store' | 'ids' | 'shapes'>;
  constructor(services: FeatureStore['services']) {
    this.services = services;
    this.collection = services.uris.collection('feature');
  }

  /** This server's feature URIs in id order (not harvested copies of others'), optionally only those `owl:sameAs` an ontology entry. */
  async list(sameAs?: string): Promise<string[]> {
    const rows = await select(this.services.store, sameAs ? featureQueries.sameAs(sameAs) : featureQueries.all());
    return sortById(rows.map((r) => r.f.value).filter((f) => this.services.uris.isIn('feature', f)));
  }

  /** A feature's graph; 404 when there is none. */
  async require(uri: string): Promise<RDF.Quad[]> {
    const quads = await this.services.store.readGraph(uri);
    if (!quads.length) throw notFound(`feature ${uri} not found`);
    return quads;
  }

  /** The graphs of many features, in one list (for list representations). */
  async readAll(uris: string[]): Promise<RDF.Quad[]> {
    return readGraphs(this.services.store, uris);
  }

  /**
   * Store a posted description as a new feature; checked before an id is minted, so a refused one
   * leaves nothing behind. What its shape warns of (a feature typed only as ot:Feature) is kept
   * with it as `ot:warning` and answered.
   */
  async create(body: RDF.Quad[]): Promise<{ uri: string; warnings: string[] }> {
    const draft = `${this.collection}/new`;
    const checked = await this.services.shapes.check(featureFromBody(body, draft));
    const uri = await this.services.ids.next(this.collection);
    // the warnings name the feature by its URI (the shape of the one feature in the body targets that feature)
    const warnings = checked.map((w) => w.replace(/ at (?:a blank node|<[^>]*>)\]$/, ` at <${uri}>]`));
    // a URI just minted names no graph yet: nothing to read and compare
    await this.services.store.createGraphs({ [uri]: withWarnings(featureFromBody(body, uri), uri, warnings) });
    return { uri, warnings };
  }

  /** Replace a feature with a new description (read only once the feature is known to exist); its warnings, as create's. */
  async replace(uri: string, readBody: () => Promise<RDF.Quad[]>): Promise<string[]> {
    await this.require(uri);
    const quads = featureFromBody(await readBody(), uri);
    const warnings = await this.services.shapes.check(quads);
    await this.services.store.replaceGraphs({ [uri]: withWarnings(quads, uri, warnings) });
    return warnings;
  }

  async delete(uri: string): Promise<void> {
    await this.require(uri);
    await this.services.store.deleteGraphs([uri]);
  }
}

/** A feature's description with what its shape warned of, as the server's own `ot:warning` (what the body said of it is not kept). */
function withWarnings(quads: RDF.Quad[], uri: string, warnings: string[]): RDF.Quad[] {
  const self = df.namedNode(uri);
  const own = quads.filter((q) => !(q.subject.equals(self) && q.predicate.equals(ot('warning'))));
  return [...own, ...warnings.map((w) => df.quad(self, ot('warning'), literal(w)))];
}
