import type { Services } from '../core/services.ts';
import { sortById } from '../store/id-minter.ts';
import { select } from '../store/query-helpers.ts';
import { categoryOf, categoryQuads, type Category } from './category-codec.ts';
import { readAcrossQueries } from './read-across-queries.ts';

/** Categories, each one named graph (its URI): written in one batch, read back whole. */
export class CategoryStore {
  private readonly services: Pick<Services, 'store' | 'uris' | 'ids'>;
  readonly collection: string;
  constructor(services: CategoryStore['services']) {
    this.services = services;
    this.collection = services.uris.collection('category');
  }

  async create(category: Omit<Category, 'uri' | 'date'>): Promise<string> {
    const uri = await this.services.ids.next(this.collection);
    await this.services.store.replaceGraphs({ [uri]: categoryQuads({ ...category, uri, date: new Date() }) });
    return uri;
  }

  async read(uri: string): Promise<Category | undefined> {
    return this.services.uris.isIn('category', uri) ? categoryOf(await this.services.store.readGraph(uri), uri) : undefined;
  }

  /** Every category with its parent (a subcategory's), in id order. */
  async list(): Promise<{ uri: string; parent?: string }[]> {
    const rows = await select(this.services.store, readAcrossQueries.categories());
    const parents = new Map(rows.filter((r) => this.services.uris.isIn('category', r.c.value)).map((r) => [r.c.value, r.parent?.value]));
    return sortById([...parents.keys()]).map((uri) => ({ uri, parent: parents.get(uri) }));
  }

  async delete(uri: string): Promise<void> {
    await this.services.store.deleteGraphs([uri]);
  }
}
