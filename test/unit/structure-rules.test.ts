import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const SCRIPT = new URL('../../scripts/structure.ts', import.meta.url).pathname;

/** The structure check over a source tree of the given files: its exit code and output. */
async function check(files: Record<string, string>): Promise<{ code: number; out: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'toxgraph-structure-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const r = await promisify(execFile)(process.execPath, ['--disable-warning=ExperimentalWarning', SCRIPT, '--check', '--src', dir]).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e) => ({ code: e.code as number, out: String(e.stdout) + String(e.stderr) }),
    );
    return r;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('the structure check passes a layered tree and counts its route handlers', async () => {
  const r = await check({
    'core/errors.ts': 'export const e = 1;\n',
    'dataset/dataset-store.ts': "import { e } from '../core/errors.ts';\nexport const d = e;\n",
    'dataset/dataset-routes.ts':
      "import { d } from './dataset-store.ts';\nimport type { X } from '../store/triple-store.ts';\nexport function routes(router: any): void {\n  router.get('/dataset', async (ctx: any) => {\n    ctx.body = d;\n  });\n}\n",
    'store/triple-store.ts': 'export interface X { a: number }\nexport const s = 1;\n',
  });
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /folder cycles: 0/);
  assert.match(r.out, /route handlers: 1, 0 described with their parameters \(http\/route-description.ts\); the longest 3 lines/);
});

test('the structure check fails on a folder cycle, on shared machinery importing a component, and on a route file importing the store', async () => {
  const cycle = await check({
    'model/model.ts': "import { v } from '../validation/validation.ts';\nexport const m = v;\n",
    'validation/validation.ts': "import { m } from '../model/model.ts';\nexport const v = () => m;\n",
  });
  assert.equal(cycle.code, 1);
  assert.match(cycle.out, /model ↔ validation/);
  assert.match(cycle.out, /1 folder cycle/);
  const shared = await check({ 'rdf/html.ts': "import { d } from '../dataset/dataset-page.ts';\nexport const h = d;\n", 'dataset/dataset-page.ts': 'export const d = 1;\n' });
  assert.equal(shared.code, 1);
  assert.match(shared.out, /rdf\/html\.ts → dataset\/dataset-page\.ts/);
  const routes = await check({ 'feature/feature-routes.ts': "import { s } from '../store/query-helpers.ts';\nexport const r = s;\n", 'store/query-helpers.ts': 'export const s = 1;\n' });
  assert.equal(routes.code, 1);
  assert.match(routes.out, /route files import store\/: feature\/feature-routes\.ts/);
});
