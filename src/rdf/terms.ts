import type * as RDF from '@rdfjs/types';
import { badRequest } from '../core/errors.ts';
import { literal, xsd } from './namespaces.ts';

/** A string that identifies a term exactly (type, value, language, datatype). */
export function termKey(t: RDF.Term): string {
  switch (t.termType) {
    case 'NamedNode':
      return `<${t.value}>`;
    case 'BlankNode':
      return `_:${t.value}`;
    case 'Literal':
      return `"${t.value}"@${t.language}^^${t.datatype.value}`;
    case 'DefaultGraph':
      return '';
    default:
      return `${t.termType}:${t.value}`;
  }
}

export function quadKey(q: RDF.Quad): string {
  return `${termKey(q.subject)} ${termKey(q.predicate)} ${termKey(q.object)} ${termKey(q.graph)}`;
}

/**
 * A term's key in a Map: an IRI's own value (a string whose hash V8 has already computed when
 * the term came from a quad, where a key made anew is hashed on every lookup), any other term's
 * termKey (starting with `_:`, `"` or empty, which no IRI key does: an IRI that could be taken
 * for one is keyed by its termKey too).
 */
export function termMapKey(t: RDF.Term): string {
  if (t.termType === 'NamedNode' && t.value !== '' && !t.value.startsWith('_:') && !t.value.startsWith('"')) return t.value;
  return termKey(t);
}

/** Does a pattern term (undefined or a variable = wildcard) match the term? */
export function matchesPattern(pattern: RDF.Term | null | undefined, term: RDF.Term): boolean {
  return !pattern || pattern.termType === 'Variable' || pattern.equals(term);
}

/** A literal's value as a number, or NaN (no literal, empty, not a finite number). */
export function numberOf(v: RDF.Literal | undefined): number {
  if (!v) return NaN;
  const s = v.value.trim();
  if (s === '') return NaN;
  const n = Number(s);
  return Number.isFinite(n) ? n : NaN;
}

/** A number as xsd:double, spelled as XSD spells the ones JSON has not: INF, -INF, NaN (an unbounded interval's bound). */
export function doubleLiteral(v: number): RDF.Literal {
  return literal(Number.isFinite(v) ? String(v) : Number.isNaN(v) ? 'NaN' : v > 0 ? 'INF' : '-INF', xsd('double'));
}

/** An xsd:double's value with INF and -INF as infinities (numberOf leaves them out); NaN when there is none. */
export function doubleOf(v: RDF.Literal | undefined): number {
  const s = v?.value.trim();
  if (s === 'INF' || s === '+INF') return Number.POSITIVE_INFINITY;
  if (s === '-INF') return Number.NEGATIVE_INFINITY;
  return numberOf(v);
}

const IRI_FORBIDDEN = /[\u0000-\u0020<>"{}|^`\\]/;

/** Throws a 400 when the string cannot be an IRI in SPARQL (and hence in our store). */
export function checkIri(iri: string): string {
  if (iri.length === 0 || IRI_FORBIDDEN.test(iri) || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(iri)) {
    throw badRequest(`not a valid absolute IRI: ${JSON.stringify(iri.slice(0, 200))}`);
  }
  return iri;
}
