import { ot } from '../rdf/namespaces.js';
import { resourcesOfType } from '../store/query-helpers.js';
import type { SparqlText } from '../store/sparql-template.js';

/** Every SPARQL query of the report component, by name (each binds `?r`). */
export const reportQueries = {
  /** Validation reports, optionally only those about a validation (or cross-validation). */
  reports(validation?: string): SparqlText {
    return resourcesOfType(ot('ValidationReport'), [[ot('reportValidation'), validation]]);
  },
};
