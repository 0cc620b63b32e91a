import { dcterms, df, ot } from '../rdf/namespaces.ts';
import { checkIri } from '../rdf/terms.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';

/** The assessment component's queries (every term bound through the template). */
export const assessmentQueries = {
  all(): SparqlText {
    return sparql`SELECT ?a WHERE { GRAPH ?a { ?a a ${ot('Assessment')} } }`;
  },
  /** The versions of one assessment (its series: the first version's URI). */
  versions(series: string): SparqlText {
    return sparql`SELECT ?a WHERE { GRAPH ?a { ?a a ${ot('Assessment')} ; ${dcterms('isVersionOf')} ${df.namedNode(checkIri(series))} } }`;
  },
};
