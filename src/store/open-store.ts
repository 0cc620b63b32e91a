import { join } from 'node:path';
import type { Config } from '../core/config.ts';
import { QuadstoreTripleStore } from './quadstore-triple-store.ts';
import { RemoteSparqlStore } from './remote/remote-sparql-store.ts';
import type { TripleStore } from './triple-store.ts';

/**
 * The store the configuration names: a remote SPARQL 1.1 server (`--store-url`; one that is not
 * answering yet is waited for `--store-wait` seconds, `onWait` told of each try), or the embedded
 * one under the data directory.
 */
export function openStore(config: Config, onWait?: (e: unknown) => void): Promise<TripleStore> {
  if (config.storeUrl)
    return RemoteSparqlStore.open(
      { queryUrl: config.storeUrl, updateUrl: config.storeUpdateUrl ?? config.storeUrl, user: config.storeUser, password: config.storePassword, token: config.storeToken },
      config.storeWaitSeconds * 1000,
      onWait,
    );
  return QuadstoreTripleStore.open(join(config.dataDir, 'store'));
}
