import type * as RDF from '@rdfjs/types';
import { dc, ot, owl, rdf } from '../rdf/namespaces.ts';
import { describeResource, many, optional, type InputOf, type RecordOf } from '../rdf/resource-description.ts';
import type { TripleStore } from '../store/triple-store.ts';

/** A feature described once (spec 2.1): its graph is read and written from this. */
export const featureDescription = describeResource([ot('Feature')], {
  /** Its classes: ot:Feature and the kind (ot:NumericFeature, ot:NominalFeature, …). */
  classes: many('iri', rdf('type')),
  title: optional('text', dc('title')),
  description: optional('text', dc('description')),
  /** ot:units ('' or absent: none given). */
  units: optional('text', ot('units')),
  /** ot:hasSource: the dataset, algorithm instance or model that made it. */
  source: optional('iri', ot('hasSource')),
  /** A fingerprint feature: its length in bits. */
  bits: optional('integer', ot('fingerprintBits')),
  /** owl:sameAs: the ontology entries (endpoints) it stands for. */
  sameAs: many('iri', owl('sameAs')),
  /** ot:acceptValue: the values a nominal feature takes. */
  accepted: many('text', ot('acceptValue')),
  /** ot:confidenceOf: the predicted feature whose confidence this one holds. */
  confidenceOf: optional('iri', ot('confidenceOf')),
  /** A conformal prediction's feature (an interval bound, a class p-value, a prediction set): the predicted feature it is of. */
  conformalOf: optional('iri', ot('conformalOf')),
  /** An interval bound's or a prediction set's confidence level. */
  confidenceLevel: optional('number', ot('confidenceLevel')),
  /** A p-value's class. */
  pValueClass: optional('text', ot('pValueClass')),
  /** An `ot:Substructure` feature's pattern (`ot:smarts`): its value is whether a structure holds it. */
  smarts: optional('text', ot('smarts')),
  /** A measured endpoint: the species it was determined in (QMRF 3.1), and the test guideline (QMRF 3.6). */
  species: optional('text', ot('species')),
  protocol: optional('text', ot('testGuideline')),
});
type FeatureFields = typeof featureDescription.fields;

/** A feature as the rest of the server sees it: the typed record of its graph. */
export type FeatureRecord = Omit<RecordOf<FeatureFields>, 'classes'> & {
  /** Is there a graph of this feature here? */
  exists: boolean;
  numeric: boolean;
  nominal: boolean;
};

/** A feature this server makes (a dataset column, a descriptor, a model's prediction or confidence). */
export type NewFeature = Omit<InputOf<FeatureFields>, 'classes' | 'title' | 'source'> & {
  title: string;
  source: string;
  kind: keyof typeof KIND_CLASSES;
};

const KIND_CLASSES = {
  numeric: ['NumericFeature'],
  nominal: ['NominalFeature'],
  string: ['StringFeature'],
  fingerprint: ['StringFeature', 'FingerprintFeature'],
  substructure: ['NumericFeature', 'Substructure'],
  'interval-lower': ['NumericFeature', 'PredictionIntervalLower'],
  'interval-upper': ['NumericFeature', 'PredictionIntervalUpper'],
  'p-value': ['NumericFeature', 'ClassPValue'],
  'prediction-set': ['StringFeature', 'PredictionSet'],
};

/** The graph of a feature this server makes (the way back from a record). */
export function featureGraph({ kind, ...f }: NewFeature): RDF.Quad[] {
  return featureDescription.encode({ ...f, units: f.units ?? '', classes: KIND_CLASSES[kind].map((c) => ot(c).value) });
}

/** The record of the feature `uri` in its graph (the statements about `uri` only). */
export function featureRecord(quads: RDF.Quad[], uri: string): FeatureRecord {
  const { classes, ...fields } = featureDescription.decode(quads, uri);
  const is = (c: string) => classes.includes(ot(c).value);
  return {
    ...fields,
    exists: quads.some((q) => q.subject.value === uri),
    numeric: is('NumericFeature'),
    nominal: is('NominalFeature'),
    bits: is('FingerprintFeature') && fields.bits ? fields.bits : undefined,
    smarts: is('Substructure') ? fields.smarts : undefined,
    units: fields.units || undefined,
  };
}

/** The records of features, by URI (features with no graph here have `exists: false`). */
export async function readFeatureRecords(store: TripleStore, uris: string[]): Promise<Map<string, FeatureRecord>> {
  const graphs = await store.readEachGraph(uris);
  return new Map(uris.map((uri, i) => [uri, featureRecord(graphs[i], uri)]));
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
