import { propertyValue } from './graph-values.ts';
import type * as RDF from '@rdfjs/types';
import { df, ot, rdf, literal, xsd } from './namespaces.ts';
import type { HttpError } from '../core/errors.ts';

/** The quads of an ot:ErrorReport (DESIGN.md), rooted at `node`. */
export function errorReportQuads(node: RDF.NamedNode | RDF.BlankNode, error: Pick<HttpError, 'status' | 'code' | 'message' | 'details'>, actor: string): RDF.Quad[] {
  const quads = [
    df.quad(node, rdf('type'), ot('ErrorReport')),
    df.quad(node, ot('errorCode'), literal(error.code)),
    df.quad(node, ot('message'), literal(error.message)),
    df.quad(node, ot('statusCode'), literal(error.status)),
    df.quad(node, ot('actor'), literal(actor, xsd('anyURI'))),
  ];
  if (error.details) quads.push(df.quad(node, ot('errorCause'), literal(error.details)));
  return quads;
}

/** Read an error report back (for tasks that failed). */
export function readErrorReport(quads: RDF.Quad[], node: RDF.Term): { status: number; code: string; message: string; details?: string; actor?: string } | undefined {
  const get = (p: RDF.NamedNode) => propertyValue(quads, node, p);
  const status = Number(get(ot('statusCode')));
  if (!Number.isFinite(status)) return undefined;
  return { status, code: get(ot('errorCode')) ?? 'Error', message: get(ot('message')) ?? '', details: get(ot('errorCause')), actor: get(ot('actor')) };
}
