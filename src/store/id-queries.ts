import { df, literal, ot } from '../rdf/namespaces.ts';
import { sparql, type SparqlText } from './sparql-template.ts';

/** The update of the id minter when processes share a counter. */
export const idQueries = {
  /** Record `end` as a collection's last reserved id unless a higher one is recorded. */
  raiseCounter(graph: string, collection: string, end: number): SparqlText {
    const g = df.namedNode(graph);
    const c = df.namedNode(collection);
    const n = literal(end);
    return sparql`DELETE { GRAPH ${g} { ${c} ${ot('lastId')} ?n } } INSERT { GRAPH ${g} { ${c} ${ot('lastId')} ${n} } } WHERE { OPTIONAL { GRAPH ${g} { ${c} ${ot('lastId')} ?n } } FILTER(!BOUND(?n) || ?n < ${n}) }`;
  },
};
