import { ot, otee, rdfs } from '../rdf/namespaces.js';
import { sparql, type SparqlText } from '../store/sparql-template.js';

/** The predefined queries of the ontology service (spec 4.5), run over the published scope. */
export const ontologyQueries = {
  models(): SparqlText {
    return sparql`CONSTRUCT { ?m ?p ?o } WHERE { ?m a ${ot('Model')} ; ?p ?o }`;
  },
  algorithms(): SparqlText {
    return sparql`CONSTRUCT { ?a ?p ?o } WHERE { ?a a ${ot('Algorithm')} ; ?p ?o }`;
  },
  /** The ECHA endpoints (every subclass of otee:Endpoints). */
  endpoints(): SparqlText {
    return sparql`CONSTRUCT { ?e ?p ?o } WHERE { ?e ${rdfs('subClassOf')}+ ${otee('Endpoints')} ; ?p ?o }`;
  },
};
