/**
 * What several ToxGraph processes on one store agree on (README, "Scaling out"): id counters,
 * claims on a key (one compound per InChIKey), short-lived marks (a cancelled task), messages to
 * every process (a changed access policy) and which processes are alive. One process on its own
 * needs none of it: `LocalCoordination` answers from memory. With `--redis-url` every process
 * uses the same Redis (`RedisCoordination`).
 */
export interface Coordination {
  /** This process, as the others know it (a task records the process that runs it). */
  readonly processId: string;
  /** Whether other processes may share the store. */
  readonly shared: boolean;
  /** Reserve `count` more values of a counter that never goes below `floor`; answers the last value reserved. */
  reserve(counter: string, floor: number, count: number): Promise<number>;
  /** Bind `key` to `value` unless it is bound; answers the value bound (this one or an earlier claim's). */
  claim(key: string, value: string, ttlSeconds: number): Promise<string>;
  /** Count one more of `key` in a window that ends `ttlSeconds` after its first count; answers the count so far. */
  countInWindow(key: string, ttlSeconds: number): Promise<number>;
  mark(key: string, ttlSeconds: number): Promise<void>;
  isMarked(key: string): Promise<boolean>;
  /** Tell every other process; a process is not told its own messages. */
  publish(channel: string, message: unknown): Promise<void>;
  subscribe(channel: string, handler: (message: unknown) => void): Promise<void>;
  /** Whether the process `processId` is running (it keeps a heartbeat). */
  isAlive(processId: string): Promise<boolean>;
  /** Resolves when what the processes share answers (the health check); rejects with why not. */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** One process alone: everything in memory, messages go nowhere. */
export class LocalCoordination implements Coordination {
  readonly processId = 'local';
  readonly shared = false;
  private readonly counters = new Map<string, number>();
  private readonly claims = new Map<string, { value: string; until: number }>();
  private readonly marks = new Map<string, number>();
  private readonly windows = new Map<string, { count: number; until: number }>();

  async countInWindow(key: string, ttlSeconds: number): Promise<number> {
    const now = Date.now();
    // windows that ended are forgotten: memory holds the callers of the current windows only
    for (const [k, w] of this.windows) if (w.until <= now) this.windows.delete(k);
    const w = this.windows.get(key) ?? { count: 0, until: now + ttlSeconds * 1000 };
    w.count++;
    this.windows.set(key, w);
    return w.count;
  }

  async reserve(counter: string, floor: number, count: number): Promise<number> {
    const last = Math.max(this.counters.get(counter) ?? 0, floor) + count;
    this.counters.set(counter, last);
    return last;
  }

  async claim(key: string, value: string, ttlSeconds: number): Promise<string> {
    const now = Date.now();
    const held = this.claims.get(key);
    if (held && held.until > now) return held.value;
    for (const [k, c] of this.claims) if (c.until <= now) this.claims.delete(k);
    this.claims.set(key, { value, until: now + ttlSeconds * 1000 });
    return value;
  }

  async mark(key: string, ttlSeconds: number): Promise<void> {
    this.marks.set(key, Date.now() + ttlSeconds * 1000);
  }

  async isMarked(key: string): Promise<boolean> {
    return (this.marks.get(key) ?? 0) > Date.now();
  }

  async publish(): Promise<void> {}
  async subscribe(): Promise<void> {}

  async isAlive(processId: string): Promise<boolean> {
    return processId === this.processId;
  }

  async check(): Promise<void> {}

  async close(): Promise<void> {}
}
