import { learnerById } from '../learning/learners.ts';
import { logisticRegression } from '../learning/logistic-regression.ts';
import { isSvm, svmFormMissing } from '../learning/svm.ts';
import type { StoredModel } from './model-codec.ts';
import { ONNX_IMPORT_ID } from '../algorithm/catalogue.ts';

/**
 * What the request path needs to know of ONNX export, without loading the writer: the writer
 * (onnx-export.ts, with protobufjs: about 16 ms and 11 MB at start) is loaded by the worker that
 * writes a file, when one is first asked for.
 */
export const ONNX_MEDIA_TYPE = 'application/onnx';
/** The module whose `modelOnnx` writes a model's file on the worker pool. */
export const ONNX_EXPORT_MODULE = new URL('./onnx-export.ts', import.meta.url).href;

/** The module that runs imported models (onnx-runtime.ts, with onnxruntime: loaded by a worker when it first runs one). */
export const ONNX_RUNTIME_MODULE = new URL('./onnx-runtime.ts', import.meta.url).href;

/** Why a model has no ONNX form here (undefined: it has one). */
export function onnxUnsupported(model: StoredModel): string | undefined {
  if (model.task !== 'regression' && model.task !== 'classification') return `model ${model.uri} does not predict (an applicability-domain or filtering model)`;
  if (model.learnerId === ONNX_IMPORT_ID) return undefined; // its own file
  if (model.learnerId.startsWith('random-forest') || model.learnerId.startsWith('gradient-boosting') || model.learnerId === logisticRegression.id) return undefined;
  if (learnerById(model.learnerId)?.linearForm && model.task === 'regression') return undefined;
  if (isSvm(model.learnerId)) {
    const missing = svmFormMissing(model.state);
    return missing && `the SVM of model ${model.uri} has no ONNX form here: ${missing}`;
  }
  return `the learner of model ${model.uri} (${model.learnerId}) has no ONNX form here: random forests, gradient boosting, logistic regression, linear regression (mlr, pls) and SVMs (two classes at most) do`;
}
