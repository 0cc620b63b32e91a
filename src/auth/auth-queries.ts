import { df } from '../rdf/namespaces.js';
import { checkIri, sparql, type SparqlText } from '../store/sparql-template.js';
import { POLICIES_GRAPH, policyQuads, type Policy } from './auth-codec.js';

/**
 * The SPARQL updates of access control. Users and tokens are small graphs written whole; the
 * policies graph has one entry per resource, so a policy is changed in place.
 */
export const authQueries = {
  /** Replace one resource's policy (one atomic request). */
  setPolicy(policy: Policy): SparqlText {
    const g = df.namedNode(POLICIES_GRAPH);
    const triples = policyQuads(policy).map((q) => sparql`${q.subject} ${q.predicate} ${q.object} .`);
    return sparql`DELETE WHERE { GRAPH ${g} { ${df.namedNode(checkIri(policy.resource))} ?p ?o } } ; INSERT DATA { GRAPH ${g} { ${triples} } }`;
  },
};
