import { df, literal, ot } from '../rdf/namespaces.ts';
import { dataTriples, sparql, type SparqlText } from '../store/sparql-template.ts';
import { checkIri } from '../rdf/terms.ts';
import { KEYS_GRAPH, POLICIES_GRAPH, TOKENS_GRAPH, keyNode, keyQuads, policyQuads, tokenNode, tokensQuads, type ApiKey, type Policy } from './auth-codec.ts';

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
  /** Write one API key whole (a new one, its revocation, its last use), in place of what was stored of it. */
  setKey(key: ApiKey): SparqlText {
    const g = df.namedNode(KEYS_GRAPH);
    return sparql`DELETE WHERE { GRAPH ${g} { ${keyNode(key.id)} ?p ?o } } ; INSERT DATA { GRAPH ${g} { ${dataTriples(keyQuads(key))} } }`;
  },
  /** A key's last use, and nothing else of it (a revocation written meanwhile by another process stays). */
  setKeyLastUsed(id: string, when: number): SparqlText {
    const g = df.namedNode(KEYS_GRAPH);
    return sparql`DELETE WHERE { GRAPH ${g} { ${keyNode(id)} ${ot('lastUsed')} ?o } } ; INSERT DATA { GRAPH ${g} { ${keyNode(id)} ${ot('lastUsed')} ${literal(new Date(when))} } }`;
  },
  /** The statements of the key with this hash (another process made it). */
  keyByHash(hash: string): SparqlText {
    const g = df.namedNode(KEYS_GRAPH);
    return sparql`CONSTRUCT { ?k ?p ?o } WHERE { GRAPH ${g} { ?k ${ot('keyHash')} ${literal(hash)} ; ?p ?o } }`;
  },
  /** Every key of a user (a removed user). */
  removeKeysOf(user: string): SparqlText {
    const g = df.namedNode(KEYS_GRAPH);
    return sparql`DELETE { GRAPH ${g} { ?k ?p ?o } } WHERE { GRAPH ${g} { ?k ${ot('user')} ${literal(user)} ; ${ot('keyHash')} ?h ; ?p ?o } }`;
  },
  /** Replace one resource's policy, its OpenSSO policies with it (one atomic request). */
  setPolicy(policy: Policy): SparqlText {
    return authQueries.setPolicies([policy]);
  },
  /** Replace several resources' policies (each with its OpenSSO policies) in one atomic request. */
  setPolicies(policies: Policy[]): SparqlText {
    const g = df.namedNode(POLICIES_GRAPH);
    const resources = policies.map((p) => df.namedNode(checkIri(p.resource)));
    return sparql`DELETE { GRAPH ${g} { ?named ?np ?no } } WHERE { GRAPH ${g} { VALUES ?r { ${resources} } ?named ${ot('policyOf')} ?r ; ?np ?no } } ; DELETE { GRAPH ${g} { ?r ?p ?o } } WHERE { GRAPH ${g} { VALUES ?r { ${resources} } ?r ?p ?o } } ; INSERT DATA { GRAPH ${g} { ${dataTriples(policies.flatMap(policyQuads))} } }`;
  },
};
