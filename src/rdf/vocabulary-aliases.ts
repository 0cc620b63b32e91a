import type * as RDF from '@rdfjs/types';
import { df, ot } from './namespaces.ts';

/**
 * The OpenTox 1.2 vocabulary, read as the 1.1 one this server writes: clients of 2010–2014 type
 * their features, datasets and models in `http://www.opentox.org/api/1.2#`, whose terms have
 * the local names of their `api/1.1#` equals. Every RDF input is read through `inCurrentVocabulary`
 * (rdf/parse.ts), so what is stored and answered is the one vocabulary.
 */
export const OPENTOX_API_1_2 = 'http://www.opentox.org/api/1.2#';

/** The IRI this server uses for `iri`: an `api/1.2#` term as its `api/1.1#` equal, any other as it is. */
export function currentIri(iri: string): string {
  return iri.startsWith(OPENTOX_API_1_2) ? `${ot.iri}${iri.slice(OPENTOX_API_1_2.length)}` : iri;
}

function currentTerm<T extends RDF.Term>(term: T): T {
  if (term.termType === 'NamedNode' && term.value.startsWith(OPENTOX_API_1_2)) return df.namedNode(currentIri(term.value)) as unknown as T;
  if (term.termType === 'Literal' && term.datatype.value.startsWith(OPENTOX_API_1_2)) return df.literal(term.value, df.namedNode(currentIri(term.datatype.value))) as unknown as T;
  return term;
}

/** The quads with every `api/1.2#` term as its `api/1.1#` equal (the same array when none holds one). */
export function inCurrentVocabulary(quads: RDF.Quad[]): RDF.Quad[] {
  const touches = (t: RDF.Term) => (t.termType === 'NamedNode' ? t.value : t.termType === 'Literal' ? t.datatype.value : '').startsWith(OPENTOX_API_1_2);
  if (!quads.some((q) => touches(q.subject) || touches(q.predicate) || touches(q.object) || touches(q.graph))) return quads;
  return quads.map((q) => df.quad(currentTerm(q.subject), currentTerm(q.predicate), currentTerm(q.object), currentTerm(q.graph)));
}
