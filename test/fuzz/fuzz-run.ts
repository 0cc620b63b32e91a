import fc from 'fast-check';
import assert from 'node:assert/strict';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { TestServer } from '../helpers.ts';
import { http, form, errorReport, startTestServer, waitForTask } from '../helpers.ts';
import type { TripleStore } from '../../src/store/triple-store.ts';
import { fuzzTargets, type FuzzContext, type FuzzRequest, type FuzzTarget } from './fuzz-targets.ts';
import { prepareClientTasks } from './task-states.ts';

/** Graphs that any request may write without creating a resource: the id counters. */
const BOOKKEEPING = new Set(['urn:toxgraph:counters']);
/** Longest a request may take before it counts as a hang (the query time limit is far below it). */
const HANG_MS = 60_000;

/** Record the graphs each store write touches (observing the real store, not replacing it). */
export function watchWrites(store: TripleStore): { since(mark: number): string[]; mark(): number } {
  const log: string[] = [];
  const s = store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const wrap = (name: string, graphsOf: (args: unknown[]) => string[]) => {
    const original = s[name].bind(store);
    s[name] = (...args: unknown[]) => {
      log.push(...graphsOf(args));
      return original(...args);
    };
  };
  wrap('replaceGraphs', (a) => Object.keys(a[0] as object));
  wrap('deleteGraphs', (a) => a[0] as string[]);
  wrap('bulkLoad', () => ['(bulk load)']);
  wrap('update', () => ['(SPARQL update)']);
  return { mark: () => log.length, since: (m) => log.slice(m).filter((g) => !BOOKKEEPING.has(g)) };
}

/** Resources the parameters of fuzzed requests name: a small dataset and a model trained on it. */
export async function prepareContext(s: TestServer): Promise<FuzzContext> {
  const rows = ['CCO', 'CCCO', 'CCCCO', 'c1ccccc1', 'c1ccccc1O', 'CC(=O)O', 'CCN', 'CCCN', 'CCCl', 'CCBr', 'OCCO', 'CC(C)O'];
  const csv = `SMILES,y,x1,x2,class\n${rows.map((r, i) => `${r},${(i * 0.37) % 3},${i},${(i * i) % 7},${i % 2 ? 'a' : 'b'}`).join('\n')}\n`;
  const dataset = (await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' })).text.trim();
  const features = (await http(`${dataset.replace(s.base, s.url)}/features`, { accept: 'text/uri-list' })).text.trim().split(/\r?\n/);
  const titled = async (t: string) => {
    for (const f of features) if ((await http(f.replace(s.base, s.url), { accept: 'text/turtle' })).text.includes(`"${t}"`)) return f;
    throw new Error(`no feature ${t}`);
  };
  const target = await titled('y');
  const started = await http(`${s.url}/algorithm/mlr`, { method: 'POST', body: form({ dataset_uri: dataset, prediction_feature: target }), accept: 'text/uri-list' });
  const model = await waitForTask(s, started.text.trim());
  const compound = (await http(`${s.url}/compound`, { method: 'POST', body: 'CCO', contentType: 'chemical/x-daylight-smiles', accept: 'text/uri-list' })).text.trim();
  const cv = await http(`${s.url}/crossvalidation`, {
    method: 'POST',
    body: form({ dataset_uri: dataset, algorithm_uri: `${s.base}/algorithm/mlr`, prediction_feature: target, num_folds: '3' }),
    accept: 'text/uri-list',
  });
  const crossvalidation = await waitForTask(s, cv.text.trim());
  const [validation] = (await http(`${crossvalidation.replace(s.base, s.url)}/validations`, { accept: 'text/uri-list' })).text.trim().split(/\r?\n/);
  // read-across: a category around the compound for the dataset's endpoint, and an assessment of it
  const category = (await http(`${s.url}/category`, { method: 'POST', body: form({ target: compound, endpoint: target, similarity_threshold: '0' }), accept: 'text/uri-list' })).text.trim();
  const assessment = (await http(`${s.url}/assessment`, { method: 'POST', body: form({ category, scenario: '2' }), accept: 'text/uri-list' })).text.trim();
  return {
    base: s.base,
    dataset,
    target,
    classTarget: await titled('class'),
    model,
    compound,
    feature: await titled('x1'),
    crossvalidation,
    validation,
    clientTasks: await prepareClientTasks(s),
    category,
    assessment,
  };
}

export interface FuzzStats {
  target: string;
  inputs: number;
  byStatus: Record<number, number>;
  /** Milliseconds the target's inputs took (where the fuzzing's time goes). */
  ms: number;
}

/**
 * Send `runs` generated inputs of every target and check each answer: 2xx, or 4xx with an
 * ot:ErrorReport (or a status the target names, also with a report), never 500 or a hang; a
 * refused input writes nothing; a task started by an accepted input is waited for.
 */
export async function fuzzServer(s: TestServer, context: FuzzContext, options: { seed: number; runs: number; only?: string }): Promise<FuzzStats[]> {
  const writes = watchWrites(s.services.store);
  const stats: FuzzStats[] = [];
  for (const target of fuzzTargets(context)) {
    if (options.only && !target.name.includes(options.only)) continue;
    const row: FuzzStats = { target: target.name, inputs: 0, byStatus: {}, ms: 0 };
    stats.push(row);
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(target.input, async (request) => {
        row.inputs++;
        const status = await sendAndCheck(s, target, request, writes);
        row.byStatus[status] = (row.byStatus[status] ?? 0) + 1;
      }),
      { seed: options.seed, numRuns: options.runs * (target.weight ?? 1), endOnFailure: true },
    );
    row.ms = Math.round(performance.now() - started);
  }
  return stats;
}

async function sendAndCheck(s: TestServer, target: FuzzTarget, request: FuzzRequest, writes: ReturnType<typeof watchWrites>): Promise<number> {
  if (target.protocol === 'mcp') return sendMcpAndCheck(s, target, request, writes);
  const mark = writes.mark();
  const what = `${target.name}: ${request.method} ${request.path.slice(0, 200)} ${JSON.stringify(request.body?.slice(0, 400) ?? '')}`;
  let reply: Awaited<ReturnType<typeof http>>;
  try {
    reply = await http(`${s.url}${request.path}`, {
      method: request.method,
      body: request.body as never,
      contentType: request.contentType,
      accept: 'text/turtle',
      signal: AbortSignal.timeout(HANG_MS),
    });
  } catch (e) {
    throw new Error(`no answer within ${HANG_MS} ms or the connection failed (${(e as Error).message}): ${what}`);
  }
  const { status } = reply;
  const allowed = (status >= 200 && status < 300) || (status >= 400 && status < 500) || (target.alsoAllowed ?? []).includes(status);
  assert.ok(allowed, `HTTP ${status} for ${what}\n${reply.text.slice(0, 500)}`);
  if (status >= 400) {
    const report = await errorReport(reply).catch((e) => assert.fail(`HTTP ${status} without an error report (${(e as Error).message}) for ${what}`));
    assert.equal(Number(report.status), status, what);
    assert.deepEqual(writes.since(mark), [], `a refused input (HTTP ${status}) wrote ${writes.since(mark).join(', ')}: ${what}`);
  }
  if (status === 202) {
    const task =
      reply.headers.get('location') ??
      reply.text
        .trim()
        .split(/\s+/)
        .find((l) => l.startsWith(`${s.base}/task/`));
    if (task) await s.services.tasks.settled(task);
  }
  return status;
}

/**
 * An MCP message: a tool result, a tool error naming what is wrong, or (for a message that is not
 * a tool call) a JSON-RPC error; never 5xx or a hang. A tool error wrote nothing; a task an
 * accepted call started is waited for.
 */
async function sendMcpAndCheck(s: TestServer, target: FuzzTarget, request: FuzzRequest, writes: ReturnType<typeof watchWrites>): Promise<number> {
  const mark = writes.mark();
  const what = `${target.name}: ${String(request.body).slice(0, 400)}`;
  let reply: Awaited<ReturnType<typeof http>>;
  try {
    reply = await http(`${s.url}${request.path}`, {
      method: 'POST',
      body: request.body as never,
      contentType: 'application/json',
      accept: 'application/json, text/event-stream',
      signal: AbortSignal.timeout(HANG_MS),
    });
  } catch (e) {
    throw new Error(`no answer within ${HANG_MS} ms or the connection failed (${(e as Error).message}): ${what}`);
  }
  const { status } = reply;
  assert.ok((status >= 200 && status < 300) || (status >= 400 && status < 500), `HTTP ${status} for ${what}\n${reply.text.slice(0, 500)}`);
  if (status === 202) return status; // a notification: nothing to answer
  const message = JSON.parse(reply.text) as { result?: { isError?: boolean; content?: { text: string }[]; structuredContent?: { task?: string } }; error?: { code: number; message: string } };
  if (message.error || status >= 400) {
    assert.ok(message.error && typeof message.error.message === 'string', `a JSON-RPC error for ${what}: ${reply.text.slice(0, 300)}`);
    assert.deepEqual(writes.since(mark), [], `a refused message wrote ${writes.since(mark).join(', ')}: ${what}`);
    return status;
  }
  assert.ok(message.result, `a result for ${what}`);
  if (message.result.isError) {
    assert.ok(message.result.content?.[0]?.text, `a tool error says what is wrong: ${what}`);
    assert.doesNotMatch(message.result.content[0].text, /the service failed to answer/, `an internal failure: ${what}`);
    // a job that was started and then failed (make_qprf waits for its task) leaves its task, as over REST
    const written = writes.since(mark).filter((uri) => !uri.startsWith(`${s.base}/task/`));
    assert.deepEqual(written, [], `a tool error wrote ${written.join(', ')}: ${what}`);
    return 299; // counted apart from accepted calls
  }
  const task = message.result.structuredContent?.task;
  if (task) await s.services.tasks.settled(task);
  return status;
}

/**
 * A worker thread's entry (test/integration/fuzz.test.ts): a test server started with
 * `workerData.fuzz.flags`, fuzzed (`fuzzServer`) with `workerData.fuzz.options`, its statistics
 * posted back; a failure is the thread's error.
 */
if (!isMainThread && workerData?.fuzz) {
  const { flags, options } = workerData.fuzz as { flags: string[]; options: { seed: number; runs: number; only?: string } };
  const s = await startTestServer(flags);
  try {
    parentPort?.postMessage(await fuzzServer(s, await prepareContext(s), options));
  } finally {
    await s.stop();
  }
}
