import type * as RDF from '@rdfjs/types';
import { select, selectUris } from '../store/query-helpers.ts';
import { compoundQueries } from './compound-queries.ts';
import { compoundQuads, keyQuads, readNames, structureFrom, type StoredStructure } from './compound-codec.ts';

export type { StoredStructure } from './compound-codec.ts';
import { badRequest, HttpError } from '../core/errors.ts';
import { checkSearchText } from '../chemistry/structure-limits.ts';
import type { Services } from '../core/services.ts';
import type { Chemistry, Searchable } from '../chemistry/chemistry.ts';
import type { PostedStructure } from './structure-input.ts';
import type { StructureIndex } from '../structure-index/structure-index.ts';
import { StructureSearch, type SearchPage, type SimilarityHit } from '../structure-index/structure-search.ts';
import { entryRecords, indexChanged, openStructureIndex } from '../structure-index/index-store.ts';
import type { IndexEntry } from '../structure-index/index-entry.ts';
import type { RecordWrites } from '../store/triple-store.ts';
import { sortById } from '../store/id-minter.ts';
import { graphGroups } from '../store/write-size.ts';
import { readingNames, structureReaderOn, type StructureReader } from '../chemistry/structure-reader.ts';
import { CompoundNames } from './compound-names.ts';

/** Characters of compound graphs written in one batch (about 200 compounds with their molfiles). */
const COMPOUND_WRITE_CHARS = 500_000;
/** Compounds written in one batch at most (each with its index record: two graphs on a remote store). */
const COMPOUND_WRITE_GRAPHS = 250;
/** Compounds rewritten (stored ones posted again) per write. */
const KNOWN_COMPOUND_WRITE_GRAPHS = 50;
/** How long a claim on an InChIKey outlives it (the claiming process has written the compound long before). */
const CLAIM_SECONDS = 3600;
/** A few structures: registered without the lock when every one is stored already (see register). */
const FEW_KEYS = 16;
/** InChIKeys looked up in the store by one query (see urisForKeys). */
const KEYS_PER_QUERY = 500;
const INCHIKEY = /^[A-Z]{14}-[A-Z]{10}-[A-Z]$/;
/** Names a prefix search (`search=benz*`) answers at most. */
const PREFIX_HITS = 1000;

/**
 * Compounds in the store. The graph `{uri}` holds a compound's identity and structure; when a
 * compound is deleted its InChIKey stays in `{uri}/key`, so the same structure always answers
 * the same URI, even after the compound was deleted and posted again. Registration is
 * serialized (look-up then write) and each request is written in one batch; processes sharing
 * the store claim a new InChIKey in Redis first, so that two of them name it the same.
 *
 * Every compound has an entry in the structure index (structure-index/), written in the same
 * batch as its graph: exact, substructure and similarity searches read the index.
 */
export class CompoundRegistry {
  readonly collection: string;
  private chain: Promise<unknown> = Promise.resolve();
  private index?: StructureIndex;
  private structureSearch?: StructureSearch;

  private readonly services: Pick<Services, 'config' | 'uris' | 'log' | 'store' | 'ids' | 'coordination' | 'workers' | 'searchWorkers' | 'opsin'>;
  readonly chemistry: Chemistry;
  /** Chemical names as structures: OPSIN, then the names compounds here have. */
  readonly names: CompoundNames;
  constructor(services: CompoundRegistry['services'], chemistry: Chemistry) {
    this.services = services;
    this.chemistry = chemistry;
    this.collection = services.uris.collection('compound');
    this.names = new CompoundNames(services.opsin, { named: (name) => this.named(name), smilesOf: async (uri) => (await this.read(uri))?.smiles });
  }

  /**
   * How posted structures are read: on the worker pool (a few on this thread), chemical names
   * (inputs of kind `name`) resolved to structures first (compound-names.ts).
   */
  reader(signal?: AbortSignal): StructureReader {
    return readingNames(structureReaderOn(this.services.workers, signal, this.chemistry), (inputs) => this.names.smilesOf(inputs, signal));
  }

  /** Read the structure index (at start; built once over a store that has none). */
  async open(): Promise<void> {
    this.index = await openStructureIndex(this.services);
    this.structureSearch = new StructureSearch(this.index, this.services.searchWorkers, this.chemistry, {
      timeoutMs: this.services.config.queryTimeoutMs,
      parallel: this.services.config.workerThreads,
    });
  }

  private idOf(uri: string): number {
    return Number(this.services.uris.idIn('compound', uri));
  }

  private uriOf(id: number): string {
    return this.services.uris.item('compound', id);
  }

  /** A compound's index entry: what the index holds already for the same structure, else the posted structure's. */
  private entryFor(uri: string, inchiKey: string, names: string[], posted: Searchable): IndexEntry {
    const id = this.idOf(uri);
    const held = this.index?.searchable(id);
    return { id, inchiKey, names, ...(held && held.inchiKey === inchiKey ? held : posted) };
  }

  /** After the write that carried them: index records applied here and sent to the other processes. */
  private async indexed(records: RecordWrites): Promise<void> {
    if (this.index) await indexChanged(this.services, this.index, records);
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work, work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** `/compound/{id}` (not a conformer, not a feature value node). */
  isCompoundUri(uri: string): boolean {
    return uri.startsWith(`${this.collection}/`) && !uri.slice(this.collection.length + 1).includes('/');
  }

  async uriForKey(inchiKey: string): Promise<string | undefined> {
    return (await this.urisForKeys([inchiKey])).get(inchiKey);
  }

  /**
   * The compounds of a request's InChIKeys (the `{uri}/key` records of deleted compounds
   * included): the structure index knows every stored compound; the keys it does not know (new
   * structures, deleted compounds') are looked up in the store, KEYS_PER_QUERY keys a query
   * (the embedded store's evaluator looks each up on the index; a remote store gets one request,
   * not one per key: an upload of 2,600 new structures made 2,600 requests to Virtuoso).
   */
  async urisForKeys(keys: string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const unknown: string[] = [];
    for (const k of new Set(keys)) {
      const id = this.index?.idForKey(k);
      if (id !== undefined) found.set(k, this.uriOf(id));
      else unknown.push(k);
    }
    for (let i = 0; i < unknown.length; i += KEYS_PER_QUERY) {
      for (const r of await select(this.services.store, compoundQueries.byInchiKeys(unknown.slice(i, i + KEYS_PER_QUERY)))) {
        if (this.isCompoundUri(r.c.value)) found.set(r.k.value, r.c.value);
      }
    }
    return found;
  }

  /** Register structures (deduplicated on InChIKey); answers one URI per record, in order. */
  async register(posted: PostedStructure[]): Promise<string[]> {
    // a few structures (a compound, a small upload), every one already stored as it is posted (no
    // new name or sameAs): nothing to write, nothing to serialize with other registrations; a
    // larger batch goes straight to the lock (its look-ups would otherwise be made twice)
    const same = posted.length <= FEW_KEYS ? await this.alreadyStored(posted) : undefined;
    if (same) return same;
    return this.exclusive(async () => {
      const graphs: Record<string, RDF.Quad[]> = {};
      const minted = new Set<string>();
      const byKey = new Map<string, string>();
      const known = await this.urisForKeys(posted.map((p) => p.structure.inchiKey));
      const stored = await this.readAll([...new Set(known.values())]);
      const uris: string[] = [];
      const entries = new Map<string, IndexEntry>();
      for (const p of posted) {
        const key = p.structure.inchiKey;
        let uri = byKey.get(key) ?? known.get(key);
        const existing = uri && !graphs[uri] ? stored.get(uri) : undefined;
        if (!uri) {
          const candidate = await this.services.ids.next(this.collection);
          // processes sharing the store: the first to claim the InChIKey names the compound
          uri = this.services.coordination.shared ? await this.services.coordination.claim(`inchikey:${key}`, candidate, CLAIM_SECONDS) : candidate;
          if (uri === candidate) minted.add(uri);
        }
        const names = unique([...(existing?.names ?? []), ...(graphs[uri] ? readNames(graphs[uri]) : []), ...p.names]);
        const sameAs = unique([...(existing?.sameAs ?? []), ...p.sameAs]);
        // an existing compound keeps its structure record; a new or deleted one gets this one
        const structure = existing ?? p.structure;
        graphs[uri] = compoundQuads(uri, structure, names, sameAs);
        entries.set(uri, this.entryFor(uri, structure.inchiKey, names, p.structure.searchable));
        byKey.set(key, uri);
        uris.push(uri);
      }
      // each compound is its own resource: written in groups, not one batch of thousands of molfiles
      const recordsOf = (group: [string, RDF.Quad[]][]) => entryRecords(group.map(([uri]) => entries.get(uri)!));
      for (const group of graphGroups(graphs, COMPOUND_WRITE_CHARS, COMPOUND_WRITE_GRAPHS)) {
        // new compounds (most of a large upload) are written without reading their empty graphs
        const all = Object.entries(group);
        const fresh = all.filter(([uri]) => minted.has(uri));
        const known = all.filter(([uri]) => !minted.has(uri));
        if (fresh.length) {
          const records = recordsOf(fresh);
          await this.services.store.createGraphs(Object.fromEntries(fresh), records);
          await this.indexed(records);
        }
        // rewritten compounds drop their graphs first: smaller groups (Virtuoso refuses an update
        // that drops and rewrites 200 compounds with their records: "variables in state over the limit")
        for (let i = 0; i < known.length; i += KNOWN_COMPOUND_WRITE_GRAPHS) {
          const part = known.slice(i, i + KNOWN_COMPOUND_WRITE_GRAPHS);
          const records = recordsOf(part);
          await this.services.store.replaceGraphs(Object.fromEntries(part), records);
          await this.indexed(records);
        }
      }
      return uris;
    });
  }

  /**
   * The URIs of the posted structures when each is a stored compound that already has every
   * posted name and sameAs (what a new upload of known structures mostly is); undefined when
   * any would be minted or changed, which `register` then does under its lock.
   */
  private async alreadyStored(posted: PostedStructure[]): Promise<string[] | undefined> {
    if (!posted.length) return [];
    const known = await this.urisForKeys(posted.map((p) => p.structure.inchiKey));
    if (posted.some((p) => !known.has(p.structure.inchiKey))) return undefined;
    const read = await this.readAll([...new Set(known.values())]);
    const uris: string[] = [];
    for (const p of posted) {
      const uri = known.get(p.structure.inchiKey);
      if (!uri) return undefined;
      const existing = read.get(uri);
      // a deleted compound (its key kept) is written again
      if (!existing) return undefined;
      if (p.names.some((n) => !existing.names.includes(n)) || p.sameAs.some((x) => !existing.sameAs.includes(x))) return undefined;
      uris.push(uri);
    }
    return uris;
  }

  /** PUT: new names, sameAs or coordinates for the same structure; another structure is refused. */
  replace(uri: string, current: StoredStructure, posted: PostedStructure): Promise<void> {
    return this.exclusive(async () => {
      if (posted.structure.inchiKey !== current.inchiKey) {
        throw badRequest(`PUT cannot change the structure of ${uri} (InChIKey ${current.inchiKey}, posted ${posted.structure.inchiKey}); POST the new structure to /compound instead`);
      }
      const names = posted.names.length ? posted.names : current.names;
      const records = entryRecords([this.entryFor(uri, current.inchiKey, names, posted.structure.searchable)]);
      await this.services.store.replaceGraphs({ [uri]: compoundQuads(uri, posted.structure, names, posted.sameAs.length ? posted.sameAs : current.sameAs) }, records);
      await this.indexed(records);
    });
  }

  async read(uri: string): Promise<StoredStructure | undefined> {
    const quads = await this.services.store.readGraph(uri);
    return structureFrom(quads, uri);
  }

  /** The stored structures of compounds, by URI (those with none left out). */
  async readAll(uris: string[]): Promise<Map<string, StoredStructure>> {
    const graphs = await this.services.store.readEachGraph(uris);
    const out = new Map<string, StoredStructure>();
    uris.forEach((uri, i) => {
      const s = structureFrom(graphs[i], uri);
      if (s) out.set(uri, s);
    });
    return out;
  }

  /**
   * Remove a compound, its feature values, its profile and its conformers, in one batch. Its InChIKey stays
   * behind in `{uri}/key`, so posting the structure again gives back the same URI.
   */
  delete(uri: string, inchiKey: string): Promise<void> {
    return this.exclusive(async () => {
      const conformers = await this.conformerUris(uri);
      const { uris } = this.services;
      const graphs: Record<string, RDF.Quad[]> = { [uris.subgraph(uri, 'key')]: keyQuads(uri, inchiKey) };
      // its profile goes with it: SPARQL would find a deleted compound by its alerts otherwise
      for (const g of [uri, uris.subgraph(uri, 'values'), uris.subgraph(uri, 'profile'), ...conformers.flatMap((c) => [c, uris.subgraph(c, 'values')])]) graphs[g] = [];
      const records = entryRecords([], [this.idOf(uri)]);
      await this.services.store.replaceGraphs(graphs, records);
      await this.indexed(records);
    });
  }

  // --- conformers (spec 4.9): graphs `{compound}/conformer/{id}` -------------------------

  /** Store posted structures as new conformers of a compound, in one batch. */
  async addConformers(parent: string, posted: PostedStructure[]): Promise<string[]> {
    const graphs: Record<string, RDF.Quad[]> = {};
    for (const p of posted) {
      const uri = await this.services.ids.next(this.services.uris.conformers(parent));
      graphs[uri] = compoundQuads(uri, p.structure, p.names, p.sameAs, parent);
    }
    await this.services.store.replaceGraphs(graphs);
    return Object.keys(graphs);
  }

  async replaceConformer(uri: string, parent: string, posted: PostedStructure): Promise<void> {
    await this.services.store.replaceGraphs({ [uri]: compoundQuads(uri, posted.structure, posted.names, posted.sameAs, parent) });
  }

  /** Remove conformers with their feature values. */
  async deleteConformers(uris: string[]): Promise<void> {
    await this.services.store.deleteGraphs(uris.flatMap((c) => [c, this.services.uris.subgraph(c, 'values')]));
  }

  async conformerUris(compoundUri: string): Promise<string[]> {
    const rows = await select(this.services.store, compoundQueries.conformers(compoundUri));
    return rows.map((r) => r.k.value).sort((a, b) => Number(a.split('/').pop()) - Number(b.split('/').pop()));
  }

  /** This server's compounds (not harvested copies of others'). */
  async list(): Promise<string[]> {
    return (await selectUris(this.services.store, compoundQueries.all(), 'c')).filter((c) => this.services.uris.isIn('compound', c));
  }

  // --- searches (the structure index) -------------------------------------------------

  private opened(): { index: StructureIndex; search: StructureSearch } {
    if (!this.index || !this.structureSearch) throw new Error('the structure index is not open');
    return { index: this.index, search: this.structureSearch };
  }

  /**
   * `search=`: SMILES, InChI, InChIKey, name, synonym or CAS number (names case-insensitively;
   * a trailing `*` finds names that start with the rest). Index look-ups only. `what` names the
   * text in errors ("parameter search"): one beyond structure-limits.ts is refused (400).
   */
  async search(term: string, what = 'search text'): Promise<string[]> {
    const { index } = this.opened();
    const t = term.trim();
    checkSearchText(t, what);
    await this.chemistry.ready();
    const found = new Set<number>();
    const byKey = (key: string) => {
      const id = index.idForKey(key);
      if (id !== undefined) found.add(id);
    };
    if (t.length > 1 && t.endsWith('*')) for (const id of index.idsWithNamePrefix(t.slice(0, -1), PREFIX_HITS)) found.add(id);
    else if (INCHIKEY.test(t)) byKey(t);
    else {
      try {
        byKey(this.chemistry.inchiKeyOf(t, what));
      } catch (e) {
        // not a structure (SMILES or InChI): names only; a toolkit that failed is not a missing structure
        if (!(e instanceof HttpError) || e.status >= 500) throw e;
      }
      for (const id of index.idsForName(t)) found.add(id);
    }
    return sortById([...found].map((id) => this.uriOf(id)));
  }

  /** The compounds with this name or synonym (case-insensitively): the name search's index look-up, without reading the text as a structure. */
  async named(name: string): Promise<string[]> {
    return sortById(
      this.opened()
        .index.idsForName(name.trim())
        .map((id) => this.uriOf(id)),
    );
  }

  sameAs(iri: string): Promise<string[]> {
    return selectUris(this.services.store, compoundQueries.sameAs(iri), 'c');
  }

  /** Compounds containing a SMARTS pattern: one page of them, in index order. */
  async substructure(smarts: string, offset: number, limit: number, what?: string): Promise<{ uris: string[]; more: boolean }> {
    const page: SearchPage = await this.opened().search.substructure(smarts, offset, limit, what);
    return { uris: page.ids.map((id) => this.uriOf(id)), more: page.more };
  }

  /** The Morgan fingerprints (radius 2, 2048 bits, 64 words each) the structure index holds for compounds (undefined: none). */
  morganOf(uris: string[]): (Uint32Array | undefined)[] {
    const { index } = this.opened();
    return uris.map((u) => (this.services.uris.isIn('compound', u) ? index.morgan(this.idOf(u)) : undefined));
  }

  /** Tanimoto similarity on Morgan fingerprints (radius 2, 2048 bits), best first, at most `top`. */
  async similar(query: string, threshold: number, top: number, what?: string): Promise<{ uri: string; similarity: number }[]> {
    const hits: SimilarityHit[] = await this.opened().search.similar(query, threshold, top, what);
    return hits.map((h) => ({ uri: this.uriOf(h.id), similarity: h.similarity }));
  }
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}
