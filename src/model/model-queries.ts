import { df, ot, owl } from '../rdf/namespaces.js';
import { checkIri, sparql, type SparqlText } from '../store/sparql-template.js';

/** Every SPARQL query of the model component, by name. */
export const modelQueries = {
  /** All models (each in its own graph), binding `?m`; optionally only those `owl:sameAs` an ontology entry. */
  all(sameAs?: string): SparqlText {
    const filter = sameAs ? sparql`; ${owl('sameAs')} ${df.namedNode(checkIri(sameAs))}` : sparql``;
    return sparql`SELECT DISTINCT ?m WHERE { GRAPH ?m { ?m a ${ot('Model')} ${filter} } }`;
  },
};
