import { df, ot } from '../rdf/namespaces.ts';
import { checkIri } from '../rdf/terms.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';

/** The read-across component's queries (every term bound through the template, never pasted). */
export const readAcrossQueries = {
  /** Every value of the features in any dataset's rows: compound, feature, value and the rows' graph (`{dataset}/entries`). */
  endpointValues(features: string[]): SparqlText {
    const f = features.map((uri) => df.namedNode(checkIri(uri)));
    return sparql`SELECT ?c ?f ?v ?g WHERE { VALUES ?f { ${f} } GRAPH ?g { ?e ?f ?v . ?e ${ot('compound')} ?c } }`;
  },
  /** The models of any of these features (`ot:dependentVariables`), this server's or harvested. */
  modelsOf(features: string[]): SparqlText {
    const f = features.map((uri) => df.namedNode(checkIri(uri)));
    return sparql`SELECT DISTINCT ?m WHERE { VALUES ?f { ${f} } GRAPH ?m { ?m a ${ot('Model')} ; ${ot('dependentVariables')} ?f } } ORDER BY ?m`;
  },
  /** Every category, and its parent when it subdivides one. */
  categories(): SparqlText {
    return sparql`SELECT ?c ?parent WHERE { GRAPH ?c { ?c a ${ot('Category')} OPTIONAL { ?c ${ot('parentCategory')} ?parent } } } ORDER BY ?c`;
  },
};
