import type * as RDF from '@rdfjs/types';
import { df, dc, ot, rdf, literal, xsd } from '../rdf/namespaces.ts';
import { textChunkQuads, textOfChunks } from '../rdf/text-chunks.ts';

/** The report types of spec 4.3. */
export const REPORT_TYPES = ['validation', 'crossvalidation', 'algorithm_comparison'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** What the report object (spec 2.7, `ot:ValidationReport`) records. */
export interface ReportRecord {
  uri: string;
  type: ReportType;
  title: string;
  date: Date;
  /** The validations or cross-validations reported, in request order. */
  validations: string[];
  /** algorithm_comparison: one identifier per cross-validation, in the same order. */
  identifiers: string[];
  models: string[];
  algorithms: string[];
}

/** The report object's graph; an algorithm comparison's identifiers are `ot:ComparedValidation` nodes. */
export function reportQuads(r: ReportRecord): RDF.Quad[] {
  const s = df.namedNode(r.uri);
  const quads = [
    df.quad(s, rdf('type'), ot('ValidationReport')),
    df.quad(s, dc('identifier'), literal(r.uri, xsd('anyURI'))),
    df.quad(s, dc('title'), literal(r.title)),
    df.quad(s, ot('date'), literal(r.date)),
    df.quad(s, ot('reportType'), literal(r.type)),
    ...r.validations.map((v) => df.quad(s, ot('reportValidation'), df.namedNode(v))),
    ...r.models.map((m) => df.quad(s, ot('reportModel'), df.namedNode(m))),
    ...r.algorithms.map((a) => df.quad(s, ot('reportAlgorithm'), df.namedNode(a))),
  ];
  r.identifiers.forEach((id, k) => {
    const node = df.namedNode(`${r.uri}#compared-${k + 1}`);
    quads.push(
      df.quad(s, ot('comparedValidation'), node),
      df.quad(node, rdf('type'), ot('ComparedValidation')),
      df.quad(node, ot('reportValidation'), df.namedNode(r.validations[k])),
      df.quad(node, dc('title'), literal(id)),
    );
  });
  return quads;
}

export function reportRecord(quads: RDF.Quad[], uri: string): ReportRecord {
  const values = (subject: string, p: RDF.NamedNode) => quads.filter((q) => q.subject.value === subject && q.predicate.equals(p)).map((q) => q.object.value);
  const compared = values(uri, ot('comparedValidation')).sort((a, b) => Number(a.split('-').pop()) - Number(b.split('-').pop()));
  const validations = values(uri, ot('reportValidation'));
  const ordered = compared.map((n) => values(n, ot('reportValidation'))[0]);
  return {
    uri,
    type: values(uri, ot('reportType'))[0] as ReportType,
    title: values(uri, dc('title'))[0] ?? uri,
    date: new Date(values(uri, ot('date'))[0] ?? 0),
    validations: compared.length ? [...ordered, ...validations.filter((v) => !ordered.includes(v))] : validations,
    identifiers: compared.map((n) => values(n, dc('title'))[0] ?? ''),
    models: values(uri, ot('reportModel')),
    algorithms: values(uri, ot('reportAlgorithm')),
  };
}

/** The report document (DocBook) as the quads of its content graph. */
export function documentQuads(uri: string, docbook: string): RDF.Quad[] {
  return textChunkQuads(uri, ot('reportContent'), docbook);
}

export function documentOf(quads: RDF.Quad[]): string {
  return textOfChunks(quads);
}
