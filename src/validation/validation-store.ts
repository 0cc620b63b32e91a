import type * as RDF from '@rdfjs/types';
import { df, ot } from '../rdf/namespaces.js';
import { sparql } from '../store/sparql-template.js';
import { select } from '../store/query-helpers.js';
import { sortById } from '../store/id-minter.js';
import type { Services } from '../server/services.js';
import { validationQuads, type ValidationRecord } from './validation-record.js';

/** Filters of the validation list: property (local name in ot:) → resource URI. */
export type ValidationFilter = Partial<Record<'model' | 'algorithm' | 'trainingDataset' | 'testDataset', string>>;

/** Validations in the store: one graph per validation, named by its URI. */
export class ValidationStore {
  readonly collection: string;

  constructor(private readonly services: Services) {
    this.collection = `${services.config.baseUrl}/validation`;
  }

  async create(record: ValidationRecord): Promise<string> {
    const uri = await this.services.ids.next(this.collection);
    await this.services.store.replaceGraphs({ [uri]: validationQuads(uri, record) });
    return uri;
  }

  async read(uri: string): Promise<RDF.Quad[] | undefined> {
    const quads = await this.services.store.readGraph(uri);
    return quads.some((q) => q.subject.value === uri && q.object.equals(ot('Validation'))) ? quads : undefined;
  }

  async list(filter: ValidationFilter = {}): Promise<string[]> {
    const patterns = Object.entries(filter)
      .filter(([, v]) => v)
      .map(([p, v]) => sparql`?v ${ot(p)} ${df.namedNode(v!)} .`);
    const rows = await select(this.services.store, sparql`SELECT DISTINCT ?v WHERE { GRAPH ?v { ?v a ${ot('Validation')} . ${patterns} } }`);
    // the pooled statistics of cross-validations are served under /crossvalidation, not listed here
    return sortById(rows.map((r) => r.v.value).filter((v) => v.startsWith(`${this.collection}/`)));
  }

  async delete(uris: string[]): Promise<void> {
    await this.services.store.deleteGraphs(uris);
  }
}

