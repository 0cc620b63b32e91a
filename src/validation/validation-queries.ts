import { df, ot } from '../rdf/namespaces.ts';
import { resourcesOfType, type ListOptions } from '../store/query-helpers.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';
import { checkIri } from '../rdf/terms.ts';

/** Filters of the validation list: property (local name in ot:) → resource URI. */
export type ValidationFilter = Partial<Record<'model' | 'algorithm' | 'trainingDataset' | 'testDataset', string>>;

/** Every SPARQL query of the validation component, by name (the lists bind `?r`). */
export const validationQueries = {
  /** Validations (fold validations and pooled cross-validation statistics among them). */
  validations(filter: ValidationFilter = {}, options: ListOptions = {}): SparqlText {
    return resourcesOfType(
      ot('Validation'),
      Object.entries(filter).map(([p, v]) => [ot(p), v]),
      options,
    );
  },
  crossvalidations(filter: { algorithm?: string; dataset?: string }, options: ListOptions = {}): SparqlText {
    return resourcesOfType(
      ot('Crossvalidation'),
      [
        [ot('algorithm'), filter.algorithm],
        [ot('dataset'), filter.dataset],
      ],
      options,
    );
  },
  /** Whether a graph of statistics (a validation, or a cross-validation's pooled `{uri}/statistics`) holds classification statistics. */
  classificationStatistics(graph: string): SparqlText {
    return sparql`ASK { GRAPH ${df.namedNode(checkIri(graph))} { ?s ${ot('classificationStatistics')} ?o } }`;
  },
};
