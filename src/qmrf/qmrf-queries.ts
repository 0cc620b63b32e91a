import { df, ot, rdfs } from '../rdf/namespaces.ts';
import { resourcesOfType } from '../store/query-helpers.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';

/** Every SPARQL query of the QMRF component, by name. */
export const qmrfQueries = {
  /** The label of an ontology term (an endpoint), with the label of its parent class (its group), binding `?label` and `?group`. */
  termLabel(term: string): SparqlText {
    const t = df.namedNode(term);
    return sparql`SELECT ?label ?group WHERE { GRAPH ?g { ${t} ${rdfs('label')} ?label . OPTIONAL { ${t} ${rdfs('subClassOf')} ?parent . ?parent ${rdfs('label')} ?group } } } LIMIT 1`;
  },
  /** QMRF reports, optionally only those about a model (binding `?r`). */
  reports(model?: string): SparqlText {
    return resourcesOfType(ot('QMRFReport'), [[ot('reportModel'), model]]);
  },
};
