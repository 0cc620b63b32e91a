import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { Quadstore } from 'quadstore';
import { df } from '../src/rdf/namespaces.ts';
import { INDEXES } from '../src/store/indexes.ts';

/** One line of the printed table. `ratio` is always against a baseline measured in this run. */
export interface Row {
  bench: string;
  measure: string;
  value: string;
  ratio?: string;
}

export const now = () => performance.now();

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);
export const ratio = (n: number) => `${n.toFixed(2)}x`;

export async function tempDir(prefix: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A raw quadstore opened exactly as QuadstoreTripleStore.open does (same backend options, factory, indexes). */
export async function openRawQuadstore(directory: string): Promise<Quadstore> {
  const backend = new ClassicLevel<string, Uint8Array>(directory, { keyEncoding: 'utf8', valueEncoding: 'view' } as any);
  const quadstore = new Quadstore({ backend: backend as any, dataFactory: df as any, indexes: INDEXES as any });
  await quadstore.open();
  return quadstore;
}

/** Run `work(i)` for i in [0, n) with at most `concurrency` in flight. */
export async function pool(n: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, n) }, lane));
}

export const FEATURE_PREFIXES = `@prefix ot: <http://www.opentox.org/api/1.1#>. @prefix dc: <http://purl.org/dc/elements/1.1/>. @prefix owl: <http://www.w3.org/2002/07/owl#>.`;
export const SAME_AS = 'http://www.opentox.org/echaEndpoints.owl#LC50';

export function featureTurtle(i: number): string {
  return `${FEATURE_PREFIXES} [] a ot:NumericFeature ; dc:title "feature ${i}" ; ot:units "mg/L" ; owl:sameAs <${SAME_AS}> .`;
}

/** POST one feature; answers its URI. */
export async function postFeature(serverUrl: string, i: number): Promise<string> {
  const res = await fetch(`${serverUrl}/feature`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/turtle', Accept: 'text/uri-list' },
    body: featureTurtle(i),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /feature answered ${res.status}: ${text.slice(0, 300)}`);
  return text.trim();
}

/** POST (a form, or a body of `type`) and, when the answer is a task, follow it; answers the result URI. */
export async function postAndFollow(url: string, params: Record<string, string>, body?: string | Uint8Array, type?: string): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { Accept: 'text/uri-list', 'Content-Type': type ?? 'application/x-www-form-urlencoded' },
    body: (body as BodyInit | undefined) ?? new URLSearchParams(params),
  });
  const text = (await res.text()).trim();
  if (res.status === 200) return text;
  if (res.status !== 202) throw new Error(`${url}: ${res.status} ${text.slice(0, 300)}`);
  for (;;) {
    const t = await fetch(text, { headers: { Accept: 'text/uri-list' } });
    const answer = (await t.text()).trim();
    if (t.status === 200) return answer;
    if (t.status !== 202) throw new Error(`task ${text}: ${t.status} ${(await (await fetch(text, { headers: { Accept: 'text/turtle' } })).text()).slice(0, 1500)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * While `work` runs, a client polls `GET /health` every 50 ms (a small GET): the worst answer
 * time is what a client of the server sees while the job runs.
 */
export async function withPolling<T>(base: string, work: () => Promise<T>): Promise<{ result: T; worstMs: number; loopMaxMs: number }> {
  // the server's event-loop delay histogram (prom-client) restarts at every read of /metrics
  await metric(base, 'nodejs_eventloop_lag_max_seconds');
  let worst = 0;
  let done = false;
  const poller = (async () => {
    while (!done) {
      const t = now();
      await (await fetch(`${base}/health`)).arrayBuffer();
      worst = Math.max(worst, now() - t);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    const result = await work();
    return { result, worstMs: worst, loopMaxMs: 1000 * (await metric(base, 'nodejs_eventloop_lag_max_seconds')) };
  } finally {
    done = true;
    await poller;
  }
}

/** A figure of the server's own /metrics. */
export async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  return Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1]);
}

/**
 * Resident memory of a process (Linux /proc), all and by kind: anonymous (heaps) and file-backed
 * (mapped files, which the kernel may drop). Undefined where /proc cannot be read.
 */
export function residentMemory(pid: number): { all: number; anon: number; file: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const bytes = (k: string) => 1024 * Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(status)?.[1]);
    return { all: bytes('VmRSS'), anon: bytes('RssAnon'), file: bytes('RssFile') };
  } catch {
    return undefined;
  }
}

/** A server of its own on a temporary store, as an operator starts it; `stop` ends it and removes the store. */
export async function benchServer(prefix: string): Promise<{ base: string; pid: number; stop(): Promise<void> }> {
  const { freePort, spawnServer } = await import('../test/helpers.ts');
  const tmp = await tempDir(prefix);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await spawnServer(['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet'], { port });
  return {
    base,
    pid: server.pid,
    stop: async () => {
      server.kill();
      await server.exited;
      await tmp.remove();
    },
  };
}

/** A shared data set uploaded: its endpoint (first feature) and the dataset of it with a descriptor algorithm's columns. */
export async function describedSharedSet(base: string, file: string, algorithm: string, params: Record<string, string> = {}): Promise<{ target: string; dataset: string }> {
  const raw = await postAndFollow(`${base}/dataset`, {}, readFileSync(new URL(`../../shared/data/${file}`, import.meta.url), 'utf8'), 'text/csv');
  const target = (await (await fetch(`${raw}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim().split('\r\n')[0];
  return { target, dataset: await postAndFollow(`${base}/algorithm/${algorithm}`, { dataset_uri: raw, ...params }) };
}
