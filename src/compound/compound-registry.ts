import type * as RDF from '@rdfjs/types';
import { ot } from '../rdf/namespaces.ts';
import { select, selectUris } from '../store/query-helpers.ts';
import { compoundQueries } from './compound-queries.ts';
import { compoundQuads, keyQuads, readNames, structureFrom, type StoredStructure } from './compound-codec.ts';

export type { StoredStructure } from './compound-codec.ts';
import { badRequest } from '../core/errors.ts';
import type { Services } from '../core/services.ts';
import type { Chemistry, Structure } from '../chemistry/chemistry.ts';
import { tanimoto } from '../chemistry/tanimoto.ts';
import type { PostedStructure } from './structure-input.ts';
import { sortById } from '../store/id-minter.ts';
import { graphGroups } from '../store/write-size.ts';

/** Characters of compound graphs written in one batch (about 200 compounds with their molfiles). */
const COMPOUND_WRITE_CHARS = 500_000;
/** How long a claim on an InChIKey outlives it (the claiming process has written the compound long before). */
const CLAIM_SECONDS = 3600;
/** Up to this many InChIKeys are looked up one by one (see urisForKeys). */
const FEW_KEYS = 16;
const INCHIKEY = /^[A-Z]{14}-[A-Z]{10}-[A-Z]$/;

/**
 * Compounds in the store. The graph `{uri}` holds a compound's identity and structure; when a
 * compound is deleted its InChIKey stays in `{uri}/key`, so the same structure always answers
 * the same URI, even after the compound was deleted and posted again. Registration is
 * serialized (look-up then write) and each request is written in one batch; processes sharing
 * the store claim a new InChIKey in Redis first, so that two of them name it the same.
 */
export class CompoundRegistry {
  readonly collection: string;
  private chain: Promise<unknown> = Promise.resolve();
  /** Canonical SMILES and Morgan fingerprints of every compound, for structure searches. */
  private index?: Map<string, { smiles: string; fp: Uint8Array }>;

  private readonly services: Services;
  readonly chemistry: Chemistry;
  constructor(services: Services, chemistry: Chemistry) {
    this.services = services;
    this.chemistry = chemistry;
    this.collection = services.uris.collection('compound');
    // compounds registered or deleted by other processes sharing the store reach this one's structure search
    void services.coordination.subscribe('compounds', (message) => {
      const { added, removed } = message as { added?: [string, string][]; removed?: string };
      if (!this.index) return;
      for (const [uri, smiles] of added ?? []) this.indexAdd(uri, { smiles });
      if (removed) this.index.delete(removed);
    });
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

  /** One query for a whole request's InChIKeys (the `{uri}/key` records, deleted compounds included). */
  async urisForKeys(keys: string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const distinct = [...new Set(keys)];
    if (distinct.length <= FEW_KEYS) {
      // a few keys (a compound, a small upload): index lookups side by side, where the query with
      // VALUES is planned and run by Comunica (several ms of the main thread's time each)
      const rows = await Promise.all(distinct.map((k) => select(this.services.store, compoundQueries.byInchiKey(k))));
      distinct.forEach((k, i) => {
        for (const r of rows[i]) if (this.isCompoundUri(r.c.value)) found.set(k, r.c.value);
      });
      return found;
    }
    for (let i = 0; i < distinct.length; i += 500) {
      const rows = await select(this.services.store, compoundQueries.byInchiKeys(distinct.slice(i, i + 500)));
      for (const r of rows) if (this.isCompoundUri(r.c.value)) found.set(r.k.value, r.c.value);
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
      const uris: string[] = [];
      for (const p of posted) {
        const key = p.structure.inchiKey;
        let uri = byKey.get(key) ?? known.get(key);
        const existing = uri && !graphs[uri] ? await this.read(uri) : undefined;
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
        byKey.set(key, uri);
        uris.push(uri);
      }
      // each compound is its own resource: written in groups, not one batch of thousands of molfiles
      const indexed = new Map(posted.map((p) => [byKey.get(p.structure.inchiKey)!, p.structure]));
      for (const group of graphGroups(graphs, COMPOUND_WRITE_CHARS)) {
        // new compounds (most of a large upload) are written without reading their empty graphs
        const entries = Object.entries(group);
        const fresh = entries.filter(([uri]) => minted.has(uri));
        const known = entries.filter(([uri]) => !minted.has(uri));
        if (fresh.length) await this.services.store.createGraphs(Object.fromEntries(fresh));
        if (known.length) await this.services.store.replaceGraphs(Object.fromEntries(known));
        for (const uri of Object.keys(group)) this.indexAdd(uri, indexed.get(uri)!);
        await this.services.coordination.publish('compounds', { added: Object.keys(group).map((uri) => [uri, indexed.get(uri)!.smiles]) });
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
    const read = new Map<string, StoredStructure | undefined>();
    const uris: string[] = [];
    for (const p of posted) {
      const uri = known.get(p.structure.inchiKey);
      if (!uri) return undefined;
      if (!read.has(uri)) read.set(uri, await this.read(uri));
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
      await this.services.store.replaceGraphs({
        [uri]: compoundQuads(uri, posted.structure, posted.names.length ? posted.names : current.names, posted.sameAs.length ? posted.sameAs : current.sameAs),
      });
    });
  }

  async read(uri: string): Promise<StoredStructure | undefined> {
    const quads = await this.services.store.readGraph(uri);
    return structureFrom(quads, uri);
  }

  /**
   * Remove a compound, its feature values and its conformers, in one batch. Its InChIKey stays
   * behind in `{uri}/key`, so posting the structure again gives back the same URI.
   */
  delete(uri: string, inchiKey: string): Promise<void> {
    return this.exclusive(async () => {
      const conformers = await this.conformerUris(uri);
      const { uris } = this.services;
      const graphs: Record<string, RDF.Quad[]> = { [uris.subgraph(uri, 'key')]: keyQuads(uri, inchiKey) };
      for (const g of [uri, uris.subgraph(uri, 'values'), ...conformers.flatMap((c) => [c, uris.subgraph(c, 'values')])]) graphs[g] = [];
      await this.services.store.replaceGraphs(graphs);
      this.index?.delete(uri);
      await this.services.coordination.publish('compounds', { removed: uri });
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

  list(): Promise<string[]> {
    return selectUris(this.services.store, compoundQueries.all(), 'c');
  }

  // --- searches ------------------------------------------------------------------------

  /** `search=`: SMILES, InChI, InChIKey, name or synonym (names case-insensitively). */
  async search(term: string): Promise<string[]> {
    const t = term.trim();
    const found = new Set<string>();
    const byProperty = async (p: RDF.NamedNode, value: string) => {
      for (const r of await select(this.services.store, compoundQueries.byValue(p, value))) found.add(r.c.value);
    };
    if (INCHIKEY.test(t)) await byProperty(ot('inchiKey'), t);
    else if (t.startsWith('InChI=')) {
      await byProperty(ot('inchi'), t);
      try {
        await byProperty(ot('inchiKey'), this.chemistry.fromInchi(t).inchiKey);
      } catch {
        /* not a readable InChI: exact text match only */
      }
    } else {
      try {
        await byProperty(ot('inchiKey'), this.chemistry.fromSmiles(t).inchiKey);
      } catch {
        /* not SMILES: names only */
      }
      for (const r of await select(this.services.store, compoundQueries.byName(t))) found.add(r.c.value);
    }
    return sortById([...found]);
  }

  sameAs(iri: string): Promise<string[]> {
    return selectUris(this.services.store, compoundQueries.sameAs(iri), 'c');
  }

  async substructure(smarts: string): Promise<string[]> {
    const query = this.chemistry.substructureQuery(smarts);
    try {
      const index = await this.loadIndex();
      return sortById([...index].filter(([, v]) => query.matches(v.smiles)).map(([uri]) => uri));
    } finally {
      query.close();
    }
  }

  /** Tanimoto similarity on Morgan fingerprints (radius 2, 2048 bits), best first. */
  async similar(smiles: string, threshold: number): Promise<{ uri: string; similarity: number }[]> {
    const probe = this.chemistry.morgan(this.chemistry.fromSmiles(smiles, 'similarity SMILES').smiles);
    const index = await this.loadIndex();
    const hits: { uri: string; similarity: number }[] = [];
    for (const [uri, v] of index) {
      const similarity = tanimoto(probe, v.fp);
      if (similarity >= threshold) hits.push({ uri, similarity });
    }
    return hits.sort((a, b) => b.similarity - a.similarity || a.uri.localeCompare(b.uri));
  }

  private async loadIndex(): Promise<Map<string, { smiles: string; fp: Uint8Array }>> {
    if (this.index) return this.index;
    const index = new Map<string, { smiles: string; fp: Uint8Array }>();
    const rows = await select(this.services.store, compoundQueries.smiles());
    for (const r of rows) {
      try {
        index.set(r.c.value, { smiles: r.s.value, fp: this.chemistry.morgan(r.s.value) });
      } catch {
        /* a stored SMILES RDKit cannot read again is left out of structure search */
      }
    }
    this.index ??= index;
    return this.index;
  }

  private indexAdd(uri: string, structure: Pick<Structure, 'smiles'>): void {
    if (!this.index) return;
    try {
      this.index.set(uri, { smiles: structure.smiles, fp: this.chemistry.morgan(structure.smiles) });
    } catch {
      /* a SMILES RDKit cannot read again is left out of structure search (as when the index is loaded) */
    }
  }
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}
