import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { Redis } from 'ioredis';
import { freePort } from '../helpers.ts';

/** redis-server from Debian (`redis-server`), for the tests of processes sharing a queue. */
export const REDIS_SERVER = '/usr/bin/redis-server';
export const hasRedis = existsSync(REDIS_SERVER);

export interface RunningRedis {
  url: string;
  stop(): Promise<void>;
}

/** A Redis on a free loopback port that keeps nothing on disk. */
export async function startRedis(dir: string): Promise<RunningRedis> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch (e) {
      probe.disconnect();
      if (i > 100) {
        child.kill('SIGKILL');
        throw new Error(`redis-server did not start: ${(e as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
