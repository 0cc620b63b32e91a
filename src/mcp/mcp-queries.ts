import { df, ot, rdf, rdfs } from '../rdf/namespaces.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';

const iris = (uris: string[]) => uris.map((u) => df.namedNode(u));

/**
 * The SPARQL the MCP tools send to the service's own endpoint (in the caller's scope). Each is a
 * shape the store's own evaluator answers (basic graph patterns, VALUES, OPTIONAL, FILTER: no
 * UNION, BIND or NOT EXISTS, which would send it to the query engine, 100 times slower here); the
 * tools join their answers.
 */
/** A cross-validation's (`?validation`) folds, parameters and y-scrambling, and its pooled statistics (`?scored`, whose crossvalidationInfo names no fold; `?s`). */
const POOLED_CROSSVALIDATION = sparql`?validation ${ot('numFolds')} ?folds ; ${ot('algorithmParams')} ?params ; ${ot('yScramble')} ?scrambled .
  ?info ${ot('crossvalidation')} ?validation . ?scored ${ot('crossvalidationInfo')} ?info .
  VALUES ?kind { ${ot('regressionStatistics')} ${ot('classificationStatistics')} }
  ?scored ?kind ?s .
  OPTIONAL { ?info ${ot('crossvalidationFold')} ?fold }
  FILTER(!BOUND(?fold))`;

export const mcpQueries = {
  /** The validations of these models (`?validation` ot:model `?model`) and their regression or classification statistics (`?s`). */
  validationsOf(models: string[]): SparqlText {
    return sparql`SELECT ?model ?validation ?s WHERE {
  VALUES ?model { ${iris(models)} }
  ?validation ${ot('model')} ?model .
  VALUES ?kind { ${ot('regressionStatistics')} ${ot('classificationStatistics')} }
  ?validation ?kind ?s .
}`;
  },

  /**
   * The cross-validations of these models' recipe (the same algorithm, training dataset and
   * target), as the model page lists them: the cross-validation's folds, parameters (`?params`)
   * and y-scrambling, its pooled statistics (`?scored`: the result whose crossvalidationInfo names
   * no fold) and their regression or classification statistics (`?s`).
   */
  crossvalidationsOfRecipe(models: string[]): SparqlText {
    return sparql`SELECT ?model ?validation ?folds ?params ?scrambled ?scored ?s WHERE {
  VALUES ?model { ${iris(models)} }
  ?model ${ot('algorithm')} ?algorithm ; ${ot('trainingDataset')} ?dataset ; ${ot('dependentVariables')} ?feature .
  ?validation ${ot('dataset')} ?dataset ; ${ot('predictionFeature')} ?feature ; ${ot('algorithm')} ?algorithm ; ${rdf('type')} ${ot('Crossvalidation')} .
  ${POOLED_CROSSVALIDATION}
}`;
  },

  /** The same of the cross-validations these models name with rdfs:seeAlso. */
  crossvalidationsSeenAlso(models: string[]): SparqlText {
    return sparql`SELECT ?model ?validation ?folds ?params ?scrambled ?scored ?s WHERE {
  VALUES ?model { ${iris(models)} }
  ?model ${rdfs('seeAlso')} ?validation .
  ?validation ${rdf('type')} ${ot('Crossvalidation')} .
  ${POOLED_CROSSVALIDATION}
}`;
  },

  /** Every literal of these statistics (`?s`): the statistic and its value. */
  statisticsOf(statistics: string[]): SparqlText {
    return sparql`SELECT ?s ?statistic ?value WHERE {
  VALUES ?s { ${iris(statistics)} }
  ?s ?statistic ?value .
  FILTER(isLiteral(?value))
}`;
  },

  /** The counts of these validations or pooled results (`?scored`): instances, those without an actual value, those not predicted. */
  countsOf(scored: string[]): SparqlText {
    return sparql`SELECT ?scored ?statistic ?value WHERE {
  VALUES ?scored { ${iris(scored)} }
  VALUES ?statistic { ${ot('numInstances')} ${ot('numWithoutClass')} ${ot('numUnpredicted')} }
  ?scored ?statistic ?value .
}`;
  },

  /** The actual count of each class (`?class`: true positives `?tp` and false negatives `?fn`) in these statistics (`?s`), for a classification's baseline. */
  classCountsOf(statistics: string[]): SparqlText {
    return sparql`SELECT ?s ?class ?tp ?fn WHERE {
  VALUES ?s { ${iris(statistics)} }
  ?s ${ot('classValueStatistics')} ?c .
  ?c ${ot('classValue')} ?class ; ${ot('numTruePositives')} ?tp ; ${ot('numFalseNegatives')} ?fn .
}`;
  },
};
