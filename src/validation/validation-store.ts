import type * as RDF from '@rdfjs/types';
import { ot } from '../rdf/namespaces.ts';
import { readTypedGraph, selectUris, titlesOf, type ListOptions } from '../store/query-helpers.ts';
import { validationQueries, type ValidationFilter } from './validation-queries.ts';
import type { Services } from '../core/services.ts';
import { VALIDATION_KINDS, validationQuads, type ValidationRecord } from './validation-record.ts';

/** Validations in the store: one graph per validation, named by its URI. */
export class ValidationStore {
  readonly collection: string;

  private readonly services: Pick<Services, 'uris' | 'store' | 'ids'>;
  constructor(services: ValidationStore['services']) {
    this.services = services;
    this.collection = services.uris.collection('validation');
  }

  async create(record: ValidationRecord): Promise<string> {
    const uri = await this.services.ids.next(this.collection);
    const title = record.title ?? (await this.titleOf(record));
    await this.services.store.replaceGraphs({ [uri]: validationQuads(uri, { ...record, title }) });
    return uri;
  }

  /** "Training/test split validation of <model> on <test set>", from the titles of what it names. */
  private async titleOf(record: ValidationRecord): Promise<string> {
    const titles = await titlesOf(this.services.store, [record.model ?? '', record.testDataset ?? '']);
    const named = (uri?: string) => (uri ? (titles.get(uri) ?? uri) : undefined);
    const model = named(record.model);
    const test = named(record.testDataset);
    return `${VALIDATION_KINDS[record.validationType] ?? 'Validation'}${model ? ` of ${model}` : ''}${test ? ` on ${test}` : ''}`;
  }

  read(uri: string): Promise<RDF.Quad[] | undefined> {
    return readTypedGraph(this.services.store, uri, ot('Validation'));
  }

  async list(filter: ValidationFilter = {}, options: ListOptions = {}): Promise<string[]> {
    const uris = await selectUris(this.services.store, validationQueries.validations(filter, options));
    // the pooled statistics of cross-validations are served under /crossvalidation, not listed here
    return uris.filter((v) => v.startsWith(`${this.collection}/`));
  }

  async delete(uris: string[]): Promise<void> {
    await this.services.store.deleteGraphs(uris);
  }
}
