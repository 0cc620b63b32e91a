import type { Context, Middleware } from 'koa';

/** Marks the representation being sent as one that depends on the store, the URL and the Accept header alone. */
export function storeRepresentation(ctx: Context): void {
  ctx.state.storeRepresentation = true;
}

interface Entry {
  headers: [string, string | number | string[]][];
  body: Buffer;
  route?: string;
}

/** Response headers Node writes itself for every response; never replayed. */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

/**
 * The last representations sent of resources whose routes marked them with
 * `storeRepresentation` (a compound as SMILES, a feature as RDF), kept as the bytes and headers
 * that went out, and sent again as they are while the store has not changed. A GET of the same
 * URL with the same Accept header and Host then skips routing, the store and the renderer.
 *
 * When it applies: the store counts its writes (`writeCount`, only the embedded store, which no
 * other process writes to) and access control is off (a representation then depends on nobody's
 * rights). Any write empties the whole cache: entries are never older than the store. Only
 * 200 answers with a body in memory, each at most `maxEntry` bytes, `budget` bytes in all (the
 * oldest leave first), so memory does not grow with history.
 */
export class RepresentationCache {
  private readonly entries = new Map<string, Entry>();
  private held = 0;
  private writes = -1;
  /** Requests answered from the cache, and representations stored in it, since the start. */
  hits = 0;
  stored = 0;

  private readonly writeCount: (() => number) | undefined;
  private readonly applies: () => boolean;
  /** Bytes held in all (0: the cache is off). */
  private readonly budget: number;
  private readonly maxEntry: number;
  constructor(writeCount: (() => number) | undefined, applies: () => boolean, budget: number, maxEntry = 64 * 1024) {
    this.writeCount = writeCount;
    this.applies = applies;
    this.budget = budget;
    this.maxEntry = maxEntry;
  }

  /** Bytes of the representations held now. */
  get bytes(): number {
    return this.held;
  }

  /** Koa middleware: answers from the cache, or remembers what the rest of the chain answered. */
  middleware(): Middleware {
    const writeCount = this.writeCount;
    if (!writeCount || this.budget === 0) return (_ctx, next) => next();
    return async (ctx, next) => {
      if (ctx.method !== 'GET' || !this.applies()) return next();
      const writes = writeCount();
      if (writes !== this.writes) this.clear(writes);
      const key = `${ctx.req.headers.host ?? ''} ${ctx.req.headers.accept ?? ''} ${ctx.url}`;
      const hit = this.entries.get(key);
      if (hit) {
        this.hits++;
        const res = ctx.res;
        for (const [name, value] of hit.headers) res.setHeader(name, value);
        if (hit.route) (ctx as { _matchedRoute?: string })._matchedRoute = hit.route;
        ctx.body = hit.body;
        return;
      }
      await next();
      if (!ctx.state.storeRepresentation || ctx.status !== 200 || writeCount() !== writes) return;
      const body = ctx.body;
      const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.isBuffer(body) ? body : undefined;
      if (!bytes || bytes.length > this.maxEntry || ctx.res.hasHeader('set-cookie')) return;
      // the names as they were set (Node keeps their case for the response it writes)
      const res = ctx.res as typeof ctx.res & { getRawHeaderNames(): string[] };
      const headers: Entry['headers'] = [];
      for (const name of res.getRawHeaderNames()) {
        const value = res.getHeader(name);
        if (value !== undefined && !CONNECTION_HEADERS.has(name.toLowerCase())) headers.push([name, value]);
      }
      this.stored++;
      const earlier = this.entries.get(key); // two requests that missed at once
      if (earlier) this.held -= earlier.body.length + key.length;
      this.entries.set(key, { headers, body: bytes, route: (ctx as { _matchedRoute?: string })._matchedRoute });
      this.held += bytes.length + key.length;
      for (const [oldest, entry] of this.entries) {
        if (this.held <= this.budget) break;
        this.entries.delete(oldest);
        this.held -= entry.body.length + oldest.length;
      }
    };
  }

  private clear(writes: number): void {
    this.entries.clear();
    this.held = 0;
    this.writes = writes;
  }
}
