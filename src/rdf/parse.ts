import type * as RDF from '@rdfjs/types';
import { Parser as N3Parser } from 'n3';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { JsonLdParser } from 'jsonld-streaming-parser';
import { badRequest, unsupportedType } from '../core/errors.ts';
import { df } from './namespaces.ts';
import { nonXmlCharProblem } from '../core/xml-chars.ts';
import { inCurrentVocabulary } from './vocabulary-aliases.ts';

/** Request body media types that carry RDF, mapped to the parser that reads them. */
const PARSERS: Record<string, 'n3' | 'rdfxml' | 'jsonld'> = {
  'application/rdf+xml': 'rdfxml',
  'text/turtle': 'n3',
  'application/x-turtle': 'n3',
  'application/n-triples': 'n3',
  'text/n3': 'n3',
  'text/rdf+n3': 'n3',
  'application/n-quads': 'n3',
  'application/trig': 'n3',
  'application/ld+json': 'jsonld',
  // N-Triples' type before RDF 1.1, sent by OpenTox 1.x clients (compounds read text/plain as names first)
  'text/plain': 'n3',
};

export const RDF_INPUT_TYPES = Object.keys(PARSERS);

/** Media types read by the N3 parser under another type's syntax. */
const N3_SYNTAX_OF: Record<string, string> = { 'text/rdf+n3': 'text/n3', 'application/x-turtle': 'text/turtle', 'text/plain': 'application/n-triples' };

export function isRdfMediaType(mediaType: string): boolean {
  return mediaType in PARSERS;
}

/**
 * Parse a request body; any syntax error becomes a 400 that says where it is, and so does a term
 * holding a character that RDF/XML cannot carry (`"a\u0000b"` in Turtle): what is stored must be
 * servable in every RDF syntax. Terms of the OpenTox 1.2 vocabulary are read as their 1.1 equals.
 */
export async function parseRdf(body: string, mediaType: string, baseIri: string): Promise<RDF.Quad[]> {
  const quads = inCurrentVocabulary(await parseRdfSyntax(body, mediaType, baseIri));
  for (const q of quads) {
    for (const term of [q.subject, q.predicate, q.object, q.graph]) {
      if (term.termType !== 'Literal' && term.termType !== 'NamedNode') continue;
      const problem = nonXmlCharProblem(term.value, term.termType === 'Literal' ? `the literal "${term.value.slice(0, 40)}"` : `the IRI <${term.value.slice(0, 80)}>`);
      if (problem) throw badRequest(`the ${mediaType} body is not accepted: ${problem}`);
    }
  }
  return quads;
}

async function parseRdfSyntax(body: string, mediaType: string, baseIri: string): Promise<RDF.Quad[]> {
  const kind = PARSERS[mediaType];
  if (!kind) throw unsupportedType(`unsupported RDF media type ${mediaType}; use one of ${RDF_INPUT_TYPES.join(', ')}`);
  try {
    if (kind === 'n3') {
      const format = N3_SYNTAX_OF[mediaType] ?? mediaType;
      return new N3Parser({ format, baseIRI: baseIri, factory: df as any }).parse(body) as unknown as RDF.Quad[];
    }
    const parser =
      kind === 'rdfxml'
        ? new RdfXmlParser({ baseIRI: baseIri, dataFactory: df as any })
        : new JsonLdParser({
            baseIRI: baseIri,
            dataFactory: df as any,
            // never fetch remote contexts: no outbound requests from request bodies
            documentLoader: {
              load: async (url: string) => {
                throw new Error(`remote JSON-LD contexts are not fetched (${url})`);
              },
            } as any,
          });
    return await new Promise<RDF.Quad[]>((resolve, reject) => {
      const quads: RDF.Quad[] = [];
      parser.on('data', (q: RDF.Quad) => quads.push(q));
      parser.on('error', reject);
      parser.on('end', () => resolve(quads));
      parser.write(body);
      parser.end();
    });
  } catch (e) {
    throw badRequest(`the ${mediaType} body is not valid: ${(e as Error).message}`);
  }
}
