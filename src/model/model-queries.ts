import { ot, owl } from '../rdf/namespaces.ts';
import { resourcesOfType, type ListOptions } from '../store/query-helpers.ts';
import type { SparqlText } from '../store/sparql-template.ts';

/** Every SPARQL query of the model component, by name. */
export const modelQueries = {
  /** All models (each in its own graph), binding `?r`; optionally only those `owl:sameAs` an ontology entry. */
  all(sameAs?: string, options: ListOptions = {}): SparqlText {
    return resourcesOfType(ot('Model'), [[owl('sameAs'), sameAs]], options);
  },
};
