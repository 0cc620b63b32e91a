import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { accessSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { OpsinNameParser } from '../../src/chemistry/opsin-name-parser.ts';
import { startTestServer, http, form, errorReport, parseTurtle, resourceLists, OT, type TestServer } from '../helpers.ts';

// Chemical names as structures (issue 54, spec 4.10: text/plain = names), with real OPSIN
// (Debian's libopsin-java) as the server's long-lived helper process.

const OPSIN_JAR = '/usr/share/java/opsin.jar';
const hasOpsin = (() => {
  try {
    accessSync(OPSIN_JAR);
    return true;
  } catch {
    return false;
  }
})();
const hasJava = (() => {
  try {
    execFileSync('java', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const skip = !(hasOpsin && hasJava) && `OPSIN (Debian libopsin-java, ${OPSIN_JAR}) or Java is not installed; .ci/run installs them`;

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s?.stop());

const local = (uri: string) => uri.replace(s.base, s.url);
const uris = (text: string) => text.split(/\r?\n/).filter(Boolean);
const postTo = (server: TestServer, body: string, type: string, headers: Record<string, string> = {}) =>
  http(`${server.url}/compound`, { method: 'POST', body, contentType: type, accept: 'text/uri-list', headers });
const post = (body: string, type: string) => postTo(s, body, type);
const compoundList = () => http(`${s.url}/compound`, { accept: 'text/uri-list' }).then((r) => r.text);

test('systematic names give the URI of the same structure posted as SMILES, and the compound keeps the name', { skip }, async () => {
  const [benzene, isobutanol] = uris((await post('c1ccccc1\nCC(C)CO', 'chemical/x-daylight-smiles')).text);
  const named = await post('benzene\n2-methylpropan-1-ol\n\n  Benzene  \n', 'text/plain');
  assert.equal(named.status, 200, named.text);
  assert.deepEqual(uris(named.text), [benzene, isobutanol, benzene], 'one URI a name, in order; blank lines and spaces around a name do not count');
  // the names are the compound's: GET as text/plain gives them, one a line
  const names = await http(local(isobutanol), { accept: 'text/plain' });
  assert.equal(names.status, 200);
  assert.equal(names.type, 'text/plain');
  assert.equal(names.text, '2-methylpropan-1-ol\n');
  assert.deepEqual(new Set(uris((await http(local(benzene), { accept: 'text/plain' })).text)), new Set(['benzene', 'Benzene']));
  // a name never posted before mints its compound, found again by its SMILES
  const [ethanoicAcid] = uris((await post('ethanoic acid', 'text/plain')).text);
  assert.deepEqual(uris((await post('CC(=O)O', 'chemical/x-daylight-smiles')).text), [ethanoicAcid]);
});

test('a name OPSIN cannot parse is looked up in the names compounds here have', { skip }, async () => {
  const [mine] = uris((await post('CCCCCCCCCCO in-house sample TG-17', 'chemical/x-daylight-smiles')).text);
  const r = await post('In-House Sample TG-17', 'text/plain');
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(uris(r.text), [mine], 'names are compared case-insensitively');
  // a name that two compounds have stands for neither
  await post('CCN lab sample Q\nCCCN lab sample Q', 'chemical/x-daylight-smiles');
  const before = await compoundList();
  const two = await post('lab sample Q', 'text/plain');
  assert.equal(two.status, 400);
  assert.match((await errorReport(two)).message ?? '', /"lab sample Q".*2 compounds here have it/);
  assert.equal(await compoundList(), before);
});

test('a name that resolves nowhere answers 400 naming it, and nothing of the request is stored', { skip }, async () => {
  const before = await resourceLists(s);
  const compounds = await compoundList();
  const r = await post('propan-2-ol\nfrobnicated unobtainium', 'text/plain');
  assert.equal(r.status, 400);
  const report = await errorReport(r);
  assert.equal(report.code, 'InvalidInput');
  assert.match(report.message ?? '', /the name on line 2 "frobnicated unobtainium" is neither a systematic name OPSIN can parse nor the name of a compound here/);
  assert.equal(await compoundList(), compounds, 'propan-2-ol, on line 1, was not registered either');
  assert.equal(await resourceLists(s), before);
});

test('a name of 100 kB, or with a control character, answers 400 at once, and the parser still answers', async () => {
  const compounds = await compoundList();
  const long = await post('a'.repeat(100 * 1024), 'text/plain');
  assert.equal(long.status, 400);
  const message = (await errorReport(long)).message ?? '';
  assert.match(message, /the name on line 1 is 102400 characters long; a chemical name may have at most 4000/);
  assert.ok(long.text.length < 10_000, 'the answer does not quote the name');
  for (const name of ['ethan\u0000ol', 'meth\u0085ane', 'eth\u2028anol', 'ethanol\rpropanol']) {
    const r = await post(name, 'text/plain');
    assert.equal(r.status, 400, JSON.stringify(name));
    assert.match((await errorReport(r)).message ?? '', /holds the control character U\+/);
  }
  assert.equal(await compoundList(), compounds);
  if (!skip) assert.equal((await post('methanol', 'text/plain')).status, 200);
});

test('a CSV with only a name column is read by name: the rows whose names resolve nowhere are listed in the preview and the warnings', { skip }, async () => {
  const csv = 'Name,LC50\nbenzene,1.5\n2-methylpropan-1-ol,2.5\nfrobnicated unobtainium,3\n\npentan-1-ol,4\n';
  const fd = new FormData();
  fd.append('file', new Blob([csv], { type: 'text/csv' }), 'names.csv');
  const preview = await http(`${s.url}/dataset/preview`, { method: 'POST', body: fd, accept: 'application/json' });
  assert.equal(preview.status, 200, preview.text);
  const p = JSON.parse(preview.text);
  assert.equal(p.structureHeader, 'Name');
  assert.deepEqual(
    p.rows.map((row: { smiles: string }) => row.smiles),
    ['c1ccccc1', 'CC(C)CO', 'CCCCCO'],
  );
  assert.equal(p.skipped.length, 1);
  assert.match(p.skipped[0], /^row 4: the name "frobnicated unobtainium" is neither a systematic name OPSIN can parse nor the name of a compound here, row skipped$/);

  const up = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  const dataset = local(up.text.trim());
  const warnings = parseTurtle((await http(`${dataset}/metadata`, { accept: 'text/turtle' })).text)
    .filter((q) => q.predicate.value === `${OT}warning`)
    .map((q) => q.object.value);
  assert.ok(
    warnings.some((w) => /^row 4: the name "frobnicated unobtainium" .*row skipped$/.test(w)),
    warnings.join('\n'),
  );
  // the rows' compounds are those of the same structures as SMILES; the name column stays a column
  const [benzene] = uris((await post('c1ccccc1', 'chemical/x-daylight-smiles')).text);
  const rows = (await http(dataset, { accept: 'text/csv' })).text.trim().split(/\r?\n/);
  assert.equal(rows.length, 4, 'three rows and the header');
  assert.match(rows[0], /Name/);
  assert.ok((await http(`${dataset}/compounds`, { accept: 'text/uri-list' })).text.includes(benzene));
});

test('without OPSIN the server starts, names held here still resolve, and other names answer 400 saying names cannot be parsed here', async () => {
  const bare = await startTestServer(['--opsin-jar', '/nonexistent/opsin.jar']);
  try {
    const [held] = uris((await postTo(bare, 'CCO spirit of wine', 'chemical/x-daylight-smiles')).text);
    const found = await postTo(bare, 'Spirit of Wine', 'text/plain');
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(uris(found.text), [held]);
    const r = await postTo(bare, 'benzene', 'text/plain');
    assert.equal(r.status, 400);
    assert.match(
      (await errorReport(r)).message ?? '',
      /the name on line 1 "benzene" is not the name of a compound here, and systematic names cannot be parsed on this server \(the OPSIN jar \/nonexistent\/opsin.jar is missing/,
    );
  } finally {
    await bare.stop();
  }
});

test('with access control on, a signed-in user posts names; an anonymous caller is refused', { skip }, async () => {
  const secured = await startTestServer(['--auth', '--admin-user', 'admin', '--admin-password', 'admin-secret-1']);
  try {
    const login = async (username: string, password: string) => {
      const r = await http(`${secured.url}/auth/authenticate`, { method: 'POST', body: form({ username, password }) });
      assert.equal(r.status, 200, r.text);
      return /^token\.id=(\S+)$/m.exec(r.text)![1];
    };
    const admin = await login('admin', 'admin-secret-1');
    assert.equal((await http(`${secured.url}/auth/user`, { method: 'POST', body: form({ username: 'alice', password: 'alice-password' }), headers: { subjectid: admin } })).status, 200);
    const alice = await login('alice', 'alice-password');
    const r = await postTo(secured, 'cyclohexanol', 'text/plain', { subjectid: alice });
    assert.equal(r.status, 200, r.text);
    const [uri] = uris(r.text);
    assert.deepEqual(uris((await postTo(secured, 'OC1CCCCC1', 'chemical/x-daylight-smiles', { subjectid: alice })).text), [uri]);
    assert.equal((await http(uri.replace(secured.base, secured.url), { accept: 'text/plain', headers: { subjectid: alice } })).text, 'cyclohexanol\n');
    assert.equal((await postTo(secured, 'cyclohexanol', 'text/plain')).status, 401);
  } finally {
    await secured.stop();
  }
});

test('the OPSIN process: killed while names wait, it is started again; the one name it was on fails, the others get their own structures in order', { skip }, async () => {
  const opsin = s.services.opsin;
  assert.ok('smiles' in (await opsin.parse(['methane']))[0]);
  const first = opsin.processId;
  assert.ok(first);
  const alkanes = ['methane', 'ethane', 'propane', 'butane', 'pentane', 'hexane', 'heptane', 'octane', 'nonane', 'decane'];
  const names = Array.from({ length: 60 }, (_, i) => alkanes[i % alkanes.length]);
  const parsing = opsin.parse(names);
  process.kill(first, 'SIGKILL');
  const answers = await parsing;
  const failed = answers.flatMap((a, i) => ('error' in a ? [i] : []));
  assert.equal(failed.length, 1, JSON.stringify(answers.filter((a) => 'error' in a)));
  assert.match((answers[failed[0]] as { error: string }).error, /^OPSIN failed on it: OPSIN stopped \(SIGKILL\)$/);
  answers.forEach((a, i) => {
    if ('smiles' in a) assert.equal(a.smiles.replace(/[^C]/g, '').length, (i % alkanes.length) + 1, `${names[i]}: ${a.smiles}`);
  });
  assert.ok(opsin.processId && opsin.processId !== first, 'a fresh process');
  assert.equal(opsin.waiting, 0);
});

test('a jar that is not OPSIN: three starts fail, then names cannot be parsed, said once in the log', { skip: !hasJava && 'Java is not installed' }, async () => {
  const warnings: string[] = [];
  const log = { info: () => undefined, warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) };
  const notAJar = join(s.dataDir, 'not-opsin.jar');
  writeFileSync(notAJar, 'not a jar');
  const opsin = new OpsinNameParser({ jar: notAJar, log });
  try {
    assert.equal(opsin.unavailable, undefined, 'the jar is there: it is tried');
    const [answer] = await opsin.parse(['benzene']);
    assert.ok('error' in answer);
    assert.match(answer.error, /^systematic names cannot be parsed here: OPSIN stopped \(exit code 1\)/);
    assert.match(opsin.unavailable ?? '', /exit code 1/);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.ok('error' in (await opsin.parse(['ethanol']))[0]);
    assert.equal(warnings.length, 1, 'said once');
  } finally {
    opsin.close();
  }
});

test('a name that stops OPSIN fails by itself: the names with it and after it are parsed, and OPSIN stays usable', async () => {
  // a stand-in for OPSIN's command line that dies on one name (no real name is known to stop OPSIN 2.7)
  const java = join(s.dataDir, 'java-poisoned.sh');
  writeFileSync(java, '#!/bin/sh\nwhile IFS= read -r line; do\n  if [ "$line" = poison ]; then exit 3; fi\n  printf \'C\\t%s\\n\' "$line"\ndone\n', { mode: 0o755 });
  const warnings: string[] = [];
  const log = { info: () => undefined, warn: (m: string) => warnings.push(m), error: (m: string) => warnings.push(m) };
  const opsin = new OpsinNameParser({ jar: java, log, java });
  try {
    assert.deepEqual(await opsin.parse(['methane']), [{ smiles: 'C' }]);
    // at the start of a fresh process, twice, and behind a good name
    const poisoned = await opsin.parse(['poison', 'poison', 'ethane']);
    assert.match((poisoned[0] as { error: string }).error, /^OPSIN failed on it/);
    assert.match((poisoned[1] as { error: string }).error, /^OPSIN failed on it/);
    assert.deepEqual(poisoned[2], { smiles: 'C' });
    assert.equal(opsin.unavailable, undefined, 'still usable');
    const mixed = await opsin.parse(['propane', 'poison', 'butane']);
    assert.deepEqual(mixed[0], { smiles: 'C' });
    assert.match((mixed[1] as { error: string }).error, /^OPSIN failed on it/);
    assert.deepEqual(mixed[2], { smiles: 'C' });
    assert.equal(warnings.length, 0, warnings.join('\n'));
  } finally {
    opsin.close();
  }
});
