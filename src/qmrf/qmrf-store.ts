import type * as RDF from '@rdfjs/types';
import type { Services } from '../core/services.ts';
import { ot } from '../rdf/namespaces.ts';
import { readTypedGraph, selectUris } from '../store/query-helpers.ts';
import { qmrfContentOf, qmrfContentQuads, qmrfQuads, qmrfRecord, type QmrfRecord } from './qmrf-codec.ts';
import { qmrfQueries } from './qmrf-queries.ts';

/** QMRF reports in the store: the report's RDF in `{uri}`, its QMRF XML in `{uri}/content`, written together. */
export class QmrfStore {
  readonly collection: string;

  private readonly services: Pick<Services, 'uris' | 'store' | 'ids'>;
  constructor(services: QmrfStore['services']) {
    this.services = services;
    this.collection = services.uris.reachReports('qmrf');
  }

  private contentGraph(uri: string): string {
    return this.services.uris.subgraph(uri, 'content');
  }

  async create(record: Omit<QmrfRecord, 'uri'>, xml: string): Promise<string> {
    const uri = await this.services.ids.next(this.collection);
    await this.replace({ ...record, uri }, xml);
    return uri;
  }

  async replace(record: QmrfRecord, xml: string): Promise<void> {
    await this.services.store.replaceGraphs({ [record.uri]: qmrfQuads(record), [this.contentGraph(record.uri)]: qmrfContentQuads(record.uri, xml) });
  }

  async read(uri: string): Promise<{ quads: RDF.Quad[]; record: QmrfRecord } | undefined> {
    const quads = await readTypedGraph(this.services.store, uri, ot('QMRFReport'));
    return quads && { quads, record: qmrfRecord(quads, uri) };
  }

  async xml(uri: string): Promise<string> {
    return qmrfContentOf(await this.services.store.readGraph(this.contentGraph(uri)));
  }

  list(model?: string): Promise<string[]> {
    return selectUris(this.services.store, qmrfQueries.reports(model));
  }

  async delete(uri: string): Promise<void> {
    await this.services.store.deleteGraphs([uri, this.contentGraph(uri)]);
  }
}
