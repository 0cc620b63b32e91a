import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { readText, requestMediaType } from './body.ts';
import { unsupportedType, badRequest } from '../core/errors.ts';
import { isRdfMediaType, parseRdf, RDF_INPUT_TYPES } from '../rdf/parse.ts';

/** Read and parse an RDF request body (any RDF syntax, named by Content-Type). */
export async function readRdfBody(ctx: Context, limit: number, baseIri: string): Promise<RDF.Quad[]> {
  const mediaType = requestMediaType(ctx);
  if (!isRdfMediaType(mediaType)) {
    throw unsupportedType(`Content-Type ${mediaType || '(none)'} is not an RDF type; send one of ${RDF_INPUT_TYPES.join(', ')}`);
  }
  const text = await readText(ctx, limit);
  if (!text.trim()) throw badRequest('the request body is empty');
  return parseRdf(text, mediaType, baseIri);
}
