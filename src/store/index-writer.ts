import type * as RDF from '@rdfjs/types';
import { Worker } from 'node:worker_threads';
import { df } from '../rdf/namespaces.ts';
import type { RecordWrites } from './triple-store.ts';

/** Options of the store's LevelDB, the same in every thread that opens it. */
export type LevelOptions = Record<string, unknown>;

/** Quads per message to the writer thread: a few milliseconds of encoding each. */
const CHUNK_QUADS = 4000;

const THREAD_MODULE = new URL('./index-writer-thread.ts', import.meta.url).href;

/**
 * Index keys are written by a thread of their own. Writing a quad means building its index keys
 * (long strings: a fingerprint or a 4 KB chunk of a model, in every key) and one LevelDB batch
 * operation per key. On the main thread that was most of what a cross-validation allocated there
 * (about 1 GB of short-lived strings and objects per run), and its garbage collections were the
 * pauses that requests waited for. The main thread now encodes each write into byte buffers
 * (see EncodedQuads), a few thousand quads per message, and the thread adds them to one LevelDB
 * batch that it writes when the last chunk is in. The LevelDB is shared between the threads
 * (classic-level's `multithreading`): readers on the main thread see the batch as soon as it is
 * written, all of it or none.
 */
export class IndexWriter {
  private worker!: Worker;
  /** Settles when the current thread has the LevelDB open. */
  private ready!: Promise<void>;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private nextId = 1;
  private closing?: Promise<void>;
  private failure?: Error;

  private readonly directory: string;
  private readonly options: LevelOptions;
  private constructor(directory: string, options: LevelOptions) {
    this.directory = directory;
    this.options = options;
    this.spawn();
  }

  /** Starts the thread and opens the LevelDB in it (already opened here with `multithreading`). */
  static async start(directory: string, options: LevelOptions): Promise<IndexWriter> {
    const writer = new IndexWriter(directory, options);
    await writer.ready;
    return writer;
  }

  /**
   * A thread that ends while the store is open (its heap exhausted by one huge write, say) fails
   * the writes in flight and is replaced; one that ends before it could open the LevelDB is not,
   * and every write fails from then on.
   */
  private spawn(): void {
    // at normal priority: requests wait for it (see worker-entry.mjs)
    const worker = new Worker(new URL('../task/worker-entry.mjs', import.meta.url), { workerData: { foreground: true } });
    this.worker = worker;
    let opened = false;
    // the thread keeps the process alive only while a write is in flight
    worker.unref();
    worker.on('message', (m: { id: number; ok: boolean; value?: unknown; error?: string }) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (this.pending.size === 0) worker.unref();
      if (m.ok) p?.resolve(m.value);
      else p?.reject(new Error(m.error));
    });
    const failPending = (e: Error) => {
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    worker.on('error', failPending);
    worker.on('exit', (code) => {
      const e = new Error(`the store's writer thread ended (${code})`);
      failPending(e);
      if (this.closing) {
        this.failure = new Error("the store's writer thread is closed");
        return;
      }
      if (opened) this.spawn();
      else this.failure = e;
    });
    this.ready = this.send<void>('openIndexes', [this.directory, this.options]).then(() => {
      opened = true;
    });
    this.ready.catch(() => undefined);
  }

  /**
   * One LevelDB batch: the index keys of `deletions` removed, those of `additions` added, and
   * the records (triple-store.ts's RecordWrites) written or removed.
   */
  async write(deletions: RDF.Quad[], additions: RDF.Quad[], records?: RecordWrites): Promise<void> {
    const recordList: RecordList = records ? [[...records.keys()].map(recordKey), [...records.values()]] : [[], []];
    // a small write (most resource writes: a few to a few hundred quads) in one message, one
    // round trip to the thread instead of three; under load each round trip waits for both
    // threads to be scheduled, and writes wait for one another in the store's write queue
    if (deletions.length + additions.length <= CHUNK_QUADS) {
      const del = encodeQuads(deletions, 0, deletions.length);
      const add = encodeQuads(additions, 0, additions.length);
      await this.call('writeAll', [del, add, recordList], [del.kinds.buffer, del.lengths.buffer, del.bytes.buffer, add.kinds.buffer, add.lengths.buffer, add.bytes.buffer]);
      return;
    }
    const batch = await this.call<number>('beginBatch', []);
    try {
      for (const [quads, add] of [
        [deletions, false],
        [additions, true],
      ] as const) {
        for (let i = 0; i < quads.length; i += CHUNK_QUADS) {
          const chunk = encodeQuads(quads, i, Math.min(quads.length, i + CHUNK_QUADS));
          await this.call('addToBatch', [batch, add, chunk], [chunk.kinds.buffer, chunk.lengths.buffer, chunk.bytes.buffer]);
        }
      }
      if (recordList[0].length) await this.call('addRecords', [batch, recordList]);
    } catch (e) {
      await this.call('dropBatch', [batch]).catch(() => undefined);
      throw e;
    }
    await this.call('writeBatch', [batch]);
  }

  /** Bytes of the thread's JavaScript heap in use. */
  heapUsed(): Promise<number> {
    return this.call('heapUsed', []);
  }

  /** Closes the LevelDB in the thread and ends it; once, however often it is called. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.call('closeIndexes', []).catch(() => undefined);
      await this.worker.terminate();
    })();
    return this.closing;
  }

  private async call<T>(fn: string, args: unknown[], transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.failure) throw this.failure;
    await this.ready;
    return this.send<T>(fn, args, transfer);
  }

  private send<T>(fn: string, args: unknown[], transfer: ArrayBuffer[] = []): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.ref();
      this.worker.postMessage({ id, module: THREAD_MODULE, fn, args }, transfer);
    });
  }
}

/**
 * Records live in the same LevelDB as the quadstores' index keys, under a prefix no index key
 * has (those start with an upper-case index name).
 */
export const RECORD_KEY_PREFIX = 'r\u0000\u0000';

export function recordKey(key: string): string {
  return RECORD_KEY_PREFIX + key;
}

/** Records as the thread gets them: their LevelDB keys, and their bytes (null: removed). */
export type RecordList = [string[], (Uint8Array | null)[]];

/**
 * Quads as bytes, without a JavaScript object or string per term: per quad, three term kinds
 * (subject, object, graph: N named node, B blank node, L literal, D default graph) and six texts
 * (subject, predicate, object, language, datatype, graph; empty where there is none) as UTF-8
 * one after another, with their byte lengths.
 */
export interface EncodedQuads {
  count: number;
  kinds: Uint8Array<ArrayBuffer>;
  lengths: Int32Array<ArrayBuffer>;
  bytes: Uint8Array<ArrayBuffer>;
}

export const TEXTS_PER_QUAD = 6;
const KIND = { NamedNode: 78, BlankNode: 66, Literal: 76, DefaultGraph: 68 } as Record<string, number>;
const utf8 = new TextEncoder();

/** quads[from .. to) encoded (see EncodedQuads). */
export function encodeQuads(quads: RDF.Quad[], from: number, to: number): EncodedQuads {
  const count = to - from;
  let units = 0;
  for (let i = from; i < to; i++) {
    const { subject: s, predicate: p, object: o, graph: g } = quads[i];
    units += s.value.length + p.value.length + o.value.length + g.value.length + (o.termType === 'Literal' ? o.language.length + o.datatype.value.length : 0);
  }
  const kinds = new Uint8Array(count * 3);
  const lengths = new Int32Array(count * TEXTS_PER_QUAD);
  // at most three bytes of UTF-8 per UTF-16 unit
  const bytes = new Uint8Array(units * 3);
  let at = 0;
  let t = 0;
  const text = (value: string) => {
    const written = value.length === 0 ? 0 : utf8.encodeInto(value, bytes.subarray(at)).written;
    lengths[t++] = written;
    at += written;
  };
  for (let i = from, k = 0; i < to; i++) {
    const { subject: s, predicate: p, object: o, graph: g } = quads[i];
    kinds[k++] = kindOf(s);
    kinds[k++] = kindOf(o);
    kinds[k++] = kindOf(g);
    text(s.value);
    text(p.value);
    text(o.value);
    text(o.termType === 'Literal' ? o.language : '');
    text(o.termType === 'Literal' ? o.datatype.value : '');
    text(g.value);
  }
  return { count, kinds, lengths, bytes };
}

function kindOf(t: RDF.Term): number {
  const kind = KIND[t.termType];
  if (kind === undefined) throw new Error(`a ${t.termType} cannot be stored`);
  return kind;
}

/** The encoded quads again (in the writer thread). */
export function* decodeQuads(e: EncodedQuads): Generator<RDF.Quad> {
  const utf8In = new TextDecoder();
  let at = 0;
  let t = 0;
  const next = () => {
    const n = e.lengths[t++];
    const text = n === 0 ? '' : utf8In.decode(e.bytes.subarray(at, at + n));
    at += n;
    return text;
  };
  for (let i = 0; i < e.count; i++) {
    const [s, p, o, language, datatype, g] = [next(), next(), next(), next(), next(), next()];
    const object = e.kinds[3 * i + 1] === KIND.Literal ? df.literal(o, language || df.namedNode(datatype)) : termOf(e.kinds[3 * i + 1], o);
    yield df.quad(termOf(e.kinds[3 * i], s) as RDF.Quad_Subject, df.namedNode(p), object as RDF.Quad_Object, termOf(e.kinds[3 * i + 2], g) as RDF.Quad_Graph);
  }
}

function termOf(kind: number, value: string): RDF.NamedNode | RDF.BlankNode | RDF.DefaultGraph {
  if (kind === KIND.NamedNode) return df.namedNode(value);
  if (kind === KIND.BlankNode) return df.blankNode(value);
  return df.defaultGraph();
}
