import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/core/config.ts';

const DEPLOY = new URL('../../deploy/', import.meta.url);
const compose = parse(readFileSync(new URL('compose.yaml', DEPLOY), 'utf8'), { merge: true }) as {
  services: Record<string, { image: string; command?: string[]; environment?: Record<string, string>; secrets?: string[] }>;
  secrets: Record<string, { file: string }>;
};
const substituted = (v: string) => v.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

test('the compose file: every ToxGraph container is configured as the server reads it, with its secrets mounted', () => {
  const toxgraph = Object.entries(compose.services).filter(([, s]) => substituted(s.image).startsWith('localhost/toxgraph:'));
  assert.deepEqual(toxgraph.map(([name]) => name).sort(), ['serve1', 'serve2', 'worker1', 'worker2']);
  const dir = mkdtempSync(join(tmpdir(), 'toxgraph-compose-'));
  try {
    for (const [name, service] of toxgraph) {
      const env: Record<string, string> = {};
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        assert.match(key, /^TOXGRAPH_/, `${name}: ${key}`);
        // a secret file as the container sees it: a mounted secret of this service
        const secret = /^\/run\/secrets\/(.+)$/.exec(value)?.[1];
        if (secret) {
          assert.ok(service.secrets?.includes(secret), `${name} mounts ${secret}`);
          assert.ok(compose.secrets[secret], `the secret ${secret} is declared`);
          writeFileSync(join(dir, secret), `${secret}-value\n`);
          env[key] = join(dir, secret);
        } else env[key] = substituted(String(value));
      }
      const known = new Set(readFileSync(new URL('../../src/core/config.ts', import.meta.url), 'utf8').match(/TOXGRAPH_[A-Z_]+/g));
      for (const key of Object.keys(env)) assert.ok(known.has(key), `${name}: ${key} is a setting of the server`);
      const config = loadConfig([], env);
      assert.equal(config.storeUrl, 'http://store:8890/sparql-auth');
      assert.equal(config.storePassword, 'store-password-value');
      assert.equal(config.redisUrl, 'redis://queue:6379');
      assert.equal(config.auth, true);
      assert.equal(config.adminPassword, 'admin-password-value');
      assert.equal(config.baseUrl, 'http://localhost:8080', 'one base URL for every process');
      assert.deepEqual(service.command ?? [], name.startsWith('worker') ? ['worker'] : []);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the compose file: the services image runs scripts that exist, are executable and parse', () => {
  for (const [name, service] of Object.entries(compose.services)) {
    if (!substituted(service.image).startsWith('localhost/toxgraph-services:')) continue;
    const script = service.command?.[0] ?? '';
    assert.match(script, /^\/usr\/local\/lib\/toxgraph\/services\/[a-z]+\.sh$/, name);
    const file = new URL(`services/${script.split('/').pop()}`, DEPLOY);
    accessSync(file, constants.X_OK);
    assert.equal(spawnSync('sh', ['-n', file.pathname]).status, 0, `${script} parses`);
  }
  for (const script of ['build-images.sh']) assert.equal(spawnSync('bash', ['-n', new URL(script, DEPLOY).pathname]).status, 0, script);
});
