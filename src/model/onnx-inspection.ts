import onnxProto from 'onnx-proto';
import { badRequest } from '../core/errors.ts';
import { scanOnnxWire } from './onnx-wire-scan.ts';

const { onnx } = onnxProto;
const { DataType } = onnx.TensorProto;

/** Operator domains an imported model may use: the standard operators and the classical machine-learning ones, as onnxruntime runs them. */
export const IMPORT_DOMAINS = ['', 'ai.onnx', 'ai.onnx.ml'];

/**
 * The ai.onnx operators an imported model may use: what tree ensembles, linear models, SVMs and
 * MLPs are written with (arithmetic, matrix products, activations, reductions, reshaping). Left
 * out: control flow (If, Loop, Scan: a loop of 10^15 steps holds a worker for good), operators
 * that make tensors of a computed size (ConstantOfShape, Expand, Tile, Range, Resize, Pad), and
 * everything else (convolutions, recurrent layers, random numbers).
 */
const STANDARD_OPERATORS = new Set(
  (
    'Abs Acos Acosh Add And ArgMax ArgMin Asin Asinh Atan Atanh BatchNormalization Cast Ceil Celu Clip Concat Constant Cos Cosh Div Dropout Elu Equal Erf Exp ' +
    'Flatten Floor Gather GatherElements Gelu Gemm Greater GreaterOrEqual HardSigmoid HardSwish Hardmax Identity IsInf IsNaN LayerNormalization LeakyRelu Less LessOrEqual Log ' +
    'LogSoftmax MatMul Max Mean Min Mish Mod Mul Neg Not Or PRelu Pow Reciprocal ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd ' +
    'ReduceSum ReduceSumSquare Relu Reshape Round Selu Shape Sigmoid Sign Sin Sinh Size Slice Softmax Softplus Softsign Split Sqrt Squeeze Sub Sum Tan Tanh ThresholdedRelu ' +
    'TopK Transpose Trilu Unsqueeze Where Xor'
  ).split(' '),
);

/** A tensor's element type and its dimensions (a number, or undefined where the file leaves it open). */
export interface TensorInfo {
  name: string;
  kind: 'tensor' | 'sequence-of-maps' | 'other';
  elemType?: string;
  dims?: (number | undefined)[];
}

/** What an ONNX file declares, read without running it. */
export interface OnnxInspection {
  producer: { name: string; version: string };
  opsets: { domain: string; version: number }[];
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  /** The class labels a classifier node or a ZipMap names, as text (undefined: none named). */
  classLabels?: string[];
  nodes: number;
  /** Each node's operator: its domain ('' for ai.onnx) and type. */
  operators: { domain: string; opType: string }[];
}

const TYPE_NAMES: Record<number, string> = {
  [DataType.FLOAT]: 'float',
  [DataType.DOUBLE]: 'double',
  [DataType.INT64]: 'int64',
  [DataType.INT32]: 'int32',
  [DataType.STRING]: 'string',
  [DataType.BOOL]: 'bool',
  [DataType.FLOAT16]: 'float16',
};

const decoder = new TextDecoder();
const asNumber = (v: unknown) => (v === null || v === undefined ? undefined : typeof v === 'number' ? v : Number(v as { toString(): string }));

function tensorInfo(v: onnxProto.onnx.IValueInfoProto): TensorInfo {
  const t = v.type;
  if (t?.tensorType) {
    const dims = t.tensorType.shape?.dim?.map((d) => (d.dimValue !== undefined && d.dimValue !== null && !d.dimParam ? asNumber(d.dimValue) : undefined));
    return { name: v.name ?? '', kind: 'tensor', elemType: TYPE_NAMES[t.tensorType.elemType ?? -1] ?? `type ${t.tensorType.elemType}`, dims };
  }
  if (t?.sequenceType?.elemType?.mapType) return { name: v.name ?? '', kind: 'sequence-of-maps' };
  return { name: v.name ?? '', kind: 'other' };
}

/**
 * Read an ONNX file's declarations: its producer, operator sets, graph inputs (initializers that
 * older files also list as inputs are left out) and outputs, and the class labels of its
 * classifier or ZipMap node. 400 when the bytes are not an ONNX model with a graph.
 */
export function inspectOnnx(bytes: Uint8Array): OnnxInspection {
  const scan = scanOnnxWire(bytes);
  if (scan.problem) throw badRequest(scan.problem);
  let model: InstanceType<typeof onnx.ModelProto>;
  try {
    model = onnx.ModelProto.decode(bytes);
  } catch (e) {
    throw badRequest(`file: not an ONNX model (${(e as Error).message.slice(0, 120)})`);
  }
  const graph = model.graph;
  if (!graph?.node?.length || !graph.output?.length) throw badRequest('file: not an ONNX model (no graph with nodes and outputs)');
  const initialized = new Set((graph.initializer ?? []).map((t) => t.name));
  let classLabels: string[] | undefined;
  for (const node of graph.node) {
    for (const a of node.attribute ?? []) {
      if (a.name === 'classlabels_strings' && a.strings?.length) classLabels = a.strings.map((s) => decoder.decode(s));
      else if ((a.name === 'classlabels_int64s' || a.name === 'classlabels_ints') && a.ints?.length) classLabels = a.ints.map((i) => String(i));
    }
  }
  return {
    producer: { name: model.producerName ?? '', version: model.producerVersion ?? '' },
    opsets: (model.opsetImport ?? []).map((o) => ({ domain: o.domain ?? '', version: asNumber(o.version) ?? 0 })),
    inputs: (graph.input ?? []).filter((i) => !initialized.has(i.name ?? '')).map(tensorInfo),
    outputs: graph.output.map(tensorInfo),
    classLabels,
    nodes: graph.node.length,
    operators: graph.node.map((n) => ({ domain: n.domain === 'ai.onnx' ? '' : (n.domain ?? ''), opType: n.opType ?? '' })),
  };
}

/** The outputs an imported model's predictions are read from. */
export interface ImportOutputs {
  /** Regression: the predicted values; classification: the labels. */
  value: string;
  /** Classification: the class probabilities (a tensor, or ZipMap's sequence of maps), when the model gives them. */
  probabilities?: string;
}

/** What an import says of its file: the input's width, the task, and a classifier's accepted values (the prediction feature's). */
export interface ImportExpectation {
  columns: number;
  task: 'regression' | 'classification';
  accepted: string[];
}

/**
 * Check an ONNX file against what the import says it is, naming the first problem (400):
 * one input of floats or doubles, [rows, width] with the width the number of independent
 * features; operator sets onnxruntime runs; for regression a numeric output of one value per
 * row; for classification a label output and class labels that are values of the prediction
 * feature.
 */
export function checkImport(inspection: OnnxInspection, expect: ImportExpectation): ImportOutputs {
  const foreign = inspection.opsets.filter((o) => !IMPORT_DOMAINS.includes(o.domain));
  if (foreign.length) throw badRequest(`file: operators of domain ${foreign.map((o) => o.domain).join(', ')} cannot be run here (only ai.onnx and ai.onnx.ml)`);
  const refused = inspection.operators.find((o) => (o.domain === 'ai.onnx.ml' ? false : o.domain !== '' || !STANDARD_OPERATORS.has(o.opType)));
  if (refused)
    throw badRequest(
      `file: the operator ${refused.domain ? `${refused.domain}.` : ''}${refused.opType} is not run here: imported models are tree ensembles, linear models, SVMs and MLPs (every ai.onnx.ml operator; of ai.onnx, arithmetic, matrix products, activations, reductions and reshaping, no control flow or operators that make tensors of a computed size)`,
    );
  if (inspection.inputs.length !== 1) throw badRequest(`file: the model has ${inspection.inputs.length} inputs; one input of [rows, features] is needed`);
  const [input] = inspection.inputs;
  if (input.kind !== 'tensor' || (input.elemType !== 'float' && input.elemType !== 'double'))
    throw badRequest(`file: the input ${input.name} is not a tensor of floats or doubles (${input.elemType ?? input.kind})`);
  if (input.dims?.length !== 2) throw badRequest(`file: the input ${input.name} has shape [${(input.dims ?? []).map((d) => d ?? '?').join(', ')}]; [rows, features] is needed`);
  const width = input.dims[1];
  if (width === undefined) throw badRequest(`file: the input ${input.name} does not declare its width (the number of features)`);
  if (width !== expect.columns) throw badRequest(`independent_features: ${expect.columns} given, and the model's input ${input.name} takes ${width} columns`);
  const tensors = inspection.outputs.filter((o) => o.kind === 'tensor');
  const perRow = (o: TensorInfo) => o.dims === undefined || o.dims.length === 1 || (o.dims.length === 2 && (o.dims[1] === 1 || o.dims[1] === undefined));
  if (expect.task === 'regression') {
    const value = tensors.find((o) => (o.elemType === 'float' || o.elemType === 'double') && perRow(o));
    if (!value) throw badRequest(`file: no output of one number per row (outputs: ${describe(inspection.outputs)}); a regression model needs one`);
    return { value: value.name };
  }
  const label = tensors.find((o) => (o.elemType === 'string' || o.elemType === 'int64') && perRow(o));
  if (!label) throw badRequest(`file: no label output (strings or integers, one per row; outputs: ${describe(inspection.outputs)}); a classifier needs one`);
  if (inspection.classLabels) {
    const unknown = inspection.classLabels.filter((c) => !expect.accepted.includes(c));
    if (expect.accepted.length && unknown.length)
      throw badRequest(`prediction_feature: the model's classes ${unknown.join(', ')} are not values of the prediction feature (${expect.accepted.join(', ')})`);
  }
  const probabilities = inspection.outputs.find(
    (o) => o !== label && (o.kind === 'sequence-of-maps' || (o.kind === 'tensor' && (o.elemType === 'float' || o.elemType === 'double') && o.dims?.length === 2)),
  );
  return { value: label.name, probabilities: probabilities?.name };
}

function describe(outputs: TensorInfo[]): string {
  return outputs.map((o) => `${o.name} ${o.kind === 'tensor' ? `${o.elemType}[${(o.dims ?? []).map((d) => d ?? '?').join(', ')}]` : o.kind}`).join('; ');
}
