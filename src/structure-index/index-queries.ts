import { ot, rdfs } from '../rdf/namespaces.ts';
import { sparql, type SparqlText } from '../store/sparql-template.ts';

/** The queries the structure index reads the stored compounds with (the index built once over a store that had none). */
export const indexQueries = {
  /** Every compound with its SMILES and InChIKey, binding `?c`, `?s` and `?k` (the structure index built over a store that had none). */
  indexable(): SparqlText {
    return sparql`SELECT ?c ?s ?k WHERE { GRAPH ?c { ?c a ${ot('Compound')} ; ${ot('smiles')} ?s ; ${ot('inchiKey')} ?k } }`;
  },
  /** The names and synonyms of every compound, binding `?c` and `?n`. */
  names(): SparqlText {
    return sparql`SELECT ?c ?n WHERE { GRAPH ?c { ?c a ${ot('Compound')} ; ${rdfs('label')} ?n } }`;
  },
};
