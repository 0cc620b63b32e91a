import onnxProto from 'onnx-proto';

/** The pieces ONNX graphs are written with here (onnx-export.ts, onnx-svm.ts): attributes, tensor declarations, and the label of class probabilities. */
const { onnx } = onnxProto;
type Attribute = InstanceType<typeof onnx.AttributeProto>;
const { AttributeType } = onnx.AttributeProto;
const { DataType } = onnx.TensorProto;

/** Nodes from the imputed input `X_imputed` to the outputs, with their constants. */
export type Graph = { nodes: InstanceType<typeof onnx.NodeProto>[]; initializers?: InstanceType<typeof onnx.TensorProto>[]; outputs: InstanceType<typeof onnx.ValueInfoProto>[] };

export const text = (s: string) => new TextEncoder().encode(s);
export const ints = (name: string, values: number[]): Attribute => onnx.AttributeProto.create({ name, type: AttributeType.INTS, ints: values });
export const int = (name: string, value: number): Attribute => onnx.AttributeProto.create({ name, type: AttributeType.INT, i: value });
export const string = (name: string, value: string): Attribute => onnx.AttributeProto.create({ name, type: AttributeType.STRING, s: text(value) });
export const strings = (name: string, values: string[]): Attribute => onnx.AttributeProto.create({ name, type: AttributeType.STRINGS, strings: values.map(text) });
/** Doubles as a tensor attribute (`*_as_tensor`): thresholds and leaf values keep their 64 bits. */
export const doubles = (name: string, values: number[]): Attribute =>
  onnx.AttributeProto.create({ name, type: AttributeType.TENSOR, t: onnx.TensorProto.create({ dataType: DataType.DOUBLE, dims: [values.length], doubleData: values }) });

export function tensorInfo(name: string, elemType: number, dims: (number | string)[]) {
  const dim = dims.map((d) => (typeof d === 'string' ? onnx.TensorShapeProto.Dimension.create({ dimParam: d }) : onnx.TensorShapeProto.Dimension.create({ dimValue: d })));
  return onnx.ValueInfoProto.create({ name, type: onnx.TypeProto.create({ tensorType: onnx.TypeProto.Tensor.create({ elemType, shape: onnx.TensorShapeProto.create({ dim }) }) }) });
}

/** From class probabilities to the label: the first most probable class, as the server's (onnxruntime's own label of a two-class ensemble reads the second class's score its own way). */
export function labelOf(probabilities: string, classes: string[], elemType: number = DataType.FLOAT): Graph {
  return {
    nodes: [
      onnx.NodeProto.create({ opType: 'ArgMax', input: [probabilities], output: ['label_index'], attribute: [int('axis', 1), int('keepdims', 0)] }),
      onnx.NodeProto.create({ opType: 'Gather', input: ['class_labels', 'label_index'], output: ['label'] }),
    ],
    initializers: [onnx.TensorProto.create({ name: 'class_labels', dataType: DataType.STRING, dims: [classes.length], stringData: classes.map(text) })],
    outputs: [tensorInfo('label', DataType.STRING, ['N']), tensorInfo('probabilities', elemType, ['N', classes.length])],
  };
}
