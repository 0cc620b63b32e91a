import type * as RDF from '@rdfjs/types';
import { dc, df, ot, owl, literal } from '../rdf/namespaces.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';
import { checkIri } from '../rdf/terms.ts';

/**
 * Every SPARQL query and update of the compound component, by name. Compounds and conformers
 * are one graph each (`{uri}`); a structure's feature values are in `{uri}/values`.
 */
export const compoundQueries = {
  /** Every compound (not conformers), binding `?c`. */
  all(): SparqlText {
    return sparql`SELECT ?c WHERE { GRAPH ?c { ?c a ${ot('Compound')} ; ${ot('smiles')} ?s } }`;
  },
  /**
   * The compounds (and `{uri}/key` records) of InChIKeys, binding `?c` and its key `?k`: on the
   * embedded store one index lookup per key (the store's own evaluator), on a remote store one
   * request for them all.
   */
  byInchiKeys(keys: string[]): SparqlText {
    return sparql`SELECT ?c ?k WHERE { VALUES ?k { ${keys.map((k) => literal(k))} } GRAPH ?g { ?c ${ot('inchiKey')} ?k } }`;
  },
  /** Compounds `owl:sameAs` an IRI, binding `?c`. */
  sameAs(iri: string): SparqlText {
    return sparql`SELECT ?c WHERE { GRAPH ?c { ?c a ${ot('Compound')} ; ${owl('sameAs')} ${df.namedNode(checkIri(iri))} } }`;
  },
  /** The conformers of a compound, binding `?k`. */
  conformers(compound: string): SparqlText {
    return sparql`SELECT ?k WHERE { GRAPH ?k { ?k ${ot('parentCompound')} ${df.namedNode(checkIri(compound))} } }`;
  },
  /** The datasets with a row of a structure (through the index of entries by compound), binding `?d`. */
  datasetsHolding(structure: string): SparqlText {
    return sparql`SELECT DISTINCT ?d WHERE { GRAPH ?g { ?d ${ot('dataEntry')} ?e . ?e ${ot('compound')} ${df.namedNode(checkIri(structure))} } }`;
  },
  /**
   * The measured endpoints of datasets (their own columns of numbers or classes; datasets an
   * algorithm or a model made are left out), with their titles and ontology terms: what a
   * compound's page offers to read across.
   */
  measuredEndpoints(datasets: string[]): SparqlText {
    const d = datasets.map((uri) => df.namedNode(checkIri(uri)));
    return sparql`SELECT DISTINCT ?f ?title ?term WHERE {
  VALUES ?d { ${d} }
  GRAPH ?d { ?d ${ot('hasColumn')} ?column . ?column ${ot('feature')} ?f . FILTER NOT EXISTS { ?d ${ot('hasSource')} ?made . FILTER(isIRI(?made)) } }
  GRAPH ?f { { ?f a ${ot('NumericFeature')} } UNION { ?f a ${ot('NominalFeature')} } OPTIONAL { ?f ${dc('title')} ?title } OPTIONAL { ?f ${owl('sameAs')} ?term } }
} ORDER BY ?title`;
  },
  /** The values datasets hold for a structure, of the given features, binding `?f`, `?v` and `?g` (the entries graph), in dataset order. */
  valuesInDatasets(structure: string, features: string[]): SparqlText {
    const f = features.map((uri) => df.namedNode(checkIri(uri)));
    return sparql`SELECT ?f ?v ?g WHERE { VALUES ?f { ${f} } GRAPH ?g { ?e ${ot('compound')} ${df.namedNode(checkIri(structure))} . ?e ?f ?v } } ORDER BY ?g ?e`;
  },
  /** Set a feature value node in a values graph (whatever it said before is replaced). */
  setValue(graph: string, node: RDF.NamedNode, feature: string, value: RDF.Literal): SparqlText {
    const g = df.namedNode(checkIri(graph));
    return sparql`DELETE WHERE { GRAPH ${g} { ${node} ?p ?o } } ;
      INSERT DATA { GRAPH ${g} { ${node} a ${ot('FeatureValue')} ; ${ot('feature')} ${df.namedNode(checkIri(feature))} ; ${ot('value')} ${value} } }`;
  },
  /** Remove feature value nodes from a values graph. */
  removeValues(graph: string, nodes: RDF.NamedNode[]): SparqlText {
    return sparql`DELETE { GRAPH ${df.namedNode(checkIri(graph))} { ?n ?p ?o } } WHERE { VALUES ?n { ${nodes} } GRAPH ${df.namedNode(graph)} { ?n ?p ?o } }`;
  },
};
