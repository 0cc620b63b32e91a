import type * as RDF from '@rdfjs/types';
import { Writer as N3Writer } from 'n3';
import { JsonLdSerializer } from 'jsonld-streaming-serializer';
import scribe from '@graphy/content.xml.scribe';
import { HttpError } from '../core/errors.ts';
import { df, PREFIXES } from './namespaces.ts';

/** RDF media types we write, the default first. */
export const RDF_OUTPUT_TYPES = ['application/rdf+xml', 'text/turtle', 'application/n-triples', 'application/ld+json', 'text/n3'];

/** Media types whose output can hold named graphs. */
export const QUAD_OUTPUT_TYPES = ['application/n-quads', 'application/trig'];

export async function serializeRdf(quads: RDF.Quad[], mediaType: string, prefixes: Record<string, string> = PREFIXES): Promise<string> {
  switch (mediaType) {
    case 'application/rdf+xml':
      return writeRdfXml(quads, prefixes);
    case 'application/ld+json':
      return writeJsonLd(quads, prefixes);
    case 'text/turtle':
    case 'text/n3':
    case 'application/n-triples':
    case 'application/n-quads':
    case 'application/trig':
      return writeN3(quads, mediaType, prefixes);
    default:
      throw new Error(`no RDF serializer for ${mediaType}`);
  }
}

function asTriples(quads: RDF.Quad[]): RDF.Quad[] {
  return quads.map((q) => (q.graph.termType === 'DefaultGraph' ? q : df.quad(q.subject, q.predicate, q.object)));
}

function writeN3(quads: RDF.Quad[], mediaType: string, prefixes: Record<string, string>): Promise<string> {
  const keepGraphs = QUAD_OUTPUT_TYPES.includes(mediaType);
  const lineBased = mediaType === 'application/n-triples' || mediaType === 'application/n-quads';
  const format = { 'text/turtle': 'Turtle', 'text/n3': 'N3', 'application/n-triples': 'N-Triples', 'application/n-quads': 'N-Quads', 'application/trig': 'TriG' }[mediaType];
  const writer = new N3Writer({ format, prefixes: lineBased ? undefined : prefixes });
  writer.addQuads((keepGraphs ? quads : asTriples(quads)) as any);
  return new Promise((resolve, reject) => writer.end((err, out) => (err ? reject(err) : resolve(out))));
}

function writeJsonLd(quads: RDF.Quad[], prefixes: Record<string, string>): Promise<string> {
  const serializer = new JsonLdSerializer({ space: '  ', context: prefixes, useRdfType: false } as any);
  return new Promise((resolve, reject) => {
    let out = '';
    serializer.on('data', (chunk: Buffer | string) => (out += chunk.toString()));
    serializer.on('error', reject);
    serializer.on('end', () => resolve(out));
    for (const q of asTriples(quads)) serializer.write(q);
    serializer.end();
  });
}

// --- RDF/XML ---------------------------------------------------------------------------

// Characters XML 1.0 allows in text and attribute values.
const XML_ILLEGAL = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
// A predicate needs an NCName tail to become an element name.
const NCNAME_TAIL =
  /[A-Za-z_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD][A-Za-z0-9_.\-\u00B7\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u037D\u037F-\u1FFF\u200C-\u200D\u203F-\u2040\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]*$/;

export class NotRepresentableError extends HttpError {
  constructor(message: string) {
    super(400, 'NotRepresentable', `${message}; this content cannot be written as application/rdf+xml, ask for text/turtle or application/n-triples instead`);
  }
}

function checkXmlText(text: string, what: string): void {
  if (XML_ILLEGAL.test(text)) throw new NotRepresentableError(`${what} contains a character that XML 1.0 does not allow`);
}

function c1(term: RDF.Term): string {
  switch (term.termType) {
    case 'NamedNode':
      checkXmlText(term.value, `the IRI <${term.value.slice(0, 100)}>`);
      return `>${term.value}`;
    case 'BlankNode':
      return `_:${term.value.replace(/[^A-Za-z0-9_]/g, '_')}`;
    case 'Literal':
      checkXmlText(term.value, 'a literal');
      if (term.language) return `@${term.language}"${term.value}`;
      if (term.datatype && term.datatype.value !== 'http://www.w3.org/2001/XMLSchema#string') {
        checkXmlText(term.datatype.value, 'a datatype IRI');
        return `^>${term.datatype.value}"${term.value}`;
      }
      return `"${term.value}`;
    default:
      throw new NotRepresentableError(`a ${term.termType} term`);
  }
}

/** Quads as graphy's concise triples hash, checked for what RDF/XML can carry. */
export function toC3r(quads: RDF.Quad[]): Record<string, Record<string, string[]>> {
  const tree: Record<string, Record<string, string[]>> = {};
  for (const q of quads) {
    if (!NCNAME_TAIL.test(q.predicate.value)) {
      throw new NotRepresentableError(`the predicate <${q.predicate.value}> has no XML QName form`);
    }
    const s = c1(q.subject);
    const p = c1(q.predicate);
    ((tree[s] ??= {})[p] ??= []).push(c1(q.object));
  }
  return tree;
}

function writeRdfXml(quads: RDF.Quad[], prefixes: Record<string, string>): Promise<string> {
  const tree = toC3r(quads);
  return new Promise((resolve, reject) => {
    const writer = scribe({ prefixes });
    let out = '';
    writer.on('data', (d: string | Buffer) => (out += d.toString()));
    writer.on('error', reject);
    writer.on('end', () => resolve(out));
    writer.write({ type: 'c3r', value: tree });
    writer.end();
  });
}
