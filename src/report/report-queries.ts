import { ot } from '../rdf/namespaces.ts';
import { resourcesOfType } from '../store/query-helpers.ts';
import type { SparqlText } from '../store/sparql-template.ts';

/** Every SPARQL query of the report component, by name (each binds `?r`). */
export const reportQueries = {
  /** Validation reports, optionally only those about a validation (or cross-validation). */
  reports(validation?: string): SparqlText {
    return resourcesOfType(ot('ValidationReport'), [[ot('reportValidation'), validation]]);
  },
};
