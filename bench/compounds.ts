import { loadConfig } from '../src/core/config.ts';
import { startServer } from '../src/server/server.ts';
import { Chemistry } from '../src/chemistry/chemistry.ts';
import { fmt, median, now, ratio, tempDir, type Row } from './util.ts';

import { sharedSmiles } from '../test/analogues.ts';

/**
 * Compound registration from a 1,000-record SDF over HTTP against RDKit.js parsing + InChI of
 * the same records in-process; similarity search over all ~5,000 shared structures; memory of
 * 100,000 parses (BENCH_PARSES to change).
 */
export async function benchCompounds(): Promise<Row[]> {
  const rows: Row[] = [];
  const row = (measure: string, value: string, r?: string) => rows.push({ bench: 'compounds', measure, value, ratio: r });
  const chemistry = await Chemistry.load();
  const smiles = sharedSmiles();

  // a 1,000-record SDF of distinct, parseable structures
  const records: string[] = [];
  const seen = new Set<string>();
  for (const s of smiles) {
    if (records.length === 1000) break;
    try {
      const st = chemistry.fromSmiles(s);
      if (seen.has(st.inchiKey)) continue;
      seen.add(st.inchiKey);
      records.push(`${chemistry.molfileOf(st).trimEnd()}\n$$$$\n`);
    } catch {
      /* skip what RDKit cannot read */
    }
  }
  const sdf = records.join('');

  // baseline: RDKit.js parse + InChI + InChIKey of the same molfiles, in process
  const molfiles = records.map((r) => r.replace(/\$\$\$\$\n$/, ''));
  const tBase = now();
  for (const m of molfiles) chemistry.fromMolfile(m);
  const baseRate = molfiles.length / ((now() - tBase) / 1000);
  row('RDKit.js parse + InChI of 1,000 molfiles, in process [baseline]', `${fmt(baseRate, 0)} /s`, ratio(1));

  const tmp = await tempDir('toxgraph-bench-compounds-');
  const server = await startServer(loadConfig(['--port', '0', '--host', '127.0.0.1', '--data', tmp.dir, '--quiet'], {}));
  try {
    const tPost = now();
    const res = await fetch(`${server.url}/compound`, { method: 'POST', body: sdf, headers: { 'Content-Type': 'chemical/x-mdl-sdfile', Accept: 'text/uri-list' } });
    const uris = (await res.text()).split(/\r?\n/).filter(Boolean);
    if (res.status !== 200 || uris.length !== records.length) throw new Error(`registration failed: ${res.status}, ${uris.length} URIs`);
    const postRate = records.length / ((now() - tPost) / 1000);
    row('POST /compound, 1,000-record SDF over HTTP', `${fmt(postRate, 0)} /s`, ratio(postRate / baseRate));

    // the rest of the shared structures, in SMILES batches
    const rest = smiles.slice(1000);
    const tAll = now();
    for (let i = 0; i < rest.length; i += 500) {
      const body = rest
        .slice(i, i + 500)
        .filter((s) => {
          try {
            chemistry.fromSmiles(s);
            return true;
          } catch {
            return false;
          }
        })
        .join('\n');
      const r = await fetch(`${server.url}/compound`, { method: 'POST', body, headers: { 'Content-Type': 'chemical/x-daylight-smiles' } });
      if (r.status !== 200) throw new Error(`batch failed: ${await r.text()}`);
    }
    const total = (await (await fetch(`${server.url}/compound`, { headers: { Accept: 'text/uri-list' } })).text()).split(/\r?\n/).filter(Boolean).length;
    row(`POST /compound, ${rest.length} more as SMILES (500 per request)`, `${fmt(rest.length / ((now() - tAll) / 1000), 0)} /s`);

    const probes = ['Oc1ccccc1', 'CC(=O)Nc1ccc(O)cc1', 'c1ccc2ccccc2c1', 'CCN(CC)CC', 'O=C(O)c1ccccc1O'];
    const query = (p: string) => fetch(`${server.url}/compound?similarity=${encodeURIComponent(p)}&threshold=0.7`, { headers: { Accept: 'text/csv' } }).then((r) => r.text());
    const tFirst = now();
    await query(probes[0]);
    row(`similarity search over ${total} compounds, first query (builds the fingerprint index)`, `${fmt(now() - tFirst, 0)} ms`);
    const times: number[] = [];
    for (let i = 0; i < 25; i++) {
      const t = now();
      await query(probes[i % probes.length]);
      times.push(now() - t);
    }
    row(`similarity search over ${total} compounds (Tanimoto ≥ 0.7, median of 25)`, `${fmt(median(times), 1)} ms`);
  } finally {
    await server.close();
    await tmp.remove();
  }

  // memory over many parses: every RDKit molecule is freed
  const parses = Number(process.env.BENCH_PARSES ?? 100_000);
  const rss = () => process.memoryUsage().rss / 2 ** 20;
  let rssAfterWarmup = 0;
  const tParse = now();
  for (let i = 0; i < parses; i++) {
    try {
      chemistry.fromSmiles(smiles[i % smiles.length]);
    } catch {
      /* unparsable rows count as parses too */
    }
    if (i === 5000) {
      rssAfterWarmup = rss();
    }
  }
  row(`${parses} parses: RSS after 5,000 → after all`, `${fmt(rssAfterWarmup, 0)} → ${fmt(rss(), 0)} MiB`, ratio(rss() / rssAfterWarmup));
  row(`${parses} parses: rate`, `${fmt(parses / ((now() - tParse) / 1000), 0)} /s`);
  return rows;
}
