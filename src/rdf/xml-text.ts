import { isXmlText } from '../core/xml-chars.ts';

/**
 * Text as every output can carry it, whatever the store holds: a literal or an IRI may hold
 * characters XML 1.0 cannot carry (U+0000, other C0 controls, U+FFFE, U+FFFF, lone surrogates:
 * written through SPARQL Update, the Graph Store, or before uploads refused them). No output may
 * fail on them, so each writer passes its text through here: XML outputs (RDF/XML, workbooks,
 * DocBook, QMRF, PMML) drop those characters from text, and every RDF output percent-encodes
 * what an IRI cannot hold.
 */

/**
 * Characters XML 1.0 cannot carry at all (see core/xml-chars.ts; a surrogate only when it is not
 * half of a pair). No `u` flag: V8 searches ASCII text many times faster without it.
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text without the characters XML 1.0 cannot carry (dropped); the same string when it has none. */
export function xmlText(s: string): string {
  return isXmlText(s) ? s : s.replace(NOT_XML, '');
}

/** Text as XML character data or an attribute value: markup escaped, characters XML cannot carry dropped (the writers of DocBook, QMRF and PMML documents). */
export function escapeXml(s: string): string {
  return xmlText(s).replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/**
 * Characters an IRI cannot hold (RFC 3987 and Turtle's IRIREF): controls and space, `<>"{}|^`\`,
 * U+FFFE, U+FFFF and lone surrogates. No `u` flag (see NOT_XML).
 */
const NOT_IN_IRI = /[\u0000-\u0020<>"{}|^`\\\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NOT_IN_IRI_ALL = new RegExp(NOT_IN_IRI.source, 'g');

/**
 * An IRI as RDF outputs can write it: what an IRI cannot hold percent-encoded as UTF-8 (a lone
 * surrogate as U+FFFD, which is what UTF-8 would make of it); the same string when it is fine.
 */
export function writableIri(iri: string): string {
  if (!NOT_IN_IRI.test(iri)) return iri;
  return iri.replace(NOT_IN_IRI_ALL, (c) => {
    const code = c.charCodeAt(0);
    return code >= 0xd800 && code <= 0xdfff ? '%EF%BF%BD' : encodeURIComponent(c);
  });
}
