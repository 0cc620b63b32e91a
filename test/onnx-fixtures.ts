import onnxProto from 'onnx-proto';

/** ONNX files as another tool would write them, with known weights (the import tests and the fuzzing targets use them). */
const { onnx } = onnxProto;
const { DataType } = onnx.TensorProto;
const encoder = new TextEncoder();

function valueInfo(name: string, elemType: number, dims: (number | string)[]) {
  const dim = dims.map((d) => (typeof d === 'string' ? onnx.TensorShapeProto.Dimension.create({ dimParam: d }) : onnx.TensorShapeProto.Dimension.create({ dimValue: d })));
  return onnx.ValueInfoProto.create({ name, type: onnx.TypeProto.create({ tensorType: onnx.TypeProto.Tensor.create({ elemType, shape: onnx.TensorShapeProto.create({ dim }) }) }) });
}

/** A file of one graph, as another tool would write it (producer "handmade-test 0.1"). */
function onnxFile(graph: InstanceType<typeof onnx.GraphProto>, opsets = [{ domain: '', version: 17 }]): Uint8Array {
  // a Uint8Array of its own (protobufjs answers a Buffer, whose slices are views)
  return new Uint8Array(
    onnx.ModelProto.encode(
      onnx.ModelProto.create({ irVersion: 8, producerName: 'handmade-test', producerVersion: '0.1', opsetImport: opsets.map((o) => onnx.OperatorSetIdProto.create(o)), graph }),
    ).finish(),
  );
}

/** y = 2·x1 − 3·x2 + 0.5, in doubles: MatMul and Add. */
export function linearRegressionFile(width = 2): Uint8Array {
  return onnxFile(
    onnx.GraphProto.create({
      name: 'known weights',
      node: [onnx.NodeProto.create({ opType: 'MatMul', input: ['X', 'W'], output: ['XW'] }), onnx.NodeProto.create({ opType: 'Add', input: ['XW', 'B'], output: ['y'] })],
      initializer: [
        onnx.TensorProto.create({ name: 'W', dataType: DataType.DOUBLE, dims: [width, 1], doubleData: [2, -3, 1, 1].slice(0, width) }),
        onnx.TensorProto.create({ name: 'B', dataType: DataType.DOUBLE, dims: [1], doubleData: [0.5] }),
      ],
      input: [valueInfo('X', DataType.DOUBLE, ['N', width])],
      output: [valueInfo('y', DataType.DOUBLE, ['N', 1])],
    }),
  );
}

/** A linear classifier of floats (ai.onnx.ml LinearClassifier): score(first) = x1 − x2, score(second) = x2 − x1, softmax; labels as given. */
export function linearClassifierFile(labels: string[]): Uint8Array {
  const attribute = (name: string, value: Record<string, unknown>) => onnx.AttributeProto.create({ name, ...value });
  const { AttributeType } = onnx.AttributeProto;
  return onnxFile(
    onnx.GraphProto.create({
      name: 'known classifier',
      node: [
        onnx.NodeProto.create({
          opType: 'LinearClassifier',
          domain: 'ai.onnx.ml',
          input: ['X'],
          output: ['label', 'probabilities'],
          attribute: [
            attribute('coefficients', { type: AttributeType.FLOATS, floats: [1, -1, -1, 1] }),
            attribute('intercepts', { type: AttributeType.FLOATS, floats: [0, 0] }),
            attribute('classlabels_strings', { type: AttributeType.STRINGS, strings: labels.map((l) => encoder.encode(l)) }),
            attribute('post_transform', { type: AttributeType.STRING, s: encoder.encode('SOFTMAX') }),
          ],
        }),
      ],
      input: [valueInfo('X', DataType.FLOAT, ['N', 2])],
      output: [valueInfo('label', DataType.STRING, ['N']), valueInfo('probabilities', DataType.FLOAT, ['N', 2])],
    }),
    [
      { domain: '', version: 17 },
      { domain: 'ai.onnx.ml', version: 3 },
    ],
  );
}

/** A small MLP in doubles: y = w2 · relu(W1 · x + b1) + b2, with two inputs and three hidden units. */
export const MLP = { w1: [1, -2, 0.5, 3, -1, 1], b1: [0.5, -1, 0.25], w2: [2, -1, 0.5], b2: 0.125 };
export function mlpFile(): Uint8Array {
  return onnxFile(
    onnx.GraphProto.create({
      name: 'known MLP',
      node: [
        onnx.NodeProto.create({ opType: 'MatMul', input: ['X', 'W1'], output: ['XW1'] }),
        onnx.NodeProto.create({ opType: 'Add', input: ['XW1', 'B1'], output: ['hidden_in'] }),
        onnx.NodeProto.create({ opType: 'Relu', input: ['hidden_in'], output: ['hidden'] }),
        onnx.NodeProto.create({ opType: 'MatMul', input: ['hidden', 'W2'], output: ['HW2'] }),
        onnx.NodeProto.create({ opType: 'Add', input: ['HW2', 'B2'], output: ['y'] }),
      ],
      initializer: [
        onnx.TensorProto.create({ name: 'W1', dataType: DataType.DOUBLE, dims: [2, 3], doubleData: MLP.w1 }),
        onnx.TensorProto.create({ name: 'B1', dataType: DataType.DOUBLE, dims: [3], doubleData: MLP.b1 }),
        onnx.TensorProto.create({ name: 'W2', dataType: DataType.DOUBLE, dims: [3, 1], doubleData: MLP.w2 }),
        onnx.TensorProto.create({ name: 'B2', dataType: DataType.DOUBLE, dims: [1], doubleData: [MLP.b2] }),
      ],
      input: [valueInfo('X', DataType.DOUBLE, ['N', 2])],
      output: [valueInfo('y', DataType.DOUBLE, ['N', 1])],
    }),
  );
}

/** What the MLP gives for a row (x1, x2). */
export function mlpValue(x1: number, x2: number): number {
  const hidden = MLP.b1.map((b, k) => Math.max(0, b + x1 * MLP.w1[k] + x2 * MLP.w1[3 + k]));
  return hidden.reduce((s, h, k) => s + h * MLP.w2[k], MLP.b2);
}

/** A file of about `mb` megabytes, all of it used: y = Σ x · wₖ over a long weight vector (MatMul, ReduceSum), one input column. */
export function largeOnnxFile(mb: number): Uint8Array {
  const n = Math.round((mb * 1024 * 1024) / 8);
  const weights = new Float64Array(n).map((_, i) => Math.sin(i));
  return onnxFile(
    onnx.GraphProto.create({
      name: 'large',
      node: [
        onnx.NodeProto.create({ opType: 'MatMul', input: ['X', 'W'], output: ['XW'] }),
        onnx.NodeProto.create({
          opType: 'ReduceSum',
          input: ['XW', 'axes'],
          output: ['y'],
          attribute: [onnx.AttributeProto.create({ name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 1 })],
        }),
      ],
      initializer: [
        onnx.TensorProto.create({ name: 'W', dataType: DataType.DOUBLE, dims: [1, n], rawData: new Uint8Array(weights.buffer) }),
        onnx.TensorProto.create({ name: 'axes', dataType: DataType.INT64, dims: [1], int64Data: [1] }),
      ],
      input: [valueInfo('X', DataType.DOUBLE, ['N', 1])],
      output: [valueInfo('y', DataType.DOUBLE, ['N', 1])],
    }),
  );
}
