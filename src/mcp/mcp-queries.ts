import { df, ot } from '../rdf/namespaces.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';

/** The SPARQL the MCP tools send to the service's own endpoint (in the caller's scope). */
export const mcpQueries = {
  /** Every literal statistic of the validations of these models. */
  validationStatistics(models: string[]): SparqlText {
    return sparql`SELECT ?model ?validation ?statistic ?value WHERE {
  VALUES ?model { ${models.map((m) => df.namedNode(m))} }
  ?validation ${ot('model')} ?model .
  { ?validation ${ot('regressionStatistics')} ?s } UNION { ?validation ${ot('classificationStatistics')} ?s }
  ?s ?statistic ?value . FILTER(isLiteral(?value))
}`;
  },
};
