import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { areaUnderRoc, classificationStatistics, regressionStatistics } from '../../src/validation/statistics.ts';

const TOLERANCE = 1e-9;

interface ReferenceCase {
  name: string;
  kind: 'classification' | 'regression';
  actual: (string | number)[];
  predicted: (string | number)[];
  confidence: number[];
  expected: Record<string, unknown>;
}
const reference = JSON.parse(readFileSync(new URL('../../../shared/reference/validation-statistics.json', import.meta.url), 'utf8')) as { cases: ReferenceCase[] };

/**
 * Walks `expected` recursively and asserts that `actual` has every key of it, each number within
 * TOLERANCE. Returns how many numbers were compared. Extra keys of `actual` are allowed.
 */
function compare(expected: unknown, actual: unknown, path = '$'): number {
  if (typeof expected === 'number') {
    assert.equal(typeof actual, 'number', `${path}: expected a number, got ${String(actual)}`);
    assert.ok(Math.abs((actual as number) - expected) <= TOLERANCE, `${path}: expected ${expected}, got ${String(actual)}`);
    return 1;
  }
  if (expected !== null && typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${path}: expected an object, got ${String(actual)}`);
    let compared = 0;
    for (const [key, value] of Object.entries(expected)) {
      assert.ok(Object.hasOwn(actual as object, key), `${path}: missing key ${key}`);
      compared += compare(value, (actual as Record<string, unknown>)[key], `${path}.${key}`);
    }
    return compared;
  }
  assert.equal(actual, expected, path);
  return 1;
}

/** Every key a result may have: the validation vocabulary, for the top level and per class. */
const TOP_KEYS = new Set([
  'numInstances',
  'numWithoutClass',
  'numUnpredicted',
  'percentWithoutClass',
  'percentUnpredicted',
  'numCorrect',
  'numIncorrect',
  'percentCorrect',
  'percentIncorrect',
  'accuracy',
  'weightedAccuracy',
  'averageAreaUnderRoc',
  'matthewsCorrelationCoefficient',
  'confusionMatrix',
  'classValueStatistics',
  'rootMeanSquaredError',
  'meanAbsoluteError',
  'rSquare',
  'sampleCorrelationCoefficient',
  'concordanceCorrelationCoefficient',
  'sumSquaredError',
  'targetVarianceActual',
  'targetVariancePredicted',
  'weightedRootMeanSquaredError',
  'weightedMeanAbsoluteError',
  'weightedRSquare',
  'weightedSampleCorrelationCoefficient',
  'weightedConcordanceCorrelationCoefficient',
]);
const CLASS_KEYS = new Set([
  'numTruePositives',
  'numTrueNegatives',
  'numFalsePositives',
  'numFalseNegatives',
  'truePositiveRate',
  'trueNegativeRate',
  'falsePositiveRate',
  'falseNegativeRate',
  'positivePredictiveValue',
  'negativePredictiveValue',
  'fMeasure',
  'areaUnderRoc',
]);

/** Asserts that a result uses only vocabulary names and that none of its values is NaN or undefined. */
function assertVocabulary(result: object): void {
  for (const [key, value] of Object.entries(result)) {
    assert.ok(TOP_KEYS.has(key), `unknown key ${key}`);
    if (typeof value === 'number') assert.ok(Number.isFinite(value), `${key} is ${value}`);
    else assert.equal(typeof value, 'object', key);
  }
  for (const stats of Object.values((result as { classValueStatistics?: object }).classValueStatistics ?? {})) {
    for (const [key, value] of Object.entries(stats as object)) {
      assert.ok(CLASS_KEYS.has(key), `unknown class key ${key}`);
      assert.ok(Number.isFinite(value), `${key} is ${value}`);
    }
  }
}

function compute(c: ReferenceCase) {
  if (c.kind === 'classification') {
    return classificationStatistics(c.actual.map((a, i) => ({ actual: String(a), predicted: String(c.predicted[i]), confidence: c.confidence[i] })));
  }
  return regressionStatistics(c.actual.map((a, i) => ({ actual: Number(a), predicted: Number(c.predicted[i]), confidence: c.confidence[i] })));
}

test('the comparison fails on a missing key and on a value off by more than 1e-9', () => {
  assert.equal(compare({ a: 1, b: { c: 2 } }, { a: 1, b: { c: 2 + 1e-10 }, extra: 3 }), 2);
  assert.throws(() => compare({ a: 1, b: { c: 2 } }, { a: 1, b: {} }), /missing key c/);
  assert.throws(() => compare({ a: 1 }, { a: 1 + 1e-8 }), /expected 1/);
  assert.throws(() => compare({ a: 1 }, { a: undefined }), /expected a number/);
});

for (const c of reference.cases) {
  test(`reference case ${c.name} (${c.kind}): every expected value within 1e-9`, () => {
    const result = compute(c);
    const compared = compare(c.expected, result);
    assert.ok(compared >= Object.keys(c.expected).length, `only ${compared} values compared`);
    assertVocabulary(result);
    assert.equal(result.numInstances, c.actual.length);
    assert.equal(result.numWithoutClass, 0);
    assert.equal(result.numUnpredicted, 0);
  });
}

test('reference regression-8 has equal confidences, so weighted correlations equal the unweighted ones', () => {
  const c = reference.cases.find((x) => x.name === 'regression-8')!;
  assert.ok(c.confidence.every((w) => w === c.confidence[0]));
  const r = regressionStatistics(c.actual.map((a, i) => ({ actual: Number(a), predicted: Number(c.predicted[i]), confidence: c.confidence[i] })));
  compare(
    {
      weightedSampleCorrelationCoefficient: c.expected.sampleCorrelationCoefficient,
      weightedConcordanceCorrelationCoefficient: c.expected.concordanceCorrelationCoefficient,
    },
    r,
  );
});

test('classification counts: missing actual values, unpredicted instances, a class never predicted', () => {
  const u = undefined;
  const r = classificationStatistics([
    { actual: u, predicted: 'a', confidence: 0.9 }, // without class
    { actual: 'a', predicted: u, confidence: 0 }, //   unpredicted
    { actual: 'a', predicted: 'a', confidence: 0.8 },
    { actual: 'a', predicted: 'a', confidence: 0.6 },
    { actual: 'b', predicted: 'a', confidence: 0.5 },
    { actual: 'b', predicted: 'a', confidence: 0.7 },
    { actual: 'c', predicted: 'c', confidence: 0.9 },
    { actual: u, predicted: u, confidence: 0 }, //     without class
  ]);
  // 8 instances, 2 without class (25 %), 1 unpredicted (12.5 %); 5 predicted, 3 correct.
  // Weighted accuracy (0.8 + 0.6 + 0.9) / (0.8 + 0.6 + 0.5 + 0.7 + 0.9) = 2.3 / 3.5.
  // AUC a: positives +0.8, +0.6 vs negatives +0.5, +0.7, −0.9 → (3 + 2) / 6.
  // AUC b (never predicted, all scores negative): positives −0.5, −0.7 vs −0.8, −0.6, −0.9 → 5/6.
  // AUC c: positive +0.9 above all → 1. Average (2·5/6 + 2·5/6 + 1·1) / 5 = 13/15.
  // MCC: n = 5, c = 3, actual counts (2, 2, 1), predicted (4, 0, 1):
  //   (3·5 − (8 + 0 + 1)) / √((25 − 9)(25 − 17)) = 6 / √128.
  const expected = {
    numInstances: 8,
    numWithoutClass: 2,
    numUnpredicted: 1,
    percentWithoutClass: 25,
    percentUnpredicted: 12.5,
    numCorrect: 3,
    numIncorrect: 2,
    percentCorrect: 60,
    percentIncorrect: 40,
    accuracy: 0.6,
    weightedAccuracy: 2.3 / 3.5,
    averageAreaUnderRoc: 13 / 15,
    matthewsCorrelationCoefficient: 6 / Math.sqrt(128),
    confusionMatrix: { a: { a: 2, b: 0, c: 0 }, b: { a: 2, b: 0, c: 0 }, c: { a: 0, b: 0, c: 1 } },
    classValueStatistics: {
      // a: TP 2, FN 0, FP 2, TN 1
      a: {
        numTruePositives: 2,
        numFalseNegatives: 0,
        numFalsePositives: 2,
        numTrueNegatives: 1,
        truePositiveRate: 1,
        trueNegativeRate: 1 / 3,
        falsePositiveRate: 2 / 3,
        falseNegativeRate: 0,
        positivePredictiveValue: 0.5,
        negativePredictiveValue: 1,
        fMeasure: 4 / 6,
        areaUnderRoc: 5 / 6,
      },
      // b: TP 0, FN 2, FP 0, TN 3; precision 0/0 is undefined, F = 0 / (0 + 0 + 2) = 0
      b: {
        numTruePositives: 0,
        numFalseNegatives: 2,
        numFalsePositives: 0,
        numTrueNegatives: 3,
        truePositiveRate: 0,
        trueNegativeRate: 1,
        falsePositiveRate: 0,
        falseNegativeRate: 1,
        negativePredictiveValue: 3 / 5,
        fMeasure: 0,
        areaUnderRoc: 5 / 6,
      },
      // c: TP 1, TN 4
      c: {
        numTruePositives: 1,
        numFalseNegatives: 0,
        numFalsePositives: 0,
        numTrueNegatives: 4,
        truePositiveRate: 1,
        trueNegativeRate: 1,
        falsePositiveRate: 0,
        falseNegativeRate: 0,
        positivePredictiveValue: 1,
        negativePredictiveValue: 1,
        fMeasure: 1,
        areaUnderRoc: 1,
      },
    },
  };
  compare(expected, r);
  compare(r, expected); // and nothing more: the undefined precision of b is absent, not NaN
  assertVocabulary(r);
});

test('a perfect classifier has accuracy, AUC and MCC 1; a given extra class gets zero cells and no AUC', () => {
  const r = classificationStatistics(
    [
      { actual: 'x', predicted: 'x', confidence: 0.5 },
      { actual: 'y', predicted: 'y', confidence: 0.9 },
      { actual: 'x', predicted: 'x', confidence: 0.7 },
      { actual: 'y', predicted: 'y', confidence: 0.6 },
    ],
    ['x', 'y', 'z'],
  );
  // MCC with z: actual (2, 2, 0) = predicted: (4·4 − 8) / √((16 − 8)(16 − 8)) = 1; z weighs 0 in the average AUC.
  compare({ accuracy: 1, weightedAccuracy: 1, averageAreaUnderRoc: 1, matthewsCorrelationCoefficient: 1, numIncorrect: 0 }, r);
  assert.deepEqual(r.confusionMatrix, { x: { x: 2, y: 0, z: 0 }, y: { x: 0, y: 2, z: 0 }, z: { x: 0, y: 0, z: 0 } });
  assert.equal(r.classValueStatistics.x.areaUnderRoc, 1);
  assert.equal(r.classValueStatistics.y.areaUnderRoc, 1);
  // z: TP = FP = FN = 0, TN = 4: only TNR, FPR and NPV are defined.
  assert.deepEqual(r.classValueStatistics.z, {
    numTruePositives: 0,
    numTrueNegatives: 4,
    numFalsePositives: 0,
    numFalseNegatives: 0,
    trueNegativeRate: 1,
    falsePositiveRate: 0,
    negativePredictiveValue: 1,
  });
  assert.throws(() => classificationStatistics([{ actual: 'w', predicted: 'x', confidence: 1 }], ['x']), RangeError);
});

test('AUC counts ties one half', () => {
  // positive 0.5 vs negatives 0.5 (tie, ½) and 0.2 (win, 1): 1.5 / 2.
  assert.equal(areaUnderRoc([0.5, 0.5, 0.2], [true, false, false]), 0.75);
  assert.equal(areaUnderRoc([0.5, 0.2], [true, true]), undefined);
});

test('regression with missing values: counts and every statistic by hand', () => {
  const r = regressionStatistics([
    { actual: 1, predicted: 1, confidence: 2 },
    { actual: 2, predicted: 3, confidence: 1 },
    { actual: 3, predicted: 2, confidence: 1 },
    { actual: undefined, predicted: 5, confidence: 1 }, // without class
    { actual: 4, predicted: undefined, confidence: 1 }, // unpredicted
  ]);
  // Predicted: y = (1, 2, 3), p = (1, 3, 2), e = (0, −1, 1), w = (2, 1, 1), W = 4.
  // SSE 2, RMSE √(2/3), MAE 2/3; ȳ = p̄ = 2, Σ(y−ȳ)² = Σ(p−p̄)² = 2, Σ(y−ȳ)(p−p̄) = 1:
  //   R² = 1 − 2/2 = 0, r = 1/2, CCC = 2·1 / (2 + 2 + 0) = 1/2, variances 2/2 = 1.
  // Weighted: Σw·e² = 2 → wRMSE √(2/4), wMAE 2/4; Σw(y − ȳ)² = 2·1 + 0 + 1 = 3 → wR² = 1 − 2/3.
  //   ȳ_w = p̄_w = 7/4; Σw(y−ȳ_w)² = Σw(p−p̄_w)² = 2·9/16 + 1/16 + 25/16 = 11/4,
  //   Σw(y−ȳ_w)(p−p̄_w) = 2·9/16 + 5/16 + 5/16 = 7/4 → weighted r = weighted CCC = 7/11.
  const expected = {
    numInstances: 5,
    numWithoutClass: 1,
    numUnpredicted: 1,
    percentWithoutClass: 20,
    percentUnpredicted: 20,
    sumSquaredError: 2,
    rootMeanSquaredError: Math.sqrt(2 / 3),
    meanAbsoluteError: 2 / 3,
    rSquare: 0,
    sampleCorrelationCoefficient: 0.5,
    concordanceCorrelationCoefficient: 0.5,
    targetVarianceActual: 1,
    targetVariancePredicted: 1,
    weightedRootMeanSquaredError: Math.sqrt(0.5),
    weightedMeanAbsoluteError: 0.5,
    weightedRSquare: 1 / 3,
    weightedSampleCorrelationCoefficient: 7 / 11,
    weightedConcordanceCorrelationCoefficient: 7 / 11,
  };
  compare(expected, r);
  compare(r, expected);
});

test('undefined statistics are absent: no instances, one instance, constant actual values', () => {
  assert.deepEqual(classificationStatistics([]), {
    numInstances: 0,
    numWithoutClass: 0,
    numUnpredicted: 0,
    numCorrect: 0,
    numIncorrect: 0,
    confusionMatrix: {},
    classValueStatistics: {},
  });
  assert.deepEqual(regressionStatistics([{ actual: undefined, predicted: 1, confidence: 1 }]), {
    numInstances: 1,
    numWithoutClass: 1,
    numUnpredicted: 0,
    percentWithoutClass: 100,
    percentUnpredicted: 0,
    sumSquaredError: 0,
  });
  // One instance: errors are defined; R², correlations and sample variances are not.
  assert.deepEqual(regressionStatistics([{ actual: 2, predicted: 1, confidence: 0.5 }]), {
    numInstances: 1,
    numWithoutClass: 0,
    numUnpredicted: 0,
    percentWithoutClass: 0,
    percentUnpredicted: 0,
    sumSquaredError: 1,
    rootMeanSquaredError: 1,
    meanAbsoluteError: 1,
    concordanceCorrelationCoefficient: 0,
    weightedRootMeanSquaredError: 1,
    weightedMeanAbsoluteError: 1,
    weightedConcordanceCorrelationCoefficient: 0,
  });
  // Constant actual values: R² (0 total variance) and r are undefined; a single class: no AUC, no MCC.
  const constant = regressionStatistics([1, 2, 3].map((p) => ({ actual: 5, predicted: p, confidence: 1 })));
  assert.equal('rSquare' in constant, false);
  assert.equal('sampleCorrelationCoefficient' in constant, false);
  assert.equal(constant.targetVarianceActual, 0);
  const oneClass = classificationStatistics([
    { actual: 'a', predicted: 'a', confidence: 1 },
    { actual: 'a', predicted: 'a', confidence: 1 },
  ]);
  assert.equal('averageAreaUnderRoc' in oneClass, false);
  assert.equal('matthewsCorrelationCoefficient' in oneClass, false);
  assert.equal(oneClass.accuracy, 1);
  assert.throws(() => regressionStatistics([{ actual: 1, predicted: 1, confidence: -1 }]), RangeError);
});
