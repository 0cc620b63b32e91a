import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Coordination } from '../core/coordination.ts';

/** A process that stops renewing its heartbeat for this long counts as gone. */
const HEARTBEAT_TTL_MS = 15_000;
const HEARTBEAT_EVERY_MS = 5_000;

/** INCRBY that first lifts the counter to the floor the store remembers (a Redis started empty). */
const RESERVE = `local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local floor = tonumber(ARGV[1])
if current < floor then redis.call('SET', KEYS[1], floor) end
return redis.call('INCRBY', KEYS[1], tonumber(ARGV[2]))`;

const COUNT_IN_WINDOW = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1])) end
return n`;

/** Several processes, one Redis (`--redis-url`): every key under `{prefix}:`. */
export class RedisCoordination implements Coordination {
  readonly processId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  readonly shared = true;
  private subscriber?: Redis;
  private readonly handlers = new Map<string, ((message: unknown) => void)[]>();
  private readonly heartbeat: NodeJS.Timeout;

  private readonly redis: Redis;
  private readonly prefix: string;
  private constructor(redis: Redis, prefix: string) {
    this.redis = redis;
    this.prefix = prefix;
    this.heartbeat = setInterval(() => void this.beat().catch(() => undefined), HEARTBEAT_EVERY_MS);
    this.heartbeat.unref();
  }

  static async connect(url: string, prefix: string): Promise<RedisCoordination> {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
    // ioredis reconnects by itself; a request meanwhile fails with the error, where it is handled
    redis.on('error', () => undefined);
    await redis.connect();
    const c = new RedisCoordination(redis, prefix);
    await c.beat();
    return c;
  }

  private key(name: string): string {
    return `${this.prefix}:${name}`;
  }

  private async beat(): Promise<void> {
    await this.redis.set(this.key(`alive:${this.processId}`), '1', 'PX', HEARTBEAT_TTL_MS);
  }

  async reserve(counter: string, floor: number, count: number): Promise<number> {
    return Number(await this.redis.eval(RESERVE, 1, this.key(`counter:${counter}`), floor, count));
  }

  async claim(key: string, value: string, ttlSeconds: number): Promise<string> {
    const k = this.key(`claim:${key}`);
    if (await this.redis.set(k, value, 'EX', ttlSeconds, 'NX')) return value;
    return (await this.redis.get(k)) ?? (await this.claim(key, value, ttlSeconds));
  }

  async countInWindow(key: string, ttlSeconds: number): Promise<number> {
    return Number(await this.redis.eval(COUNT_IN_WINDOW, 1, this.key(`window:${key}`), ttlSeconds));
  }

  async mark(key: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.key(`mark:${key}`), '1', 'EX', ttlSeconds);
  }

  async isMarked(key: string): Promise<boolean> {
    return (await this.redis.exists(this.key(`mark:${key}`))) === 1;
  }

  async publish(channel: string, message: unknown): Promise<void> {
    await this.redis.publish(this.key(channel), JSON.stringify({ from: this.processId, message }));
  }

  async subscribe(channel: string, handler: (message: unknown) => void): Promise<void> {
    if (!this.subscriber) {
      this.subscriber = this.redis.duplicate();
      this.subscriber.on('error', () => undefined);
      this.subscriber.on('message', (ch: string, text: string) => {
        let parsed: { from?: string; message?: unknown };
        try {
          parsed = JSON.parse(text);
        } catch {
          return;
        }
        if (parsed.from === this.processId) return;
        for (const h of this.handlers.get(ch) ?? []) h(parsed.message);
      });
    }
    const k = this.key(channel);
    if (!this.handlers.has(k)) await this.subscriber.subscribe(k);
    this.handlers.set(k, [...(this.handlers.get(k) ?? []), handler]);
  }

  async isAlive(processId: string): Promise<boolean> {
    return (await this.redis.exists(this.key(`alive:${processId}`))) === 1;
  }

  async check(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.redis.del(this.key(`alive:${this.processId}`)).catch(() => undefined);
    this.subscriber?.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
