import { loadConfig } from './core/config.ts';
import { startServer } from './server/server.ts';
import { startWorker } from './server/worker.ts';
import { jsonLogger } from './core/log.ts';

// `toxgraph [serve] [flags]` answers HTTP; `toxgraph worker [flags]` runs the shared queue's jobs
const args = process.argv.slice(2);
const role = args[0] === 'worker' || args[0] === 'serve' ? args.shift() : 'serve';
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(args);
} catch (e) {
  process.stderr.write(`toxgraph: ${(e as Error).message}\n`);
  process.exit(2);
}
const log = jsonLogger(config.quiet);
let server: { close(): Promise<void> };
try {
  server = role === 'worker' ? await startWorker(config, log) : await startServer(config, log);
} catch (e) {
  process.stderr.write(`toxgraph: ${(e as Error).message}\n`);
  process.exit(1);
}
// glibc gives each thread that allocates (LevelDB's compaction, libuv's pool, worker threads) its
// own malloc arena and keeps the fragments of large jobs: resident memory then grows with every
// job although nothing leaks. `npm start` (bin/toxgraph-server) uses jemalloc when the system has
// it, and limits glibc to two arenas otherwise.
if (process.platform === 'linux' && !process.env.LD_PRELOAD?.includes('jemalloc')) {
  if (!process.env.MALLOC_ARENA_MAX) {
    log.warn('MALLOC_ARENA_MAX is not set: resident memory may grow with every job (glibc malloc arenas); start with `npm start` or set MALLOC_ARENA_MAX=2');
  } else {
    log.warn('running on glibc malloc: resident memory grows by tens of megabytes per large job; install jemalloc (Debian: apt-get install libjemalloc2) and start with `npm start`');
  }
}
// A stray rejection must not take the whole service down; it is logged as the bug it is.
process.on('unhandledRejection', (reason) => {
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'unhandled rejection', error: String((reason as Error)?.stack ?? reason) })}\n`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
