import type { Learner, Matrix, ParamValue, TrainingData } from './learner.ts';
import { selectColumns } from './feature-selection.ts';

/**
 * Feature selection and learning as one learner: `train` selects columns on the rows it is
 * given (the selection steps in order, each on the columns the one before kept), then trains
 * the learner on them; `predict` takes the same columns. Cross-validating it repeats the
 * selection inside every fold, so that the held-out rows never choose the features (selection
 * on all rows first makes a validation optimistic). How a supermodel's recipe is validated.
 *
 * The state names the inner learner, so one pipeline learner predicts for every stored fold model.
 */

export interface SelectionStep {
  method: string;
  parameters: Record<string, ParamValue>;
}

interface PipelineState {
  columns: number[];
  learner: string;
  state: unknown;
}

export const PIPELINE_ID = 'feature-selection-pipeline';

export function selectionPipeline(steps: SelectionStep[], inner: Learner | undefined, byId: (id: string) => Learner | undefined): Learner {
  return {
    id: PIPELINE_ID,
    title: `Feature selection, then ${inner?.title ?? 'a learner'}`,
    description: 'Selects features on the training rows, then learns from them',
    task: inner?.task ?? 'regression',
    types: [],
    parameters: inner?.parameters ?? [],
    async train(data, params, context) {
      if (!inner) throw new Error('a feature-selection pipeline needs its learner to train');
      let columns = Array.from({ length: data.x.cols }, (_, c) => c);
      for (const step of steps) {
        const kept = selectColumns(step.method, take(data.x, columns), data.y, inner.task === 'classification', step.parameters);
        columns = kept.map((k) => columns[k]);
        if (!columns.length) throw new Error(`the feature selection ${step.method} kept no feature of the training rows`);
      }
      const selected: TrainingData = { ...data, x: take(data.x, columns), binary: columns.map((c) => data.binary[c]) };
      return { columns, learner: inner.id, state: await inner.train(selected, params, context) } satisfies PipelineState;
    },
    predict(state, x) {
      const { columns, learner, state: own } = state as PipelineState;
      const model = byId(learner);
      if (!model) throw new Error(`unknown learner ${learner} in a feature-selection pipeline`);
      return model.predict(own, take(x, columns));
    },
  };
}

/** The given columns of a matrix, in that order. */
function take(x: Matrix, columns: number[]): Matrix {
  const data = new Float64Array(x.rows * columns.length);
  for (let r = 0; r < x.rows; r++) for (const [k, c] of columns.entries()) data[r * columns.length + k] = x.data[r * x.cols + c];
  return { rows: x.rows, cols: columns.length, data };
}
