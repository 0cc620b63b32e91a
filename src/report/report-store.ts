import type * as RDF from '@rdfjs/types';
import type { Services } from '../core/services.ts';
import { ot } from '../rdf/namespaces.ts';
import { readTypedGraph, selectUris } from '../store/query-helpers.ts';
import { documentOf, documentQuads, reportQuads, reportRecord, type ReportRecord, type ReportType } from './report-codec.ts';
import { reportQueries } from './report-queries.ts';

/** Validation reports in the store: the report object in `{uri}`, its DocBook in `{uri}/content`. */
export class ReportStore {
  private readonly services: Pick<Services, 'uris' | 'store' | 'ids'>;
  constructor(services: ReportStore['services']) {
    this.services = services;
  }

  private contentGraph(uri: string): string {
    return this.services.uris.subgraph(uri, 'content');
  }

  /** Store a new report (object and document in one write); answers its URI. */
  async create(report: Omit<ReportRecord, 'uri'>, docbook: (uri: string) => string): Promise<string> {
    const uri = await this.services.ids.next(this.services.uris.reports(report.type));
    await this.services.store.replaceGraphs({ [uri]: reportQuads({ ...report, uri }), [this.contentGraph(uri)]: documentQuads(uri, docbook(uri)) });
    return uri;
  }

  async read(uri: string): Promise<{ quads: RDF.Quad[]; record: ReportRecord } | undefined> {
    const quads = await readTypedGraph(this.services.store, uri, ot('ValidationReport'));
    return quads && { quads, record: reportRecord(quads, uri) };
  }

  async document(uri: string): Promise<string> {
    return documentOf(await this.services.store.readGraph(this.contentGraph(uri)));
  }

  /** Reports of a type, optionally only those about a validation. */
  async list(type: ReportType, validation?: string): Promise<string[]> {
    const prefix = `${this.services.uris.reports(type)}/`;
    return (await selectUris(this.services.store, reportQueries.reports(validation))).filter((u) => u.startsWith(prefix));
  }

  /** A report of this type about exactly these validations (and identifiers), if one was made. */
  async existing(type: ReportType, validations: string[], identifiers: string[], canRead: (uri: string) => boolean): Promise<string | undefined> {
    for (const uri of (await this.list(type, validations[0])).filter(canRead)) {
      const found = await this.read(uri);
      if (!found) continue;
      const { record } = found;
      const same = record.validations.length === validations.length && record.validations.every((v, i) => v === validations[i]) && record.identifiers.join('\n') === identifiers.join('\n');
      if (same) return uri;
    }
    return undefined;
  }

  async delete(uri: string): Promise<void> {
    await this.services.store.deleteGraphs([uri, this.contentGraph(uri)]);
  }
}
