/**
 * Lines and branches of `src/` covered by test runs (issue 53): the runs write V8's own coverage
 * (`NODE_V8_COVERAGE=dir`, the data `node --test --experimental-test-coverage` reads), one JSON
 * per process and worker thread; this script keeps what concerns `src/`, optionally only the
 * processes of some test files, and has c8 report it (every file of `src/` counted, loaded or not).
 *
 *   node scripts/coverage-report.ts <raw dir>… [--store-suite <raw dir>] [--json out.json]
 *
 * `--store-suite dir`: of that run (a remote-store run of every integration file), only the
 * processes of the files a remote-store run takes today (test/store-suite.ts): what the
 * remote-store runs covered before they were cut to the store suite, and what they cover after.
 *
 * A process is attributed to the test file it loaded; worker threads share their process's id
 * and so its test file. Processes that loaded no test file (a server a test spawned with
 * bin/toxgraph-server, the user command) count with every selection.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { STORE_SUITE } from '../test/store-suite.ts';

interface ScriptCoverage {
  url: string;
  functions: unknown[];
}

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const [value] = args.splice(at, 2).slice(1);
  return value;
};
const suiteDir = option('--store-suite');
const jsonOut = option('--json');
const dirs = suiteDir ? [...args, suiteDir] : args;
if (!dirs.length) {
  console.error('usage: node scripts/coverage-report.ts <raw dir>… [--store-suite <raw dir>] [--json out.json]');
  process.exit(2);
}

const root = resolve(import.meta.dirname, '..');
const srcUrl = `${pathToFileURL(join(root, 'src')).href}/`;
const testFile = /\/test\/(unit|integration|browser|differential)\/([^/]+\.test\.ts)$/;

// coverage-{pid}-{time}-{n}.json: the test file of each process first
const dumps = dirs.flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(dir, f)),
);
const read = (path: string): ScriptCoverage[] => JSON.parse(readFileSync(path, 'utf8')).result;
const processOf = (path: string) => `${path.split('/').slice(-2, -1)[0]}:${basename(path).split('-')[1]}`;
const fileOfProcess = new Map<string, string>();
for (const path of dumps) {
  const found = read(path)
    .map((s) => testFile.exec(s.url)?.[2])
    .find(Boolean);
  if (found) fileOfProcess.set(processOf(path), found);
}

const kept = mkdtempSync(join(tmpdir(), 'toxgraph-coverage-'));
let processes = 0;
for (const [i, path] of dumps.entries()) {
  const file = fileOfProcess.get(processOf(path));
  if (suiteDir && path.startsWith(`${suiteDir}/`) && file && !STORE_SUITE.includes(file)) continue;
  processes++;
  const result = read(path).filter((s) => s.url.startsWith(srcUrl));
  writeFileSync(join(kept, `coverage-${i}.json`), JSON.stringify({ result }));
}

const c8 = spawnSync(join(root, 'node_modules/.bin/c8'), ['report', '--temp-directory', kept, '--src', root, '--all', '--include', 'src/**', '--reporter', 'json-summary', '--reports-dir', kept], {
  cwd: root,
  encoding: 'utf8',
});
if (c8.status !== 0) {
  console.error(c8.stderr || c8.stdout);
  process.exit(1);
}
const { total, ...byFile } = JSON.parse(readFileSync(join(kept, 'coverage-summary.json'), 'utf8'));
rmSync(kept, { recursive: true, force: true });
const figure = (k: 'lines' | 'branches' | 'functions') => `${total[k].pct.toFixed(2)} % (${total[k].covered} of ${total[k].total})`;
console.log(
  `coverage of src/ from ${processes} process dumps${suiteDir ? ` (of ${suiteDir}: the store suite only)` : ''}: lines ${figure('lines')}, branches ${figure('branches')}, functions ${figure('functions')}`,
);
if (jsonOut)
  writeFileSync(
    jsonOut,
    JSON.stringify(
      {
        dirs,
        storeSuite: suiteDir,
        processes,
        lines: total.lines,
        branches: total.branches,
        functions: total.functions,
        coveredByFile: Object.fromEntries(
          Object.entries(byFile).map(([f, v]) => [f.slice(root.length + 1), { lines: (v as typeof total).lines.covered, branches: (v as typeof total).branches.covered }]),
        ),
      },
      null,
      1,
    ),
  );
