// The check of a running compose stack (README, "Running it as a service"), run inside one of
// its ToxGraph containers, where both serve processes can be reached by name:
//
//   podman exec toxgraph_serve1_1 /app/node_modules/.bin/node /app/deploy/image/stack-check.mjs
//
// As the administrator (the mounted secret): a dataset uploaded on serve1 is read on serve2; a job
// started on serve1 is run by a worker from the shared queue and followed on serve2 to its end;
// the proxy answers the dataset at the base URL. Prints one line per step; exits 1 at the first
// step that fails.
import { readFileSync } from 'node:fs';

const [one = 'http://serve1:8080', two = 'http://serve2:8080', proxy = 'http://proxy:8080'] = process.argv.slice(2);
const base = (process.env.TOXGRAPH_BASE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const user = process.env.TOXGRAPH_ADMIN_USER ?? 'admin';
const password = readFileSync(process.env.TOXGRAPH_ADMIN_PASSWORD_FILE ?? '/run/secrets/admin-password', 'utf8').replace(/\r?\n$/, '');

const started = Date.now();
const step = (text) => console.log(`${((Date.now() - started) / 1000).toFixed(1)} s  ${text}`);
function fail(text) {
  console.error(`stack check failed: ${text}`);
  process.exit(1);
}
/** A resource's URI (minted with the base URL) as reached on one process. */
const on = (server, uri) => server + uri.slice(base.length);

let token = '';
async function call(url, { method = 'GET', body, type, accept = 'text/uri-list' } = {}) {
  const response = await fetch(url, {
    method,
    body,
    headers: { Accept: accept, ...(type ? { 'Content-Type': type } : {}), ...(token ? { subjectid: token } : {}) },
    signal: AbortSignal.timeout(120_000),
  });
  return { status: response.status, text: await response.text() };
}

const login = await call(`${one}/auth/authenticate`, { method: 'POST', body: new URLSearchParams({ username: user, password }) });
if (login.status !== 200) fail(`login on ${one}: ${login.status} ${login.text}`);
token = login.text.trim().replace(/^token\.id=/, '');
step(`logged in on ${one} as ${user}`);

const csv = 'SMILES,logP\nCCO,-0.31\nCCCCO,0.88\nc1ccccc1,2.13\nc1ccccc1O,1.46\nCC(=O)O,-0.17\nCCN,-0.13\nCCCCCC,3.90\nClc1ccccc1,2.84\n';
const upload = await call(`${one}/dataset`, { method: 'POST', body: csv, type: 'text/csv' });
if (upload.status !== 200) fail(`upload on ${one}: ${upload.status} ${upload.text}`);
const dataset = upload.text.trim();
step(`uploaded ${dataset} on ${one}`);

const read = await call(on(two, dataset), { accept: 'text/csv' });
if (read.status !== 200 || !read.text.includes('0.88')) fail(`read on ${two}: ${read.status} ${read.text.slice(0, 300)}`);
step(`read it on ${two}: ${read.text.trim().split('\n').length - 1} rows`);

const job = await call(`${one}/algorithm/morgan-fingerprint`, { method: 'POST', body: new URLSearchParams({ dataset_uri: dataset, nBits: '256' }) });
if (job.status !== 202) fail(`job on ${one}: ${job.status} ${job.text}`);
const task = job.text.trim();
step(`started ${task} on ${one}`);
for (;;) {
  const state = await call(on(two, task));
  if (state.status === 200) {
    step(`followed it on ${two} to its result ${state.text.trim()}`);
    break;
  }
  if (state.status !== 202) fail(`task on ${two}: ${state.status} ${state.text}`);
  if (Date.now() - started > 300_000) fail(`task ${task} still running after 5 minutes (is a worker running?)`);
  await new Promise((r) => setTimeout(r, 250));
}
const turtle = await call(on(two, task), { accept: 'text/turtle' });
if (!/<urn:toxgraph:runner> "queue"/.test(turtle.text)) fail(`task ${task} was not run from the shared queue:\n${turtle.text}`);
step('it was run by a worker from the shared queue');

const viaProxy = await call(on(proxy, dataset), { accept: 'text/csv' });
if (viaProxy.status !== 200) fail(`read through ${proxy}: ${viaProxy.status}`);
step(`the proxy answers it too (${proxy}, the base URL ${base})`);
console.log('stack check passed');
