import { accessSync, constants, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type * as RDF from '@rdfjs/types';
import { Parser } from 'n3';
import { RdfXmlParser } from 'rdfxml-streaming-parser';
import { loadConfig } from '../src/core/config.ts';
import { startServer, type RunningServer } from '../src/server/server.ts';
import { flushCompileCache } from 'node:module';
import type { RunningVirtuoso } from './remote/virtuoso.ts';

export interface TestServer extends RunningServer {
  /** The base URL that minted URIs start with. */
  base: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** The remote store the tests run on (`TOXGRAPH_TEST_STORE`): Virtuoso (`npm run test:remote`), Oxigraph, or none (embedded). */
export const testStore = process.env.TOXGRAPH_TEST_STORE === 'virtuoso' || process.env.TOXGRAPH_TEST_STORE === 'oxigraph' ? process.env.TOXGRAPH_TEST_STORE : undefined;

/**
 * The options of a test of chemistry, learning or statistics whose store calls the other tests of
 * its file make too: it runs on the embedded store (npm test) and is not repeated on each remote
 * store (docs/development.md, "The remote-store runs").
 */
export const notOnRemoteStores = { skip: testStore ? `chemistry, learning or statistics: the other tests of this file make its store calls on ${testStore}` : false };

/** Remote stores of the test servers, by database directory: a server restarted on the same data directory (after `close()`) finds its store still running. */
const runningVirtuosos = new Map<string, Promise<RunningVirtuoso>>();

function virtuosoFor(dir: string): Promise<RunningVirtuoso> {
  let running = runningVirtuosos.get(dir);
  if (!running) {
    running = testStore === 'oxigraph' ? import('./remote/oxigraph.ts').then((m) => m.startOxigraph(dir)) : import('./remote/virtuoso.ts').then((m) => m.startVirtuoso(dir));
    runningVirtuosos.set(dir, running);
  }
  return running;
}

/** Stop every test store still running (for scripts that use testStoreFlags without startTestServer). */
export async function stopTestStores(): Promise<void> {
  const running = [...runningVirtuosos.values()];
  runningVirtuosos.clear();
  await Promise.all(running.map(async (v) => (await v).stop()));
}

/** The flags that put a server (or the user command) on the test store of a data directory: none for the embedded store. */
export async function testStoreFlags(dir: string): Promise<string[]> {
  if (!testStore) return [];
  return (await virtuosoFor(join(dir, 'virtuoso'))).storeFlags;
}

/**
 * A real server on a fresh temporary store, on a free loopback port. With
 * TOXGRAPH_TEST_STORE=virtuoso (`npm run test:remote`) the store is a Virtuoso server of its own
 * (its database under the data directory, so a restart on the same directory finds the data).
 */
export async function startTestServer(flags: string[] = [], dataDir?: string): Promise<TestServer> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'toxgraph-test-')));
  const remote = testStore ? await virtuosoFor(join(dir, 'virtuoso')) : undefined;
  const storeFlags = remote ? remote.storeFlags : [];
  // a bad flag (loadConfig throws) stops the remote store too
  const server = await Promise.resolve()
    .then(() => startServer(loadConfig(['--port', '0', '--host', '127.0.0.1', '--data', dir, '--quiet', ...storeFlags, ...flags], {})))
    .catch(async (e) => {
      await remote?.stop();
      throw e;
    });
  // the modules a server loads go to the compile cache now, not when this file's process ends:
  // the files that start meanwhile (a fresh clone, an empty cache) find them compiled
  flushCompileCache();
  return {
    ...server,
    base: server.services.config.baseUrl,
    dataDir: dir,
    async stop() {
      await server.close();
      if (remote) {
        runningVirtuosos.delete(join(dir, 'virtuoso'));
        await remote.stop();
      }
      if (!dataDir) await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Reply {
  status: number;
  /** The media type of the answer, without its parameters (text types carry `charset=utf-8`: the whole header is in `headers`). */
  type: string;
  text: string;
  headers: Headers;
}

export async function http(url: string, init: RequestInit & { accept?: string; contentType?: string } = {}): Promise<Reply> {
  const headers = new Headers(init.headers);
  if (init.accept) headers.set('Accept', init.accept);
  if (init.contentType) headers.set('Content-Type', init.contentType);
  const res = await fetch(url, { ...init, headers, redirect: 'manual' });
  return { status: res.status, type: (res.headers.get('content-type') ?? '').split(';')[0].trim(), text: await res.text(), headers: res.headers };
}

export function form(values: Record<string, string | string[]>): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
  return p;
}

export async function parseRdfXml(text: string): Promise<RDF.Quad[]> {
  return new Promise((resolve, reject) => {
    const quads: RDF.Quad[] = [];
    const p = new RdfXmlParser();
    p.on('data', (q: RDF.Quad) => quads.push(q));
    p.on('error', reject);
    p.on('end', () => resolve(quads));
    p.write(text);
    p.end();
  });
}

export function parseTurtle(text: string, baseIRI?: string): RDF.Quad[] {
  return new Parser({ baseIRI }).parse(text) as unknown as RDF.Quad[];
}

/** Values of `predicate` in an error report (any RDF format we can parse here). */
export async function errorReport(reply: Reply): Promise<{ code?: string; message?: string; status?: string }> {
  const quads = reply.type.startsWith('application/rdf+xml') ? await parseRdfXml(reply.text) : parseTurtle(reply.text);
  const get = (local: string) => quads.find((q) => q.predicate.value === `http://www.opentox.org/api/1.1#${local}`)?.object.value;
  if (!quads.some((q) => q.object.value === 'http://www.opentox.org/api/1.1#ErrorReport')) throw new Error(`not an ErrorReport: ${reply.text.slice(0, 300)}`);
  return { code: get('errorCode'), message: get('message'), status: get('statusCode') };
}

export const OT = 'http://www.opentox.org/api/1.1#';
export const TTL_PREFIXES = `@prefix ot: <${OT}> . @prefix dc: <http://purl.org/dc/elements/1.1/> . @prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix otee: <http://www.opentox.org/echaEndpoints.owl#> .\n`;

export function featureTurtle(title: string, extra = ''): string {
  return `${TTL_PREFIXES}[] a ot:NumericFeature ; dc:title ${JSON.stringify(title)} ; ot:units "mg/L" ; owl:sameAs otee:LC50 ${extra}.`;
}

/** Follow a task until it completes; answers its result URI (throws with the error report when it fails). */
export async function waitForTask(server: TestServer, taskUri: string): Promise<string> {
  const local = taskUri.replace(server.base, server.url);
  // the task's own completion, when this process runs it (then one request reads its end), not a poll
  await server.services.tasks.settled(taskUri).catch(() => undefined);
  for (let i = 0; i < 6000; i++) {
    const r = await http(local, { accept: 'text/uri-list' });
    if (r.status === 200) return r.text.trim();
    if (r.status !== 202) throw new Error(`task failed: ${r.status} ${(await http(local, { accept: 'text/turtle' })).text}`);
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('task did not finish');
}

/** Values of one predicate of one subject, from Turtle. */
export function valuesOf(quads: RDF.Quad[], subject: string, predicate: string): string[] {
  return quads.filter((q) => q.subject.value === subject && q.predicate.value === predicate).map((q) => q.object.value);
}

/** Is Raptor's `rapper` on the PATH? Looked up in its directories, not run: a process spawned at every test file's import cost 25-40 ms. */
export const hasRapper = (process.env.PATH ?? '').split(delimiter).some((dir) => {
  try {
    accessSync(join(dir || '.', 'rapper'), constants.X_OK);
    return true;
  } catch {
    return false;
  }
});
export const RAPPER_NOTE = 'rapper (Debian raptor2-utils) is not installed; .ci/run installs it';

/** Parse RDF/XML with an independent parser (Raptor); answers the N-Triples lines. */
export function rapper(xml: string): string[] {
  const run = spawnSync('rapper', ['-i', 'rdfxml', '-o', 'ntriples', '-', 'http://base.example/'], { input: xml });
  const stderr = run.stderr.toString();
  // exit 2 means warnings only (e.g. rdf:foo, an unknown rdf: term the W3C tests use on purpose)
  assert.ok(run.status === 0 || (run.status === 2 && !/Error/.test(stderr)), `Raptor refused the RDF/XML: ${stderr}`);
  return run.stdout.toString().split('\n').filter(Boolean);
}

/** RDF/XML that both Raptor (when installed) and our RDF/XML parser read, to the same number of triples. */
export async function checkRdfXml(xml: string): Promise<RDF.Quad[]> {
  const quads = await parseRdfXml(xml);
  if (hasRapper) assert.equal(rapper(xml).length, new Set(quads.map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.termType}:${q.object.value}`)).size);
  return quads;
}

/** Every resource of the collections that requests could create (to check that refused requests write nothing). */
export async function resourceLists(server: TestServer): Promise<string> {
  const lists = await Promise.all(['dataset', 'feature', 'model', 'validation', 'crossvalidation', 'task'].map(async (c) => (await http(`${server.url}/${c}`, { accept: 'text/uri-list' })).text));
  return lists.join('\n');
}

export interface ServerProcess {
  /** The port it listens on (known once `listening` is logged, or given). */
  port: number;
  /** The first JSON line with msg "listening". */
  listening: Record<string, unknown>;
  stderr(): string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
  /** The operating-system process id. */
  pid: number;
}

/**
 * The real server as its own process (`src/main.ts`), as an operator starts it. With
 * `waitForListening` false it answers as soon as the process is spawned (port must be given).
 */
export async function spawnServer(
  args: string[],
  options: { waitForListening?: boolean; port?: number; worker?: boolean /** another checkout of the project */; cwd?: string; env?: Record<string, string> } = {},
): Promise<ServerProcess> {
  const { spawn } = await import('node:child_process');
  // started as `npm start` starts it (bin/toxgraph-server: allocator, node flags, and
  // TOXGRAPH_NODE_FLAGS for diagnosis, e.g. --heapsnapshot-signal=SIGUSR2)
  // a worker (`toxgraph worker`) answers no HTTP: it is ready when it logs "working"
  const ready = options.worker ? '"msg":"working"' : '"msg":"listening"';
  const child = spawn('sh', ['bin/toxgraph-server', ...(options.worker ? ['worker'] : []), '--port', String(options.port ?? 0), ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    cwd: options.cwd,
    env: { ...process.env, TOXGRAPH_HOST: '', TOXGRAPH_AUTH: '', PORT: '', ...options.env },
  });
  let stderr = '';
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const listening = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const line = stderr.split('\n').find((l) => l.includes(ready));
      if (line) resolve(JSON.parse(line));
    });
    void exited.then((code) => reject(new Error(`the server exited (${code}) before listening: ${stderr}`)));
  });
  listening.catch(() => undefined);
  const proc: ServerProcess = { port: options.port ?? 0, listening: {}, stderr: () => stderr, exited, kill: (signal = 'SIGTERM') => child.kill(signal), pid: child.pid ?? 0 };
  if (options.waitForListening === false) return proc;
  const timeout = setTimeout(() => child.kill('SIGKILL'), 90_000);
  try {
    proc.listening = await listening;
  } finally {
    clearTimeout(timeout);
  }
  proc.port = Number(proc.listening.port ?? proc.port);
  return proc;
}

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

/** A CSV of `rows` rows of a data set in ../shared/data (every `step`th: the classes of kazius.csv are sorted), with its header. */
export function sharedCsv(file: string, rows: number, step = 1): string {
  const [header, ...lines] = readFileSync(new URL(`../../shared/data/${file}`, import.meta.url), 'utf8')
    .trim()
    .split('\n');
  return `${[header, ...lines.filter((_, i) => i % step === 0).slice(0, rows)].join('\n')}\n`;
}
