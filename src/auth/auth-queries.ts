import { df, literal, ot } from '../rdf/namespaces.ts';
import { dataTriples, sparql, type SparqlText } from '../store/sparql-template.ts';
import { checkIri } from '../rdf/terms.ts';
import { POLICIES_GRAPH, TOKENS_GRAPH, policyQuads, tokenNode, tokensQuads, type Policy } from './auth-codec.ts';

/**
 * The SPARQL of access control. Users are a small graph written whole; tokens and policies are
 * changed one at a time in place (processes sharing the store each add their own).
 */
export const authQueries = {
  /** Add one token and drop the tokens that expired (one request). */
  addToken(hash: string, token: { user: string; expires: number }, now: number): SparqlText {
    const g = df.namedNode(TOKENS_GRAPH);
    return sparql`DELETE { GRAPH ${g} { ?t ?p ?o } } WHERE { GRAPH ${g} { ?t ${ot('expires')} ?e ; ?p ?o } FILTER(?e < ${literal(new Date(now))}) } ; INSERT DATA { GRAPH ${g} { ${dataTriples(tokensQuads(new Map([[hash, token]]), now))} } }`;
  },
  removeToken(hash: string): SparqlText {
    return sparql`DELETE WHERE { GRAPH ${df.namedNode(TOKENS_GRAPH)} { ${tokenNode(hash)} ?p ?o } }`;
  },
  /** Every token of a user (a removed user). */
  removeTokensOf(user: string): SparqlText {
    const g = df.namedNode(TOKENS_GRAPH);
    return sparql`DELETE { GRAPH ${g} { ?t ?p ?o } } WHERE { GRAPH ${g} { ?t ${ot('user')} ${literal(user)} ; ?p ?o } }`;
  },
  /** The user and expiry of one token (binds ?user ?expires). */
  token(hash: string): SparqlText {
    return sparql`SELECT ?user ?expires WHERE { GRAPH ${df.namedNode(TOKENS_GRAPH)} { ${tokenNode(hash)} ${ot('user')} ?user ; ${ot('expires')} ?expires } }`;
  },
  /** Replace one resource's policy (one atomic request). */
  setPolicy(policy: Policy): SparqlText {
    const g = df.namedNode(POLICIES_GRAPH);
    return sparql`DELETE WHERE { GRAPH ${g} { ${df.namedNode(checkIri(policy.resource))} ?p ?o } } ; INSERT DATA { GRAPH ${g} { ${dataTriples(policyQuads(policy))} } }`;
  },
};
