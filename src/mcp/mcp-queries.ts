import { df, ot, rdf, rdfs } from '../rdf/namespaces.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';

/** The SPARQL the MCP tools send to the service's own endpoint (in the caller's scope). */
export const mcpQueries = {
  /**
   * Every literal statistic of the validations of these models (`?scored` is the validation) and
   * of the cross-validations of their recipe (as the model page lists them: the same algorithm,
   * training dataset and target, or linked with rdfs:seeAlso; `?scored` is the pooled statistics,
   * `?params` the cross-validation's parameters), the validation's counts, and the actual count of each class
   * (`?class`, true positives and false negatives) for a classification's baseline.
   */
  validationStatistics(models: string[]): SparqlText {
    return sparql`SELECT ?model ?validation ?folds ?params ?scrambled ?statistic ?value ?class ?tp ?fn WHERE {
  VALUES ?model { ${models.map((m) => df.namedNode(m))} }
  {
    ?validation ${ot('model')} ?model .
    BIND(?validation AS ?scored)
  } UNION {
    { ?model ${ot('algorithm')} ?algorithm ; ${ot('trainingDataset')} ?dataset ; ${ot('dependentVariables')} ?feature .
      ?validation ${rdf('type')} ${ot('Crossvalidation')} ; ${ot('algorithm')} ?algorithm ; ${ot('dataset')} ?dataset ; ${ot('predictionFeature')} ?feature . }
    UNION
    { ?model ${rdfs('seeAlso')} ?validation . ?validation ${rdf('type')} ${ot('Crossvalidation')} . }
    ?validation ${ot('numFolds')} ?folds ; ${ot('algorithmParams')} ?params ; ${ot('yScramble')} ?scrambled .
    ?scored ${ot('crossvalidationInfo')} ?info . ?info ${ot('crossvalidation')} ?validation .
    FILTER NOT EXISTS { ?info ${ot('crossvalidationFold')} ?fold }
  }
  { ?scored ${ot('regressionStatistics')} ?s } UNION { ?scored ${ot('classificationStatistics')} ?s }
  {
    ?s ?statistic ?value . FILTER(isLiteral(?value))
  } UNION {
    VALUES ?statistic { ${ot('numInstances')} ${ot('numWithoutClass')} ${ot('numUnpredicted')} } ?scored ?statistic ?value .
  } UNION {
    ?s ${ot('classValueStatistics')} ?c . ?c ${ot('classValue')} ?class ; ${ot('numTruePositives')} ?tp ; ${ot('numFalseNegatives')} ?fn .
  }
}`;
  },
};
