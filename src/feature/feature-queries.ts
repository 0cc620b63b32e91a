import { dc, df, ot, owl } from '../rdf/namespaces.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';
import { checkIri } from '../rdf/terms.ts';

/** Every SPARQL query of the feature component, by name (the lists bind `?f`, a feature URI). */
export const featureQueries = {
  /** All features (each in its own graph). */
  all(): SparqlText {
    return sparql`SELECT DISTINCT ?f WHERE { GRAPH ?f { ?f a ${ot('Feature')} } }`;
  },
  /** The features that are the same as an ontology entry (`owl:sameAs`, e.g. an otee: endpoint). */
  sameAs(entry: string): SparqlText {
    return sparql`SELECT DISTINCT ?f WHERE { GRAPH ?f { ?f a ${ot('Feature')} ; ${owl('sameAs')} ${df.namedNode(checkIri(entry))} } }`;
  },
  /** The features holding the confidences of a predicted feature (`ot:confidenceOf`). */
  confidenceOf(predicted: string): SparqlText {
    return sparql`SELECT ?f WHERE { GRAPH ?f { ?f ${ot('confidenceOf')} ${df.namedNode(checkIri(predicted))} } }`;
  },
  /** The features a source (an algorithm instance, a dataset, a model) made, with their titles, binding `?t` too. */
  madeBy(source: string): SparqlText {
    return sparql`SELECT ?f ?t WHERE { GRAPH ?f { ?f ${ot('hasSource')} ${df.namedNode(checkIri(source))} ; ${dc('title')} ?t } }`;
  },
  /** Whether there is a feature `uri` here (`exists` of its record: its graph says anything of it). */
  exists(uri: string): SparqlText {
    const f = df.namedNode(checkIri(uri));
    return sparql`ASK { GRAPH ${f} { ${f} ?p ?o } }`;
  },
  /** Whether the feature `uri` is numeric (`numeric` of its record: `<uri> a ot:NumericFeature` in its graph). */
  numeric(uri: string): SparqlText {
    const f = df.namedNode(checkIri(uri));
    return sparql`ASK { GRAPH ${f} { ${f} a ${ot('NumericFeature')} } }`;
  },
};
