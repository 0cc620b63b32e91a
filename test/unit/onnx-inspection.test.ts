import { test } from 'node:test';
import assert from 'node:assert/strict';
import onnxProto from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import { checkImport, inspectOnnx } from '../../src/model/onnx-inspection.ts';
import { modelOnnx } from '../../src/model/onnx-export.ts';
import { HttpError } from '../../src/core/errors.ts';
import { runInProcess } from '../../src/learning/learner.ts';
import { randomForestClassification } from '../../src/learning/random-forest.ts';
import type { StoredModel } from '../../src/model/model-codec.ts';

const { onnx } = onnxProto;
const { DataType } = onnx.TensorProto;

function info(name: string, elemType: number, dims: (number | string)[]) {
  const dim = dims.map((d) => (typeof d === 'string' ? onnx.TensorShapeProto.Dimension.create({ dimParam: d }) : onnx.TensorShapeProto.Dimension.create({ dimValue: d })));
  return onnx.ValueInfoProto.create({ name, type: onnx.TypeProto.create({ tensorType: onnx.TypeProto.Tensor.create({ elemType, shape: onnx.TensorShapeProto.create({ dim }) }) }) });
}

/** y = 2·x₀ − x₁ + 0.5 as MatMul + Add in doubles, with a declared input width. */
function linearModel(width: number | string = 2, domain = 'ai.onnx.ml'): Uint8Array {
  const graph = onnx.GraphProto.create({
    name: 'linear',
    node: [onnx.NodeProto.create({ opType: 'MatMul', input: ['X', 'w'], output: ['xw'] }), onnx.NodeProto.create({ opType: 'Add', input: ['xw', 'b'], output: ['y'] })],
    initializer: [
      onnx.TensorProto.create({ name: 'w', dataType: DataType.DOUBLE, dims: [2, 1], doubleData: [2, -1] }),
      onnx.TensorProto.create({ name: 'b', dataType: DataType.DOUBLE, dims: [1], doubleData: [0.5] }),
    ],
    // older exporters list initializers as inputs too: they are not inputs to feed
    input: [info('X', DataType.DOUBLE, ['N', width]), info('w', DataType.DOUBLE, [2, 1])],
    output: [info('y', DataType.DOUBLE, ['N', 1])],
  });
  return onnx.ModelProto.encode(
    onnx.ModelProto.create({
      irVersion: 8,
      producerName: 'hand-made',
      producerVersion: '1',
      opsetImport: [onnx.OperatorSetIdProto.create({ domain: '', version: 17 }), onnx.OperatorSetIdProto.create({ domain, version: 3 })],
      graph,
    }),
  ).finish();
}

const refused = (f: () => unknown, pattern: RegExp) => assert.throws(f, (e: unknown) => e instanceof HttpError && e.status === 400 && pattern.test(e.message), String(pattern));

test('a hand-made ONNX model with known weights: inspected, accepted, and onnxruntime predicts it exactly', async () => {
  const bytes = linearModel();
  const inspection = inspectOnnx(bytes);
  assert.deepEqual(inspection.producer, { name: 'hand-made', version: '1' });
  assert.deepEqual(
    inspection.inputs.map((i) => [i.name, i.elemType, i.dims]),
    [['X', 'double', [undefined, 2]]],
  );
  assert.deepEqual(checkImport(inspection, { columns: 2, task: 'regression', accepted: [] }), { value: 'y' });
  const session = await ort.InferenceSession.create(bytes);
  const out = await session.run({ X: new ort.Tensor('float64', Float64Array.from([1, 2, 3, -1, 0.25, 0]), [3, 2]) });
  assert.deepEqual([...(out.y.data as Float64Array)], [0.5, 7.5, 1]);
});

test('imports that do not fit answer 400 naming the problem', () => {
  refused(() => inspectOnnx(new Uint8Array([1, 2, 3, 4, 5])), /not an ONNX model/);
  refused(() => inspectOnnx(new Uint8Array()), /not an ONNX model/);
  refused(() => inspectOnnx(new TextEncoder().encode('SMILES,value\nCCO,1\n')), /not an ONNX model/);
  refused(() => checkImport(inspectOnnx(linearModel()), { columns: 3, task: 'regression', accepted: [] }), /independent_features: 3 given, and the model's input X takes 2 columns/);
  refused(() => checkImport(inspectOnnx(linearModel('F')), { columns: 2, task: 'regression', accepted: [] }), /does not declare its width/);
  refused(() => checkImport(inspectOnnx(linearModel(2, 'com.microsoft')), { columns: 2, task: 'regression', accepted: [] }), /domain com\.microsoft cannot be run here/);
  refused(() => checkImport(inspectOnnx(linearModel()), { columns: 2, task: 'classification', accepted: ['a', 'b'] }), /no label output/);
  // a truncated file
  const bytes = linearModel();
  assert.throws(() => checkImport(inspectOnnx(bytes.subarray(0, bytes.length - 7)), { columns: 2, task: 'regression', accepted: [] }), HttpError);
});

test('a classifier exported here is accepted for its own classes, refused for a feature with other values', async () => {
  const x = Float64Array.from({ length: 80 }, (_, i) => (i % 2 ? i / 40 : (i * 7) % 11));
  const y = Float64Array.from({ length: 40 }, (_, i) => (x[2 * i] > 5 ? 1 : 0));
  const state = await randomForestClassification.train(
    { x: { rows: 40, cols: 2, data: x }, binary: [false, false], y, classes: ['active', 'inactive'] },
    { numTrees: 5, maxFeatures: 'all', minSamplesLeaf: 1, maxDepth: 0, bootstrap: true },
    { seed: 1, parallelism: 1, run: runInProcess },
  );
  const model = {
    uri: 'http://x/model/1',
    title: 'test',
    algorithm: 'http://x/algorithm/random-forest-classification',
    learnerId: 'random-forest-classification',
    trainingDataset: 'http://x/dataset/1',
    parameters: {},
    task: 'classification',
    classes: ['active', 'inactive'],
    independent: ['http://x/feature/1', 'http://x/feature/2'],
    dependent: 'http://x/feature/3',
    predicted: 'http://x/feature/4',
    confidence: 'http://x/feature/5',
    encodings: [
      { feature: 'http://x/feature/1', kind: 'numeric', mean: 5, binary: false },
      { feature: 'http://x/feature/2', kind: 'numeric', mean: 1, binary: false },
    ],
    state,
    linkedDomains: [],
  } satisfies StoredModel;
  const inspection = inspectOnnx(modelOnnx(model, new Map(), 'test'));
  assert.equal(inspection.producer.name, 'ToxGraph');
  assert.deepEqual(inspection.classLabels, ['active', 'inactive']);
  assert.deepEqual(checkImport(inspection, { columns: 2, task: 'classification', accepted: ['active', 'inactive'] }), { value: 'label', probabilities: 'probabilities' });
  refused(
    () => checkImport(inspection, { columns: 2, task: 'classification', accepted: ['mutagenic', 'non-mutagenic'] }),
    /the model's classes active, inactive are not values of the prediction feature/,
  );
});

/** A file of one graph around the linear model's nodes, with `extra` nodes and initializers, and local functions when asked. */
function withGraph(extra: { nodes?: InstanceType<typeof onnx.NodeProto>[]; initializers?: InstanceType<typeof onnx.TensorProto>[]; functions?: boolean }): Uint8Array {
  const base = onnx.ModelProto.decode(linearModel());
  base.graph!.node!.push(...(extra.nodes ?? []));
  base.graph!.initializer!.push(...(extra.initializers ?? []));
  if (extra.functions) base.functions = [onnx.FunctionProto.create({ name: 'f', domain: 'local', node: [onnx.NodeProto.create({ opType: 'Identity', input: ['a'], output: ['b'] })] })];
  return onnx.ModelProto.encode(base).finish();
}

test('files that could hold a worker or its memory are refused before they are decoded or run: control flow, operators of computed size, local functions, external data, too many nodes or repeated items', () => {
  const { AttributeType } = onnx.AttributeProto;
  const body = onnx.GraphProto.create({ name: 'body', node: [onnx.NodeProto.create({ opType: 'Identity', input: ['c'], output: ['d'] })] });
  // a Loop of 10^15 steps: its body is a subgraph
  const loop = onnx.NodeProto.create({ opType: 'Loop', input: ['n', '', 'y'], output: ['z'], attribute: [onnx.AttributeProto.create({ name: 'body', type: AttributeType.GRAPH, g: body })] });
  refused(() => inspectOnnx(withGraph({ nodes: [loop] })), /a node has a subgraph/);
  const expand = onnx.NodeProto.create({ opType: 'Expand', input: ['y', 'shape'], output: ['big'] });
  refused(() => checkImport(inspectOnnx(withGraph({ nodes: [expand] })), { columns: 2, task: 'regression', accepted: [] }), /the operator Expand is not run here/);
  refused(() => inspectOnnx(withGraph({ functions: true })), /local functions/);
  const external = onnx.TensorProto.create({
    name: 'secret',
    dataType: DataType.DOUBLE,
    dims: [1],
    dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
    externalData: [onnx.StringStringEntryProto.create({ key: 'location', value: '/etc/passwd' })],
  });
  refused(() => inspectOnnx(withGraph({ initializers: [external] })), /external file/);
  // 30,000 empty nodes: about 60 kB that a decode would make 30,000 objects of
  refused(() => inspectOnnx(withGraph({ nodes: Array.from({ length: 30_000 }, () => onnx.NodeProto.create({})) })), /30002 nodes; at most 20000/);
  // seventeen million one-byte int64s (each a Long once decoded) in one attribute
  const ints = onnx.NodeProto.create({
    opType: 'Identity',
    input: ['y'],
    output: ['y2'],
    attribute: [onnx.AttributeProto.create({ name: 'x', type: AttributeType.INTS, ints: new Array(17_000_000).fill(1) })],
  });
  refused(() => inspectOnnx(withGraph({ nodes: [ints] })), /repeated items/);
  // the files the tests import pass the walk
  assert.equal(checkImport(inspectOnnx(linearModel()), { columns: 2, task: 'regression', accepted: [] }).value, 'y');
});
