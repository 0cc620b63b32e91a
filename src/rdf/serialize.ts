import type * as RDF from '@rdfjs/types';
import { Writer as N3Writer } from 'n3';
import { JsonLdSerializer } from 'jsonld-streaming-serializer';
import scribe from '@graphy/content.xml.scribe';
import { HttpError } from '../core/errors.ts';
import { TimeSlices } from '../core/time-slices.ts';
import { df, PREFIXES } from './namespaces.ts';
import { writableIri, xmlText } from './xml-text.ts';

/** RDF media types we write, the default first. */
export const RDF_OUTPUT_TYPES = ['application/rdf+xml', 'text/turtle', 'application/n-triples', 'application/ld+json', 'text/n3'];

/** Media types whose output can hold named graphs. */
export const QUAD_OUTPUT_TYPES = ['application/n-quads', 'application/trig'];

const N3_FORMATS: Record<string, string> = {
  'text/turtle': 'Turtle',
  'text/n3': 'N3',
  'application/n-triples': 'N-Triples',
  'application/n-quads': 'N-Quads',
  'application/trig': 'TriG',
};

/** Quads handed to a writer at a time: the event loop gets a turn between pieces when a time slice is used up. */
const QUADS_PER_PIECE = 1000;

export interface RdfWriteOptions {
  prefixes?: Record<string, string>;
  /**
   * RDF/XML: leave out the statements it cannot express (a predicate with no QName form)
   * instead of refusing the whole: a list of many resources is not refused for one of them.
   */
  omitUnrepresentable?: boolean;
}

export async function serializeRdf(quads: RDF.Quad[], mediaType: string, prefixes: Record<string, string> = PREFIXES, options: RdfWriteOptions = {}): Promise<string> {
  const out: string[] = [];
  for await (const text of rdfText([quads], mediaType, { ...options, prefixes })) out.push(text);
  return out.join('');
}

/**
 * RDF text in pieces, from parts of quads that may come one at a time (a dataset's rows): each
 * part is written a thousand quads at a time, and the event loop gets a turn whenever a time
 * slice is used up, however large the part. What a format cannot carry is refused (RDF/XML) or
 * percent-encoded (IRIs) before anything of its part is written; the first text comes with the
 * first part's.
 */
export async function* rdfText(parts: AsyncIterable<RDF.Quad[]> | Iterable<RDF.Quad[]>, mediaType: string, options: RdfWriteOptions = {}): AsyncGenerator<string> {
  const prefixes = options.prefixes ?? PREFIXES;
  if (mediaType === 'application/rdf+xml') yield* rdfXmlText(parts, prefixes, options.omitUnrepresentable ?? false);
  else if (mediaType === 'application/ld+json') yield* jsonLdText(parts, prefixes);
  else if (N3_FORMATS[mediaType]) yield* n3Text(parts, mediaType, prefixes);
  else throw new Error(`no RDF serializer for ${mediaType}`);
}

/** A named node whose IRI holds what an IRI cannot (see writableIri) made writable; any other term as it is. */
function writableTerm<T extends RDF.Term>(t: T): T {
  if (t.termType !== 'NamedNode') return t;
  const iri = writableIri(t.value);
  return iri === t.value ? t : (df.namedNode(iri) as unknown as T);
}

function writableQuad(q: RDF.Quad, keepGraph: boolean): RDF.Quad {
  const s = writableTerm(q.subject);
  const p = writableTerm(q.predicate);
  const o = q.object.termType === 'Literal' && q.object.datatype.value !== writableIri(q.object.datatype.value) ? df.literal(q.object.value, writableTerm(q.object.datatype)) : writableTerm(q.object);
  const g = keepGraph ? writableTerm(q.graph) : df.defaultGraph();
  return s === q.subject && p === q.predicate && o === q.object && g === q.graph ? q : df.quad(s, p, o, g);
}

/**
 * A writer's output as it comes ('data' events), its error, and `drained` for a write it did
 * not take at once: its writes are then buffered and would all be written in one go later,
 * however many, so the next waits until they are.
 */
function collect(writer: NodeJS.EventEmitter): { take(): string; failed(): Error | undefined; ended: Promise<void>; drained(): Promise<unknown> } {
  const pending: string[] = [];
  let error: Error | undefined;
  writer.on('data', (d: string | Buffer) => pending.push(d.toString()));
  const ended = new Promise<void>((resolve, reject) => {
    writer.on('end', () => resolve());
    writer.on('error', (e: Error) => {
      error = e;
      reject(e);
    });
  });
  ended.catch(() => undefined); // read through failed() and awaited at the end
  return {
    take: () => pending.splice(0).join(''),
    failed: () => error,
    ended,
    drained: () => Promise.race([new Promise((resolve) => writer.once('drain', resolve)), ended]),
  };
}

async function* n3Text(parts: AsyncIterable<RDF.Quad[]> | Iterable<RDF.Quad[]>, mediaType: string, prefixes: Record<string, string>): AsyncGenerator<string> {
  const keepGraphs = QUAD_OUTPUT_TYPES.includes(mediaType);
  const lineBased = mediaType === 'application/n-triples' || mediaType === 'application/n-quads';
  const pending: string[] = [];
  // one writer for the whole output (a subject's statements stay together across parts, prefixes come once); it writes to `pending`
  const sink = {
    write(text: string, _encoding?: string, done?: () => void) {
      pending.push(text);
      done?.();
      return true;
    },
    end: (done?: () => void) => done?.(),
  };
  const writer = new N3Writer(sink as never, { format: N3_FORMATS[mediaType], prefixes: lineBased ? undefined : prefixes });
  const slices = new TimeSlices();
  for await (const quads of parts) {
    for (let i = 0; i < quads.length; i++) {
      writer.addQuad(writableQuad(quads[i], keepGraphs) as never);
      if (i % QUADS_PER_PIECE === QUADS_PER_PIECE - 1) {
        if (pending.length) yield pending.splice(0).join('');
        await slices.pause();
      }
    }
    if (pending.length) yield pending.splice(0).join('');
    await slices.pause();
  }
  await new Promise<void>((resolve, reject) => writer.end((err: Error | null) => (err ? reject(err) : resolve())));
  if (pending.length) yield pending.join('');
}

async function* jsonLdText(parts: AsyncIterable<RDF.Quad[]> | Iterable<RDF.Quad[]>, prefixes: Record<string, string>): AsyncGenerator<string> {
  const serializer = new JsonLdSerializer({ space: '  ', context: prefixes, useRdfType: false } as never);
  const out = collect(serializer as unknown as NodeJS.EventEmitter);
  const slices = new TimeSlices();
  for await (const quads of parts) {
    for (let i = 0; i < quads.length; i++) {
      if (!serializer.write(writableQuad(quads[i], false))) await out.drained();
      if (i % QUADS_PER_PIECE === QUADS_PER_PIECE - 1) {
        await slices.pause();
        if (out.failed()) throw out.failed();
        const text = out.take();
        if (text) yield text;
      }
    }
    await slices.pause();
    if (out.failed()) throw out.failed();
    const text = out.take();
    if (text) yield text;
  }
  serializer.end();
  await out.ended;
  const text = out.take();
  if (text) yield text;
}

// --- RDF/XML ---------------------------------------------------------------------------

// A predicate needs an NCName tail to become an element name.
const NCNAME_TAIL =
  /[A-Za-z_\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD][A-Za-z0-9_.\-\u00B7\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u037D\u037F-\u1FFF\u200C-\u200D\u203F-\u2040\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]*$/;

export class NotRepresentableError extends HttpError {
  constructor(message: string) {
    super(400, 'NotRepresentable', `${message}; this content cannot be written as application/rdf+xml, ask for text/turtle or application/n-triples instead`);
  }
}

/** Why RDF/XML cannot express a statement (of a quad already made writable), or undefined when it can. */
function notRepresentable(q: RDF.Quad, predicates: Map<string, boolean>): string | undefined {
  let fits = predicates.get(q.predicate.value);
  if (fits === undefined) predicates.set(q.predicate.value, (fits = NCNAME_TAIL.test(q.predicate.value)));
  if (!fits) return `the predicate <${q.predicate.value}> has no XML QName form`;
  for (const t of [q.subject, q.object]) if (t.termType !== 'NamedNode' && t.termType !== 'BlankNode' && t.termType !== 'Literal') return `a ${t.termType} term`;
  return undefined;
}

/** A term in graphy's concise form; literal text without what XML cannot carry (dropped), language tags as BCP 47 allows them. */
function c1(term: RDF.Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return `>${term.value}`;
    case 'BlankNode':
      return `_:${term.value.replace(/[^A-Za-z0-9_]/g, '_')}`;
    case 'Literal': {
      const text = xmlText(term.value);
      if (term.language) return `@${term.language.replace(/[^A-Za-z0-9-]/g, '')}"${text}`;
      if (term.datatype && term.datatype.value !== 'http://www.w3.org/2001/XMLSchema#string') return `^>${term.datatype.value}"${text}`;
      return `"${text}`;
    }
    default:
      throw new NotRepresentableError(`a ${term.termType} term`);
  }
}

/** Quads (already checked and made writable) as graphy's concise triples hash. */
function toC3r(quads: RDF.Quad[]): Record<string, Record<string, string[]>> {
  const tree: Record<string, Record<string, string[]>> = {};
  for (const q of quads) {
    const s = c1(q.subject);
    const p = c1(q.predicate);
    ((tree[s] ??= {})[p] ??= []).push(c1(q.object));
  }
  return tree;
}

async function* rdfXmlText(parts: AsyncIterable<RDF.Quad[]> | Iterable<RDF.Quad[]>, prefixes: Record<string, string>, omit: boolean): AsyncGenerator<string> {
  const writer = scribe({ prefixes });
  const out = collect(writer as unknown as NodeJS.EventEmitter);
  const slices = new TimeSlices();
  const predicates = new Map<string, boolean>();
  for await (const part of parts) {
    // the whole part is checked before any of it is written: a refusal comes before its text
    const quads: RDF.Quad[] = [];
    for (let i = 0; i < part.length; i++) {
      const writable = writableQuad(part[i], false);
      const problem = notRepresentable(writable, predicates);
      if (!problem) quads.push(writable);
      else if (!omit) throw new NotRepresentableError(problem);
      if (i % QUADS_PER_PIECE === QUADS_PER_PIECE - 1) await slices.pause();
    }
    for (let i = 0; i < quads.length; i += QUADS_PER_PIECE) {
      if (!writer.write({ type: 'c3r', value: toC3r(quads.slice(i, i + QUADS_PER_PIECE)) })) await out.drained();
      await slices.pause();
      if (out.failed()) throw out.failed();
      const text = out.take();
      if (text) yield text;
    }
  }
  writer.end();
  await out.ended;
  const text = out.take();
  if (text) yield text;
}
