import type * as RDF from '@rdfjs/types';
import { sparql, type SparqlText } from '../store/sparql-template.ts';
import { NOT_PART_OF_ANOTHER } from '../store/query-helpers.ts';

/** Every SPARQL query of the service description, by name. */
export const serviceQueries = {
  /** How many resources of a type the store holds (each in its own graph), intermediate work left out, binding `?n`. */
  count(type: RDF.NamedNode): SparqlText {
    return sparql`SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE { GRAPH ?r { ?r a ${type} ${NOT_PART_OF_ANOTHER} } }`;
  },
};
