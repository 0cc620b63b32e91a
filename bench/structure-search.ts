import initRDKitModule from '@rdkit/rdkit';
import { freePort, spawnServer, type ServerProcess } from '../test/helpers.ts';
import { analogueSmiles } from '../test/analogues.ts';
import { WorkerPool } from '../src/task/worker-pool.ts';
import { availableParallelism, tmpdir } from 'node:os';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fmt, median, now, ratio, tempDir, type Row } from './util.ts';

/**
 * Structures at scale (issue 34): `npm run bench -- structure-search`, over BENCH_STRUCTURES
 * (default 10,000) generated structures (test/analogues.ts: the shared data sets' structures,
 * then MMPA fragments of them recombined), registered through a CSV upload into a server process
 * of its own. Each figure is a ratio against a baseline measured in this run:
 * - registration against the same chemistry (parse, canonical SMILES, InChIKey) on a worker pool
 *   of the same size without the store; a second upload of as many new structures into the
 *   filled store against the first;
 * - exact search against a look-up in a Map of canonical SMILES in this process;
 * - substructure search (every hit, page by page, and the first page) against RDKit.js's
 *   SubstructLibrary and a plain loop over parsed molecules in this process, the faster of them;
 * - similarity against a scan of packed fingerprints in this process;
 * - `GET /health` while four substructure searches run, against `/health` alone.
 */
export async function benchStructureSearch(): Promise<Row[]> {
  const n = Number(process.env.BENCH_STRUCTURES ?? 10_000);
  const rows: Row[] = [];
  const bench = `structure search (${n.toLocaleString('en')} structures)`;
  const row = (measure: string, value: string, r?: string) => rows.push({ bench, measure, value, ratio: r });

  const tGen = now();
  // generated once per size (a few minutes at 100,000) and kept in the temporary directory
  const cached = join(tmpdir(), `toxgraph-analogues-v2-${2 * n}-34.json`);
  const all: string[] = existsSync(cached) ? JSON.parse(readFileSync(cached, 'utf8')) : await analogueSmiles(2 * n, 34);
  if (!existsSync(cached)) writeFileSync(cached, JSON.stringify(all));
  if (all.length < 2 * n) throw new Error(`only ${all.length} structures could be generated`);
  const first = all.slice(0, n);
  const second = all.slice(n, 2 * n);
  row('structures generated (shared data sets, then MMPA fragments recombined)', `${all.length} in ${fmt((now() - tGen) / 1000)} s`);

  // the chemistry alone, on a pool of the server's size
  const threads = availableParallelism();
  const pool = new WorkerPool(threads);
  const tChem = now();
  const chunks: string[][] = [];
  for (let i = 0; i < first.length; i += 200) chunks.push(first.slice(i, i + 200));
  await Promise.all(chunks.map((c) => pool.run(new URL('./structure-chemistry.ts', import.meta.url).href, 'parseCanonicalise', [c])));
  const chemRate = first.length / ((now() - tChem) / 1000);
  await pool.close();
  row(`parse + canonical SMILES + InChIKey on ${threads} worker threads, no store [baseline]`, `${fmt(chemRate, 0)} /s`, ratio(1));

  const tmp = await tempDir('toxgraph-bench-structures-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const args = ['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet'];
  let server: ServerProcess | undefined = await spawnServer(args, { port });
  try {
    const firstRate = await upload(base, first);
    row(`registration of ${n} new structures (CSV upload, empty store)`, `${fmt(firstRate, 0)} /s`, `${ratio(chemRate / firstRate)} the chemistry's time`);
    const secondRate = await upload(base, second);
    row(`registration of ${n} more new structures (store of ${n})`, `${fmt(secondRate, 0)} /s`, `${ratio(secondRate / firstRate)} the empty store's rate`);

    // restart: the index is read, not rebuilt
    server.kill('SIGTERM');
    await server.exited;
    // on another port (the same base URL): a connection kept alive to the old process would
    // be reused by the first request and fail
    const port2 = await freePort();
    const tStart = now();
    server = await spawnServer(args, { port: port2 });
    const url = `http://127.0.0.1:${port2}`;
    row(`server start over ${2 * n} compounds (structure index read from the store)`, `${fmt((now() - tStart) / 1000, 2)} s`);
    const rss = async () => Number(/process_resident_memory_bytes (\d+)/.exec(await (await get(`${url}/metrics`)).text())?.[1] ?? 0) / 2 ** 20;
    row(`resident memory after that start (index of ${2 * n}: ${Math.ceil((2 * n) / 16_384)} segments of 16.2 MiB reserved)`, `${fmt(await rss(), 0)} MiB`);
    const stored = [...first, ...second];

    const rdkit: any = await (initRDKitModule as any)();
    rdkit.disable_logging();

    // exact search: a Map of canonical SMILES here, against search= over HTTP
    const canonical = new Map(stored.map((s, i) => [s, i]));
    const probes = Array.from({ length: 50 }, (_, i) => stored[(i * 7919) % stored.length]);
    const tMap = now();
    for (let r = 0; r < 1000; r++) for (const p of probes) canonical.get(p);
    const mapMs = (now() - tMap) / (1000 * probes.length);
    const exact: number[] = [];
    // the first look-ups of a freshly started server warm it up
    for (const p of probes.slice(0, 20)) await (await get(`${url}/compound?search=${encodeURIComponent(p)}`, { headers: { Accept: 'text/uri-list' } })).text();
    for (const p of probes) {
      const t = now();
      const res = await get(`${url}/compound?search=${encodeURIComponent(p)}`, { headers: { Accept: 'text/uri-list' } });
      if (res.status !== 200) throw new Error(`exact search for ${p}: ${res.status}`);
      await res.text();
      exact.push(now() - t);
    }
    row('exact search by SMILES (median of 50, over HTTP)', `${fmt(median(exact), 2)} ms`, `Map look-up here ${fmt(mapMs * 1000, 2)} µs`);

    // substructure: SubstructLibrary and a loop over parsed molecules, here, on one thread
    const library = new rdkit.SubstructLibrary();
    for (const s of stored) library.add_trusted_smiles(s);
    // parsed molecules take about 18 KB each of RDKit.js's memory: the loop runs over batches
    // of them (its time counts the matches only, as a loop over molecules held in memory)
    const loopMs = (q: unknown) => {
      let ms = 0;
      let hits = 0;
      for (let i = 0; i < stored.length; i += LOOP_BATCH) {
        const mols = stored.slice(i, i + LOOP_BATCH).map((s) => rdkit.get_mol(s));
        const t = now();
        for (const m of mols) if (m.get_substruct_match(q) !== '{}') hits++;
        ms += now() - t;
        for (const m of mols) m.delete();
      }
      return { ms, hits };
    };
    // the search workers started and their toolkits loaded, by a pattern measured nowhere
    await everyHit(url, 'C#N');
    const duplicates = stored.length - (await everyHit(url, '*'));
    for (const [name, smarts] of [
      ['rare (benzothiazole)', 'c1ccc2scnc2c1'],
      ['medium (nitro)', '[N+](=O)[O-]'],
      ['common (benzene)', 'c1ccccc1'],
    ]) {
      const q = rdkit.get_qmol(smarts);
      const tLib = now();
      const libHits = library.get_matches_as_uint32array(q, false, 1, 10 * stored.length).length;
      const libMs = now() - tLib;
      const loop = loopMs(q);
      q.delete();
      const baseMs = Math.min(libMs, loop.ms);
      // once: the same pattern again would be answered from its kept cursor (structure-search.ts);
      // the first page first, then every hit (the first page's cursor read on from)
      const tPage = now();
      await (await get(`${url}/compound?smarts=${encodeURIComponent(smarts)}&page=0&pagesize=100`, { headers: { Accept: 'text/uri-list' } })).text();
      const firstPage = now() - tPage;
      const tAll = now();
      const hits = await everyHit(url, smarts);
      const ours = firstPage + now() - tAll;
      // structures with one InChIKey are one compound: the server may count fewer hits than RDKit over the SMILES, never more
      if (hits > libHits || libHits - hits > duplicates || libHits !== loop.hits)
        throw new Error(`${smarts}: ${hits} hits, SubstructLibrary ${libHits}, loop ${loop.hits} (${duplicates} structures share a compound)`);
      row(
        `substructure, ${name}: every hit (${hits}), pages of 10,000`,
        `${fmt(ours, 0)} ms`,
        `${ratio(ours / baseMs)} (SubstructLibrary ${fmt(libMs, 0)} ms, loop ${fmt(loop.ms, 0)} ms, one thread)`,
      );
      const q2 = rdkit.get_qmol(smarts);
      const tLib100 = now();
      library.get_matches_as_uint32array(q2, false, 1, 100);
      const lib100 = now() - tLib100;
      q2.delete();
      row(`substructure, ${name}: first page of 100`, `${fmt(firstPage, 1)} ms`, `${ratio(firstPage / Math.max(lib100, 0.001))} (SubstructLibrary, 100 results: ${fmt(lib100, 1)} ms)`);
    }
    library.delete();

    // similarity: a scan of packed Morgan fingerprints here
    const prints = stored.map((s) => {
      const m = rdkit.get_mol(s);
      const fp = new Uint32Array(Uint8Array.from(m.get_morgan_fp_as_uint8array(JSON.stringify({ radius: 2, nBits: 2048 }))).buffer);
      m.delete();
      return fp;
    });
    const scanMs: number[] = [];
    const simMs: number[] = [];
    for (const p of probes.slice(0, 10)) {
      const i = stored.indexOf(p);
      const t = now();
      let above = 0;
      for (const fp of prints) if (tanimoto(prints[i], fp) >= 0.7) above++;
      scanMs.push(now() - t);
      const t2 = now();
      const res = await get(`${url}/compound?similarity=${encodeURIComponent(p)}&threshold=0.7`, { headers: { Accept: 'text/uri-list' } });
      const got = (await res.text()).split(/\r?\n/).filter(Boolean).length;
      simMs.push(now() - t2);
      if (got !== above) throw new Error(`similarity to ${p}: ${got}, the scan ${above}`);
    }
    row('similarity, Tanimoto ≥ 0.7 (median of 10, over HTTP)', `${fmt(median(simMs), 1)} ms`, `${ratio(median(simMs) / median(scanMs))} (packed scan here ${fmt(median(scanMs), 1)} ms, one thread)`);

    // the event loop while four substructure searches run
    const idle = await healthTimes(url, 300);
    let searching = true;
    // more patterns than cursors are kept: every search reads the index
    const searches = Promise.all(
      Array.from({ length: 4 }, async (_, k) => {
        for (let r = k * 5; searching; r++) await everyHit(url, LOAD_PATTERNS[r % LOAD_PATTERNS.length]);
      }),
    );
    const busy = await healthTimes(url, 300);
    searching = false;
    await searches;
    row('GET /health p99 during 4 concurrent substructure searches', `${fmt(p99(busy), 1)} ms`, `idle p99 ${fmt(p99(idle), 1)} ms`);
  } catch (e) {
    // what the server said before it failed
    console.error(
      server
        ?.stderr()
        .split('\n')
        .filter((l) => !l.includes('"level":"info"'))
        .slice(-20)
        .join('\n'),
    );
    throw e;
  } finally {
    server?.kill('SIGTERM');
    await server?.exited;
    await tmp.remove();
  }
  return rows;
}

/** Upload structures as a CSV dataset (SMILES and a value); answers rows per second until the dataset exists. */
async function upload(base: string, smiles: string[]): Promise<number> {
  const csv = `SMILES,y\n${smiles.map((s, i) => `${s},${i}`).join('\n')}\n`;
  const t = now();
  const res = await fetch(`${base}/dataset`, { method: 'POST', body: csv, headers: { 'Content-Type': 'text/csv', Accept: 'text/uri-list' } });
  let uri = (await res.text()).trim();
  if (res.status === 202) {
    for (let failures = 0; ; ) {
      const r = await fetch(uri.replace(/^https?:\/\/[^/]+/, base), { headers: { Accept: 'text/uri-list' } }).catch((e: Error) => {
        // a kept-alive connection closed under the request: asked again (at most ten times in a row)
        if (++failures > 10) throw e;
        console.error(`task poll failed (${failures}): ${e.message}, ${(e as Error & { cause?: Error }).cause?.message ?? ''}`);
        return undefined;
      });
      if (!r) {
        await new Promise((res2) => setTimeout(res2, 1000));
        continue;
      }
      failures = 0;
      if (r.status === 200) {
        uri = (await r.text()).trim();
        break;
      }
      if (r.status !== 202) throw new Error(`upload task: ${r.status} ${await r.text()}`);
      await r.text();
      await new Promise((res2) => setTimeout(res2, 200));
    }
  } else if (res.status !== 200) throw new Error(`upload: ${res.status} ${uri}`);
  return smiles.length / ((now() - t) / 1000);
}

const LOOP_BATCH = 20_000;
const LOAD_PATTERNS = [
  'c1ccccc1',
  '[N+](=O)[O-]',
  'C(=O)O',
  '[#7;R]',
  'c1ccncc1',
  '[Cl,Br,I]',
  'C=O',
  'CN',
  'CO',
  'c1ccc2ccccc2c1',
  'S',
  'C=C',
  '[OH]c',
  'N-C=O',
  'c-[#7]',
  'C1CCCCC1',
  'C1CCNCC1',
  'c1ccoc1',
  'O=S=O',
  'C#N',
  '[F]',
  'C(F)(F)F',
  'c1cnc[nH]1',
  'NN',
];

/** Every hit of a substructure search, along the pages' next links; answers their number. */
async function everyHit(base: string, smarts: string): Promise<number> {
  let path: string | undefined = `/compound?smarts=${encodeURIComponent(smarts)}&pagesize=10000`;
  let hits = 0;
  while (path) {
    const res: Response = await get(`${base}${path}`, { headers: { Accept: 'text/uri-list' } });
    const text = await res.text();
    if (res.status === 404) return hits;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
    hits += text.split(/\r?\n/).filter(Boolean).length;
    path = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  }
  return hits;
}

/** Times of `count` GET /health requests, one every 10 ms. */
async function healthTimes(base: string, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = now();
    await (await get(`${base}/health`)).text();
    out.push(now() - t);
    await new Promise((r) => setTimeout(r, 10));
  }
  return out;
}

function p99(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))];
}

function tanimoto(a: Uint32Array, b: Uint32Array): number {
  let both = 0;
  let either = 0;
  for (let i = 0; i < a.length; i++) {
    both += bits(a[i] & b[i]);
    either += bits(a[i] | b[i]);
  }
  return either ? both / either : 0;
}

function bits(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) as number;
}

/**
 * A GET, asked again once when its kept-alive connection was closed: while this process builds
 * a baseline (a minute at 100,000 structures) its event loop cannot see the server close an
 * idle connection, which the next request then meets.
 */
async function get(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch {
    return fetch(url, init);
  }
}
