import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../helpers.ts';

/**
 * Virtuoso Open Source (Debian's `virtuoso-opensource`) on loopback with its database in a
 * directory of its own, for running ToxGraph on a remote SPARQL store in tests. The same
 * directory started again holds the same data (restart tests).
 */
export const VIRTUOSO = '/usr/bin/virtuoso-t';
export const hasVirtuoso = existsSync(VIRTUOSO) && existsSync('/usr/bin/isql-vt');

export interface RunningVirtuoso {
  /** The endpoint ToxGraph uses (Virtuoso's: `/sparql-auth`, signed in with HTTP Digest). */
  queryUrl: string;
  /** The flags that put a server on this store, with its credentials. */
  storeFlags: string[];
  /** The account ToxGraph signs in with, if the store has one. */
  credentials?: { user: string; password: string };
  /** The endpoint anyone reaches without signing in (read-only), if the store has one. */
  anonymousUrl?: string;
  stop(): Promise<void>;
}

/** The account the tests' ToxGraph servers sign in to Virtuoso with (the anonymous SPARQL user stays read-only). */
const ACCOUNT = { user: 'toxgraph', password: 'store "secret" 1' };

export async function startVirtuoso(dir: string): Promise<RunningVirtuoso> {
  mkdirSync(dir, { recursive: true });
  const fresh = !existsSync(join(dir, 'virtuoso.db'));
  // A port another test file took between freePort() and Virtuoso's bind makes Virtuoso exit: try again on new ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await listen(dir, fresh);
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
}

async function listen(dir: string, fresh: boolean): Promise<RunningVirtuoso> {
  const [sqlPort, httpPort] = [await freePort(), await freePort()];
  writeFileSync(
    join(dir, 'virtuoso.ini'),
    `[Database]
DatabaseFile = ${dir}/virtuoso.db
ErrorLogFile = ${dir}/virtuoso.log
LockFile = ${dir}/virtuoso.lck
TransactionFile = ${dir}/virtuoso.trx
xa_persistent_file = ${dir}/virtuoso.pxa
[TempDatabase]
DatabaseFile = ${dir}/virtuoso-temp.db
TransactionFile = ${dir}/virtuoso-temp.trx
[Parameters]
ServerPort = 127.0.0.1:${sqlPort}
DisableUnixSocket = 1
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
CheckpointInterval = 60
DirsAllowed = .
[HTTPServer]
ServerPort = 127.0.0.1:${httpPort}
ServerRoot = ${dir}
ServerThreads = 10
MaxClientConnections = 10
Charset = UTF-8
[SPARQL]
ResultSetMaxRows = 100000000
MaxQueryCostEstimationTime = 0
MaxQueryExecutionTime = 0
`,
  );
  const child: ChildProcess = spawn(VIRTUOSO, ['-f', '-c', join(dir, 'virtuoso.ini')], { cwd: dir, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const queryUrl = `http://127.0.0.1:${httpPort}/sparql`;
  // a busy machine can take long to start it; a clean start here takes about a second
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      const r = await fetch(`${queryUrl}?query=${encodeURIComponent('ASK {}')}`);
      await r.text();
      if (r.ok) break;
    } catch {
      // not yet listening
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
      const why = logTail(dir);
      rmSync(join(dir, 'virtuoso.lck'), { force: true }); // the next attempt is the only Virtuoso on this directory
      throw new Error(`Virtuoso did not start in ${dir}: ${why}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (fresh) {
    // ToxGraph's own account, which may update; the anonymous SPARQL user keeps Virtuoso's read-only rights
    const sql = `DB.DBA.USER_CREATE('${ACCOUNT.user}', '${ACCOUNT.password.replace(/'/g, "''")}'); GRANT SPARQL_SELECT TO "${ACCOUNT.user}"; GRANT SPARQL_UPDATE TO "${ACCOUNT.user}"; DB.DBA.RDF_DEFAULT_USER_PERMS_SET('${ACCOUNT.user}', 15);`;
    const grant = spawnSync('/usr/bin/isql-vt', [String(sqlPort), 'dba', 'dba', `exec=${sql}`], { encoding: 'utf8' });
    if (grant.status !== 0 || /\*\*\* Error/.test(grant.stdout + grant.stderr)) throw new Error(`isql-vt failed: ${grant.stderr}${grant.stdout}`);
  }
  // a Virtuoso that ends on its own (a crash) says why in the test's output: its directory is gone after the test
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`Virtuoso in ${dir} ended unexpectedly (${signal ?? `exit code ${code}`}); its log ends: ${logTail(dir, 40)}\n`);
  });
  // the password as a mounted container secret would be: a file
  const passwordFile = join(dir, 'store-password');
  writeFileSync(passwordFile, `${ACCOUNT.password}\n`, { mode: 0o600 });
  const authUrl = `http://127.0.0.1:${httpPort}/sparql-auth`;
  return {
    queryUrl: authUrl,
    storeFlags: ['--store-url', authUrl, '--store-user', ACCOUNT.user, '--store-password-file', passwordFile],
    credentials: ACCOUNT,
    anonymousUrl: queryUrl,
    async stop() {
      stopping = true;
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The last lines of Virtuoso's log, which say why it stopped (a port in use, a locked database). */
function logTail(dir: string, lines = 5): string {
  const log = join(dir, 'virtuoso.log');
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-lines).join(' | ') : '(no log)';
}
