import onnxProto from 'onnx-proto';
import type { ForestState } from '../learning/random-forest.ts';
import type { BoostingState } from '../learning/gradient-boosting.ts';
import { logisticRegression, logitForm } from '../learning/logistic-regression.ts';
import { decodeTree, type Tree } from '../learning/histogram-tree.ts';
import { learnerById } from '../learning/learners.ts';
import { isSvm } from '../learning/svm.ts';
import type { FeatureRecord } from '../feature/feature-record.ts';
import type { StoredModel } from './model-codec.ts';
import { doubles, int, ints, labelOf, string, strings, tensorInfo, type Graph } from './onnx-graph.ts';
import { svmNodes } from './onnx-svm.ts';

const { onnx } = onnxProto;
type Attribute = InstanceType<typeof onnx.AttributeProto>;
const { DataType } = onnx.TensorProto;

/** The ONNX operator sets the files use: the standard one and the classical machine-learning one (TreeEnsemble*). */
const OPSETS = [
  { domain: '', version: 17 },
  { domain: 'ai.onnx.ml', version: 3 },
];
/** IR version 8: what onnxruntime 1.x and the ONNX tools of the last years read. */
const IR_VERSION = 8;
/** The graph's input: one row per compound, one column per encoded variable (metadata `column.{i}` names it). */
export const ONNX_INPUT = 'X';

/** The encoded columns of a model's input, in order: a numeric feature is one, a fingerprint feature one per bit. */
export function inputColumns(model: Pick<StoredModel, 'encodings'>): InputColumn[] {
  return model.encodings.flatMap((e): InputColumn[] => (e.kind === 'numeric' ? [{ feature: e.feature, mean: e.mean }] : Array.from({ length: e.bits }, (_, bit) => ({ feature: e.feature, bit }))));
}

/** One column of the input: a numeric feature (imputed with its training mean when missing) or a bit of a fingerprint (0 when missing). */
export interface InputColumn {
  feature: string;
  bit?: number;
  mean?: number;
}

/** The nodes of one learner's graph: from the imputed input `X_imputed` to `variable` (regression) or `label` and `probabilities` (classification). */
function learnerNodes(model: StoredModel): Graph {
  if (model.learnerId.startsWith('random-forest')) return forestNodes(model);
  if (model.learnerId.startsWith('gradient-boosting')) return boostingNodes(model);
  if (model.learnerId === logisticRegression.id) return logisticNodes(model);
  if (isSvm(model.learnerId)) return svmNodes(model);
  // a linear model in doubles: X · coefficients + intercept (onnxruntime's LinearRegressor takes floats only)
  const form = learnerById(model.learnerId)!.linearForm!(model.state)!;
  return {
    nodes: [
      onnx.NodeProto.create({ opType: 'MatMul', input: ['X_imputed', 'coefficients'], output: ['weighted'] }),
      onnx.NodeProto.create({ opType: 'Add', input: ['weighted', 'intercept'], output: ['variable'] }),
    ],
    initializers: [
      onnx.TensorProto.create({ name: 'coefficients', dataType: DataType.DOUBLE, dims: [form.coefficients.length, 1], doubleData: form.coefficients }),
      onnx.TensorProto.create({ name: 'intercept', dataType: DataType.DOUBLE, dims: [1], doubleData: [form.intercept] }),
    ],
    outputs: [tensorInfo('variable', DataType.DOUBLE, ['N', 1])],
  };
}

/** The attributes of a tree ensemble: every node of every tree (true branch when the value is ≤ the threshold, as the server's trees), and each leaf's (target, weight) pairs. */
function ensembleAttributes(trees: Tree[], leaf: (t: number, tree: Tree, offset: number) => [number, number][], prefix: 'target' | 'class'): Attribute[] {
  const nodes = {
    treeids: [] as number[],
    nodeids: [] as number[],
    featureids: [] as number[],
    values: [] as number[],
    modes: [] as string[],
    truenodeids: [] as number[],
    falsenodeids: [] as number[],
  };
  const targets = { treeids: [] as number[], nodeids: [] as number[], ids: [] as number[], weights: [] as number[] };
  trees.forEach((tree, t) => {
    for (let n = 0; n < tree.feature.length; n++) {
      const isLeaf = tree.feature[n] < 0;
      nodes.treeids.push(t);
      nodes.nodeids.push(n);
      nodes.featureids.push(isLeaf ? 0 : tree.feature[n]);
      nodes.values.push(isLeaf ? 0 : tree.threshold[n]);
      nodes.modes.push(isLeaf ? 'LEAF' : 'BRANCH_LEQ');
      nodes.truenodeids.push(isLeaf ? 0 : tree.left[n]);
      nodes.falsenodeids.push(isLeaf ? 0 : tree.right[n]);
      if (!isLeaf) continue;
      for (const [id, weight] of leaf(t, tree, tree.left[n])) {
        targets.treeids.push(t);
        targets.nodeids.push(n);
        targets.ids.push(id);
        targets.weights.push(weight);
      }
    }
  });
  return [
    ints('nodes_treeids', nodes.treeids),
    ints('nodes_nodeids', nodes.nodeids),
    ints('nodes_featureids', nodes.featureids),
    doubles('nodes_values_as_tensor', nodes.values),
    strings('nodes_modes', nodes.modes),
    ints('nodes_truenodeids', nodes.truenodeids),
    ints('nodes_falsenodeids', nodes.falsenodeids),
    ints(`${prefix}_treeids`, targets.treeids),
    ints(`${prefix}_nodeids`, targets.nodeids),
    ints(`${prefix}_ids`, targets.ids),
    doubles(`${prefix}_weights_as_tensor`, targets.weights),
  ];
}

/**
 * A forest as one tree ensemble: the leaves' values averaged (regression), or their class
 * distributions summed with weight 1/trees (classification: the mean distribution, as the
 * server's probabilities).
 */
function forestNodes(model: StoredModel): Graph {
  const state = model.state as ForestState;
  const trees: Tree[] = state.trees.map(decodeTree);
  const share = state.task === 'classification' ? 1 / trees.length : 1;
  const attributes = ensembleAttributes(
    trees,
    (_, tree, offset) => Array.from({ length: tree.width }, (_, k): [number, number] => [k, tree.values[offset + k] * share]),
    state.task === 'regression' ? 'target' : 'class',
  );
  if (state.task === 'regression') {
    const node = onnx.NodeProto.create({
      opType: 'TreeEnsembleRegressor',
      domain: 'ai.onnx.ml',
      input: ['X_imputed'],
      output: ['variable'],
      attribute: [...attributes, int('n_targets', 1), string('aggregate_function', 'AVERAGE')],
    });
    return { nodes: [node], outputs: [tensorInfo('variable', DataType.FLOAT, ['N', 1])] };
  }
  const ensemble = onnx.NodeProto.create({
    opType: 'TreeEnsembleClassifier',
    domain: 'ai.onnx.ml',
    input: ['X_imputed'],
    output: ['ensemble_label', 'probabilities'],
    attribute: [...attributes, strings('classlabels_strings', model.classes), string('post_transform', 'NONE')],
  });
  const label = labelOf('probabilities', model.classes);
  return { ...label, nodes: [ensemble, ...label.nodes] };
}

/**
 * Boosted trees as one ensemble summed onto its initial scores (`base_values`): one score per
 * round's tree (one for regression and two classes, one per class for more); two classes take the
 * sigmoid of theirs, more a softmax, as the server's probabilities.
 */
function boostingNodes(model: StoredModel): Graph {
  const state = model.state as BoostingState;
  const trees: Tree[] = state.trees.map(decodeTree);
  const attributes = ensembleAttributes(trees, (t, tree, offset) => [[t % state.treesPerRound, tree.values[offset]]], 'target');
  const scores = onnx.NodeProto.create({
    opType: 'TreeEnsembleRegressor',
    domain: 'ai.onnx.ml',
    input: ['X_imputed'],
    output: [state.task === 'regression' ? 'variable' : 'scores'],
    attribute: [...attributes, int('n_targets', state.treesPerRound), string('aggregate_function', 'SUM'), doubles('base_values_as_tensor', state.init)],
  });
  if (state.task === 'regression') return { nodes: [scores], outputs: [tensorInfo('variable', DataType.FLOAT, ['N', 1])] };
  const label = labelOf('probabilities', model.classes);
  const probabilities =
    state.numClasses === 2
      ? [
          onnx.NodeProto.create({ opType: 'Sigmoid', input: ['scores'], output: ['p_second'] }),
          onnx.NodeProto.create({ opType: 'Sub', input: ['one', 'p_second'], output: ['p_first'] }),
          onnx.NodeProto.create({ opType: 'Concat', input: ['p_first', 'p_second'], output: ['probabilities'], attribute: [int('axis', 1)] }),
        ]
      : [onnx.NodeProto.create({ opType: 'Softmax', input: ['scores'], output: ['probabilities'], attribute: [int('axis', 1)] })];
  const one = onnx.TensorProto.create({ name: 'one', dataType: DataType.FLOAT, dims: [1], floatData: [1] });
  return { nodes: [scores, ...probabilities, ...label.nodes], initializers: [one, ...(label.initializers ?? [])], outputs: label.outputs };
}

/** Logistic regression in doubles: the logits X · W + b, then the sigmoid of class 1's (two classes) or the softmax. */
function logisticNodes(model: StoredModel): Graph {
  const { intercepts, coefficients } = logitForm(model.state, inputColumns(model).length);
  const m = intercepts.length;
  const weights = Array.from({ length: coefficients[0].length }, (_, j) => coefficients.map((row) => row[j])).flat();
  const label = labelOf('probabilities', model.classes, DataType.DOUBLE);
  const probabilities =
    m === 1
      ? [
          onnx.NodeProto.create({ opType: 'Sigmoid', input: ['logits'], output: ['p_second'] }),
          onnx.NodeProto.create({ opType: 'Sub', input: ['one', 'p_second'], output: ['p_first'] }),
          onnx.NodeProto.create({ opType: 'Concat', input: ['p_first', 'p_second'], output: ['probabilities'], attribute: [int('axis', 1)] }),
        ]
      : [onnx.NodeProto.create({ opType: 'Softmax', input: ['logits'], output: ['probabilities'], attribute: [int('axis', 1)] })];
  return {
    nodes: [
      onnx.NodeProto.create({ opType: 'MatMul', input: ['X_imputed', 'weights'], output: ['weighted'] }),
      onnx.NodeProto.create({ opType: 'Add', input: ['weighted', 'intercepts'], output: ['logits'] }),
      ...probabilities,
      ...label.nodes,
    ],
    initializers: [
      onnx.TensorProto.create({ name: 'weights', dataType: DataType.DOUBLE, dims: [coefficients[0].length, m], doubleData: weights }),
      onnx.TensorProto.create({ name: 'intercepts', dataType: DataType.DOUBLE, dims: [m], doubleData: intercepts }),
      onnx.TensorProto.create({ name: 'one', dataType: DataType.DOUBLE, dims: [1], doubleData: [1] }),
      ...(label.initializers ?? []),
    ],
    outputs: label.outputs,
  };
}

/**
 * A model as an ONNX file: input `X` (doubles, one row per compound, the model's encoded
 * columns in order), missing values (NaN) replaced by the training means as the server does,
 * then the learner. The metadata names what another tool must compute: each
 * column's feature (`column.{i}`: the feature URI, with `#bit` for a fingerprint bit), the
 * feature's title and the descriptor algorithm that makes it, the endpoint, and the model.
 */
export function modelOnnx(model: StoredModel, features: Map<string, FeatureRecord>, producerVersion: string): Uint8Array {
  const columns = inputColumns(model);
  const { nodes, outputs, initializers = [] } = learnerNodes(model);
  // missing values (NaN) become the training means, in doubles (onnxruntime's Imputer takes floats only)
  const imputation = [
    onnx.NodeProto.create({ opType: 'IsNaN', input: [ONNX_INPUT], output: ['X_missing'] }),
    onnx.NodeProto.create({ opType: 'Where', input: ['X_missing', 'training_means', ONNX_INPUT], output: ['X_imputed'] }),
  ];
  const means = onnx.TensorProto.create({ name: 'training_means', dataType: DataType.DOUBLE, dims: [columns.length], doubleData: columns.map((c) => c.mean ?? 0) });
  const graph = onnx.GraphProto.create({
    name: model.title.slice(0, 200),
    node: [...imputation, ...nodes],
    initializer: [means, ...initializers],
    input: [tensorInfo(ONNX_INPUT, DataType.DOUBLE, ['N', columns.length])],
    output: outputs,
  });
  const meta: [string, string][] = [
    ['toxgraph.model', model.uri],
    ['toxgraph.algorithm', model.algorithm],
    ['toxgraph.learner', model.learnerId],
    ['toxgraph.task', model.task],
    ['toxgraph.dependent', model.dependent],
    ['toxgraph.columns', String(columns.length)],
    ...columns.map((c, i): [string, string] => [`column.${i}`, c.bit === undefined ? c.feature : `${c.feature}#bit${c.bit}`]),
    ...[...new Set(columns.map((c) => c.feature))].flatMap((f): [string, string][] => {
      const record = features.get(f);
      return [
        [`feature.${f}.title`, record?.title ?? ''],
        [`feature.${f}.algorithm`, record?.source ?? ''],
      ];
    }),
  ];
  const file = onnx.ModelProto.create({
    irVersion: IR_VERSION,
    producerName: 'ToxGraph',
    producerVersion,
    domain: 'org.toxgraph',
    modelVersion: 1,
    docString: `${model.title} (${model.uri})`,
    opsetImport: OPSETS.map((o) => onnx.OperatorSetIdProto.create(o)),
    graph,
    metadataProps: meta.map(([key, value]) => onnx.StringStringEntryProto.create({ key, value })),
  });
  return onnx.ModelProto.encode(file).finish();
}
