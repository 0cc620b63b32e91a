import { df, ot, otee, rdfs } from '../rdf/namespaces.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';
import { checkIri } from '../rdf/terms.ts';

/** The predefined queries of the ontology service (spec 4.5), run over the published scope. */
export const ontologyQueries = {
  models(): SparqlText {
    return sparql`CONSTRUCT { ?m ?p ?o } WHERE { ?m a ${ot('Model')} ; ?p ?o }`;
  },
  algorithms(): SparqlText {
    return sparql`CONSTRUCT { ?a ?p ?o } WHERE { ?a a ${ot('Algorithm')} ; ?p ?o }`;
  },
  /** A vocabulary term: what is said of it, and the terms below it (subclasses, subproperties) and that name it as domain or range. */
  term(iri: string): SparqlText {
    const t = df.namedNode(checkIri(iri));
    return sparql`CONSTRUCT { ${t} ?p ?o . ?s ?q ${t} . ?s ${rdfs('label')} ?label } WHERE {
      { ${t} ?p ?o } UNION { ?s ?q ${t} . OPTIONAL { ?s ${rdfs('label')} ?label } FILTER(?q IN (${rdfs('subClassOf')}, ${rdfs('subPropertyOf')}, ${rdfs('domain')}, ${rdfs('range')})) }
    }`;
  },
  /** The resources registered with the ontology service (`?r ot:registered …` in its graph `graph`), binding `?r`: the registry's own query, not one of the service's. */
  registered(graph: string): SparqlText {
    return sparql`SELECT DISTINCT ?r WHERE { GRAPH ${df.namedNode(checkIri(graph))} { ?r ${ot('registered')} ?o } }`;
  },
  /** The ECHA endpoints (every subclass of otee:Endpoints). */
  endpoints(): SparqlText {
    return sparql`CONSTRUCT { ?e ?p ?o } WHERE { ?e ${rdfs('subClassOf')}+ ${otee('Endpoints')} ; ?p ?o }`;
  },
};
