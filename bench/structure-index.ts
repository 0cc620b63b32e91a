import { availableParallelism } from 'node:os';
import { Chemistry } from '../src/chemistry/chemistry.ts';
import { QuadstoreTripleStore } from '../src/store/quadstore-triple-store.ts';
import { decodeEntry, encodeEntry, entryKey, ENTRY_PREFIX, idOfKey, type IndexEntry } from '../src/structure-index/index-entry.ts';
import { StructureIndex } from '../src/structure-index/structure-index.ts';
import { StructureSearch } from '../src/structure-index/structure-search.ts';
import { WorkerPool } from '../src/task/worker-pool.ts';
import { analogueSmiles } from '../test/analogues.ts';
import { tanimoto } from '../src/read-across/analogue-search.ts';
import { fmt, now, ratio, tempDir, type Row } from './util.ts';

/**
 * The structure index at a million compounds (`npm run bench -- structure-index`,
 * BENCH_INDEX_COMPOUNDS to change): entries of 20,000 generated structures (test/analogues.ts),
 * each repeated under new ids and keys up to the count, written as records into an embedded
 * store and read back as a server start reads them; then the memory it takes and the searches
 * over it. Registration at that scale is bench/structure-search.ts's (over HTTP); this measures
 * what grows with the index.
 */
export async function benchStructureIndex(): Promise<Row[]> {
  const total = Number(process.env.BENCH_INDEX_COMPOUNDS ?? 1_000_000);
  const rows: Row[] = [];
  const bench = `structure index (${total.toLocaleString('en')} entries)`;
  const row = (measure: string, value: string, r?: string) => rows.push({ bench, measure, value, ratio: r });
  const chemistry = await Chemistry.load({ indigo: false });
  const distinct: IndexEntry[] = [];
  for (const s of await analogueSmiles(20_000, 34)) {
    try {
      const st = chemistry.fromSmiles(s);
      distinct.push({ id: 0, inchiKey: st.inchiKey, names: [], ...st.searchable });
    } catch {
      /* left out */
    }
  }
  const entryOf = (id: number): IndexEntry => {
    const e = distinct[(id - 1) % distinct.length];
    return {
      ...e,
      id,
      inchiKey: `${e.inchiKey.slice(0, 14)}-${String(id)
        .padStart(10, '0')
        .replace(/\d/g, (d) => 'ABCDEFGHIJ'[Number(d)])}-N`,
    };
  };

  const tmp = await tempDir('toxgraph-bench-index-');
  try {
    const store = await QuadstoreTripleStore.open(`${tmp.dir}/store`);
    const tWrite = now();
    for (let id = 1; id <= total; id += 1000) {
      const records = new Map<string, Uint8Array>();
      for (let k = id; k < Math.min(total + 1, id + 1000); k++) records.set(entryKey(k), encodeEntry(entryOf(k)));
      await store.replaceGraphs({}, records);
    }
    row('records written (1,000 per batch)', `${fmt((now() - tWrite) / 1000, 1)} s`);
    const heap0 = process.memoryUsage();
    const tRead = now();
    const index = new StructureIndex();
    for await (const [key, bytes] of store.readRecords(ENTRY_PREFIX)) {
      const e = decodeEntry(idOfKey(key), bytes.slice());
      if (e) index.put(e);
    }
    const readSeconds = (now() - tRead) / 1000;
    const heap1 = process.memoryUsage();
    await store.close();
    row('records read into the index (what a start does)', `${fmt(readSeconds, 1)} s`, `${fmt(total / readSeconds / 1000, 0)}k entries/s`);
    const shared = index.segments.length * (16_384 * (4 + 256 + 2 + 256 + 4) + 16_384 * 512);
    const heapBytes = heap1.heapUsed - heap0.heapUsed;
    row('shared memory of the index (segments reserved)', `${fmt(shared / 2 ** 20, 0)} MiB`, `${fmt(shared / total, 0)} bytes per compound`);
    row('JavaScript heap of the look-ups (InChIKeys, ids)', `${fmt(heapBytes / 2 ** 20, 0)} MiB`, `${fmt(heapBytes / total, 0)} bytes per compound`);
    row('resident memory of this process', `${fmt(heap1.rss / 2 ** 20, 0)} MiB`);

    const threads = availableParallelism();
    const workers = new WorkerPool(threads, 60_000);
    const search = new StructureSearch(index, workers, chemistry, { timeoutMs: 600_000, parallel: threads });
    await search.substructure('C#N', 0, 10);
    for (const [name, smarts] of [
      ['rare (benzothiazole)', 'c1ccc2scnc2c1'],
      ['common (benzene)', 'c1ccccc1'],
    ]) {
      const tPage = now();
      await search.substructure(smarts, 0, 100);
      const page = now() - tPage;
      const tAll = now();
      let hits = 0;
      for (let offset = 0; ; offset += 10_000) {
        const p = await search.substructure(smarts, offset, 10_000);
        hits += p.ids.length;
        if (!p.more) break;
      }
      row(`substructure, ${name}: first page of 100 / every hit (${hits})`, `${fmt(page, 0)} ms / ${fmt(page + now() - tAll, 0)} ms`, `${threads} threads`);
    }
    const probe = 'CC(=O)Oc1ccccc1C(=O)O';
    const tSim = now();
    const similar = await search.similar(probe, 0.7, 10_000);
    const simMs = now() - tSim;
    const fp = new Uint32Array(chemistry.morgan(probe).buffer);
    const tScan = now();
    let above = 0;
    for (const s of index.segments) {
      const used = s.used[0];
      for (let i = 0; i < used; i++) if (tanimotoAt(fp, s.morgan, i) >= 0.7) above++;
    }
    const scanMs = now() - tScan;
    row(`similarity ≥ 0.7 (${similar.length} hits)`, `${fmt(simMs, 0)} ms`, `${ratio(simMs / scanMs)} (packed scan here ${fmt(scanMs, 0)} ms, ${above} hits)`);
    // read-across's analogue ranking (src/read-across/analogue-search.ts): the index's fingerprints of
    // the compounds with data for an endpoint (7,000: a large endpoint), Tanimoto to the target, sorted;
    // against the similarity search over the whole index above (the baseline it must stay within)
    const withData = Array.from({ length: 7000 }, (_, i) => 1 + Math.floor((i * total) / 7000));
    const tAnalogues = now();
    const ranked = withData
      .flatMap((id) => {
        const m = index.morgan(id);
        return m ? [{ id, similarity: tanimoto(fp, m) }] : [];
      })
      .sort((a, b) => b.similarity - a.similarity || a.id - b.id);
    const analogueMs = now() - tAnalogues;
    row(
      `read-across analogues: 7,000 compounds with data ranked against the target (${ranked.length} with fingerprints)`,
      `${fmt(analogueMs, 1)} ms`,
      `${ratio(analogueMs / simMs)} of the similarity search`,
    );
    await workers.close();
  } finally {
    await tmp.remove();
  }
  return rows;
}

function tanimotoAt(query: Uint32Array, morgan: Uint32Array, slot: number): number {
  let both = 0;
  let either = 0;
  for (let w = 0; w < 64; w++) {
    const a = query[w];
    const b = morgan[slot * 64 + w];
    both += bits(a & b);
    either += bits(a | b);
  }
  return either ? both / either : 0;
}

function bits(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}
