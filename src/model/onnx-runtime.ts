import { createHash } from 'node:crypto';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import type { Matrix, Prediction } from '../learning/learner.ts';
import { HttpError } from '../core/errors.ts';
import { checkImport, inspectOnnx, type ImportExpectation } from './onnx-inspection.ts';

/**
 * Imported ONNX models, run by onnxruntime (CPU) on the worker pool: the checks of an upload
 * and the predictions of rows. onnxruntime (about 290 MB on disk) is loaded by the worker that
 * first needs it, never by the server's main thread (onnx-forms.ts names this module).
 */
/** What an imported model keeps to run its file (the model's learner state). */
export interface OnnxState {
  /** The file, base64. */
  file: string;
  /** Its SHA-256 (hex): the key of the sessions a worker keeps. */
  digest: string;
  input: string;
  inputType: 'float' | 'double';
  /** Regression: the output of the values; classification: of the labels. */
  value: string;
  /** Classification: the output of the class probabilities (a tensor, in the order of `labels`), when the file gives one. */
  probabilities?: string;
  /** Classification: the class labels, in the order of the probabilities (the model's classes). */
  labels?: string[];
  producer: { name: string; version: string };
  opsets: { domain: string; version: number }[];
}

/** The answer of a check: the state to store, or the problem (a 400's message; the worker pool passes messages only). */
export type OnnxCheck = { ok: true; state: Omit<OnnxState, 'file'> } | { ok: false; problem: string };

type Runtime = typeof import('onnxruntime-node');
let runtime: Promise<Runtime> | undefined;
const loadRuntime = () => {
  runtime ??= import('onnxruntime-node');
  return runtime;
};

/** Sessions of the files last run by this worker (the oldest closed first), so that predicting chunk after chunk does not load a forest each time. */
const SESSIONS_KEPT = 2;
const sessions = new Map<string, Promise<InferenceSession>>();

async function sessionOf(state: Pick<OnnxState, 'file' | 'digest'>): Promise<InferenceSession> {
  let session = sessions.get(state.digest);
  if (session) {
    sessions.delete(state.digest);
  } else {
    const ort = await loadRuntime();
    session = ort.InferenceSession.create(Buffer.from(state.file, 'base64'), { intraOpNumThreads: 1, interOpNumThreads: 1 });
    session.catch(() => sessions.delete(state.digest));
  }
  sessions.set(state.digest, session);
  for (const [digest, old] of sessions) {
    if (sessions.size <= SESSIONS_KEPT) break;
    sessions.delete(digest);
    old.then((s) => s.release()).catch(() => undefined);
  }
  return session;
}

async function inputTensor(state: Pick<OnnxState, 'inputType'>, x: Matrix): Promise<Tensor> {
  const ort = await loadRuntime();
  return state.inputType === 'float' ? new ort.Tensor('float32', Float32Array.from(x.data), [x.rows, x.cols]) : new ort.Tensor('float64', x.data, [x.rows, x.cols]);
}

/** The outputs of a run, as numbers (values, probabilities) and texts (labels). */
async function run(state: OnnxState, x: Matrix): Promise<{ values: ArrayLike<number | bigint | string>; probabilities?: ArrayLike<number> }> {
  const session = await sessionOf(state);
  const fetches = [state.value, ...(state.probabilities ? [state.probabilities] : [])];
  const out = await session.run({ [state.input]: await inputTensor(state, x) }, fetches);
  const values = out[state.value].data as ArrayLike<number | bigint | string>;
  if (values.length !== x.rows) throw new Error(`the output ${state.value} holds ${values.length} values for ${x.rows} rows`);
  const probabilities = state.probabilities ? (out[state.probabilities].data as ArrayLike<number>) : undefined;
  return { values, probabilities };
}

/**
 * Worker-pool entry: an imported model's predictions of rows. Regression: the values, with no
 * confidence (NaN: the file states none). Classification: the index of the label among the
 * model's classes (NaN for a label that is not one), with its probability as the confidence
 * when the file gives probabilities.
 */
export async function predictOnnx(state: OnnxState, x: Matrix): Promise<Prediction[]> {
  if (!x.rows) return [];
  const { values, probabilities } = await run(state, x);
  // a row with a value missing and no training mean to fill it is not predicted
  const incomplete = (i: number) => x.data.subarray(i * x.cols, (i + 1) * x.cols).some(Number.isNaN);
  const labels = state.labels;
  if (!labels) return Array.from({ length: x.rows }, (_, i) => ({ value: incomplete(i) ? Number.NaN : Number(values[i]), confidence: Number.NaN }));
  const width = labels.length;
  const index = new Map(labels.map((l, i) => [l, i]));
  return Array.from({ length: x.rows }, (_, i) => {
    const value = incomplete(i) ? Number.NaN : (index.get(String(values[i])) ?? Number.NaN);
    const row = probabilities ? Array.from({ length: width }, (_, k) => Number(probabilities[i * width + k])) : undefined;
    return { value, confidence: row && !Number.isNaN(value) ? row[value] : Number.NaN, probabilities: row };
  });
}

/**
 * Worker-pool entry: check an uploaded file (onnx-inspection.ts) and that onnxruntime loads it
 * and answers one value per row for two rows of zeros (a classifier: labels among its classes,
 * probabilities of the classes' width). Answers the state to store or the problem.
 */
export async function checkOnnxFile(bytes: Uint8Array, expect: ImportExpectation): Promise<OnnxCheck> {
  let checked: ReturnType<typeof checkImport>;
  let inspection: ReturnType<typeof inspectOnnx>;
  try {
    inspection = inspectOnnx(bytes);
    checked = checkImport(inspection, expect);
  } catch (e) {
    if (e instanceof HttpError) return { ok: false, problem: e.message };
    throw e;
  }
  const [input] = inspection.inputs;
  const labels = expect.task === 'classification' ? (inspection.classLabels ?? [...expect.accepted].sort()) : undefined;
  if (labels && !labels.length) return { ok: false, problem: 'file: the model names no class labels, and the prediction feature lists no accepted values to read its labels as' };
  const state: Omit<OnnxState, 'file'> = {
    // the key of the sessions workers keep of this file (hashed here, off the main thread)
    digest: createHash('sha256').update(bytes).digest('hex'),
    input: input.name,
    inputType: input.elemType as 'float' | 'double',
    value: checked.value,
    labels,
    producer: inspection.producer,
    opsets: inspection.opsets,
  };
  // ZipMap's sequence of maps is not read: probabilities come from a tensor output only
  const probabilities = inspection.outputs.find((o) => o.name === checked.probabilities);
  if (probabilities?.kind === 'tensor') state.probabilities = probabilities.name;
  const ort = await loadRuntime();
  let session: InferenceSession;
  try {
    session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  } catch (e) {
    return { ok: false, problem: `file: onnxruntime cannot load the model (${firstLine(e)})` };
  }
  try {
    // rows of −1, 0 and 1 in every column
    const rows = 3;
    const zeros: Matrix = { rows, cols: expect.columns, data: Float64Array.from({ length: rows * expect.columns }, (_, i) => Math.floor(i / expect.columns) - 1) };
    const fetches = [state.value, ...(state.probabilities ? [state.probabilities] : [])];
    let out: Awaited<ReturnType<InferenceSession['run']>>;
    try {
      out = await session.run({ [state.input]: await inputTensor(state, zeros) }, fetches);
    } catch (e) {
      return { ok: false, problem: `file: onnxruntime cannot run the model on ${rows} rows of ${expect.columns} columns (${firstLine(e)}; a model of a fixed batch size of 1 is not imported)` };
    }
    const values = out[state.value].data as ArrayLike<unknown>;
    if (values.length !== rows)
      return { ok: false, problem: `file: the output ${state.value} gives ${values.length} values for ${rows} rows; one per row is needed (a model of a fixed batch size of 1 is not imported)` };
    if (labels) {
      const unknown = Array.from(values, String).filter((v) => !labels.includes(v));
      if (unknown.length) return { ok: false, problem: `prediction_feature: the model answers the label ${unknown[0]}, which is not one of the classes ${labels.join(', ')}` };
      const width = state.probabilities ? out[state.probabilities].data.length / rows : labels.length;
      if (width !== labels.length) return { ok: false, problem: `file: the output ${state.probabilities} gives ${width} probabilities per row for ${labels.length} classes (${labels.join(', ')})` };
      // labels read from the prediction feature, not the file: the probability columns are taken in their order only if the most probable one is the label on every check row
      if (state.probabilities && !inspection.classLabels) {
        const p = out[state.probabilities].data as ArrayLike<number>;
        const agrees = Array.from(values, String).every((label, r) => {
          const row = Array.from({ length: width }, (_, k) => Number(p[r * width + k]));
          return labels[row.indexOf(Math.max(...row))] === label;
        });
        if (!agrees) state.probabilities = undefined;
      }
    }
  } finally {
    await session.release().catch(() => undefined);
  }
  return { ok: true, state };
}

const firstLine = (e: unknown) =>
  String((e as Error)?.message ?? e)
    .split('\n')[0]
    .slice(0, 300);
