import { createServer, type Server } from 'node:http';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';
import { jsonLogger, type Logger } from '../log.js';
import { QuadstoreTripleStore } from '../store/quadstore-triple-store.js';
import { IdMinter } from '../store/id-minter.js';
import { TaskRunner } from '../task/task-runner.js';
import { WorkerPool } from '../task/worker-pool.js';
import { ShapeValidator } from '../shacl/shape-validator.js';
import { PublishedScope } from '../ontology/published-scope.js';
import { OntologyRegistry } from '../ontology/registry.js';
import { loadVocabularies } from '../ontology/vocabularies.js';
import { createApp } from './app.js';
import { Chemistry } from '../chemistry/chemistry.js';
import { AccessControl, currentUser } from '../auth/access-control.js';
import type { Services } from './services.js';
import { isLoopbackHost } from '../outbound/address-rules.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface RunningServer {
  /** The URL the server listens on (http://127.0.0.1:port). */
  url: string;
  services: Services;
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
  // Listen first so that `--port 0` knows its port before any URI is minted; requests wait
  // until the app is attached below.
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (!config.baseUrl) config.baseUrl = `http://localhost:${port}`;
  try {
    return await assemble(server, port, config, log);
  } catch (e) {
    server.close();
    throw e;
  }
}

async function assemble(server: Server, port: number, config: Config, log: Logger): Promise<RunningServer> {
  await mkdir(config.dataDir, { recursive: true });
  const store = await QuadstoreTripleStore.open(join(config.dataDir, 'store'));
  const published = new PublishedScope();
  for (const graph of await loadVocabularies(store, join(ROOT, 'ontology'))) published.addVocabulary(graph);
  const tasks = new TaskRunner(store, config.baseUrl, config.taskConcurrency, log);
  const interrupted = await tasks.recoverInterrupted();
  if (interrupted) log.warn('tasks interrupted by the last shutdown were ended as Error', { count: interrupted });
  const services: Services = {
    config,
    log,
    store,
    ids: new IdMinter(store),
    tasks,
    workers: new WorkerPool(config.workerThreads),
    shapes: await ShapeValidator.load(join(ROOT, 'shapes')),
    published,
    chemistry: await Chemistry.load(),
    access: await AccessControl.load(store, config),
  };
  // a task's result belongs to whoever started the task, and so does every resource minted for a caller
  tasks.onResult = (uri, creator) => services.access.grant(uri, creator);
  services.ids.onMint = (uri) => services.access.grant(uri, currentUser.getStore());
  const registry = new OntologyRegistry(store, published, config, log);
  await registry.load();
  registry.startRefreshing();
  const { app, ready } = createApp(services, registry);
  await ready;
  server.on('request', app.callback());
  log.info('listening', { host: config.host, port, baseUrl: config.baseUrl, dataDir: config.dataDir });
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    async close() {
      registry.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await tasks.close();
      await services.workers.close();
      await store.close();
    },
  };
}
