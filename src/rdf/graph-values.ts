import type * as RDF from '@rdfjs/types';

/** A subject given as an IRI string or as a term. */
type Subject = string | RDF.Term;

const isSubject = (q: RDF.Quad, s: Subject) => (typeof s === 'string' ? q.subject.value === s : q.subject.equals(s));

/** The values of `predicate` on `subject` in `quads`, in order. */
export function propertyValues(quads: RDF.Quad[], subject: Subject, predicate: RDF.NamedNode): string[] {
  return quads.filter((q) => isSubject(q, subject) && q.predicate.equals(predicate)).map((q) => q.object.value);
}

/** The first value of `predicate` on `subject` in `quads`, if any. */
export function propertyValue(quads: RDF.Quad[], subject: Subject, predicate: RDF.NamedNode): string | undefined {
  return quads.find((q) => isSubject(q, subject) && q.predicate.equals(predicate))?.object.value;
}
