import type * as RDF from '@rdfjs/types';
import { dc, df, literal, ot, owl, rdf } from '../rdf/namespaces.ts';
import type { TripleStore } from '../store/triple-store.ts';

/** A feature as the rest of the server sees it: the typed record of its graph (spec 2.1). */
export interface FeatureRecord {
  uri: string;
  /** Is there a graph of this feature here? */
  exists: boolean;
  title?: string;
  numeric: boolean;
  nominal: boolean;
  /** A fingerprint feature: its length in bits. */
  bits?: number;
  /** ot:hasSource: the algorithm instance or model that made it. */
  source?: string;
  /** ot:acceptValue: the values a nominal feature takes. */
  accepted: string[];
  /** owl:sameAs: the ontology entries (endpoints) it stands for. */
  sameAs: string[];
  /** ot:confidenceOf: the predicted feature whose confidence this one holds. */
  confidenceOf?: string;
  /** An `ot:Substructure` feature's pattern (`ot:smarts`): its value is whether a structure holds it. */
  smarts?: string;
  /** ot:units ('' or absent: none given). */
  units?: string;
  description?: string;
}

/** A feature this server makes (a dataset column, a descriptor, a model's prediction or confidence). */
export interface NewFeature {
  uri: string;
  title: string;
  description?: string;
  units?: string;
  kind: 'numeric' | 'nominal' | 'string' | 'fingerprint' | 'substructure';
  /** A fingerprint: its length in bits. */
  bits?: number;
  /** The dataset, algorithm instance or model that made it. */
  source: string;
  sameAs?: string[];
  accepted?: string[];
  confidenceOf?: string;
  /** A substructure feature: its SMARTS (`ot:smarts`). */
  smarts?: string;
}

const KIND_TYPES = {
  numeric: ['NumericFeature'],
  nominal: ['NominalFeature'],
  string: ['StringFeature'],
  fingerprint: ['StringFeature', 'FingerprintFeature'],
  substructure: ['NumericFeature', 'Substructure'],
};

/** The graph of a feature this server makes (the way back from a record). */
export function featureGraph(f: NewFeature): RDF.Quad[] {
  const s = df.namedNode(f.uri);
  return [
    df.quad(s, rdf('type'), ot('Feature')),
    ...KIND_TYPES[f.kind].map((t) => df.quad(s, rdf('type'), ot(t))),
    df.quad(s, dc('title'), literal(f.title)),
    ...(f.description === undefined ? [] : [df.quad(s, dc('description'), literal(f.description))]),
    df.quad(s, ot('units'), literal(f.units ?? '')),
    df.quad(s, ot('hasSource'), df.namedNode(f.source)),
    ...(f.bits === undefined ? [] : [df.quad(s, ot('fingerprintBits'), literal(f.bits))]),
    ...(f.sameAs ?? []).map((e) => df.quad(s, owl('sameAs'), df.namedNode(e))),
    ...(f.accepted ?? []).map((v) => df.quad(s, ot('acceptValue'), literal(v))),
    ...(f.confidenceOf === undefined ? [] : [df.quad(s, ot('confidenceOf'), df.namedNode(f.confidenceOf))]),
    ...(f.smarts === undefined ? [] : [df.quad(s, ot('smarts'), literal(f.smarts))]),
  ];
}

/** The record of the feature `uri` in its graph (the statements about `uri` only). */
export function featureRecord(quads: RDF.Quad[], uri: string): FeatureRecord {
  const own = quads.filter((q) => q.subject.value === uri);
  const values = (p: RDF.NamedNode) => own.filter((q) => q.predicate.equals(p)).map((q) => q.object.value);
  const types = new Set(values(rdf('type')));
  const bits = values(ot('fingerprintBits'))[0];
  return {
    uri,
    exists: own.length > 0,
    title: values(dc('title'))[0],
    numeric: types.has(ot('NumericFeature').value),
    nominal: types.has(ot('NominalFeature').value),
    bits: types.has(ot('FingerprintFeature').value) && bits ? Number(bits) : undefined,
    source: values(ot('hasSource'))[0],
    accepted: values(ot('acceptValue')),
    sameAs: values(owl('sameAs')),
    confidenceOf: values(ot('confidenceOf'))[0],
    smarts: types.has(ot('Substructure').value) ? values(ot('smarts'))[0] : undefined,
    units: values(ot('units'))[0] || undefined,
    description: values(dc('description'))[0],
  };
}

/** The records of features, by URI (features with no graph here have `exists: false`). */
export async function readFeatureRecords(store: TripleStore, uris: string[]): Promise<Map<string, FeatureRecord>> {
  const records = await Promise.all(uris.map(async (uri) => featureRecord(await store.readGraph(uri), uri)));
  return new Map(records.map((r) => [r.uri, r]));
}

/** The titles of features stored here, by feature URI; features without one are left out. */
export async function featureTitles(store: TripleStore, features: string[]): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  for (const r of (await readFeatureRecords(store, features)).values()) if (r.title) titles.set(r.uri, r.title);
  return titles;
}

/** The other way round: feature URI by title (of features sharing a title, the last one). */
export async function featuresByTitle(store: TripleStore, features: string[]): Promise<Map<string, string>> {
  const byTitle = new Map<string, string>();
  for (const [f, title] of await featureTitles(store, features)) byTitle.set(title, f);
  return byTitle;
}
