import type { UriScheme } from '../core/uri-scheme.ts';
import type * as RDF from '@rdfjs/types';
import { createHash } from 'node:crypto';
import { df, ot, rdf, xsd, literal } from '../rdf/namespaces.ts';
import { checkIri } from '../rdf/terms.ts';
import { badRequest } from '../core/errors.ts';
import type { TripleStore } from '../store/triple-store.ts';
import { compoundQueries } from './compound-queries.ts';
import { featureQueries } from '../feature/feature-queries.ts';
import { ask, select } from '../store/query-helpers.ts';

export interface FeatureValue {
  feature: string;
  value: RDF.Literal;
}

/**
 * Feature values attached directly to a compound or conformer (spec 4.8), kept in the graph
 * `{structure}/values` as ot:FeatureValue nodes with a stable IRI per feature.
 */
export class FeatureValues {
  private readonly store: TripleStore;
  private readonly uris: UriScheme;
  constructor(store: TripleStore, uris: UriScheme) {
    this.store = store;
    this.uris = uris;
  }

  graphOf(structureUri: string): string {
    return this.uris.subgraph(structureUri, 'values');
  }

  private node(structureUri: string, featureUri: string): RDF.NamedNode {
    return df.namedNode(`${structureUri}#value-${createHash('sha1').update(featureUri).digest('hex').slice(0, 16)}`);
  }

  async read(structureUri: string, featureUris?: string[]): Promise<FeatureValue[]> {
    const quads = await this.store.readGraph(this.graphOf(structureUri));
    const out: FeatureValue[] = [];
    for (const q of quads) {
      if (!q.predicate.equals(ot('feature'))) continue;
      if (featureUris && !featureUris.includes(q.object.value)) continue;
      const value = quads.find((v) => v.subject.equals(q.subject) && v.predicate.equals(ot('value')))?.object;
      if (value?.termType === 'Literal') out.push({ feature: q.object.value, value });
    }
    return out.sort((a, b) => a.feature.localeCompare(b.feature));
  }

  /**
   * Values of the given features that datasets hold for this structure (the first one found
   * per feature, datasets in URI order).
   */
  async fromDatasets(structureUri: string, featureUris: string[]): Promise<FeatureValue[]> {
    if (!featureUris.length) return [];
    const rows = await select(this.store, compoundQueries.valuesInDatasets(structureUri, featureUris));
    const out = new Map<string, FeatureValue>();
    for (const r of rows) if (!out.has(r.f.value) && r.v.termType === 'Literal') out.set(r.f.value, { feature: r.f.value, value: r.v });
    return [...out.values()];
  }

  /** Check the feature and type the value by it: a numeric feature needs a number. */
  async typedValue(featureUri: string, raw: string): Promise<RDF.Literal> {
    checkIri(featureUri);
    if (this.uris.isLocal(featureUri)) {
      if (!(await ask(this.store, featureQueries.exists(featureUri)))) throw badRequest(`unknown feature_uri ${featureUri}`);
      if (await ask(this.store, featureQueries.numeric(featureUri))) {
        const n = Number(raw.trim());
        if (raw.trim() === '' || !Number.isFinite(n)) throw badRequest(`the feature ${featureUri} is numeric; ${JSON.stringify(raw)} is not a number`);
        return literal(String(n), xsd('double'));
      }
      return literal(raw);
    }
    const n = Number(raw.trim());
    return raw.trim() !== '' && Number.isFinite(n) ? literal(String(n), xsd('double')) : literal(raw);
  }

  /** Set (create or overwrite) the value of one feature. */
  async set(structureUri: string, featureUri: string, value: RDF.Literal): Promise<void> {
    await this.store.update(compoundQueries.setValue(this.graphOf(structureUri), this.node(structureUri, featureUri), featureUri, value));
  }

  async remove(structureUri: string, featureUris?: string[]): Promise<void> {
    const graph = this.graphOf(structureUri);
    if (!featureUris) return this.store.deleteGraphs([graph]);
    await this.store.update(
      compoundQueries.removeValues(
        graph,
        featureUris.map((f) => this.node(structureUri, f)),
      ),
    );
  }

  /** RDF of values for a representation: `<structure> ot:values <node>` plus each node. */
  quads(structureUri: string, values: FeatureValue[]): RDF.Quad[] {
    return values.flatMap((v) => {
      const node = this.node(structureUri, v.feature);
      return [df.quad(df.namedNode(structureUri), ot('values'), node), ...this.nodeQuads(node, v.feature, v.value)];
    });
  }

  private nodeQuads(node: RDF.NamedNode, featureUri: string, value: RDF.Literal): RDF.Quad[] {
    return [df.quad(node, rdf('type'), ot('FeatureValue')), df.quad(node, ot('feature'), df.namedNode(featureUri)), df.quad(node, ot('value'), value)];
  }
}
