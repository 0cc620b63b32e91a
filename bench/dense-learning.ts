import { parse as parseCsv } from 'csv-parse/sync';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, spawnServer } from '../test/helpers.ts';
import type { Learner, Matrix, Prediction, RunFunction } from '../src/learning/learner.ts';
import { learnerById } from '../src/learning/learners.ts';
import { WorkerPool } from '../src/task/worker-pool.ts';
import { NESTED } from '../src/core/phase-times.ts';
import { defaults, foldsOf, selectRows, type QsarData } from './learners.ts';
import { fmt, metric, now, postAndFollow, ratio, tempDir, withPolling, type Row } from './util.ts';

/** The learners of the comparison (issue 38: forests, boosting and SVM on dense descriptors). */
const LEARNERS = (process.env.TOXGRAPH_DENSE_LEARNERS ?? 'random-forest-classification,gradient-boosting-classification,svc').split(',');

/** The service's folds run two at a time (one lane per worker thread): so does the baseline. */
const LANES = 2;

/**
 * Dense descriptors through the service against the learner alone: Kazius (mutagenicity)
 * uploaded, RDKit's 43 descriptors calculated, then a 10-fold cross-validation of each learner
 * through `POST /crossvalidation` (the service: store, fold selections, models, predictions,
 * statistics), against the same learner on the same matrix (the descriptor dataset downloaded as
 * CSV) in this process on a pool of as many threads, folds run as many at a time (the baseline).
 * The ratio is the cost of the service; the worst answer of a small GET during each run says
 * whether the server stayed free. The phase profile is the server's own (its "task ended" log
 * line); scikit-learn runs the same matrix when the machine has it (Debian's python3-sklearn).
 */
export async function benchDenseLearning(): Promise<Row[]> {
  const bench = 'dense learning: Kazius, RDKit descriptors (43), 10-fold cross-validation, service vs the learner in process';
  const tmp = await tempDir('toxgraph-bench-dense-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await spawnServer(['--data', tmp.dir, '--host', '127.0.0.1', '--base-url', base, '--quiet'], { port });
  const rows: Row[] = [];
  const pool = new WorkerPool(2);
  try {
    const csv = readFileSync(new URL('../../shared/data/kazius.csv', import.meta.url), 'utf8');
    const dataset = await postAndFollow(`${base}/dataset`, {}, csv, 'text/csv');
    const target = (await (await fetch(`${dataset}/features`, { headers: { Accept: 'text/uri-list' } })).text()).trim().split('\r\n')[0];
    const described = await postAndFollow(`${base}/algorithm/rdkit-descriptors`, { dataset_uri: dataset });
    const data = matrixOf(await (await fetch(described, { headers: { Accept: 'text/csv' } })).text());
    for (const id of LEARNERS) {
      const learner = learnerById(id)!;
      const cpuBefore = threadCpu(server.pid);
      const t = now();
      const cv = await withPolling(base, () =>
        postAndFollow(`${base}/crossvalidation`, { dataset_uri: described, algorithm_uri: `${base}/algorithm/${id}`, prediction_feature: target, num_folds: '10', random_seed: '1' }),
      );
      const serviceMs = now() - t;
      const cpu = cpuByKind(cpuBefore, threadCpu(server.pid));
      const phases = await phasesOfLastTask(server.stderr);
      const accuracy = await pooledAccuracy(cv.result);
      const cpuInProcess = process.cpuUsage();
      const inProcess = await crossValidateInProcess(learner, data, pool);
      const inProcessCpu = process.cpuUsage(cpuInProcess);
      rows.push(
        { bench, measure: `${id}: in process, the same matrix (baseline)`, value: `${fmt(inProcess.ms / 1000, 1)} s, accuracy ${fmt(inProcess.accuracy, 3)}`, ratio: '1.00x' },
        { bench, measure: `${id}: through the service`, value: `${fmt(serviceMs / 1000, 1)} s, accuracy ${fmt(accuracy, 3)}`, ratio: ratio(serviceMs / inProcess.ms) },
        { bench, measure: `${id}: worst GET /health / event-loop delay during it`, value: `${fmt(cv.worstMs, 0)} ms / ${fmt(cv.loopMaxMs, 0)} ms` },
        {
          bench,
          measure: `${id}: CPU of the service during it (the baseline's: ${fmt((inProcessCpu.user + inProcessCpu.system) / 1e6, 1)} s)`,
          value: Object.entries(cpu)
            .map(([kind, ms]) => `${kind} ${fmt(ms / 1000, 1)} s`)
            .join(', '),
        },
        // phases of folds that run at once add up: shares of the summed time, not of the wall clock
        ...phaseRows(bench, id, phases),
      );
      const sklearn = scikitLearn(id, data, tmp.dir);
      if (sklearn)
        rows.push({
          bench,
          measure: `${id}: scikit-learn ${sklearn.version} (${sklearn.estimator}), the same matrix and folds' count`,
          value: `${fmt(sklearn.ms / 1000, 1)} s, accuracy ${fmt(sklearn.accuracy, 3)}`,
          ratio: ratio(sklearn.ms / inProcess.ms),
        });
    }
    // the same job again: memory must not remember it (resident memory after each run, at rest)
    const resident: number[] = [];
    for (let run = 0; run < 3; run++) {
      await postAndFollow(`${base}/crossvalidation`, { dataset_uri: described, algorithm_uri: `${base}/algorithm/${LEARNERS[0]}`, prediction_feature: target, num_folds: '10', random_seed: '1' });
      await new Promise((r) => setTimeout(r, 6000)); // idle workers end after 5 s
      resident.push(await metric(base, 'process_resident_memory_bytes'));
    }
    rows.push({
      bench,
      measure: `${LEARNERS[0]} run three more times: resident memory after each, at rest`,
      value: resident.map((b) => `${fmt(b / 2 ** 20, 0)} MiB`).join(', '),
      ratio: ratio(resident[2] / resident[0]),
    });
  } finally {
    await pool.close();
    server.kill('SIGTERM');
    await server.exited;
    await tmp.remove();
  }
  return rows;
}

/** The descriptor dataset's CSV as a matrix (missing values: the column's mean) and its classes. */
function matrixOf(text: string): QsarData {
  const records = parseCsv(text) as string[][];
  const [header, ...body] = records;
  const tcol = 1;
  const rows = body.filter((r) => r[tcol] !== '');
  const cols = header.length - 2;
  const x: Matrix = { rows: rows.length, cols, data: new Float64Array(rows.length * cols) };
  for (let j = 0; j < cols; j++) {
    const values = rows.map((r) => (r[j + 2] === '' ? Number.NaN : Number(r[j + 2])));
    const known = values.filter(Number.isFinite);
    const mean = known.reduce((a, b) => a + b, 0) / Math.max(1, known.length);
    values.forEach((v, i) => {
      x.data[i * cols + j] = Number.isFinite(v) ? v : mean;
    });
  }
  const classes = [...new Set(rows.map((r) => r[tcol]))].sort();
  return { x, binary: new Array(cols).fill(false), y: Float64Array.from(rows, (r) => classes.indexOf(r[tcol])), classes, skipped: 0 };
}

async function crossValidateInProcess(learner: Learner, q: QsarData, pool: WorkerPool): Promise<{ ms: number; accuracy: number }> {
  const run: RunFunction = (url, fn, args) => pool.run(url, fn, args);
  const fold = foldsOf(q.x.rows, 10, 1, q.y);
  const predictions = new Array<Prediction>(q.x.rows);
  const t = now();
  let next = 0;
  const lane = async () => {
    while (next < 10) {
      const f = next++;
      const train: number[] = [];
      const test: number[] = [];
      for (let i = 0; i < q.x.rows; i++) (fold[i] === f ? test : train).push(i);
      const state = await learner.train(selectRows(q, train), defaults(learner), { seed: 1, parallelism: 2, run });
      const predicted = await learner.predict(state, selectRows(q, test).x);
      test.forEach((i, j) => {
        predictions[i] = predicted[j];
      });
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
  const ms = now() - t;
  return { ms, accuracy: predictions.filter((p, i) => p.value === q.y[i]).length / q.x.rows };
}

async function pooledAccuracy(cv: string): Promise<number> {
  const statistics = (await (await fetch(`${cv}/statistics`, { headers: { Accept: 'application/json' } })).json()) as { classificationStatistics?: { accuracy?: number } };
  return statistics.classificationStatistics?.accuracy ?? Number.NaN;
}

type Phases = Record<string, { ms: number; count: number }>;

/** The phases of the task that ended last (its log line is written just after it is marked Completed). */
async function phasesOfLastTask(stderr: () => string): Promise<Phases> {
  for (let wait = 0; wait < 50; wait++) {
    const lines = stderr()
      .split('\n')
      .filter((l) => l.includes('"msg":"task ended"'));
    const last = lines.length ? (JSON.parse(lines[lines.length - 1]) as { phases: Phases; ms: number; task: string }) : undefined;
    if (last && !seenTasks.has(last.task)) {
      seenTasks.add(last.task);
      return { [TASK]: { ms: last.ms, count: 1 }, ...last.phases };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {};
}
const seenTasks = new Set<string>();
const TASK = 'the task, start to end';

function phaseRows(bench: string, id: string, phases: Phases): Row[] {
  // a nested phase is part of its parent's time: the sum is of the outermost ones
  const total = Object.entries(phases)
    .filter(([phase]) => !phase.includes(NESTED) && phase !== TASK)
    .reduce((a, [, p]) => a + p.ms, 0);
  return Object.entries(phases).map(([phase, p]) => ({
    bench,
    measure: `${id}: phase ${phase} (${p.count}x)`,
    value: phase === TASK ? `${fmt(p.ms / 1000, 2)} s` : `${fmt(p.ms / 1000, 2)} s, ${fmt((100 * p.ms) / total, 1)} % of the summed phases`,
  }));
}

const SKLEARN_SCRIPT = new URL('./sklearn-cv.py', import.meta.url).pathname;

/** The same cross-validation in scikit-learn (Debian's python3 with python3-sklearn), or undefined without it. */
function scikitLearn(id: string, q: QsarData, dir: string): { ms: number; accuracy: number; version: string; estimator: string } | undefined {
  const python = '/usr/bin/python3';
  const file = join(dir, 'matrix.csv');
  const lines: string[] = [];
  for (let i = 0; i < q.x.rows; i++) lines.push([q.y[i], ...q.x.data.subarray(i * q.x.cols, (i + 1) * q.x.cols)].join(','));
  writeFileSync(file, `${lines.join('\n')}\n`);
  const run = spawnSync(python, [SKLEARN_SCRIPT, id, file], { encoding: 'utf8' });
  if (run.status !== 0) return undefined;
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as { ms: number; accuracy: number; version: string; estimator: string };
}

/** CPU milliseconds of each thread of a process (Linux: /proc), by thread name and id. */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, in clock ticks of 10 ms
      out.set(`${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}#${tid}`, (Number(fields[11]) + Number(fields[12])) * 10);
    }
  } catch {
    // not Linux, or the process is gone: no figures
  }
  return out;
}

/** Where the service's CPU went between two readings, by kind of thread. */
function cpuByKind(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const kinds: [RegExp, string][] = [
    [/^node-MainThread/, 'main thread'],
    [/^WorkerThread/, 'worker threads (learners, store writer)'],
    [/^libuv-worker/, 'LevelDB reads and writes (libuv pool)'],
    [/^node-V8Worker/, 'V8 helpers (garbage collection)'],
  ];
  const out: Record<string, number> = {};
  for (const [thread, ms] of after) {
    const used = ms - (before.get(thread) ?? 0);
    const kind = kinds.find(([pattern]) => pattern.test(thread))?.[1] ?? 'other threads';
    out[kind] = (out[kind] ?? 0) + used;
  }
  return out;
}
