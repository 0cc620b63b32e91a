import { dcterms, df, literal, ot } from '../rdf/namespaces.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';
import { checkIri } from '../rdf/terms.ts';
import { TASK_RUNNER } from './task-codec.ts';

/** Every SPARQL query of the task component, by name (the lists bind `?t`). */
export const taskQueries = {
  /** All tasks, oldest first. */
  all(): SparqlText {
    return sparql`SELECT ?t ?created WHERE { GRAPH ?t { ?t a ${ot('Task')} ; ${dcterms('created')} ?created } } ORDER BY ?created`;
  },
  /** Tasks still Queued or Running, with the process that runs them (`?runner`, when recorded). */
  unfinished(): SparqlText {
    return sparql`SELECT ?t ?runner WHERE { GRAPH ?t { ?t a ${ot('Task')} ; ${ot('hasStatus')} ?status OPTIONAL { ?t ${TASK_RUNNER} ?runner } } FILTER(?status IN (${literal('Running')}, ${literal('Queued')})) }`;
  },
  /** Tasks with a record of what they created (`{task}/minted`, which only unfinished work keeps). */
  withMintedRecord(): SparqlText {
    return sparql`SELECT DISTINCT ?t WHERE { GRAPH ?g { ?t ${ot('minted')} ?m } }`;
  },
  /** The status of one task (`ot:hasStatus` in its graph), binding `?status`; no row when there is no such task. */
  status(task: string): SparqlText {
    const t = df.namedNode(checkIri(task));
    return sparql`SELECT ?status WHERE { GRAPH ${t} { ${t} ${ot('hasStatus')} ?status } }`;
  },
  /** The process that runs one task (`urn:toxgraph:runner` in its graph), binding `?runner`; no row when none is recorded. */
  runner(task: string): SparqlText {
    const t = df.namedNode(checkIri(task));
    return sparql`SELECT ?runner WHERE { GRAPH ${t} { ${t} ${TASK_RUNNER} ?runner } }`;
  },
};
