import type * as RDF from '@rdfjs/types';
import { df, ot, rdf, dc, dcterms, literal, xsd } from '../rdf/namespaces.ts';

/** A dataset's metadata graph as a typed record (spec 2.4). */
export interface DatasetMeta extends DatasetMetadata {
  uri: string;
  /** The whole metadata graph, for the representations. */
  quads: RDF.Quad[];
  title?: string;
}

/** What a dataset's metadata graph is written from. */
export interface DatasetMetadata {
  /** Dublin Core and other annotations of the dataset (everything but its own bookkeeping). */
  annotations: Annotation[];
  /** Feature URIs in column order. */
  features: string[];
  warnings: string[];
  /** dcterms:created, kept when a dataset is rewritten. */
  created?: string;
}

export type Annotation = [RDF.NamedNode, RDF.Term];

/** The properties the server writes itself: not annotations. */
const OWN = new Set([rdf('type'), dc('identifier'), dcterms('created'), ot('hasColumn'), ot('warning')].map((t) => t.value));

/** The record of a dataset's metadata graph; undefined when the graph is not a dataset's. */
export function datasetMeta(quads: RDF.Quad[], uri: string): DatasetMeta | undefined {
  const own = quads.filter((q) => q.subject.value === uri);
  if (!own.some((q) => q.predicate.equals(rdf('type')) && q.object.equals(ot('Dataset')))) return undefined;
  const values = (p: RDF.NamedNode) => own.filter((q) => q.predicate.equals(p)).map((q) => q.object.value);
  const columnValue = (node: RDF.Term, p: RDF.NamedNode) => quads.find((q) => q.subject.equals(node) && q.predicate.equals(p))?.object.value;
  const features = own
    .filter((q) => q.predicate.equals(ot('hasColumn')))
    .map((q) => ({ feature: columnValue(q.object, ot('feature')), index: Number(columnValue(q.object, ot('index'))) }))
    .filter((c): c is { feature: string; index: number } => !!c.feature)
    .sort((a, b) => a.index - b.index)
    .map((c) => c.feature);
  return {
    uri,
    quads,
    title: values(dc('title'))[0],
    features,
    warnings: values(ot('warning')),
    annotations: own.filter((q) => !OWN.has(q.predicate.value)).map((q) => [q.predicate as RDF.NamedNode, q.object]),
    created: values(dcterms('created'))[0],
  };
}

/** The metadata graph of a dataset: its annotations, one ot:hasColumn per feature, its warnings. */
export function metadataQuads(uri: string, info: DatasetMetadata): RDF.Quad[] {
  const d = df.namedNode(uri);
  return [
    df.quad(d, rdf('type'), ot('Dataset')),
    df.quad(d, dc('identifier'), literal(uri)),
    df.quad(d, dcterms('created'), info.created ? literal(info.created, xsd('dateTime')) : literal(new Date())),
    ...info.annotations.map(([p, o]) => df.quad(d, p, o as RDF.Quad_Object)),
    ...info.features.flatMap((f, i) => {
      const col = df.namedNode(`${uri}#column-${i + 1}`);
      return [df.quad(d, ot('hasColumn'), col), df.quad(col, ot('feature'), df.namedNode(f)), df.quad(col, ot('index'), literal(i + 1))];
    }),
    ...info.warnings.map((w) => df.quad(d, ot('warning'), literal(w))),
  ];
}

const pad = (n: number) => String(n).padStart(8, '0');

/** One row of the entries graph (`{uri}/entries`, see DatasetStore). */
export function entryQuads(uri: string, entriesGraph: string, index: number, compound: string, values: [string, RDF.Literal][]): RDF.Quad[] {
  const e = df.namedNode(`${uri}#entry-${pad(index)}`);
  const g = df.namedNode(entriesGraph);
  return [
    df.quad(df.namedNode(uri), ot('dataEntry'), e, g),
    df.quad(e, ot('compound'), df.namedNode(compound), g),
    df.quad(e, ot('index'), literal(index), g),
    ...values.map(([f, v]) => df.quad(e, df.namedNode(f), v, g)),
  ];
}

/** New annotations replace old ones with the same property. */
export function mergeAnnotations(old: Annotation[], fresh: Annotation[]): Annotation[] {
  const replaced = new Set(fresh.map(([p]) => p.value));
  return [...old.filter(([p]) => !replaced.has(p.value)), ...fresh];
}
