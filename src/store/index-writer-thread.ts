import type * as RDF from '@rdfjs/types';
import { getHeapStatistics } from 'node:v8';
import { ClassicLevel } from 'classic-level';
import { Quadstore } from 'quadstore';
import { df } from '../rdf/namespaces.js';
import { INDEXES } from './indexes.js';
import { BULK_INDEXES, BulkQuadstore, isBulkGraph } from './bulk-partition.js';
import { decodeQuads, type EncodedQuads, type LevelOptions } from './index-writer.js';

/**
 * The writer thread's side of index-writer.ts: its own handle on the store's LevelDB (opened
 * with `multithreading`, so the thread shares the main thread's database) and the two
 * quadstores, used only to turn quads into index keys and write them as one batch.
 */
type Writer = { _batchDel(q: RDF.Quad, b: unknown): unknown; _batchPut(q: RDF.Quad, b: unknown): unknown };
type Batch = ReturnType<ClassicLevel<string, Uint8Array>['batch']>;

let open: { db: ClassicLevel<string, Uint8Array>; main: Writer; bulk: Writer } | undefined;
const batches = new Map<number, Batch>();
let nextBatch = 1;

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
  batches.set(id, open.db.batch());
  return id;
}

/** Add the index keys of encoded quads to a batch (put, or del when `add` is false). */
export function addToBatch(id: number, add: boolean, quads: EncodedQuads): void {
  const batch = batches.get(id);
  if (!batch || !open) throw new Error(`no batch ${id}`);
  const { main, bulk } = open;
  for (const q of decodeQuads(quads)) {
    const writer = q.graph.termType === 'NamedNode' && isBulkGraph(q.graph.value) ? bulk : main;
    if (add) writer._batchPut(q, batch);
    else writer._batchDel(q, batch);
  }
}

export async function writeBatch(id: number): Promise<void> {
  const batch = batches.get(id);
  if (!batch) throw new Error(`no batch ${id}`);
  batches.delete(id);
  await batch.write();
}

/** Give a batch up (nothing of it is written). */
export async function dropBatch(id: number): Promise<void> {
  const batch = batches.get(id);
  batches.delete(id);
  await batch?.close();
}

export async function closeIndexes(): Promise<void> {
  for (const id of [...batches.keys()]) await dropBatch(id);
  await open?.db.close();
  open = undefined;
}

export function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}
