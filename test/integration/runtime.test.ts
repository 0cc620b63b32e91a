import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { nodeVersionSatisfies, SUPPORTED_NODE } from '../../src/node-version-check.mjs';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

test('the supported Node.js range is package.json engines, and the tests run on a Node.js in it', () => {
  assert.equal(SUPPORTED_NODE, pkg.engines.node);
  assert.ok(nodeVersionSatisfies(process.versions.node, SUPPORTED_NODE), `the tests run on ${process.version}`);
  // the pinned runtime is one the engines range admits
  assert.ok(nodeVersionSatisfies(pkg.dependencies.node, SUPPORTED_NODE), pkg.dependencies.node);
});

test('version check: caret ranges joined by ||, by major, then minor, then patch', () => {
  const range = '^24.9.0 || ^26.10.0';
  for (const v of ['24.9.0', '24.9.1', '24.12.0', '26.10.0', '26.10.3', '26.11.0', 'v26.10.0']) assert.ok(nodeVersionSatisfies(v, range), v);
  for (const v of ['20.20.2', '22.18.0', '24.8.9', '25.2.0', '26.9.9', '26.0.0', '27.0.0', '23.99.99']) assert.ok(!nodeVersionSatisfies(v, range), v);
});

// The machines this project is built on come with Node 20: the server started on it must stop at
// once, with one line naming the Node.js it needs (not a stack trace about loading TypeScript).
const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => existsSync(p) && !nodeVersionSatisfies(execFileSync(p, ['-p', 'process.versions.node'], { encoding: 'utf8' }), SUPPORTED_NODE));
test('the server on an unsupported Node.js stops at once with one line naming the versions it needs', { skip: oldNode ? false : 'no unsupported Node.js on this machine' }, () => {
  const run = spawnSync('sh', ['bin/toxgraph-server', '--port', '0', '--data', '/nonexistent/never-created'], {
    env: { ...process.env, TOXGRAPH_NODE: oldNode },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(run.status, 1);
  const version = execFileSync(oldNode as string, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
  assert.equal(run.stderr, `toxgraph: needs Node.js ${SUPPORTED_NODE}, but this is Node.js ${version}; \`npm install\` installs it for the project (\`npm start\` runs on it)\n`);
  assert.equal(existsSync('/nonexistent/never-created'), false);
});
