import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * A test reporter that times every file of a tier (issue 53): its wall time (Node's per-file
 * summary), the time inside its tests, and the rest (loading it, and its before/after hooks:
 * server starts, uploads, trainings). It writes `test-output/timings-{tier}.json` and, from every
 * tier's JSON there, `test-output/timings.txt`: the 15 slowest files and hooks, and each tier's total.
 * The tier is `TOXGRAPH_TEST_TIER` (unit, integration, …). It prints that summary when the tier
 * has run: use it beside another reporter (`--test-reporter=spec --test-reporter=./test/reporters/timings.ts`,
 * both with `--test-reporter-destination=stdout`).
 */
interface FileTiming {
  file: string;
  /** Wall time of the file, as its process summarised it. */
  ms: number;
  /** Time inside its top-level tests (their own durations, summed). */
  testsMs: number;
  tests: number;
}

interface TestEvent {
  type: string;
  data: { file?: string; name?: string; nesting?: number; duration_ms?: number; details?: { duration_ms?: number; type?: string } };
}

const OUT = 'test-output';

export default async function* timings(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const files = new Map<string, FileTiming>();
  const entry = (file: string) => {
    let t = files.get(file);
    if (!t) files.set(file, (t = { file: relative(process.cwd(), file), ms: 0, testsMs: 0, tests: 0 }));
    return t;
  };
  const started = performance.now();
  /** When each file began to run (the runner took it from its queue). */
  const began = new Map<string, number>();
  for await (const event of source) {
    const { data } = event;
    if (!data?.file) continue;
    // the file itself: taken from the queue when its process starts, complete when it has ended
    const isFile = data.name !== undefined && data.file.endsWith(data.name);
    if (isFile && event.type === 'test:dequeue') began.set(data.file, performance.now());
    else if (isFile && event.type === 'test:complete') entry(data.file).ms = performance.now() - (began.get(data.file) ?? started);
    else if ((event.type === 'test:pass' || event.type === 'test:fail') && !isFile) {
      const t = entry(data.file);
      // time in tests: the top level's (a describe's is its tests'); the count: the tests, at any depth
      if (data.nesting === 0) t.testsMs += data.details?.duration_ms ?? 0;
      if (data.details?.type !== 'suite') t.tests++;
    }
  }
  const tier = process.env.TOXGRAPH_TEST_TIER ?? 'tests';
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, `timings-${tier}.json`), JSON.stringify({ tier, wallMs: performance.now() - started, files: [...files.values()] }, null, 1));
  const text = summary();
  writeFileSync(join(OUT, 'timings.txt'), text);
  yield `\n${text}`;
}

/** The text of timings.txt, from every tier's JSON in test-output/. */
function summary(): string {
  const tiers = readdirSync(OUT)
    .filter((f) => /^timings-.+\.json$/.test(f))
    .map((f) => JSON.parse(readFileSync(join(OUT, f), 'utf8')) as { tier: string; wallMs: number; files: FileTiming[] });
  const all = tiers.flatMap((t) => t.files.map((f) => ({ ...f, tier: t.tier, hooksMs: Math.max(0, f.ms - f.testsMs) })));
  const s = (ms: number) => `${(ms / 1000).toFixed(1).padStart(7)} s`;
  const lines = ['Test timings (test/reporters/timings.ts)', ''];
  for (const t of tiers) lines.push(`${t.tier}: ${t.files.length} files, ${s(t.wallMs).trim()} wall, ${s(t.files.reduce((n, f) => n + f.ms, 0)).trim()} summed over files`);
  lines.push('', 'The 15 slowest files (wall | in tests | outside them: loading, before/after hooks)');
  for (const f of [...all].sort((a, b) => b.ms - a.ms).slice(0, 15)) lines.push(`${s(f.ms)} | ${s(f.testsMs)} | ${s(f.hooksMs)}  ${f.tier}  ${f.file} (${f.tests} tests)`);
  lines.push('', 'The 15 slowest loads and before/after hooks (a file’s wall time outside its tests)');
  for (const f of [...all].sort((a, b) => b.hooksMs - a.hooksMs).slice(0, 15)) lines.push(`${s(f.hooksMs)}  ${f.tier}  ${f.file}`);
  return `${lines.join('\n')}\n`;
}
