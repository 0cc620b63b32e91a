import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import Koa from 'koa';
import { errorHandler } from '../http/error-handler.ts';
import { HttpError } from '../core/errors.ts';
import { ServiceMetrics } from '../operations/metrics.ts';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../core/config.ts';
import { jsonLogger, type Logger } from '../core/log.ts';
import { openStore } from '../store/open-store.ts';
import { IdMinter } from '../store/id-minter.ts';
import { TaskRunner } from '../task/task-runner.ts';
import { WorkerPool } from '../task/worker-pool.ts';
import { ShapeValidator } from '../shacl/shape-validator.ts';
import { PublishedScope } from '../ontology/published-scope.ts';
import { OntologyRegistry } from '../ontology/registry.ts';
import { readVocabularies, writeVocabularies } from '../ontology/vocabularies.ts';
import type { PageSettings } from '../rdf/html.ts';
import { createApp, type Route } from './app.ts';
import { Chemistry } from '../chemistry/chemistry.ts';
import { OpsinNameParser } from '../chemistry/opsin-name-parser.ts';
import { AccessControl } from '../auth/access-control.ts';
import { currentUser } from '../core/request-context.ts';
import type { Services } from '../core/services.ts';
import { UriScheme } from '../core/uri-scheme.ts';
import { isLoopbackHost } from '../core/address-rules.ts';
import { LocalCoordination, type Coordination } from '../core/coordination.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface RunningServer {
  /** The URL the server listens on (http://127.0.0.1:port). */
  url: string;
  services: Services;
  /** Every route the application answers (what /openapi.json must describe). */
  routes: Route[];
  close(): Promise<void>;
}

/** Open the store, load the vocabularies, recover tasks, and listen. */
export async function startServer(config: Config, log: Logger = jsonLogger(config.quiet)): Promise<RunningServer> {
  if (!config.auth && !isLoopbackHost(config.host)) {
    log.warn(
      `WARNING: access control is off and the server listens on ${config.host}: anyone who can reach this machine on port ${config.port} can read, change and delete every resource. Turn access control on (--auth) or listen on 127.0.0.1 (--host 127.0.0.1).`,
      { host: config.host, auth: false },
    );
  }
  // Listen first so that `--port 0` knows its port before any URI is minted; until the app is
  // ready every request is answered 503 with Retry-After (never left hanging).
  const server: Server = createServer();
  // Keep-alive connections outlive a busy moment of the event loop: a client's next request on
  // an idle socket must not meet a socket that the server is closing (Node's default is 5 s).
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 5_000;
  let handler = unavailable('the service is starting', config, log);
  server.on('request', (req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (!config.baseUrl) config.baseUrl = `http://localhost:${port}`;
  try {
    return await assemble(server, port, config, log, (h) => (handler = h));
  } catch (e) {
    server.close();
    throw e;
  }
}

const KEEP_ALIVE_MS = 65_000;
/** How often a serve process looks for tasks of processes that are gone (shared queue only). */
const SWEEP_EVERY_MS = 30_000;
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Answers every request with 503, Retry-After and an error report (start-up and shutdown). */
function unavailable(why: string, config: Config, log: Logger): Handler {
  const app = new Koa();
  app.use(errorHandler(config.baseUrl, log));
  app.use(() => {
    throw new HttpError(503, 'ServiceUnavailable', `${why}; try again shortly`, undefined, { 'Retry-After': '1' });
  });
  return app.callback();
}

/** How long an idle structure-search thread is kept (see Services.searchWorkers). */
const SEARCH_THREADS_IDLE_MS = 10 * 60_000;

/** Everything a ToxGraph process runs on: the store, the vocabularies, the shared machinery. */
export interface OpenedServices {
  services: Services;
  registry: OntologyRegistry;
  coordination: Coordination;
  /** What every page is rendered with (the base URL, the vocabularies' labels). */
  pages: PageSettings;
  /**
   * Settles when the vocabularies are in the store: written by the store's writer thread while
   * the process assembles the rest; awaited before the first request or job is taken.
   */
  vocabulariesWritten: Promise<void>;
}

/** Open the store and assemble the shared machinery (a serve process and a worker alike). */
export async function openServices(config: Config, log: Logger): Promise<OpenedServices> {
  await mkdir(config.dataDir, { recursive: true });
  if (config.redisUrl && !config.storeUrl) throw new Error('--redis-url needs --store-url: processes can only share a remote store (the embedded store belongs to one process)');
  let waited = 0;
  const opening = openStore(config, (e) => {
    if (waited++ % 10 === 0) log.warn('waiting for the store to answer', { storeUrl: config.storeUrl, error: String((e as Error)?.cause ?? e) });
  });
  // the vocabularies are parsed while the store opens (its writer thread starts), and written as
  // soon as it is open; the shapes and the chemistry toolkit are loaded while they are written
  const vocabulariesRead = early(readVocabularies(join(ROOT, 'ontology')));
  const store = await opening;
  const vocabularies = await vocabulariesRead;
  // written by the store's writer thread while the rest is assembled here (awaited before the
  // first request); the writes below (users, tasks ended) come after it in the store's queue
  const vocabulariesWritten = early(writeVocabularies(store, vocabularies));
  const shapesLoaded = early(ShapeValidator.load(join(ROOT, 'shapes')));
  const chemistryLoaded = early(Chemistry.load());
  // Redis (and BullMQ) are loaded only by processes that share a queue
  const coordination: Coordination = config.redisUrl
    ? await (await import('../coordination/redis-coordination.ts')).RedisCoordination.connect(config.redisUrl, config.redisPrefix)
    : new LocalCoordination();
  const published = new PublishedScope();
  for (const graph of Object.keys(vocabularies.quads)) published.addVocabulary(graph);
  const pages: PageSettings = { base: config.baseUrl, labels: vocabularies.labels };
  const uris = new UriScheme(config.baseUrl);
  const access = await AccessControl.load(store, config, coordination);
  // the one ownership rule: a resource belongs to the caller whose request or task minted its URI
  const ids = new IdMinter(store, coordination, [(uri) => access.grant(uri, currentUser.getStore())]);
  const jobQueue = config.redisUrl ? new (await import('../task/job-queue.ts')).JobQueue(config.redisUrl, config.redisPrefix, config.jobLockSeconds) : undefined;
  const tasks = new TaskRunner(store, uris, ids, { concurrency: config.taskConcurrency, stopWaitMs: config.stopWaitSeconds * 1000 }, log, coordination, jobQueue);
  await tasks.listen();
  const services: Services = {
    config,
    uris,
    log,
    store,
    ids,
    tasks,
    coordination,
    workers: new WorkerPool(config.workerThreads),
    searchWorkers: new WorkerPool(config.workerThreads, SEARCH_THREADS_IDLE_MS),
    shapes: await shapesLoaded,
    published,
    chemistry: await chemistryLoaded,
    opsin: new OpsinNameParser({ jar: config.opsinJar, log }),
    access,
    metrics: new ServiceMetrics(tasks, store, config.storeUrl ? undefined : join(config.dataDir, 'store')),
  };
  const interrupted = await tasks.recoverInterrupted();
  if (interrupted) log.warn('tasks interrupted by the last shutdown were ended as Error', { count: interrupted });
  const registry = new OntologyRegistry(store, published, config, log, uris, coordination);
  return { services, registry, coordination, pages, vocabulariesWritten };
}

/** A promise started now and awaited later: should it fail meanwhile, that is not an unhandled rejection (its await throws). */
function early<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Close what openServices opened, in order: running work first, the store last. */
export async function closeServices({ services, coordination }: OpenedServices): Promise<void> {
  await services.tasks.close();
  await services.workers.close();
  await services.searchWorkers.close();
  services.opsin.close();
  await coordination.close();
  await services.store.close();
}

async function assemble(server: Server, port: number, config: Config, log: Logger, attach: (h: Handler) => void): Promise<RunningServer> {
  const opened = await openServices(config, log);
  const { services, registry } = opened;
  await registry.load();
  await registry.listen();
  registry.startRefreshing();
  // with processes sharing a queue, the tasks of a process that is gone are ended by the others
  const sweep = opened.coordination.shared ? setInterval(() => void services.tasks.recoverInterrupted().catch(() => undefined), SWEEP_EVERY_MS) : undefined;
  sweep?.unref();
  const { app, ready, routes } = createApp(services, registry, opened.pages);
  await Promise.all([ready, opened.vocabulariesWritten]);
  attach(app.callback());
  log.info('listening', { host: config.host, port, baseUrl: config.baseUrl, dataDir: config.dataDir });
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    routes,
    async close() {
      registry.stop();
      // stop accepting; requests still arriving on open connections are told to come back
      attach(unavailable('the service is stopping', config, log));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      });
      clearInterval(sweep);
      await closeServices(opened);
    },
  };
}
