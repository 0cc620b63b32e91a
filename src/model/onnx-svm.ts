import onnxProto from 'onnx-proto';
import { svmForm, type SvmForm } from '../learning/svm.ts';
import type { StoredModel } from './model-codec.ts';
import { int, labelOf, tensorInfo, type Graph } from './onnx-graph.ts';

const { onnx } = onnxProto;
const { DataType } = onnx.TensorProto;

const node = (opType: string, input: string[], output: string, attribute: InstanceType<typeof onnx.AttributeProto>[] = []) => onnx.NodeProto.create({ opType, input, output: [output], attribute });
const constant = (name: string, dims: number[], values: number[]) => onnx.TensorProto.create({ name, dataType: DataType.DOUBLE, dims, doubleData: values });

/**
 * An SVM in standard operators and doubles, as libsvm predicts it (onnxruntime's SVMRegressor
 * and SVMClassifier compute in floats, and its classifier's probabilities are not libsvm's):
 * the varying columns standardised, the kernel of each support vector, the decision value
 * Σ coefficient · K − rho; a regression's value meanY + sdY · decision; two classes' probability
 * Platt's sigmoid of the decision, kept within [1e-7, 1 − 1e-7] as libsvm does.
 */
export function svmNodes(model: StoredModel): Graph {
  const form = svmForm(model.state)!;
  const p = form.scaler.columns.length;
  const m = form.supportVectors.length;
  const kernel = kernelGraph(form);
  const nodes = [
    onnx.NodeProto.create({ opType: 'Gather', input: ['X_imputed', 'svm_columns'], output: ['X_varying'], attribute: [int('axis', 1)] }),
    node('Sub', ['X_varying', 'svm_means'], 'X_centred'),
    node('Div', ['X_centred', 'svm_sds'], 'Z'),
    ...kernel.nodes,
    node('MatMul', ['K', 'svm_coefficients'], 'weighted_kernels'),
    node('Sub', ['weighted_kernels', 'svm_rho'], 'decision'),
  ];
  const initializers = [
    onnx.TensorProto.create({ name: 'svm_columns', dataType: DataType.INT64, dims: [p], int64Data: form.scaler.columns }),
    constant('svm_means', [p], form.scaler.mean),
    constant('svm_sds', [p], form.scaler.sd),
    ...(form.kernel === 'linear' ? [constant('support_vectors_t', [p, m], transposed(form.supportVectors))] : []),
    constant('svm_coefficients', [m, 1], form.coefficients),
    constant('svm_rho', [1], [form.rho]),
    ...kernel.initializers,
  ];
  if (form.kind === 'svr') {
    return {
      nodes: [...nodes, node('Mul', ['decision', 'svm_sd_y'], 'scaled_decision'), node('Add', ['scaled_decision', 'svm_mean_y'], 'variable')],
      initializers: [...initializers, constant('svm_sd_y', [1], [form.sdY!]), constant('svm_mean_y', [1], [form.meanY!])],
      outputs: [tensorInfo('variable', DataType.DOUBLE, ['N', 1])],
    };
  }
  // P(first label) = sigmoid(−(A · decision + B)), clipped; the other class has the rest
  const label = labelOf('probabilities', model.classes, DataType.DOUBLE);
  const [first, second] = form.firstLabel === 0 ? ['p_first_label', 'p_other'] : ['p_other', 'p_first_label'];
  return {
    nodes: [
      ...nodes,
      node('Mul', ['decision', 'platt_a'], 'platt_ad'),
      node('Add', ['platt_ad', 'platt_b'], 'platt_adb'),
      node('Neg', ['platt_adb'], 'platt_logit'),
      node('Sigmoid', ['platt_logit'], 'platt_p'),
      node('Max', ['platt_p', 'min_probability'], 'platt_p_above'),
      node('Min', ['platt_p_above', 'max_probability'], 'p_first_label'),
      node('Sub', ['one', 'p_first_label'], 'p_other'),
      node('Concat', [first, second], 'probabilities', [int('axis', 1)]),
      ...label.nodes,
    ],
    initializers: [
      ...initializers,
      constant('platt_a', [1], [form.probA!]),
      constant('platt_b', [1], [form.probB!]),
      constant('min_probability', [1], [1e-7]),
      constant('max_probability', [1], [1 - 1e-7]),
      constant('one', [1], [1]),
      ...(label.initializers ?? []),
    ],
    outputs: label.outputs,
  };
}

/** From the scaled rows `Z` to `K`, each row's kernel value with each support vector ([rows, support vectors]), with the kernel's constants. */
function kernelGraph(form: SvmForm): Required<Omit<Graph, 'outputs'>> {
  // γ·(z·sv) + coef0 as z·(γ·sv) + coef0 (poly and sigmoid): onnxruntime's extended optimisations fuse a MatMul followed by a Mul into one that is only as exact as floats (6e-8 off)
  const gammaDot = () => ({
    nodes: [node('MatMul', ['Z', 'gamma_support_vectors_t'], 'gamma_dot')],
    initializers: [
      constant(
        'gamma_support_vectors_t',
        [form.scaler.columns.length, form.supportVectors.length],
        transposed(form.supportVectors).map((v) => v * form.gamma),
      ),
      constant('svm_coef0', [1], [form.coef0]),
    ],
  });
  switch (form.kernel) {
    case 'linear':
      return { nodes: [node('MatMul', ['Z', 'support_vectors_t'], 'K')], initializers: [] };
    case 'polynomial': {
      const scaled = gammaDot();
      return {
        nodes: [...scaled.nodes, node('Add', ['gamma_dot', 'svm_coef0'], 'poly_base'), node('Pow', ['poly_base', 'svm_degree'], 'K')],
        initializers: [...scaled.initializers, constant('svm_degree', [1], [form.degree])],
      };
    }
    case 'sigmoid': {
      const scaled = gammaDot();
      return {
        nodes: [...scaled.nodes, node('Add', ['gamma_dot', 'svm_coef0'], 'tanh_argument'), node('Tanh', ['tanh_argument'], 'K')],
        initializers: scaled.initializers,
      };
    }
    case 'rbf':
      // ‖z − sv‖² = ‖z‖² − 2 z·sv + ‖sv‖²
      return {
        nodes: [
          node('MatMul', ['Z', 'twice_support_vectors_t'], 'twice_dot'),
          node('Mul', ['Z', 'Z'], 'Z_squared'),
          node('ReduceSum', ['Z_squared', 'row_axis'], 'Z_norms', [int('keepdims', 1)]),
          node('Sub', ['Z_norms', 'twice_dot'], 'distance_part'),
          node('Add', ['distance_part', 'support_vector_norms'], 'squared_distances'),
          node('Mul', ['squared_distances', 'svm_minus_gamma'], 'rbf_exponent'),
          node('Exp', ['rbf_exponent'], 'K'),
        ],
        initializers: [
          constant('svm_minus_gamma', [1], [-form.gamma]),
          constant(
            'twice_support_vectors_t',
            [form.scaler.columns.length, form.supportVectors.length],
            transposed(form.supportVectors).map((v) => 2 * v),
          ),
          onnx.TensorProto.create({ name: 'row_axis', dataType: DataType.INT64, dims: [1], int64Data: [1] }),
          constant(
            'support_vector_norms',
            [1, form.supportVectors.length],
            form.supportVectors.map((sv) => sv.reduce((a, v) => a + v * v, 0)),
          ),
        ],
      };
  }
}

/** The support vectors as the columns of a [columns, support vectors] matrix, row-major. */
function transposed(supportVectors: number[][]): number[] {
  const p = supportVectors[0]?.length ?? 0;
  return Array.from({ length: p }, (_, j) => supportVectors.map((sv) => sv[j])).flat();
}
