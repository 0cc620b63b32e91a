import { dcterms, literal, ot } from '../rdf/namespaces.js';
import { sparql, type SparqlText } from '../store/sparql-template.js';

/** Every SPARQL query of the task component, by name (each binds `?t`). */
export const taskQueries = {
  /** All tasks, oldest first. */
  all(): SparqlText {
    return sparql`SELECT ?t ?created WHERE { GRAPH ?t { ?t a ${ot('Task')} ; ${dcterms('created')} ?created } } ORDER BY ?created`;
  },
  /** Tasks still Queued or Running (at start-up: those a previous process left behind). */
  unfinished(): SparqlText {
    return sparql`SELECT ?t WHERE { GRAPH ?t { ?t a ${ot('Task')} ; ${ot('hasStatus')} ?status } FILTER(?status IN (${literal('Running')}, ${literal('Queued')})) }`;
  },
};
