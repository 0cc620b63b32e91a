import { rdf } from '../rdf/namespaces.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';
import { tgp } from './profiler-rules.ts';

/** The profiler component's queries (every term bound through the template, never pasted). */
export const profilerQueries = {
  /** The graphs that describe profilers or their categories: the rule sets and the vocabulary loaded from ontology/profilers-*.ttl. */
  ruleSetGraphs(): SparqlText {
    return sparql`SELECT DISTINCT ?g WHERE { GRAPH ?g { { ?p ${rdf('type')} ${tgp('Profiler')} } UNION { ?c ${rdf('type')} ${tgp('Category')} } } } ORDER BY ?g`;
  },
};
