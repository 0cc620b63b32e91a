import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort, spawnServer } from '../test/helpers.ts';
import { describedSharedSet, fmt, median, metric, now, postAndFollow, ratio, tempDir, type Row } from './util.ts';

const VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version as string;
const IMAGE = `localhost/toxgraph:${VERSION}`;
const ROUNDS = 3;
/** How long a server is left idle before its memory is read at rest (as bench/memory.ts). */
const REST_MS = 20_000;

interface Started {
  base: string;
  /** From the start command to the first 200 on /health. */
  startupMs: number;
  stop(): Promise<void>;
}

async function healthy(base: string, since: number): Promise<number> {
  for (;;) {
    try {
      const r = await fetch(`${base}/health`);
      await r.arrayBuffer();
      if (r.status === 200) return now() - since;
    } catch {
      // not listening yet
    }
    if (now() - since > 120_000) throw new Error(`${base} did not answer /health`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The server as `npm start` starts it, on this machine, on a fresh store. */
async function outside(): Promise<Started> {
  const tmp = await tempDir('toxgraph-bench-container-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = now();
  const server = await spawnServer(['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet'], { port, waitForListening: false });
  const startupMs = await healthy(base, t);
  return {
    base,
    startupMs,
    stop: async () => {
      server.kill();
      await server.exited;
      await tmp.remove();
    },
  };
}

/** The image run as an operator runs it: a fresh volume for /data, the port published on loopback. */
async function inside(): Promise<Started> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const name = `toxgraph-bench-${process.pid}-${port}`;
  const t = now();
  execFileSync('podman', ['run', '-d', '--name', name, '-p', `127.0.0.1:${port}:8080`, '-v', `${name}:/data`, '-e', `TOXGRAPH_BASE_URL=${base}`, IMAGE, '--quiet'], { stdio: 'ignore' });
  const startupMs = await healthy(base, t);
  return {
    base,
    startupMs,
    stop: async () => {
      spawnSync('podman', ['stop', '-t', '30', name], { stdio: 'ignore' });
      spawnSync('podman', ['rm', '-f', name], { stdio: 'ignore' });
      spawnSync('podman', ['volume', 'rm', '-f', name], { stdio: 'ignore' });
    },
  };
}

interface Figures {
  startupMs: number[];
  restMiB: number;
  afterJobMiB: number;
  jobSeconds: number;
}

/** Start-up three times; then resident memory at rest and after one job (descriptors, a forest, a prediction of the set). */
async function measure(start: () => Promise<Started>, label: string): Promise<Figures> {
  const startupMs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const s = await start();
    startupMs.push(s.startupMs);
    await s.stop();
  }
  const s = await start();
  try {
    await new Promise((r) => setTimeout(r, REST_MS));
    const restMiB = (await metric(s.base, 'process_resident_memory_bytes')) / 2 ** 20;
    const t = now();
    const { target, dataset } = await describedSharedSet(s.base, 'EPAFHM_log10.csv', 'rdkit-descriptors');
    const model = await postAndFollow(`${s.base}/algorithm/random-forest-regression`, { dataset_uri: dataset, prediction_feature: target, random_seed: '1' });
    await postAndFollow(model, { dataset_uri: dataset });
    const jobSeconds = (now() - t) / 1000;
    const afterJobMiB = (await metric(s.base, 'process_resident_memory_bytes')) / 2 ** 20;
    console.log(`container: ${label}: start-up ${startupMs.map((x) => fmt(x, 0)).join(', ')} ms; at rest ${fmt(restMiB)} MiB; job ${fmt(jobSeconds)} s, then ${fmt(afterJobMiB)} MiB`);
    return { startupMs, restMiB, afterJobMiB, jobSeconds };
  } finally {
    await s.stop();
  }
}

/**
 * The image of deploy/build-images.sh against the same server started on this machine (`npm
 * start`), in one run: start-up to a 200 on /health, resident memory of the serve process at
 * rest and after one job, and the job's time. Needs podman and the image loaded.
 */
export async function benchContainer(): Promise<Row[]> {
  const podman = spawnSync('podman', ['image', 'inspect', '--format', '{{.Size}}', IMAGE], { encoding: 'utf8' });
  if (podman.status !== 0) {
    console.log(`container: skipped (podman or the image ${IMAGE} is missing: deploy/build-images.sh, podman load)`);
    return [];
  }
  const imageMiB = Number(podman.stdout.trim()) / 2 ** 20;
  const out = await measure(outside, 'npm start');
  const inn = await measure(inside, IMAGE);
  const startOut = median(out.startupMs);
  const startIn = median(inn.startupMs);
  console.log(`container: image ${fmt(imageMiB, 0)} MiB`);
  return [
    { bench: 'container', measure: `start-up to a 200 on /health: image vs npm start (median of ${ROUNDS})`, value: `${fmt(startIn, 0)} vs ${fmt(startOut, 0)} ms`, ratio: ratio(startIn / startOut) },
    { bench: 'container', measure: 'resident memory at rest: image vs npm start', value: `${fmt(inn.restMiB)} vs ${fmt(out.restMiB)} MiB`, ratio: ratio(inn.restMiB / out.restMiB) },
    {
      bench: 'container',
      measure: 'resident memory after one job: image vs npm start',
      value: `${fmt(inn.afterJobMiB)} vs ${fmt(out.afterJobMiB)} MiB`,
      ratio: ratio(inn.afterJobMiB / out.afterJobMiB),
    },
    {
      bench: 'container',
      measure: 'the job (descriptors, forest, prediction): image vs npm start',
      value: `${fmt(inn.jobSeconds)} vs ${fmt(out.jobSeconds)} s`,
      ratio: ratio(inn.jobSeconds / out.jobSeconds),
    },
    { bench: 'container', measure: 'image size', value: `${fmt(imageMiB, 0)} MiB` },
  ];
}
