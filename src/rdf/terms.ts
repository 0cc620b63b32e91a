import type * as RDF from '@rdfjs/types';

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
