import type * as RDF from '@rdfjs/types';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ClassicLevel } from 'classic-level';
import { Quadstore } from 'quadstore';
import { df } from '../rdf/namespaces.ts';
import { INDEXES } from './indexes.ts';
import { BULK_INDEXES, BulkQuadstore, isBulkGraph } from './bulk-partition.ts';
import { decodeQuads, type EncodedQuads, type LevelOptions, type RecordList } from './index-writer.ts';

/**
 * The writer thread's side of index-writer.ts: its own handle on the store's LevelDB (opened
 * with `multithreading`, so the thread shares the main thread's database) and the two
 * quadstores, used only to turn quads into index keys and write them as one batch.
 */
type Writer = { _batchDel(q: RDF.Quad, b: unknown): unknown; _batchPut(q: RDF.Quad, b: unknown): unknown };
type Batch = ReturnType<ClassicLevel<string, Uint8Array>['batch']>;

let open: { db: ClassicLevel<string, Uint8Array>; main: Writer; bulk: Writer } | undefined;
const batches = new Map<number, { batch: Batch; keyBytes: number }>();
let nextBatch = 1;

/**
 * The value written with every index key. quadstore writes an empty one, and classic-level
 * (3.0.0) leaks its copy of an empty value: `new char[0]`, never deleted because it frees only
 * non-empty slices. That was 8 bytes per key ever written, kept for the life of the process:
 * about 476,000 keys and 3.8 MB per cross-validation of Kazius, 40 MB after ten (jemalloc's
 * statistics at rest). One byte is written instead; nothing reads the values (quadstore
 * iterates keys only).
 */
const VALUE = new Uint8Array([0]);

/** A batch as quadstore's key writers see it: the keys theirs, the value ours. */
function withOurValue(batch: Batch) {
  const writes = {
    put: (key: string, _value: Uint8Array, options?: object) => (batch.put(key, VALUE, options as never), writes),
    del: (key: string, options?: object) => (batch.del(key, options as never), writes),
  };
  return writes;
}

/**
 * A batch's contents (LevelDB's WriteBatch: every index key in it, natively allocated) are
 * freed only when this thread's garbage collector finalizes the batch object, written or not:
 * classic-level has no other way to release them. This thread's heap is small and grows
 * little, so V8 seldom collected it, and the last batches of a job (tens of MB after a large
 * upload) stayed until some later write. The thread collects once its writes have paused
 * for a second, and at once when what it wrote since its last collection is large.
 */
const COLLECT_WHEN_IDLE_MS = 1000;
const COLLECT_NOW_BYTES = 64 * 2 ** 20;
const collectGarbage = exposedGc();

/**
 * V8's `gc`, exposed to a new context of this thread only. The flag is the process's: two stores
 * opened at once (two servers in one test process) start two of these threads, and one thread's
 * `--no-expose-gc` could come between the other's `--expose-gc` and its new context, which then
 * has no `gc` (the thread failed to load, and so did every write of its store). Asked again then.
 */
function exposedGc(): () => void {
  for (;;) {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as (() => void) | undefined;
    setFlagsFromString('--no-expose-gc');
    if (gc) return gc;
  }
}

let writtenSinceCollection = 0;
let collection: NodeJS.Timeout | undefined;

function batchDone(keyBytes: number): void {
  writtenSinceCollection += keyBytes;
  clearTimeout(collection);
  // on a timer even when at once: the batch is referenced until its write has settled
  collection = setTimeout(
    () => {
      writtenSinceCollection = 0;
      collectGarbage();
    },
    writtenSinceCollection >= COLLECT_NOW_BYTES ? 0 : COLLECT_WHEN_IDLE_MS,
  );
  collection.unref();
}

export async function openIndexes(directory: string, options: LevelOptions): Promise<void> {
  const db = new ClassicLevel<string, Uint8Array>(directory, options as never);
  const main = new Quadstore({ backend: db as never, dataFactory: df as never, indexes: INDEXES as never });
  const bulk = new BulkQuadstore({ backend: db as never, dataFactory: df as never, indexes: BULK_INDEXES as never });
  await main.open();
  open = { db, main: main as unknown as Writer, bulk: bulk as unknown as Writer };
}

/** A new batch; answers its number. */
export function beginBatch(): number {
  if (!open) throw new Error('the store is not open in the writer thread');
  const id = nextBatch++;
  batches.set(id, { batch: open.db.batch(), keyBytes: 0 });
  return id;
}

/** Add the index keys of encoded quads to a batch (put, or del when `add` is false). */
export function addToBatch(id: number, add: boolean, quads: EncodedQuads): void {
  const entry = batches.get(id);
  if (!entry || !open) throw new Error(`no batch ${id}`);
  const batch = withOurValue(entry.batch);
  // each quad's terms are in each of its index keys
  for (const length of quads.lengths) entry.keyBytes += length * INDEXES.length;
  const { main, bulk } = open;
  for (const q of decodeQuads(quads)) {
    const writer = q.graph.termType === 'NamedNode' && isBulkGraph(q.graph.value) ? bulk : main;
    if (add) writer._batchPut(q, batch);
    else writer._batchDel(q, batch);
  }
}

/** Add records to a batch (see RecordList). */
export function addRecords(id: number, [keys, values]: RecordList): void {
  const entry = batches.get(id);
  if (!entry) throw new Error(`no batch ${id}`);
  keys.forEach((key, i) => {
    const value = values[i];
    if (value) entry.batch.put(key, value);
    else entry.batch.del(key);
    entry.keyBytes += key.length + (value?.length ?? 0);
  });
}

export async function writeBatch(id: number): Promise<void> {
  const entry = batches.get(id);
  if (!entry) throw new Error(`no batch ${id}`);
  batches.delete(id);
  try {
    await entry.batch.write();
  } finally {
    batchDone(entry.keyBytes);
  }
}

/** A whole small write in one message: the index keys of `deletions` removed, those of `additions` added, as one batch. */
export async function writeAll(deletions: EncodedQuads, additions: EncodedQuads, records: RecordList): Promise<void> {
  const id = beginBatch();
  try {
    addToBatch(id, false, deletions);
    addToBatch(id, true, additions);
    addRecords(id, records);
  } catch (e) {
    await dropBatch(id);
    throw e;
  }
  await writeBatch(id);
}

/** Give a batch up (nothing of it is written). */
export async function dropBatch(id: number): Promise<void> {
  const entry = batches.get(id);
  batches.delete(id);
  if (!entry) return;
  await entry.batch.close();
  batchDone(entry.keyBytes);
}

export async function closeIndexes(): Promise<void> {
  for (const id of [...batches.keys()]) await dropBatch(id);
  await open?.db.close();
  open = undefined;
}

export function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}
