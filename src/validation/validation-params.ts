import type { ParameterSpec } from '../learning/learner.ts';

/**
 * The validation parameters of spec 4.1 and 4.2 with their defaults and bounds, read with the
 * algorithms' parameter reader (`readParameters`), so a bad value answers 400 naming it.
 */
export const VALIDATION_PARAMETERS = {
  yScramble: { name: 'y_scramble', description: 'Permute the training targets before learning', type: 'boolean', default: false },
  yScrambleSeed: { name: 'y_scramble_seed', description: 'Seed of the permutation', type: 'integer', default: 1 },
  randomSeed: { name: 'random_seed', description: 'Seed of the split, draw or folds', type: 'integer', default: 1 },
  splitRatio: { name: 'split_ratio', description: 'Share of the rows in the training set', type: 'number', default: 0.66, greaterThan: 0, lessThan: 1 },
  bootstrapPercentage: { name: 'bootstrap_percentage', description: 'Draws (with replacement) as a share of the rows', type: 'number', default: 0.66, greaterThan: 0, max: 1 },
  numFolds: { name: 'num_folds', description: 'Number of folds', type: 'integer', default: 10, min: 2 },
} satisfies Record<string, ParameterSpec>;
