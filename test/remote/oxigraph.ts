import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers.ts';
import type { RunningVirtuoso } from './virtuoso.ts';

const SERVER = fileURLToPath(new URL('./oxigraph-server.mjs', import.meta.url));

/** Oxigraph (npm `oxigraph`, in memory) behind a SPARQL 1.1 protocol server of its own process, on loopback; its data kept in `dir` between runs. */
export async function startOxigraph(dir: string): Promise<RunningVirtuoso> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER, String(port), join(dir, 'store.nq')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      if (String(d).includes('ready')) resolve();
    });
    void exited.then(() => reject(new Error('the Oxigraph server exited before it was ready')));
  });
  return {
    queryUrl: `http://127.0.0.1:${port}/sparql`,
    storeFlags: ['--store-url', `http://127.0.0.1:${port}/sparql`],
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
