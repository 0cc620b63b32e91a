/**
 * LevelDB iterators must be closed: an open one holds a snapshot of the database, which pins
 * every memtable and table file that existed when it was made, and abstract-level keeps it in
 * the database's resource set until the database closes. quadstore reads through iterators it
 * never closes (its LevelIterator drops them when drained or destroyed), so every read used to
 * leave a few kilobytes of native memory behind, and large reads pinned hundreds of megabytes of
 * memtables: memory grew with every job and came back only when the process ended.
 *
 * `closingIterators(db)` hands quadstore the same database with iterators that close themselves
 * when they are drained, when they fail, and when the reader drops them unfinished (a
 * FinalizationRegistry closes an iterator whose reader was garbage-collected).
 */

interface LevelIterator {
  nextv(size: number, options?: unknown): Promise<unknown[]>;
  next(): Promise<unknown>;
  all(options?: unknown): Promise<unknown[]>;
  seek(target: unknown, options?: unknown): void;
  close(): Promise<void>;
}

interface IteratingDb {
  iterator(options?: unknown): LevelIterator;
}

/** Closes iterators whose readers were collected without finishing them. */
const abandoned = new FinalizationRegistry<LevelIterator>((it) => {
  it.close().catch(() => undefined);
});

export function closingIterators<T extends IteratingDb>(db: T): T {
  return new Proxy(db, {
    get(target, property) {
      if (property === 'iterator') return (options?: unknown) => closing(target.iterator(options));
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function closing(it: LevelIterator): LevelIterator {
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    abandoned.unregister(wrapper);
    await it.close();
  };
  const settle = async <R>(read: () => Promise<R>, ended: (r: R) => boolean): Promise<R> => {
    try {
      const result = await read();
      if (ended(result)) await close();
      return result;
    } catch (e) {
      await close().catch(() => undefined);
      throw e;
    }
  };
  // a reader may ask again after the end (quadstore does): answered "no more" here, where the
  // closed iterator would throw, with a stack trace built each time (about 9 µs per read)
  const wrapper: LevelIterator = {
    nextv: (size, options) =>
      closed
        ? Promise.resolve([])
        : settle(
            () => it.nextv(size, options),
            (items) => items.length === 0,
          ),
    next: () =>
      closed
        ? Promise.resolve(undefined)
        : settle(
            () => it.next(),
            (item) => item === undefined,
          ),
    all: (options) =>
      settle(
        () => it.all(options),
        () => true,
      ),
    seek: (target, options) => it.seek(target, options),
    close,
  };
  abandoned.register(wrapper, it, wrapper);
  return wrapper;
}
