import { loadConfig } from './config.js';
import { startServer } from './server/server.js';

let config;
try {
  config = loadConfig();
} catch (e) {
  process.stderr.write(`toxgraph: ${(e as Error).message}\n`);
  process.exit(2);
}
const server = await startServer(config);
// A stray rejection must not take the whole service down; it is logged as the bug it is.
process.on('unhandledRejection', (reason) => {
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'unhandled rejection', error: String((reason as Error)?.stack ?? reason) }) + '\n');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
