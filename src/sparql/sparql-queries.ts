import { sparql, type SparqlText } from '../store/sparql-template.ts';

/** Every SPARQL query of the SPARQL endpoints' own work, by name. */
export const sparqlQueries = {
  /** Every named graph that holds something, binding `?g`. */
  graphNames(): SparqlText {
    return sparql`SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }`;
  },
};
