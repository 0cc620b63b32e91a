import type * as RDF from '@rdfjs/types';
import { df } from '../../rdf/namespaces.ts';

const XSD = 'http://www.w3.org/2001/XMLSchema#';

/**
 * How literals travel to and from a remote store without changing. Virtuoso 7.2 (Debian's)
 * keeps doubles and floats exactly but writes them in results with six significant digits
 * ("-2.7182818284590451" comes back as "-2.71828"), and answers booleans as 1 and 0. So:
 * - doubles and floats are stored under a datatype of their own, which servers keep as text
 *   (`"-2.7182818284590451"^^<urn:toxgraph:exact:double>`), and read back as they were written;
 *   query expressions see them as numbers again (see union-graph-rewrite.ts);
 * - booleans read as 1 or 0 are read as true and false.
 */
export const EXACT_DATATYPE_PREFIX = 'urn:toxgraph:exact:';
const EXACT = new Map([
  [`${XSD}double`, `${EXACT_DATATYPE_PREFIX}double`],
  [`${XSD}float`, `${EXACT_DATATYPE_PREFIX}float`],
]);
const ORIGINAL = new Map([...EXACT].map(([a, b]) => [b, a]));

/** The literal as it is stored on the server. */
export function toServer<T extends RDF.Term>(term: T): T {
  if (term.termType !== 'Literal') return term;
  const exact = EXACT.get(term.datatype.value);
  return exact ? (df.literal(term.value, df.namedNode(exact)) as unknown as T) : term;
}

/** The literal as it was written; a blank node with a label that Turtle can write (Virtuoso's are `nodeID://b10019`). */
export function fromServer<T extends RDF.Term>(term: T): T {
  if (term.termType === 'BlankNode') return /^[A-Za-z0-9_]+$/.test(term.value) ? term : (df.blankNode(term.value.replace(/^nodeID:\/\//, '').replace(/[^A-Za-z0-9_]/g, '_')) as unknown as T);
  if (term.termType !== 'Literal') return term;
  const datatype = term.datatype.value;
  const original = ORIGINAL.get(datatype);
  if (original) return df.literal(term.value, df.namedNode(original)) as unknown as T;
  if (datatype === `${XSD}boolean` && (term.value === '1' || term.value === '0')) return df.literal(term.value === '1' ? 'true' : 'false', term.datatype) as unknown as T;
  return term;
}

export function quadFromServer(q: RDF.Quad): RDF.Quad {
  const subject = fromServer(q.subject);
  const object = fromServer(q.object);
  return object === q.object && subject === q.subject ? q : df.quad(subject, q.predicate, object, q.graph);
}

/** The exact datatypes, as (stored, original) pairs: expressions turn the stored ones back into numbers. */
export function exactDatatypes(): [string, string][] {
  return [...ORIGINAL];
}
