import { DataFactory } from 'rdf-data-factory';
import type * as RDF from '@rdfjs/types';

/** The one RDF/JS data factory used everywhere in ToxGraph. */
export const df = new DataFactory();

export type Namespace = ((local: string) => RDF.NamedNode) & { readonly iri: string };

export function namespace(iri: string): Namespace {
  const make = (local: string) => df.namedNode(iri + local);
  return Object.assign(make, { iri });
}

export const ot = namespace('http://www.opentox.org/api/1.1#');
export const ota = namespace('http://www.opentox.org/algorithmTypes.owl#');
export const otee = namespace('http://www.opentox.org/echaEndpoints.owl#');
export const dc = namespace('http://purl.org/dc/elements/1.1/');
export const dcterms = namespace('http://purl.org/dc/terms/');
export const rdf = namespace('http://www.w3.org/1999/02/22-rdf-syntax-ns#');
export const rdfs = namespace('http://www.w3.org/2000/01/rdf-schema#');
export const owl = namespace('http://www.w3.org/2002/07/owl#');
export const xsd = namespace('http://www.w3.org/2001/XMLSchema#');
export const sh = namespace('http://www.w3.org/ns/shacl#');
export const skos = namespace('http://www.w3.org/2004/02/skos/core#');
export const prov = namespace('http://www.w3.org/ns/prov#');
/** The profilers' vocabulary (ontology/profilers-vocabulary.ttl). */
export const tgp = namespace('http://www.opentox.org/profilers.owl#');

/** Prefixes offered to every serializer that can use them. */
export const PREFIXES: Record<string, string> = {
  ot: ot.iri,
  ota: ota.iri,
  otee: otee.iri,
  dc: dc.iri,
  dcterms: dcterms.iri,
  rdf: rdf.iri,
  rdfs: rdfs.iri,
  owl: owl.iri,
  xsd: xsd.iri,
  prov: prov.iri,
  tgp: tgp.iri,
};

export const RDF_TYPE = rdf('type');

export function literal(value: string | number | boolean | Date, datatype?: RDF.NamedNode): RDF.Literal {
  if (value instanceof Date) return df.literal(value.toISOString(), xsd('dateTime'));
  if (typeof value === 'boolean') return df.literal(String(value), xsd('boolean'));
  if (typeof value === 'number') {
    if (datatype) return df.literal(String(value), datatype);
    return Number.isInteger(value) ? df.literal(String(value), xsd('integer')) : df.literal(doubleLexical(value), xsd('double'));
  }
  return datatype ? df.literal(value, datatype) : df.literal(value);
}

/** Canonical-ish xsd:double lexical form (INF/NaN spelled as XSD wants). */
export function doubleLexical(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'INF';
  if (n === -Infinity) return '-INF';
  return String(n);
}
