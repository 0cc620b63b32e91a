import { createInterface } from 'node:readline/promises';
import { loadConfig, type Config } from '../core/config.ts';
import { openStore } from '../store/open-store.ts';
import type { TripleStore } from '../store/triple-store.ts';
import { AccessControl } from './access-control.ts';

/**
 * `npm run user -- add NAME | passwd NAME | remove NAME | group GROUP [USER ...] [--data DIR]`
 * (`group` sets the members; with no users it removes the group).
 * LevelDB is opened by one process at a time: when the server holds the store, the command
 * goes through its HTTP API with the administrator account (TOXGRAPH_ADMIN_USER /
 * TOXGRAPH_ADMIN_PASSWORD, TOXGRAPH_URL or http://localhost:PORT); otherwise it opens the store
 * itself. The password is read from TOXGRAPH_USER_PASSWORD or asked for on the terminal.
 */
const USAGE = 'usage: npm run user -- add NAME | passwd NAME | remove NAME | group GROUP [USER ...] [--data DIR] [--port N]';

async function password(): Promise<string> {
  if (process.env.TOXGRAPH_USER_PASSWORD) return process.env.TOXGRAPH_USER_PASSWORD;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await rl.question('password: ');
  rl.close();
  return answer.trim();
}

async function viaHttp(config: Config, command: string, name: string, members: string[]): Promise<void> {
  const url = process.env.TOXGRAPH_URL ?? `http://localhost:${config.port}`;
  const admin = config.adminUser;
  const adminPassword = config.adminPassword;
  if (!admin || !adminPassword) throw new Error('the store is in use by a running server: set TOXGRAPH_ADMIN_USER and TOXGRAPH_ADMIN_PASSWORD to manage users through it');
  const login = await fetch(`${url}/auth/authenticate`, { method: 'POST', body: new URLSearchParams({ username: admin, password: adminPassword }) });
  const token = /token\.id=(\S+)/.exec(await login.text())?.[1];
  if (!token) throw new Error(`the running server at ${url} refused the administrator login (${login.status})`);
  const res =
    command === 'group'
      ? members.length
        ? await fetch(`${url}/auth/group`, { method: 'POST', headers: { subjectid: token }, body: new URLSearchParams([['name', name], ...members.map((m) => ['members[]', m] as [string, string])]) })
        : await fetch(`${url}/auth/group/${encodeURIComponent(name)}`, { method: 'DELETE', headers: { subjectid: token } })
      : command === 'remove'
        ? await fetch(`${url}/auth/user/${encodeURIComponent(name)}`, { method: 'DELETE', headers: { subjectid: token } })
        : await fetch(`${url}/auth/user`, { method: 'POST', headers: { subjectid: token }, body: new URLSearchParams({ username: name, password: await password() }) });
  if (!res.ok) throw new Error(`the server answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
}

async function serverAnswers(config: Config): Promise<boolean> {
  try {
    return (await fetch(`${process.env.TOXGRAPH_URL ?? `http://localhost:${config.port}`}/health`, { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const [command, name, ...rest] = process.argv.slice(2);
  if (!['add', 'passwd', 'remove', 'group'].includes(command) || !name) throw new Error(USAGE);
  const firstFlag = rest.findIndex((a) => a.startsWith('--'));
  const members = firstFlag < 0 ? rest : rest.slice(0, firstFlag);
  const flags = firstFlag < 0 ? [] : rest.slice(firstFlag);
  const config = loadConfig(flags);
  // A remote store is shared, never locked: a server running on it keeps users in memory, so
  // changes go through it when one answers.
  if (config.storeUrl && (await serverAnswers(config))) return viaHttp(config, command, name, members);
  let store: TripleStore;
  try {
    store = await openStore(config);
  } catch (e) {
    if (/lock/i.test(String((e as Error)?.message) + String((e as { cause?: Error })?.cause?.message))) return viaHttp(config, command, name, members);
    throw e;
  }
  try {
    const access = await AccessControl.load(store, config);
    if (command === 'group') {
      const unknown = members.filter((m) => !access.hasUser(m));
      if (unknown.length) throw new Error(`unknown users: ${unknown.join(', ')}`);
      await access.setGroup(name, members);
    } else if (command === 'remove') {
      if (!(await access.removeUser(name))) throw new Error(`no user ${name}`);
    } else {
      if (command === 'passwd' && !access.hasUser(name)) throw new Error(`no user ${name}`);
      if (command === 'add' && access.hasUser(name)) throw new Error(`user ${name} exists; use passwd`);
      const pw = await password();
      if (pw.length < 8) throw new Error('the password needs at least 8 characters');
      await access.setUser(name, pw);
    }
  } finally {
    await store.close();
  }
}

main().then(
  () => process.stdout.write('ok\n'),
  (e) => {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(1);
  },
);
