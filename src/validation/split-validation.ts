import { badRequest } from '../core/errors.ts';
import type { DatasetMeta } from '../dataset/dataset-store.ts';
import { bootstrapSample, sideCounts, structureGroups, trainingTestSplit } from './splits.ts';
import type { Job, LearningSetup, ValidationRunner } from './validation-runner.ts';

export interface SplitRequest {
  setup: LearningSetup;
  dataset: DatasetMeta;
  kind: 'training_test_split' | 'bootstrapping';
  /** split_ratio, or bootstrap_percentage as a fraction. */
  fraction: number;
  seed: number;
}

/**
 * training_test_split and bootstrapping (spec 4.1): divide one dataset over its structures (all
 * rows of a compound on one side), store both sides as datasets, then train and test.
 */
export async function splitValidation(runner: ValidationRunner, request: SplitRequest, job: Job = {}): Promise<string> {
  const { setup, dataset, kind, fraction, seed } = request;
  const rowsVersion = await runner.rowsVersion(dataset);
  const rows = await runner.datasets.allRows(dataset.uri);
  const groups = structureGroups(rows.map((r) => r.compound));
  const { training, test } = kind === 'training_test_split' ? trainingTestSplit(groups, fraction, seed) : bootstrapSample(groups, fraction, seed);
  if (training.length < 2 || test.length < 1)
    throw badRequest(
      `${kind === 'training_test_split' ? 'split_ratio' : 'bootstrap_percentage'} ${fraction} leaves ${training.length} training and ${test.length} test rows of ${rows.length}; at least 2 and 1 are needed`,
    );
  const name = dataset.title ?? dataset.uri;
  const { uri } = await runner.validateSides(
    setup,
    dataset,
    rows,
    { training, test, trainingTitle: `${name}: training set (${kind}, seed ${seed})`, testTitle: `${name}: test set (${kind}, seed ${seed})`, rowsVersion },
    { validationType: kind, randomSeed: seed, sides: { training: sideCounts(training, groups), test: sideCounts(test, groups) } },
    { signal: job.signal, progress: (f) => job.progress?.(0.05 + f * 0.95) },
  );
  return uri;
}
