import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initRDKitModule from '@rdkit/rdkit';
import { notOnRemoteStores, startTestServer, spawnServer, http, errorReport, testStore, OT, parseTurtle, type TestServer } from '../helpers.ts';
import { analogueSmiles } from '../analogues.ts';
import { QuadstoreTripleStore } from '../../src/store/quadstore-triple-store.ts';
import { SMARTS_MAX_ATOMS, SMARTS_MAX_CHARS, SMARTS_MAX_NESTING, SMILES_MAX_CHARS, STRUCTURE_MAX_ATOMS } from '../../src/chemistry/structure-limits.ts';
import { WorkerCrash } from '../../src/task/worker-pool.ts';

/**
 * Structure searches read the structure index (src/structure-index/). Their answers are checked
 * against RDKit itself, run here over the same structures: every hit and no other.
 */
const STRUCTURES = 2500;
let rdkit: any;
let smiles: string[];
let s: TestServer;
/** The compound URI of each of `smiles`, in order. */
let uris: string[];
let dir: string;
/** One base URL across restarts (a test server's default is its port's). */
const BASE = ['--base-url', 'http://toxgraph.test'];

before(async () => {
  rdkit = await (initRDKitModule as any)();
  rdkit.disable_logging();
  smiles = await analogueSmiles(STRUCTURES, 7);
  // the shared structures first, then analogues: take some of each
  smiles = [...smiles.slice(0, 1200), ...smiles.slice(-1300)];
  dir = await mkdtemp(join(tmpdir(), 'toxgraph-structure-search-'));
  s = await startTestServer(BASE, dir);
  // names: every 10th structure gets one, for the name look-ups
  const body = smiles.map((x, i) => (i % 10 === 0 ? `${x} Substance-${i}` : x)).join('\n');
  const r = await http(`${s.url}/compound`, { method: 'POST', body, contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' });
  assert.equal(r.status, 200, r.text);
  uris = r.text.trim().split(/\r?\n/);
  assert.equal(uris.length, smiles.length);
});

after(async () => {
  for (const mol of mols ?? []) mol.delete();
  await s?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Every hit of a search, page by page along its `Link: rel="next"`. */
async function allPages(server: TestServer, query: string, pagesize: number): Promise<string[]> {
  const out: string[] = [];
  let path: string | undefined = `/compound?${query}&pagesize=${pagesize}`;
  for (let pages = 0; path && pages < 10_000; pages++) {
    const r = await http(`${server.url}${path}`, { accept: 'text/uri-list' });
    // no hit at all: 404, as for every search
    if (r.status === 404 && !out.length) return [];
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    out.push(...r.text.split(/\r?\n/).filter(Boolean));
    path = /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
  }
  return out;
}

/** RDKit's molecule of each of `smiles`, read once for every brute-force scan (freed after the tests). */
let mols: any[] | undefined;
const molecules = (): any[] => (mols ??= smiles.map((x) => rdkit.get_mol(x)));

/** The compounds RDKit finds with the pattern, in our order. */
function bruteForce(smarts: string): string[] {
  const all = molecules();
  const q = rdkit.get_qmol(smarts);
  try {
    return uris.filter((_, i) => all[i].get_substruct_match(q) !== '{}');
  } finally {
    q.delete();
  }
}

const PATTERNS = ['c1ccccc1', '[N+](=O)[O-]', 'c1ccc2scnc2c1', 'C(=O)[OX2H1]', '[#7;R]', '[Cl,Br,I]', 'C=CC=O', '[#6]-[#8]-[#6](=O)', '[CX4][NX3;H2]', 'c1ccncc1', 'S(=O)(=O)N', '[r5]'];

test('substructure searches find exactly what RDKit finds, over every page', notOnRemoteStores, async () => {
  for (const smarts of PATTERNS) {
    const expected = new Set(bruteForce(smarts));
    const found = await allPages(s, `smarts=${encodeURIComponent(smarts)}`, 400);
    assert.equal(new Set(found).size, found.length, `${smarts}: a compound on two pages`);
    assert.deepEqual(new Set(found), expected, `${smarts}: ${found.length} found, RDKit ${expected.size}`);
  }
});

test('pages: page and pagesize cut the same list, with next and prev links; a pattern every atom matches is the whole index', async () => {
  const q = `smarts=${encodeURIComponent('c1ccccc1')}`;
  const whole = await allPages(s, q, 10_000);
  assert.ok(whole.length > 100);
  const page3 = await http(`${s.url}/compound?${q}&page=3&pagesize=25`, { accept: 'text/uri-list' });
  assert.deepEqual(page3.text.trim().split(/\r?\n/), whole.slice(75, 100));
  assert.match(page3.headers.get('link') ?? '', /page=4&pagesize=25>; rel="next"/);
  assert.match(page3.headers.get('link') ?? '', /page=2&pagesize=25>; rel="prev"/);
  // past the end: an empty page, not 404
  const beyond = await http(`${s.url}/compound?${q}&page=100000&pagesize=25`, { accept: 'text/uri-list' });
  assert.equal(beyond.status, 200);
  assert.equal(beyond.text.trim(), '');
  const every = await allPages(s, 'smarts=*', 1000);
  assert.deepEqual(new Set(every), new Set(uris));
});

test('similarity: the top hits and the hits above a threshold are those of a Tanimoto scan; the query may be a molfile', async () => {
  const morgan = JSON.stringify({ radius: 2, nBits: 2048 });
  const fp = (x: string) => {
    const mol = rdkit.get_mol(x);
    try {
      return mol.get_morgan_fp_as_uint8array(morgan) as Uint8Array;
    } finally {
      mol.delete();
    }
  };
  const bits = (a: Uint8Array) => a.reduce((n, v) => n + popcount8(v), 0);
  const tanimoto = (a: Uint8Array, b: Uint8Array) => {
    let both = 0;
    for (let i = 0; i < a.length; i++) both += popcount8(a[i] & b[i]);
    const either = bits(a) + bits(b) - both;
    return either ? both / either : 0;
  };
  const prints = molecules().map((mol) => mol.get_morgan_fp_as_uint8array(morgan) as Uint8Array);
  for (const probe of [smiles[5], smiles[1500], 'CC(=O)Oc1ccccc1C(=O)O']) {
    const p = fp(probe);
    // one per compound (structures with one InChIKey are one compound)
    const scored = [...new Map(uris.map((u, i) => [u, { u, t: tanimoto(p, prints[i]) }])).values()].sort((a, b) => b.t - a.t);
    const r = await http(`${s.url}/compound?similarity=${encodeURIComponent(probe)}&threshold=0.4`, { accept: 'text/csv' });
    const rows = r.text
      .trim()
      .split('\r\n')
      .slice(1)
      .map((l) => l.split(','));
    const expected = scored.filter((x) => x.t >= 0.4);
    assert.deepEqual(new Set(rows.map(([u]) => u)), new Set(expected.map((x) => x.u)), probe);
    for (const [u, t] of rows) assert.ok(Math.abs(Number(t) - scored.find((x) => x.u === u)!.t) < 1e-9);
    const top = await http(`${s.url}/compound?similarity=${encodeURIComponent(probe)}&threshold=0&top=5`, { accept: 'text/csv' });
    const topScores = top.text
      .trim()
      .split('\r\n')
      .slice(1)
      .map((l) => Number(l.split(',')[1]));
    assert.deepEqual(
      topScores,
      scored.slice(0, 5).map((x) => x.t),
    );
  }
  const mol = rdkit.get_mol(smiles[42]);
  const molfile = mol.get_molblock();
  mol.delete();
  const byMolfile = await http(`${s.url}/compound?similarity=${encodeURIComponent(molfile)}&threshold=1`, { accept: 'text/uri-list' });
  assert.deepEqual(byMolfile.text.trim().split(/\r?\n/), [uris[42]]);
});

test('exact search: SMILES in another form, InChIKey, InChI, a name in any case, a name prefix', async () => {
  const find = async (term: string) => (await http(`${s.url}/compound?search=${encodeURIComponent(term)}`, { accept: 'text/uri-list' })).text.trim().split(/\r?\n/).filter(Boolean);
  const mol = rdkit.get_mol(smiles[300]);
  const explicit = mol.get_smiles(JSON.stringify({ allBondsExplicit: true }));
  const inchi = mol.get_inchi();
  const key = rdkit.get_inchikey_for_inchi(inchi);
  mol.delete();
  assert.notEqual(explicit, smiles[300]);
  assert.deepEqual(await find(explicit), [uris[300]]);
  assert.deepEqual(await find(key), [uris[300]]);
  assert.deepEqual(await find(inchi), [uris[300]]);
  assert.deepEqual(await find('substance-1230'), [uris[1230]]);
  const prefixed = await find('SUBSTANCE-12*');
  // names are on every 10th structure: Substance-120 and Substance-1200 to -1290
  assert.deepEqual(new Set(prefixed), new Set([120, 1200, 1210, 1220, 1230, 1240, 1250, 1260, 1270, 1280, 1290].map((i) => uris[i])));
});

test('bad input answers 400 naming the problem', async () => {
  for (const q of [
    'smarts=%5B%5B%5B',
    'smarts=c1ccccc1&pagesize=0',
    'smarts=c1ccccc1&pagesize=10001',
    'smarts=c1ccccc1&page=-1',
    'smarts=C&pagesize=1e3',
    'similarity=C1CC&threshold=0.5',
    'similarity=CCO&top=0',
  ]) {
    const r = await http(`${s.url}/compound?${q}`, { accept: 'text/turtle' });
    assert.equal(r.status, 400, q);
    const report = await errorReport(r);
    assert.ok(report.message && report.message.length > 10, q);
  }
});

/** A V2000 molfile of a chain of `n` carbons, written here (RDKit itself breaks on long chains). */
function chainMolfile(n: number): string {
  const pad = (v: number) => String(v).padStart(3);
  const atoms = Array.from({ length: n }, (_, i) => `${(i * 1.5).toFixed(4).padStart(10)}    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0`);
  const bonds = Array.from({ length: n - 1 }, (_, i) => `${pad(i + 1)}${pad(i + 2)}  1  0`);
  return ['chain', '  hand-written', '', `${pad(n)}${pad(n - 1)}  0  0  0  0  0  0  0  0999 V2000`, ...atoms, ...bonds, 'M  END', ''].join('\n');
}

test('patterns and structures beyond the limits answer 400 naming the parameter and the limit, before RDKit reads them; the searches after them answer as before', async () => {
  const refused = async (path: string, words: RegExp, init: Parameters<typeof http>[1] = {}) => {
    const r = await http(`${s.url}${path}`, { accept: 'text/turtle', ...init });
    assert.equal(r.status, 400, `${path.slice(0, 60)}: ${r.text.slice(0, 300)}`);
    const report = await errorReport(r);
    assert.equal(report.code, 'InvalidInput');
    assert.match(report.message ?? '', words, path.slice(0, 60));
  };
  const q = encodeURIComponent;
  // too long (each of these crashed RDKit's WebAssembly, and every search after them answered 500)
  await refused(`/compound?smarts=${'C'.repeat(12_000)}`, new RegExp(`parameter smarts is 12000 characters long; a SMARTS pattern may have at most ${SMARTS_MAX_CHARS}`));
  await refused(`/compound?smarts=${q('('.repeat(5000))}`, /parameter smarts is 5000 characters long/);
  await refused(`/compound?similarity=${'C'.repeat(12_000)}`, new RegExp(`parameter similarity is 12000 characters long; a SMILES may have at most ${SMILES_MAX_CHARS}`));
  await refused(`/compound?search=${'C'.repeat(12_000)}`, /parameter search is 12000 characters long/);
  // short enough, and each would crash RDKit all the same: a chain of 900 atoms, 250 nested recursive SMARTS, long chains as structures
  await refused(`/compound?smarts=${'C'.repeat(900)}`, new RegExp(`parameter smarts has 900 atoms \\(those of recursive SMARTS counted\\); a SMARTS pattern may have at most ${SMARTS_MAX_ATOMS}`));
  await refused(`/compound?kind=smarts&q=${'C'.repeat(900)}`, /parameter q has 900 atoms/);
  await refused(
    `/compound?smarts=${q(`${'[$('.repeat(250)}C${')]'.repeat(250)}`)}`,
    new RegExp(`parameter smarts nests recursive SMARTS .* 250 deep; a SMARTS pattern may nest them at most ${SMARTS_MAX_NESTING} deep`),
  );
  await refused(`/compound?smarts=${q(`C${'(C'.repeat(600)}${')'.repeat(600)}`)}`, /parameter smarts has 601 atoms/);
  await refused(`/compound?similarity=${'C'.repeat(700)}`, new RegExp(`parameter similarity has 700 atoms other than hydrogen; a structure may have at most ${STRUCTURE_MAX_ATOMS}`));
  await refused(`/compound?search=${'C'.repeat(700)}`, /parameter search has 700 atoms/);
  await refused('/compound', /SMILES on line 2 has 700 atoms other than hydrogen/, { method: 'POST', body: `CCO\n${'C'.repeat(700)}\n`, contentType: 'chemical/x-daylight-smiles' });
  await refused('/compound', /molfile has 600 atoms other than hydrogen/, { method: 'POST', body: chainMolfile(600), contentType: 'chemical/x-mdl-molfile' });
  // at the limits: read as usual (a chain of 500 atoms is no compound here: 404)
  assert.equal((await http(`${s.url}/compound?similarity=${'C'.repeat(STRUCTURE_MAX_ATOMS)}`, { accept: 'text/uri-list' })).status, 404);
  assert.equal((await http(`${s.url}/compound?smarts=${'C'.repeat(SMARTS_MAX_ATOMS)}`, { accept: 'text/uri-list' })).status, 404);
  // and the searches after them find what they should (patterns not searched before: no cursor answers them)
  const carbon = await http(`${s.url}/compound?smarts=${q('[#6]')}&pagesize=10`, { accept: 'text/uri-list' });
  assert.equal(carbon.status, 200, carbon.text.slice(0, 300));
  assert.equal(carbon.text.trim().split(/\r?\n/).length, 10);
  assert.deepEqual(new Set(await allPages(s, `smarts=${q('C(=O)N')}`, 5000)), new Set(bruteForce('C(=O)N')));
});

test('a crash of RDKit in the search threads: the thread is replaced, the search that meets a broken one answers an ErrorReport, and the searches after run on fresh threads', async () => {
  const workers = s.services.searchWorkers;
  // reachable from here only: crashes the RDKit of the thread it runs on, past Chemistry's measure of the input
  const crash = new URL('../fixtures/toolkit-crash.ts', import.meta.url).href;
  // patterns searched here first (a search's kept cursor would answer again without a thread)
  const expected = new Set(bruteForce('c1ccccc1Cl'));
  const everyThread = <T>(fn: string) => Promise.allSettled(Array.from({ length: workers.threads }, () => workers.run<T>(crash, fn, [])));
  // a crash that reaches the pool: every search thread is ended
  for (const r of await everyThread('crashToolkit')) {
    assert.equal(r.status, 'rejected');
    assert.ok((r as PromiseRejectedResult).reason instanceof WorkerCrash, String((r as PromiseRejectedResult).reason));
  }
  const oxygen = await http(`${s.url}/compound?smarts=${encodeURIComponent('[#8]')}&pagesize=10`, { accept: 'text/uri-list' });
  assert.equal(oxygen.status, 200, oxygen.text.slice(0, 300));
  assert.equal(oxygen.text.trim().split(/\r?\n/).length, 10);
  assert.deepEqual(new Set(await allPages(s, `smarts=${encodeURIComponent('c1ccccc1Cl')}`, 5000)), expected);
  // a crash that no one reported: the search that meets the broken RDKit is answered with an ErrorReport, its thread replaced
  for (const r of await everyThread<string>('crashToolkitQuietly')) assert.equal(r.status, 'fulfilled');
  const met = await http(`${s.url}/compound?smarts=${encodeURIComponent('[#7]')}&pagesize=10`, { accept: 'text/turtle' });
  assert.equal(met.status, 400, met.text.slice(0, 300));
  assert.match((await errorReport(met)).message ?? '', /parameter smarts could not be matched: the chemistry toolkit failed on it \(.*WebAssembly crash.*\); the search thread has been replaced/);
  assert.deepEqual(new Set(await allPages(s, `smarts=${encodeURIComponent('c1ccccc1O')}`, 5000)), new Set(bruteForce('c1ccccc1O')));
  const nitrogen = await http(`${s.url}/compound?smarts=${encodeURIComponent('[#7]')}&pagesize=10`, { accept: 'text/uri-list' });
  assert.equal(nitrogen.status, 200, nitrogen.text.slice(0, 300));
});

test('a search past its time limit answers 503 QueryTimeout, and the server answers meanwhile', async () => {
  // the structures of the tests above, read by a server restarted on their store with a time limit of 20 ms (not registered again)
  await s.close();
  const t = await startTestServer([...BASE, '--query-timeout', '20'], dir);
  try {
    // a pattern that the screen cannot narrow: every compound is matched with RDKit
    const r = await http(`${t.url}/compound?smarts=${encodeURIComponent('[#6]~[#6]~[#6]~[#6]~[#6]~[#6]~[#6]~[#6]~[#6]~[#6]')}&pagesize=10000`, { accept: 'text/turtle' });
    assert.equal(r.status, 503, r.text.slice(0, 200));
    assert.equal((await errorReport(r)).code, 'QueryTimeout');
    assert.equal((await http(`${t.url}/health`)).status, 200);
  } finally {
    await t.close();
    s = await startTestServer(BASE, dir);
  }
});

test('the index survives a restart, and an older store without one has it built at start', { skip: testStore ? 'reads the embedded store directly' : false }, async () => {
  const before = await allPages(s, `smarts=${encodeURIComponent('[N+](=O)[O-]')}`, 5000);
  await s.close();
  // a store of before the index: its records removed
  const store = await QuadstoreTripleStore.open(join(dir, 'store'));
  const keys: string[] = [];
  try {
    for await (const [key] of store.readRecords('structure')) keys.push(key);
    await store.replaceGraphs({}, new Map(keys.map((k) => [k, null])));
  } finally {
    await store.close();
  }
  s = await startTestServer(BASE, dir);
  assert.equal(keys.length, new Set(uris).size + 1, 'an entry per compound, and the mark of a complete index');
  assert.deepEqual(await allPages(s, `smarts=${encodeURIComponent('[N+](=O)[O-]')}`, 5000), before);
  await s.close();
  s = await startTestServer(BASE, dir);
  assert.deepEqual(await allPages(s, `smarts=${encodeURIComponent('[N+](=O)[O-]')}`, 5000), before);
  assert.deepEqual(new Set(await allPages(s, 'smarts=*', 10_000)), new Set(uris));
});

test('kill -9 in the middle of an upload: every compound stored has its index entry after restart, and no entry lacks its compound', { skip: testStore ? 'embedded store' : false }, async () => {
  const crashDir = await mkdtemp(join(tmpdir(), 'toxgraph-index-crash-'));
  const args = ['--data', crashDir, '--host', '127.0.0.1', '--base-url', 'http://toxgraph.test', '--dataset-task-bytes', '1000'];
  try {
    const first = await spawnServer(args);
    const url = `http://127.0.0.1:${first.port}`;
    const csv = `SMILES,y\n${smiles.map((x, i) => `${x},${i}`).join('\n')}\n`;
    const started = await http(`${url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
    assert.equal(started.status, 202, started.text);
    // kill it once compounds are being written (however long a busy machine takes to start writing them)
    for (const giveUp = Date.now() + 180_000; Date.now() < giveUp; ) {
      const listed = (await http(`${url}/compound`, { accept: 'text/uri-list' })).text.trim();
      if (listed.split(/\r?\n/).length > 300) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    first.kill('SIGKILL');
    await first.exited;
    const second = await spawnServer(args);
    const url2 = `http://127.0.0.1:${second.port}`;
    try {
      const stored = new Set((await http(`${url2}/compound`, { accept: 'text/uri-list' })).text.trim().split(/\r?\n/).filter(Boolean));
      const indexed = new Set<string>();
      let path: string | undefined = '/compound?smarts=*&pagesize=10000';
      while (path) {
        const r = await http(`${url2}${path}`, { accept: 'text/uri-list' });
        for (const u of r.text.trim().split(/\r?\n/).filter(Boolean)) indexed.add(u);
        path = /<([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
      }
      assert.ok(stored.size > 0 && stored.size < smiles.length, `killed mid-upload (${stored.size} stored)`);
      assert.deepEqual(indexed, stored);
      // and the structures stored are found by structure
      const one = [...stored][0];
      const turtle = parseTurtle((await http(`${url2}${one.replace('http://toxgraph.test', '')}`, { accept: 'text/turtle' })).text);
      const smi = turtle.find((q) => q.predicate.value === `${OT}smiles`)!.object.value;
      assert.deepEqual((await http(`${url2}/compound?search=${encodeURIComponent(smi)}`, { accept: 'text/uri-list' })).text.trim(), one);
    } finally {
      second.kill('SIGTERM');
      await second.exited;
    }
  } finally {
    await rm(crashDir, { recursive: true, force: true });
  }
});

function popcount8(v: number): number {
  let n = 0;
  for (; v; v &= v - 1) n++;
  return n;
}
