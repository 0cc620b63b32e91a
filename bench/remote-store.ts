import { join } from 'node:path';
import { freePort, spawnServer } from '../test/helpers.ts';
import { hasVirtuoso, startVirtuoso } from '../test/remote/virtuoso.ts';
import { loadMix, mixTargets } from './load.ts';
import { fmt, tempDir, type Row } from './util.ts';

/**
 * The embedded store against a remote one (Virtuoso on loopback, Debian's
 * `virtuoso-opensource-7-bin`) under the load mix of the long-running-service issue: the same
 * server process, the same clients and duration (TOXGRAPH_LOAD_SECONDS, 30 by default, 50
 * clients), once on each store. Baseline: the embedded store in this run.
 */
export async function benchRemoteStore(): Promise<Row[]> {
  if (!hasVirtuoso) return [{ bench: 'remote store', measure: 'skipped', value: 'Virtuoso (virtuoso-opensource-7-bin) is not installed' }];
  const seconds = Number(process.env.TOXGRAPH_LOAD_SECONDS ?? 30);
  const connections = 50;
  const bench = `remote store: the load mix, ${connections} clients for ${seconds} s`;
  const rows: Row[] = [];
  const results: Record<string, number> = {};
  for (const store of ['embedded', 'Virtuoso'] as const) {
    const tmp = await tempDir('toxgraph-bench-remote-');
    const virtuoso = store === 'Virtuoso' ? await startVirtuoso(join(tmp.dir, 'virtuoso')) : undefined;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const server = await spawnServer(['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet', ...(virtuoso ? virtuoso.storeFlags : [])], { port });
    try {
      const { mixed, written, writes, lost } = await loadMix(base, await mixTargets(base), connections, seconds);
      results[store] = mixed.requests.average;
      rows.push({
        bench,
        measure: `${store} store: requests/s, p50 / p99 latency`,
        value: `${fmt(mixed.requests.average, 0)}/s, ${mixed.latency.p50} / ${mixed.latency.p99} ms`,
        ratio: store === 'embedded' ? '1.00x' : `${fmt(mixed.requests.average / results.embedded, 2)}x`,
      });
      rows.push({
        bench,
        measure: `${store} store: errors / non-2xx / writes read back`,
        value: `${mixed.errors} / ${mixed.non2xx} / ${written.length - lost} of ${written.length} acknowledged (${writes} sent)`,
        ratio: lost ? `${lost} LOST` : '0 lost',
      });
    } finally {
      server.kill('SIGTERM');
      await server.exited;
      await virtuoso?.stop();
      await tmp.remove();
    }
  }
  return rows;
}
