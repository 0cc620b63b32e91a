import { HttpError } from '../core/errors.ts';

const WINDOW_MS = 15 * 60 * 1000;
const FREE_FAILURES = 5;
/** Keys remembered at most: expired ones go first, then the oldest (memory must not grow with every name tried). */
const MAX_KEYS = 10_000;

/** Failed logins per user name and per address: after five within 15 minutes, 429 until the window ends. */
export class LoginThrottle {
  private readonly failures = new Map<string, { count: number; since: number }>();
  /** No remembered window began before this: a lower bound, exact after a prune has looked at every key. */
  private earliest = Number.POSITIVE_INFINITY;

  /** 429 with Retry-After when any key has failed too often lately. */
  check(keys: string[], now = Date.now()): void {
    for (const k of keys) {
      const f = this.failures.get(k);
      if (f && now - f.since < WINDOW_MS && f.count >= FREE_FAILURES) {
        throw new HttpError(429, 'TooManyAttempts', 'too many failed logins; try again later', undefined, { 'Retry-After': String(Math.ceil((f.since + WINDOW_MS - now) / 1000)) });
      }
    }
  }

  failed(keys: string[], now = Date.now()): void {
    for (const k of keys) {
      const f = this.failures.get(k);
      this.failures.delete(k); // re-inserted last: the map stays in order of last failure
      const entry = f && now - f.since < WINDOW_MS ? { count: f.count + 1, since: f.since } : { count: 1, since: now };
      this.failures.set(k, entry);
      if (entry.since < this.earliest) this.earliest = entry.since;
    }
    if (this.failures.size > MAX_KEYS) this.prune(now);
  }

  succeeded(key: string): void {
    this.failures.delete(key);
  }

  get size(): number {
    return this.failures.size;
  }

  /**
   * Expired keys are looked for only when one may be (no window began before `earliest`): a look
   * at every key for each failed login made a run of new names cost 10,000 steps a login once
   * the map was full. Then the oldest go, as before.
   */
  private prune(now: number): void {
    if (now - this.earliest >= WINDOW_MS) {
      let earliest = Number.POSITIVE_INFINITY;
      for (const [k, f] of this.failures) {
        if (now - f.since >= WINDOW_MS) this.failures.delete(k);
        else if (f.since < earliest) earliest = f.since;
      }
      this.earliest = earliest;
    }
    for (const k of this.failures.keys()) {
      if (this.failures.size <= MAX_KEYS) break;
      this.failures.delete(k);
    }
  }
}
