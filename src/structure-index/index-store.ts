import type { Services } from '../core/services.ts';
import type { RecordWrites } from '../store/triple-store.ts';
import { select } from '../store/query-helpers.ts';
import { searchableReaderOn } from '../chemistry/structure-reader.ts';
import { indexQueries } from './index-queries.ts';
import { COMPLETE_KEY, decodeEntry, encodeEntry, entryKey, ENTRY_PREFIX, idOfKey, type IndexEntry } from './index-entry.ts';
import { StructureIndex } from './structure-index.ts';

/** The coordination channel on which processes sharing a store tell each other of index changes. */
const CHANNEL = 'structure-index';
/** Entries written per batch when the index is first built over an existing store (each a graph on a remote store: see write-size.ts). */
const BUILD_BATCH = 250;

interface IndexChange {
  /** Entries written, as `[id, base64 record]`. */
  put?: [number, string][];
  removed?: number[];
}

/** The records that write these entries and remove these compounds' entries (in the batch of their graphs). */
export function entryRecords(entries: IndexEntry[], removed: number[] = []): RecordWrites {
  const records: RecordWrites = new Map();
  for (const id of removed) records.set(entryKey(id), null);
  for (const e of entries) records.set(entryKey(e.id), encodeEntry(e));
  return records;
}

/**
 * Apply a write's index changes here (after the write), and tell the other processes that
 * share the store. They read the same records at their start, so a process that misses a
 * message (started meanwhile) has it from the store.
 */
export async function indexChanged(services: Pick<Services, 'coordination'>, index: StructureIndex, records: RecordWrites): Promise<void> {
  const change: IndexChange = { put: [], removed: [] };
  for (const [key, bytes] of records) {
    const id = idOfKey(key);
    const entry = bytes && decodeEntry(id, bytes);
    if (entry) {
      index.put(entry);
      change.put!.push([id, Buffer.from(bytes).toString('base64')]);
    } else if (!bytes) {
      index.remove(id);
      change.removed!.push(id);
    }
  }
  if (services.coordination.shared) await services.coordination.publish(CHANNEL, change);
}

/**
 * The structure index of the store: its records read at start (never on a request), and, the
 * first time a store with compounds but without a complete index is opened, built from the
 * compounds' SMILES on the worker pool and written (logged). Changes that other processes
 * sharing the store make arrive by coordination message.
 */
export async function openStructureIndex(services: Pick<Services, 'uris' | 'log' | 'store' | 'coordination' | 'workers'>): Promise<StructureIndex> {
  const index = new StructureIndex();
  // messages that arrive while the records are read wait for them
  let early: IndexChange[] | undefined = [];
  const apply = (change: IndexChange) => {
    for (const id of change.removed ?? []) index.remove(id);
    for (const [id, b64] of change.put ?? []) {
      const entry = decodeEntry(id, Buffer.from(b64, 'base64'));
      if (entry) index.put(entry);
    }
  };
  await services.coordination.subscribe(CHANNEL, (m) => (early ? early.push(m as IndexChange) : apply(m as IndexChange)));
  const started = performance.now();
  for await (const [key, bytes] of services.store.readRecords(ENTRY_PREFIX)) {
    // a copy: the bytes read may be a view of a larger buffer the store reuses
    const entry = decodeEntry(idOfKey(key), bytes.slice());
    if (entry) index.put(entry);
  }
  let complete = false;
  for await (const _ of services.store.readRecords(COMPLETE_KEY)) complete = true;
  if (!complete) await buildMissing(services, index);
  for (const change of early) apply(change);
  early = undefined;
  services.log.info('structure index loaded', { compounds: index.size, ms: Math.round(performance.now() - started) });
  return index;
}

/** Entries for the compounds that have none (a store written before the index existed). */
async function buildMissing(services: Pick<Services, 'uris' | 'log' | 'store' | 'coordination' | 'workers'>, index: StructureIndex): Promise<void> {
  // in id order, as the entries are read at every later start
  const rows = (await select(services.store, indexQueries.indexable())).filter((r) => !index.has(idOf(services, r.c.value))).sort((a, b) => idOf(services, a.c.value) - idOf(services, b.c.value));
  if (rows.length) services.log.warn('building the structure index over the stored compounds (once)', { compounds: rows.length });
  const names = new Map<string, string[]>();
  for (const r of rows.length ? await select(services.store, indexQueries.names()) : []) names.set(r.c.value, [...(names.get(r.c.value) ?? []), r.n.value]);
  // the fingerprints and pickle only: the compound's InChIKey is stored
  const read = searchableReaderOn(services.workers);
  for (let i = 0; i < rows.length; i += BUILD_BATCH) {
    const part = rows.slice(i, i + BUILD_BATCH);
    const parsed = await read(part.map((r) => ({ kind: 'smiles', text: r.s.value, what: r.c.value })));
    const entries: IndexEntry[] = [];
    part.forEach((r, j) => {
      const p = parsed[j];
      // a stored SMILES RDKit cannot read again stays out of structure search
      if ('searchable' in p) entries.push({ id: idOf(services, r.c.value), inchiKey: r.k.value, names: names.get(r.c.value) ?? [], ...p.searchable });
    });
    const records = entryRecords(entries);
    await services.store.replaceGraphs({}, records);
    await indexChanged(services, index, records);
  }
  await services.store.replaceGraphs({}, new Map([[COMPLETE_KEY, new Uint8Array([1])]]));
}

function idOf(services: Pick<Services, 'uris'>, uri: string): number {
  return Number(services.uris.idIn('compound', uri));
}
