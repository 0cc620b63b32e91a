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
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
