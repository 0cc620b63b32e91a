import { dc, df, ot } from '../rdf/namespaces.ts';
import { NOT_PART_OF_ANOTHER, resourcesOfType, type ListOptions } from '../store/query-helpers.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';
import { checkIri } from '../rdf/terms.ts';

/**
 * Every SPARQL query of the dataset component, by name. The rows themselves are read by
 * streaming the entries graph (`{uri}/entries`, in the store's bulk partition), not by a query:
 * see DatasetStore.rows.
 */
export const datasetQueries = {
  /** All datasets, binding `?r`. */
  all(options: ListOptions = {}): SparqlText {
    return resourcesOfType(ot('Dataset'), [], options);
  },
  /** All datasets but intermediate work, with their titles (forms that offer a choice of datasets), binding `?r` and `?t` (unbound without a title). */
  titled(): SparqlText {
    return sparql`SELECT ?r ?t WHERE { GRAPH ?r { ?r a ${ot('Dataset')} OPTIONAL { ?r ${dc('title')} ?t } ${NOT_PART_OF_ANOTHER} } }`;
  },
  /** The number of rows of a dataset, binding `?n`. */
  rowCount(uri: string, entriesGraph: string): SparqlText {
    return sparql`SELECT (COUNT(?e) AS ?n) WHERE { GRAPH ${df.namedNode(checkIri(entriesGraph))} { ${df.namedNode(checkIri(uri))} ${ot('dataEntry')} ?e } }`;
  },
  /** The selections whose rows are rows of a dataset (`ot:rowsOf` it), binding `?d`. */
  selectionsOf(source: string): SparqlText {
    return sparql`SELECT DISTINCT ?d WHERE { GRAPH ?d { ?d ${ot('rowsOf')} ${df.namedNode(checkIri(source))} } }`;
  },
  /** Every graph holding rows, with its dataset, binding `?g` and `?d` (to find the rows of uploads that never finished). */
  entryGraphs(): SparqlText {
    return sparql`SELECT DISTINCT ?g ?d WHERE { GRAPH ?g { ?d ${ot('dataEntry')} ?e } }`;
  },
};
