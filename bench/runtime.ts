import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { freePort, spawnServer } from '../test/helpers.ts';
import { loadMix, mixTargets } from './load.ts';
import { fmt, median, metric, now, postAndFollow, tempDir, withPolling, type Row } from './util.ts';

const DATA = new URL('../../shared/data/', import.meta.url);
const HERE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** How long a server is left idle before its memory is read "at rest" (as bench/memory.ts). */
const REST_MS = 20_000;

/** A server under test: a checkout of this project and the Node.js binary its bin/toxgraph-server runs on. */
interface Runtime {
  checkout: string;
  node: string;
  version: string;
}

interface Figures {
  startupMs: number[];
  idleRss: number;
  compoundTurtle: autocannon.Result;
  mix: autocannon.Result;
  mixLost: number;
  uploadSeconds: number;
  fingerprintSeconds: number;
  cvSeconds: number;
  cvWorstGetMs: number;
  cvLoopMaxMs: number;
  afterCvRss: number;
  restRss: number;
}

const cannon = (options: autocannon.Options) => new Promise<autocannon.Result>((res, rej) => autocannon(options, (e, r) => (e ? rej(e) : res(r))));

/**
 * Starts `runtime`'s server as `npm start` does (its bin/toxgraph-server) on the Node.js given,
 * and answers the milliseconds from spawn to the first 200 on /health.
 */
async function startServer(runtime: Runtime, dataDir: string, port: number, flags: string[] = []) {
  const t = now();
  const server = await spawnServer(['--data', dataDir, '--host', '127.0.0.1', '--base-url', `http://127.0.0.1:${port}`, '--quiet', ...flags], {
    port,
    waitForListening: false,
    cwd: runtime.checkout,
    // TOXGRAPH_NODE for a checkout that pins its Node.js; PATH for one that runs `node` from PATH
    env: { TOXGRAPH_NODE: runtime.node, PATH: `${dirname(runtime.node)}:${process.env.PATH}` },
  });
  let ended = false;
  void server.exited.then(() => (ended = true));
  for (const deadline = Date.now() + 120_000; ; ) {
    if (ended) throw new Error(`${runtime.checkout} on ${runtime.version} exited: ${server.stderr().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`${runtime.checkout} on ${runtime.version}: no 200 on /health in 120 s`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      await r.arrayBuffer();
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const startupMs = now() - t;
  return {
    startupMs,
    stop: async () => {
      server.kill('SIGTERM');
      await server.exited;
    },
  };
}

/** Every figure of one runtime, each on a fresh store. */
async function measure(runtime: Runtime, loadSeconds: number, kaziusRows: number): Promise<Figures> {
  const log = (m: string) => console.log(`runtime: node ${runtime.version}: ${m}`);
  // start-up: three cold starts on an empty store
  const startupMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const tmp = await tempDir('toxgraph-bench-runtime-');
    const s = await startServer(runtime, tmp.dir, await freePort());
    startupMs.push(s.startupMs);
    await s.stop();
    await tmp.remove();
  }
  log(`start-up ${startupMs.map((x) => fmt(x, 0)).join(', ')} ms`);

  // load: GET /compound/{id} as Turtle with the representation cache off (every GET is routed,
  // read through SPARQL and rendered), then the read/write mix of bench/load.ts
  const loadTmp = await tempDir('toxgraph-bench-runtime-');
  const loadPort = await freePort();
  const loadServer = await startServer(runtime, loadTmp.dir, loadPort, ['--representation-cache-mb', '0']);
  const base = `http://127.0.0.1:${loadPort}`;
  let compoundTurtle: autocannon.Result;
  let mix: Awaited<ReturnType<typeof loadMix>>;
  try {
    const targets = await mixTargets(base);
    compoundTurtle = await cannon({ url: `${base}${targets.compound}`, connections: 50, duration: loadSeconds, headers: { Accept: 'text/turtle' } });
    mix = await loadMix(base, targets, 50, loadSeconds);
  } finally {
    await loadServer.stop();
    await loadTmp.remove();
  }
  log(`GET /compound/{id} Turtle ${fmt(compoundTurtle.requests.average, 0)} req/s; mix ${fmt(mix.mixed.requests.average, 0)} req/s`);

  // a 10-fold cross-validation on Kazius (Morgan fingerprints, random forest), memory at rest
  const tmp = await tempDir('toxgraph-bench-runtime-');
  const port = await freePort();
  const server = await startServer(runtime, tmp.dir, port);
  const url = `http://127.0.0.1:${port}`;
  try {
    await new Promise((r) => setTimeout(r, REST_MS));
    const idleRss = await metric(url, 'process_resident_memory_bytes');
    const csv = readFileSync(new URL('kazius.csv', DATA), 'utf8')
      .trim()
      .split('\n')
      .slice(0, kaziusRows + 1)
      .join('\n');
    let t = now();
    const dataset = await postAndFollow(`${url}/dataset`, {}, csv, 'text/csv');
    const uploadSeconds = (now() - t) / 1000;
    const target = (await (await fetch(`${dataset}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim().split('\r\n')[0];
    t = now();
    const fingerprints = await postAndFollow(`${url}/algorithm/morgan-fingerprint`, { dataset_uri: dataset, nBits: '2048' });
    const fingerprintSeconds = (now() - t) / 1000;
    // a small GET polled while the cross-validation runs: the worst answer time a client sees
    t = now();
    const cv = await withPolling(url, () =>
      postAndFollow(`${url}/crossvalidation`, {
        dataset_uri: fingerprints,
        algorithm_uri: `${url}/algorithm/random-forest-classification`,
        prediction_feature: target,
        num_folds: '10',
        random_seed: '1',
      }),
    );
    const cvSeconds = (now() - t) / 1000;
    const afterCvRss = await metric(url, 'process_resident_memory_bytes');
    await new Promise((r) => setTimeout(r, REST_MS));
    const restRss = await metric(url, 'process_resident_memory_bytes');
    log(`upload ${fmt(uploadSeconds)} s, fingerprints ${fmt(fingerprintSeconds)} s, 10-fold CV ${fmt(cvSeconds)} s, at rest ${fmt(restRss / 2 ** 20, 0)} MiB`);
    return {
      startupMs,
      idleRss,
      compoundTurtle,
      mix: mix.mixed,
      mixLost: mix.lost,
      uploadSeconds,
      fingerprintSeconds,
      cvSeconds,
      cvWorstGetMs: cv.worstMs,
      cvLoopMaxMs: cv.loopMaxMs,
      afterCvRss,
      restRss,
    };
  } finally {
    await server.stop();
    await tmp.remove();
  }
}

/**
 * Runtimes side by side: the same measures of this checkout on its own Node.js (the `node`
 * dependency) and of another checkout on another Node.js, in one run on one machine; ratios are
 * this project's figure over the other's (the baseline). The other is given by
 * TOXGRAPH_BENCH_BASELINE_NODE (a node binary) and TOXGRAPH_BENCH_BASELINE_CHECKOUT (a checkout of
 * this project, installed; default: this one), e.g. the last commit that ran on Node 20 with
 * Node 20 (README, "Runtime"). Without them the bench says so and measures nothing.
 */
export async function benchRuntime(): Promise<Row[]> {
  const baselineNode = process.env.TOXGRAPH_BENCH_BASELINE_NODE;
  const bench = 'runtime: this checkout on its Node.js against a baseline checkout and Node.js';
  if (!baselineNode) return [{ bench, measure: 'skipped: set TOXGRAPH_BENCH_BASELINE_NODE (and TOXGRAPH_BENCH_BASELINE_CHECKOUT)', value: '' }];
  const version = (node: string) => execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const ownNode = resolve(HERE, 'node_modules/.bin/node');
  const baseline: Runtime = { checkout: resolve(process.env.TOXGRAPH_BENCH_BASELINE_CHECKOUT ?? HERE), node: baselineNode, version: version(baselineNode) };
  const ours: Runtime = { checkout: HERE, node: ownNode, version: version(ownNode) };
  const loadSeconds = Number(process.env.TOXGRAPH_LOAD_SECONDS ?? 15);
  const kaziusRows = Number(process.env.TOXGRAPH_MEMORY_ROWS ?? 4069);
  const a = await measure(baseline, loadSeconds, kaziusRows);
  const b = await measure(ours, loadSeconds, kaziusRows);

  const title = `${bench}: ${baseline.version} (${baseline.checkout}) -> ${ours.version} (${ours.checkout})`;
  const rows: Row[] = [];
  const mib = (x: number) => `${fmt(x / 2 ** 20, 0)} MiB`;
  const row = (measure: string, x: number, y: number, show: (v: number) => string) => rows.push({ bench: title, measure, value: `${show(x)} -> ${show(y)}`, ratio: `${fmt(y / x, 2)}x` });
  row('start-up to a 200 on /health (median of 3)', median(a.startupMs), median(b.startupMs), (v) => `${fmt(v, 0)} ms`);
  row('resident memory idle, 20 s after start', a.idleRss, b.idleRss, mib);
  row(`GET /compound/{id} as Turtle, 50 clients, ${loadSeconds} s, cache off: req/s`, a.compoundTurtle.requests.average, b.compoundTurtle.requests.average, (v) => fmt(v, 0));
  row('  its latency p99', a.compoundTurtle.latency.p99, b.compoundTurtle.latency.p99, (v) => `${v} ms`);
  row(`load mix (bench/load.ts), 50 clients, ${loadSeconds} s: req/s`, a.mix.requests.average, b.mix.requests.average, (v) => fmt(v, 0));
  row('  its latency p99', a.mix.latency.p99, b.mix.latency.p99, (v) => `${v} ms`);
  rows.push({ bench: title, measure: '  its errors / non-2xx / writes lost', value: `${a.mix.errors}/${a.mix.non2xx}/${a.mixLost} -> ${b.mix.errors}/${b.mix.non2xx}/${b.mixLost}` });
  row(`Kazius (${kaziusRows} rows) upload`, a.uploadSeconds, b.uploadSeconds, (v) => `${fmt(v)} s`);
  row('Morgan fingerprints (2048 bits)', a.fingerprintSeconds, b.fingerprintSeconds, (v) => `${fmt(v)} s`);
  row('10-fold cross-validation, random forest', a.cvSeconds, b.cvSeconds, (v) => `${fmt(v)} s`);
  row('  worst GET /health during it', a.cvWorstGetMs, b.cvWorstGetMs, (v) => `${fmt(v, 0)} ms`);
  row('  worst event-loop delay during it', a.cvLoopMaxMs, b.cvLoopMaxMs, (v) => `${fmt(v, 0)} ms`);
  row('resident memory right after the cross-validation', a.afterCvRss, b.afterCvRss, mib);
  row(`resident memory at rest (${REST_MS / 1000} s after)`, a.restRss, b.restRss, mib);
  return rows;
}
