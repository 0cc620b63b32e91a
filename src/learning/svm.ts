/**
 * Support vector regression (`svr`) and classification with probabilities (`svc`): libsvm
 * compiled to JavaScript (libsvm-js).
 *
 * Build: the default WebAssembly build (1.5-4x faster than `libsvm-js/asm`, which is plain
 * JavaScript without "use asm" and aborted on a 1024-bit fingerprint set). It loads
 * asynchronously, so the instance `predict` uses is loaded with this module (top-level await),
 * which keeps `predict` synchronous in the main thread and in worker threads alike.
 * Loading it has two side effects handled here:
 *  - the Emscripten runtime adds a process 'unhandledRejection' listener that calls
 *    process.exit(1) (silently ending the server on any stray rejection): it is removed again;
 *  - libsvm's random generator (used by the internal cross-validation that fits the probability
 *    model) is a C `rand()` whose state lives in the module and carries over from one training to
 *    the next, and libsvm-js exposes no srand: every training therefore loads a fresh instance, so
 *    the same data give the same model whatever ran before (the seed is not used by libsvm).
 *
 * Descriptors are standardised (constant columns dropped; means and sds kept in the state); the
 * state holds libsvm's own serialised model text, which `predict` loads (`SVM.load`) and frees.
 * Predictions always come from the serialised model, so they are the same before and after a
 * JSON round trip.
 *
 * SVR: the target is standardised too, so `epsilon` is in units of sd(y). Confidence: libsvm's
 * probability model for SVR (`-b 1`) fits a Laplace distribution (scale b) to residuals of an
 * internal 5-fold cross-validation; the residual sd is b√2, and se(x) = b√2 · √(1 + h(x)) with a
 * diagonal approximation of the leverage, h(x) = 1/n + ‖z(x)‖² / (n - 1) (standardised
 * descriptors taken as uncorrelated), mapped by `spreadConfidence` (1 - se / sd(y), clamped).
 *
 * SVC: libsvm's probability estimates (Platt scaling, pairwise coupling); the class is the one
 * of highest probability and the confidence its probability.
 */
import { createRequire } from 'node:module';
import type { Learner, Matrix, ParamValue, ParameterSpec, Prediction, TrainingData } from './learner.ts';
import { applyScaler, argmax, classCount, fitScaler, mean, sampleSd, spreadConfidence, toRows, type Scaler } from './scaling.ts';

const require = createRequire(import.meta.url);

interface SvmModel {
  train(samples: number[][], labels: number[]): void;
  predictOne(sample: number[]): number;
  predictOneProbability(sample: number[]): { prediction: number; estimates: { label: number; probability: number }[] };
  serializeModel(): string;
  getLabels(): number[];
  free(): void;
}

interface SvmClass {
  new (options: Record<string, unknown>): SvmModel;
  load(serialised: string): SvmModel;
  SVM_TYPES: Record<'C_SVC' | 'EPSILON_SVR', string>;
  KERNEL_TYPES: Record<'LINEAR' | 'POLYNOMIAL' | 'RBF' | 'SIGMOID', string>;
}

/** The Emscripten module under libsvm-js (for what its wrapper does not expose). */
interface LibsvmCore {
  _malloc(bytes: number): number;
  _free(pointer: number): void;
  _deserialize_model(text: number): number;
  HEAPU8: Uint8Array;
}

interface Libsvm {
  SVM: SvmClass;
  core: LibsvmCore;
}

const CORE = 'libsvm-js/out/wasm/libsvm.js';

/** A new libsvm instance (its own memory and random state), without its process listener. */
async function loadLibsvm(): Promise<Libsvm> {
  const before = new Set(process.listeners('unhandledRejection'));
  for (const path of ['libsvm-js', CORE]) delete require.cache[require.resolve(path)];
  // Emscripten would first try to stream-compile the .wasm with fetch() on a file path, which
  // fails in Node and prints a warning before falling back to reading the file: skip that try.
  const streaming = WebAssembly.instantiateStreaming;
  (WebAssembly as { instantiateStreaming?: unknown }).instantiateStreaming = undefined;
  let loading: Promise<SvmClass>;
  let core: LibsvmCore;
  try {
    loading = require('libsvm-js') as Promise<SvmClass>;
    core = require(CORE) as LibsvmCore;
  } finally {
    WebAssembly.instantiateStreaming = streaming;
    for (const l of process.listeners('unhandledRejection')) if (!before.has(l)) process.off('unhandledRejection', l);
  }
  return { SVM: await loading, core };
}

/**
 * `SVM.load` of a serialised model. libsvm-js passes the model text to C on the Emscripten stack
 * (5 MB), which overflows ("memory access out of bounds") for models of a few thousand support
 * vector values, e.g. 460 support vectors of 1024 fingerprint bits: the text is copied to the
 * heap here instead, and the wrapper object is set up as `SVM.load` does.
 */
function loadModel(lib: Libsvm, text: string): SvmModel {
  const bytes = Buffer.from(text, 'utf8');
  const pointer = lib.core._malloc(bytes.length + 1);
  if (!pointer) throw new Error('libsvm: out of memory loading a model');
  let handle: number;
  try {
    lib.core.HEAPU8.set(bytes, pointer);
    lib.core.HEAPU8[pointer + bytes.length] = 0;
    handle = lib.core._deserialize_model(pointer);
  } finally {
    lib.core._free(pointer);
  }
  if (!handle) throw new Error('libsvm: cannot read the model');
  const model = new lib.SVM({}) as SvmModel & { model: number; _deserialized: boolean };
  model.model = handle;
  model._deserialized = true;
  return model;
}

/** The instance used for prediction (no randomness there), loaded with this module. */
const predictor = await loadLibsvm();

const KERNELS = ['rbf', 'linear', 'poly', 'sigmoid'];

interface SvmState {
  kind: 'svr' | 'svc';
  scaler: Scaler;
  /** libsvm's model text; absent when the training set had a single class. */
  model?: string;
  /** SVR: mean and sd of the target (libsvm fits the standardised target). */
  meanY?: number;
  sdY?: number;
  /** SVR: residual sd from libsvm's probability model (in units of the standardised target). */
  residualSd?: number;
  n: number;
  /** SVC: the number of classes, and the class of a single-class training set. */
  classes?: number;
  onlyClass?: number;
}

function options(svm: SvmClass, params: Record<string, ParamValue>, type: 'C_SVC' | 'EPSILON_SVR'): Record<string, unknown> {
  const kernel = String(params.kernel ?? 'rbf');
  const kernelType = { rbf: svm.KERNEL_TYPES.RBF, linear: svm.KERNEL_TYPES.LINEAR, poly: svm.KERNEL_TYPES.POLYNOMIAL, sigmoid: svm.KERNEL_TYPES.SIGMOID }[kernel];
  if (kernelType === undefined) throw new Error(`unknown kernel ${kernel}`);
  const o: Record<string, unknown> = {
    type: svm.SVM_TYPES[type],
    kernel: kernelType,
    cost: Number(params.cost),
    degree: Number(params.degree ?? 3),
    coef0: Number(params.coef0 ?? 0),
    probabilityEstimates: true,
    quiet: true,
  };
  // libsvm-js turns a missing or zero gamma into 1 / number of features.
  if (Number(params.gamma) > 0) o.gamma = Number(params.gamma);
  if (type === 'EPSILON_SVR') o.epsilon = Number(params.epsilon);
  return o;
}

/** Pure training function (run off the main thread by `context.run`). */
export async function trainSvm(data: TrainingData, params: Record<string, ParamValue>, kind: 'svr' | 'svc'): Promise<SvmState> {
  const scaler = fitScaler(data.x);
  const z = applyScaler(scaler, data.x);
  const n = z.rows;
  const state: SvmState = { kind, scaler, n };
  let labels: number[];
  if (kind === 'svr') {
    state.meanY = mean(data.y);
    state.sdY = sampleSd(data.y);
    const sd = state.sdY > 0 ? state.sdY : 1;
    labels = Array.from(data.y, (v) => (v - state.meanY!) / sd);
  } else {
    state.classes = classCount(data);
    labels = Array.from(data.y);
    const distinct = new Set(labels);
    if (distinct.size < 2) {
      state.onlyClass = labels[0] ?? 0;
      return state;
    }
  }
  if (z.cols === 0 || (kind === 'svr' && !(state.sdY! > 0))) return state;
  const lib = await loadLibsvm();
  const model = new lib.SVM(options(lib.SVM, params, kind === 'svr' ? 'EPSILON_SVR' : 'C_SVC'));
  try {
    model.train(toRows(z), labels);
    state.model = model.serializeModel();
  } finally {
    model.free();
  }
  if (kind === 'svr') {
    const probA = /^probA\s+(\S+)/m.exec(state.model)?.[1];
    const b = probA === undefined ? NaN : Number(probA);
    state.residualSd = Number.isFinite(b) && b > 0 ? b * Math.SQRT2 : 1;
  }
  return state;
}

export function predictSvm(state: SvmState, x: Matrix): Prediction[] {
  const z = applyScaler(state.scaler, x);
  const rows = toRows(z);
  if (state.kind === 'svc' && state.model === undefined) {
    const k = state.classes ?? 1;
    const c = state.onlyClass ?? 0;
    return rows.map(() => ({ value: c, confidence: 1, probabilities: Array.from({ length: k }, (_, i) => (i === c ? 1 : 0)) }));
  }
  if (state.kind === 'svr' && state.model === undefined) return rows.map(() => ({ value: state.meanY ?? 0, confidence: 0 }));
  const model = loadModel(predictor, state.model!);
  try {
    if (state.kind === 'svr') {
      const sd = state.sdY! > 0 ? state.sdY! : 1;
      return rows.map((row) => {
        let zz = 0;
        for (const v of row) zz += v * v;
        const h = 1 / state.n + zz / Math.max(1, state.n - 1);
        const se = state.residualSd! * sd * Math.sqrt(1 + h);
        return { value: state.meanY! + sd * model.predictOne(row), confidence: spreadConfidence(se, state.sdY!) };
      });
    }
    return rows.map((row) => {
      const { estimates } = model.predictOneProbability(row);
      const probabilities = new Array<number>(state.classes!).fill(0);
      for (const e of estimates) probabilities[e.label] = e.probability;
      const value = argmax(probabilities);
      return { value, confidence: probabilities[value], probabilities };
    });
  } finally {
    model.free();
  }
}

/**
 * A trained SVM as numbers, read from libsvm's model text (the values `predict` loads, as libsvm
 * printed them): the scaling of the columns, the kernel, the support vectors over the scaled
 * columns, their coefficients and the bias; for regression the target's mean and sd, for two
 * classes Platt's sigmoid. Undefined when there is no libsvm model (a single class, no varying
 * column) or more than two classes (libsvm's pairwise coupling of probabilities).
 */
export interface SvmForm {
  kind: 'svr' | 'svc';
  scaler: Scaler;
  kernel: 'linear' | 'polynomial' | 'rbf' | 'sigmoid';
  gamma: number;
  coef0: number;
  degree: number;
  /** One row per support vector, over the scaled columns. */
  supportVectors: number[][];
  /** Its coefficient (yᵢαᵢ) per support vector. */
  coefficients: number[];
  /** The decision value is Σ coefficient · K(sv, z) − rho. */
  rho: number;
  /** SVR: the value is meanY + sdY · decision. */
  meanY?: number;
  sdY?: number;
  /** SVC: the class the decision value's sigmoid is the probability of (libsvm's first label), and the sigmoid's A and B. */
  firstLabel?: number;
  probA?: number;
  probB?: number;
}

/** Why a trained SVM has no exported form (undefined: svmForm reads it). */
export function svmFormMissing(stateValue: unknown): string | undefined {
  const state = stateValue as SvmState;
  if (!state.model) return 'it was trained on a single class or without a varying column';
  if (state.kind === 'svc' && state.classes !== 2) return "libsvm's probabilities of more than two classes (pairwise coupling) are not written";
  return undefined;
}

export function svmForm(stateValue: unknown): SvmForm | undefined {
  const state = stateValue as SvmState;
  if (!state.model) return undefined;
  const [head, body = ''] = state.model.split(/^SV\s*$/m);
  const header = new Map(
    head
      .trim()
      .split('\n')
      .map((l) => {
        const [key, ...values] = l.trim().split(/\s+/);
        return [key, values] as const;
      }),
  );
  const numbers = (key: string) => header.get(key)?.map(Number) ?? [];
  const [classes] = numbers('nr_class');
  if (state.kind === 'svc' && classes !== 2) return undefined;
  const p = state.scaler.columns.length;
  const supportVectors: number[][] = [];
  const coefficients: number[] = [];
  for (const line of body
    .trim()
    .split('\n')
    .filter((l) => l.trim())) {
    const [coefficient, ...cells] = line.trim().split(/\s+/);
    const sv = new Array<number>(p).fill(0);
    for (const cell of cells) {
      const [index, value] = cell.split(':');
      sv[Number(index) - 1] = Number(value);
    }
    coefficients.push(Number(coefficient));
    supportVectors.push(sv);
  }
  const kernel = header.get('kernel_type')?.[0] as SvmForm['kernel'];
  return {
    kind: state.kind,
    scaler: state.scaler,
    kernel,
    gamma: numbers('gamma')[0] ?? 0,
    coef0: numbers('coef0')[0] ?? 0,
    degree: numbers('degree')[0] ?? 3,
    supportVectors,
    coefficients,
    rho: numbers('rho')[0],
    ...(state.kind === 'svr' ? { meanY: state.meanY, sdY: state.sdY! > 0 ? state.sdY : 1 } : { firstLabel: numbers('label')[0], probA: numbers('probA')[0], probB: numbers('probB')[0] }),
  };
}

function parameters(kind: 'svr' | 'svc'): ParameterSpec[] {
  const p: ParameterSpec[] = [
    { name: 'kernel', description: 'Kernel function', type: 'string', default: 'rbf', choices: KERNELS },
    { name: 'cost', description: 'Cost C of constraint violation', type: 'number', default: 10, min: 1e-4, max: 1e5 },
    {
      name: 'gamma',
      description: 'Kernel coefficient of the rbf, poly and sigmoid kernels (0 = 1 / number of descriptors)',
      type: 'number',
      default: 0,
      min: 0,
      max: 1e4,
    },
    { name: 'degree', description: 'Degree of the polynomial kernel', type: 'integer', default: 3, min: 1, max: 10 },
    { name: 'coef0', description: 'Constant term of the poly and sigmoid kernels', type: 'number', default: 0, min: -1e4, max: 1e4 },
  ];
  if (kind === 'svr') {
    p.push({
      name: 'epsilon',
      description: 'Half-width of the epsilon-insensitive tube, in standard deviations of the target (standardised internally)',
      type: 'number',
      default: 0.1,
      min: 0,
      max: 10,
    });
  }
  return p;
}

/** Is this learner id one of the SVMs (`svr`, `svc`)? */
export const isSvm = (learnerId: string) => learnerId === supportVectorRegression.id || learnerId === supportVectorClassification.id;

export const supportVectorRegression: Learner = {
  id: 'svr',
  title: 'Support vector regression',
  description:
    "Epsilon-SVR (libsvm) on standardised descriptors and target. Confidence: 1 - (residual sd from libsvm's cross-validated probability model, widened by an approximate leverage) / sd of the training target, clamped to [0, 1].",
  task: 'regression',
  types: ['Regression'],
  sameAs: undefined,
  parameters: parameters('svr'),
  async train(data: TrainingData, params: Record<string, ParamValue>, context) {
    return context.run<SvmState>(import.meta.url, 'trainSvm', [data, params, 'svr'], { background: true });
  },
  predict(state: unknown, x: Matrix): Prediction[] {
    return predictSvm(state as SvmState, x);
  },
};

export const supportVectorClassification: Learner = {
  id: 'svc',
  title: 'Support vector classification',
  description: "C-SVC (libsvm) on standardised descriptors, with libsvm's probability estimates (Platt scaling and pairwise coupling).",
  task: 'classification',
  types: ['Classification'],
  sameAs: undefined,
  parameters: parameters('svc'),
  async train(data: TrainingData, params: Record<string, ParamValue>, context) {
    return context.run<SvmState>(import.meta.url, 'trainSvm', [data, params, 'svc'], { background: true });
  },
  predict(state: unknown, x: Matrix): Prediction[] {
    return predictSvm(state as SvmState, x);
  },
};
