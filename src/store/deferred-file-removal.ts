import { watch, type FSWatcher } from 'node:fs';
import { link, mkdir, readdir, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** LevelDB's data files: sorted tables and write-ahead logs (manifests are small). */
const DATA_FILE = /^\d+\.(ldb|sst|log)$/;
const SWEEP_MS = 1000;

/**
 * Takes the cost of deleting LevelDB's obsolete files off LevelDB's lock.
 *
 * The LevelDB inside classic-level (1.20) deletes the tables a compaction made obsolete while it
 * holds the database mutex, and classic-level creates every iterator synchronously on the main
 * thread, which needs that mutex. Freeing the blocks of a 2 MB table takes about 1–8 ms on ext4;
 * a compaction that retires a hundred tables therefore stopped the event loop for 150–200 ms
 * (seen with strace during a 20,000-row upload: the main thread in a futex wait while the
 * compaction thread unlinked files).
 *
 * Every data file gets a second hard link in `trashDir` as soon as it appears (inotify, plus a
 * sweep each second). LevelDB's unlink then only removes a name (microseconds); the blocks are
 * freed when the sweep removes the trash link of a file that LevelDB has let go (link count 1),
 * on the libuv thread pool and outside LevelDB's lock. If hard links are not possible there
 * (another file system), nothing changes: LevelDB deletes its files as before.
 */
export class DeferredFileRemoval {
  private watcher?: FSWatcher;
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;
  private stopped = false;
  /** Data files that already have their trash link (LevelDB never reuses a file number). */
  private readonly linked = new Set<string>();
  /** Links being made (from inotify events): a sweep waits for them, so that it sees them made. */
  private readonly linking = new Set<Promise<void>>();

  private readonly storeDir: string;
  private readonly trashDir: string;
  private constructor(storeDir: string, trashDir: string) {
    this.storeDir = storeDir;
    this.trashDir = trashDir;
  }

  /** Starts watching `storeDir`; the trash of an earlier run is emptied first. */
  static async start(storeDir: string, trashDir: string): Promise<DeferredFileRemoval> {
    await rm(trashDir, { recursive: true, force: true });
    await mkdir(trashDir, { recursive: true });
    const removal = new DeferredFileRemoval(storeDir, trashDir);
    await removal.sweep();
    try {
      // 'rename' is a file created or removed; 'change' (every append to the write-ahead log
      // and to a table being written, thousands per second under load) needs no link
      removal.watcher = watch(storeDir, (event, name) => {
        if (event === 'rename' && name && DATA_FILE.test(name) && !removal.linked.has(name)) void removal.keep(name);
      });
      removal.watcher.on('error', () => removal.watcher?.close());
    } catch {
      // no inotify: the periodic sweep alone still links most files
    }
    removal.timer = setInterval(() => void removal.sweep(), SWEEP_MS);
    removal.timer.unref();
    return removal;
  }

  /** Stops watching and removes the trash (after the store is closed). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    clearInterval(this.timer);
    await this.sweeping;
    await rm(this.trashDir, { recursive: true, force: true });
  }

  /** A second name for a data file, so that LevelDB's unlink does not free its blocks. */
  private async keep(name: string): Promise<void> {
    if (this.stopped) return;
    this.linked.add(name);
    const made = link(join(this.storeDir, name), join(this.trashDir, name)).catch((e: NodeJS.ErrnoException) => {
      // gone before it could be linked (a short-lived log): nothing to keep
      if (e.code !== 'EEXIST') this.linked.delete(name);
    });
    this.linking.add(made);
    await made;
    this.linking.delete(made);
  }

  /** Link new data files; free the ones LevelDB has deleted. One sweep at a time. */
  sweep(): Promise<void> {
    this.sweeping ??= (async () => {
      try {
        await Promise.all(this.linking);
        const [live, kept] = await Promise.all([readdir(this.storeDir), readdir(this.trashDir)]);
        const liveNames = new Set(live);
        const keptNames = new Set(kept);
        for (const name of live) if (DATA_FILE.test(name) && !keptNames.has(name) && !this.linked.has(name)) await this.keep(name);
        for (const name of kept) {
          if (liveNames.has(name)) continue;
          const path = join(this.trashDir, name);
          // LevelDB never reuses a file number, so a trash link whose name left the store is the last one
          if ((await stat(path).catch(() => undefined))?.nlink === 1) {
            await unlink(path).catch(() => undefined);
            this.linked.delete(name);
          }
        }
      } catch {
        // the store directory went away (shutdown): nothing to do
      } finally {
        this.sweeping = undefined;
      }
    })();
    return this.sweeping;
  }
}
