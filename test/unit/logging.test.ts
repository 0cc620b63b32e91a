import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/core/config.ts';
import { startServer } from '../../src/server/server.ts';
import type { Logger } from '../../src/core/log.ts';
import { http } from '../helpers.ts';

test('one structured log line per request, with tokens and passwords redacted', async () => {
  const lines: Record<string, unknown>[] = [];
  const capture: Logger = {
    info: (msg, f) => lines.push({ level: 'info', msg, ...f }),
    warn: (msg, f) => lines.push({ level: 'warn', msg, ...f }),
    error: (msg, f) => lines.push({ level: 'error', msg, ...f }),
  };
  const dir = await mkdtemp(join(tmpdir(), 'toxgraph-log-'));
  const server = await startServer(loadConfig(['--port', '0', '--host', '127.0.0.1', '--data', dir], {}), capture);
  try {
    const secret = 'AQIC5wM2LY4Sfcz-secret-token';
    await http(`${server.url}/feature?subjectid=${secret}&password=hunter2`, { accept: 'text/uri-list', headers: { subjectid: secret, Authorization: `Bearer ${secret}` } });
    await http(`${server.url}/nope?subjectid=${secret}`, { accept: 'text/turtle' });
    const requests = lines.filter((l) => l.msg === 'request');
    assert.equal(requests.length, 2);
    assert.equal(requests[0].method, 'GET');
    assert.equal(requests[0].status, 200);
    assert.equal(typeof requests[0].ms, 'number');
    const all = JSON.stringify(lines);
    assert.ok(!all.includes(secret), 'token in the log');
    assert.ok(!all.includes('hunter2'), 'password in the log');
    // the error report's actor does not echo the token either
    const r = await http(`${server.url}/nope?subjectid=${secret}`, { accept: 'text/turtle' });
    assert.ok(!r.text.includes(secret));
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});
