import { spawn } from 'node:child_process';
import autocannon from 'autocannon';
import { freePort, spawnServer } from '../test/helpers.ts';
import { fmt, tempDir, type Row } from './util.ts';

type Result = autocannon.Result;

export function cannon(options: autocannon.Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** The bare Koa baseline in its own process; answers its port and a stop function. */
export async function startBareKoa(): Promise<{ port: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['bench/bare-koa.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout.once('data', (d) => resolve(JSON.parse(String(d)).port)));
  return {
    port,
    stop: () =>
      new Promise((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}

const FEATURE = (n: number) => `@prefix ot: <http://www.opentox.org/api/1.1#> . @prefix dc: <http://purl.org/dc/elements/1.1/> .
[] a ot:NumericFeature ; dc:title "load ${n}" ; ot:units "mg/L" .`;

/** Resources the mix reads (paths on the server). */
export interface MixTargets {
  compound: string;
  dataset: string;
  feature: string;
  /** A SPARQL SELECT, URL-encoded. */
  query: string;
}

/** Stores a compound, a feature and a small dataset for the mix to read; answers their paths. */
export async function mixTargets(base: string): Promise<MixTargets> {
  const post = async (path: string, body: string, type: string) =>
    (await (await fetch(`${base}${path}`, { method: 'POST', body, headers: { 'Content-Type': type, Accept: 'text/uri-list' } })).text()).trim();
  return {
    compound: new URL(await post('/compound', 'c1ccccc1O', 'chemical/x-daylight-smiles')).pathname,
    feature: new URL(await post('/feature', FEATURE(0), 'text/turtle')).pathname,
    dataset: new URL(await post('/dataset', 'SMILES,LC50\nCCO,1.5\nc1ccccc1,2.25\nCCN,0.5\n', 'text/csv')).pathname,
    query: encodeURIComponent('SELECT ?f ?t WHERE { GRAPH ?f { ?f a <http://www.opentox.org/api/1.1#Feature> ; <http://purl.org/dc/elements/1.1/title> ?t } } LIMIT 20'),
  };
}

/**
 * The load mix: `connections` clients for `seconds` reading (a compound as SMILES, a dataset
 * page as CSV, a feature, a SPARQL SELECT) and writing (POST /feature, a small dataset
 * upload); every acknowledged write is read back afterwards.
 */
export async function loadMix(base: string, targets: MixTargets, connections: number, seconds: number): Promise<{ mixed: Result; written: string[]; writes: number; lost: number }> {
  const { compound, dataset, feature, query } = targets;
  // the mix, with every acknowledged write remembered
  const written: string[] = [];
  let writes = 0;
  const remember = (status: number, body: string) => {
    if (status === 200 || status === 201) written.push(body.trim());
  };
  let n = 0;
  const mixed = await cannon({
    url: base,
    connections,
    duration: seconds,
    requests: [
      { method: 'GET', path: compound, headers: { Accept: 'chemical/x-daylight-smiles' } },
      { method: 'GET', path: `${dataset}?page=0&pagesize=2`, headers: { Accept: 'text/csv' } },
      { method: 'GET', path: feature, headers: { Accept: 'text/turtle' } },
      { method: 'GET', path: `/sparql?query=${query}`, headers: { Accept: 'application/sparql-results+json' } },
      {
        method: 'POST',
        path: '/feature',
        headers: { 'Content-Type': 'text/turtle', Accept: 'text/uri-list' },
        setupRequest: (request) => ({ ...request, body: FEATURE(++n) }),
        onResponse: (status, body) => {
          writes++;
          remember(status, body);
        },
      },
      {
        method: 'POST',
        path: '/dataset',
        headers: { 'Content-Type': 'text/csv', Accept: 'text/uri-list' },
        setupRequest: (request) => ({ ...request, body: `SMILES,value\nCCO,${++n}\nCCCO,${n / 2}\n` }),
        onResponse: (status, body) => {
          writes++;
          remember(status, body);
        },
      },
    ],
  });
  let lost = 0;
  for (const uri of written) {
    const r = await fetch(uri, { headers: { Accept: 'text/uri-list' } });
    await r.arrayBuffer();
    if (r.status !== 200) lost++;
  }
  return { mixed, written, writes, lost };
}

/** Runs `work` against a server of its own (on a store of its own) started with `flags`. */
export async function withServer<T>(flags: string[], work: (base: string) => Promise<T>): Promise<T> {
  const tmp = await tempDir('toxgraph-bench-load-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await spawnServer(['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet', ...flags], { port });
  try {
    return await work(base);
  } finally {
    server.kill('SIGTERM');
    await server.exited;
    await tmp.remove();
  }
}

/**
 * Load: 50 concurrent clients for 60 s (TOXGRAPH_LOAD_SECONDS) against one server process,
 * mixing reads (a compound as SMILES, a dataset page as CSV, a feature, a SPARQL SELECT) with
 * writes (POST /feature, a small dataset upload). Every acknowledged write is read back
 * afterwards. Baseline: GET /compound/{id} against a bare Koa handler in the same run.
 */
export async function benchLoad(): Promise<Row[]> {
  const seconds = Number(process.env.TOXGRAPH_LOAD_SECONDS ?? 60);
  const connections = 50;
  const rows: Row[] = [];
  const bench = `load: ${connections} concurrent clients`;
  const koa = await startBareKoa();
  try {
    return await withServer([], (base) => measure(base));
  } finally {
    await koa.stop();
  }

  async function measure(base: string): Promise<Row[]> {
    const targets = await mixTargets(base);
    const { compound } = targets;
    // GET /compound/{id} as SMILES: ToxGraph vs a bare Koa handler, 10 s each
    const single = { connections, duration: Math.min(10, seconds), headers: { Accept: 'chemical/x-daylight-smiles' } };
    const ours = await cannon({ ...single, url: `${base}${compound}` });
    const bare = await cannon({ ...single, url: `http://127.0.0.1:${koa.port}/` });
    rows.push({ bench, measure: 'bare Koa handler, GET (baseline)', value: `${fmt(bare.requests.average, 0)} req/s, p50 ${bare.latency.p50} ms, p99 ${bare.latency.p99} ms`, ratio: '1.00x' });
    rows.push({
      bench,
      measure: 'GET /compound/{id} as SMILES (the same URL again and again: from the representation cache)',
      value: `${fmt(ours.requests.average, 0)} req/s, p50 ${ours.latency.p50} ms, p99 ${ours.latency.p99} ms`,
      ratio: `${fmt(ours.requests.average / bare.requests.average, 2)}x`,
    });
    // the same on a server without the representation cache: every GET is routed, read and rendered
    const uncached = await withServer(['--representation-cache-mb', '0'], async (other) => {
      const { compound: path } = await mixTargets(other);
      return cannon({ ...single, url: `${other}${path}` });
    });
    rows.push({
      bench,
      measure: 'GET /compound/{id} as SMILES, representation cache off (--representation-cache-mb 0)',
      value: `${fmt(uncached.requests.average, 0)} req/s, p50 ${uncached.latency.p50} ms, p99 ${uncached.latency.p99} ms`,
      ratio: `${fmt(uncached.requests.average / bare.requests.average, 2)}x`,
    });

    const { mixed, written, writes, lost } = await loadMix(base, targets, connections, seconds);
    const mixBench = `load: ${connections} clients for ${seconds} s, reads (compound SMILES, dataset page CSV, feature, SPARQL) and writes (POST feature, dataset upload)`;
    rows.push({ bench: mixBench, measure: 'requests', value: `${mixed.requests.total} (${fmt(mixed.requests.average, 0)}/s)` });
    rows.push({ bench: mixBench, measure: 'latency p50 / p99 / max', value: `${mixed.latency.p50} / ${mixed.latency.p99} / ${mixed.latency.max} ms` });
    rows.push({ bench: mixBench, measure: 'errors (connection) / non-2xx / timeouts', value: `${mixed.errors} / ${mixed.non2xx} / ${mixed.timeouts}` });
    rows.push({ bench: mixBench, measure: 'writes acknowledged / read back', value: `${written.length} of ${writes} / ${written.length - lost}`, ratio: lost ? `${lost} LOST` : '0 lost' });
    return rows;
  }
}
