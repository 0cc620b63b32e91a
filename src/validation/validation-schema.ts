import { VALIDATION_XML_NS } from './validation-views.ts';

const el = (name: string, type: string) => `      <xs:element name="${name}" type="${type}"/>`;
const doubles = (names: string[]) => names.map((n) => el(n, 'xs:double'));
const integers = (names: string[]) => names.map((n) => el(n, 'xs:integer'));

const COUNTS = integers(['numInstances', 'numWithoutClass', 'numUnpredicted']).concat(doubles(['percentWithoutClass', 'percentUnpredicted']));

function choice(name: string, elements: string[], uri = false): string {
  return `  <xs:complexType name="${name}">
    <xs:choice minOccurs="0" maxOccurs="unbounded">
${elements.join('\n')}
    </xs:choice>${uri ? '\n    <xs:attribute name="uri" type="xs:anyURI" use="required"/>' : ''}
  </xs:complexType>`;
}

/**
 * The XML Schema of validations and cross-validations as `application/xml` (spec 4.1), served at
 * `/validation/schema.xsd`. Elements may come in any order; statistics whose value is undefined
 * (a rate over nothing) are left out.
 */
export const VALIDATION_SCHEMA = `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="${VALIDATION_XML_NS}" xmlns="${VALIDATION_XML_NS}" elementFormDefault="qualified">
  <xs:element name="validation" type="Validation"/>
  <xs:element name="crossvalidation" type="Crossvalidation"/>
${choice(
  'Validation',
  [
    el('validationType', 'xs:string'),
    el('title', 'xs:string'),
    el('date', 'xs:dateTime'),
    ...['model', 'algorithm', 'trainingDataset', 'testDataset', 'testTargetDataset', 'predictionDataset', 'predictionFeature'].map((n) => el(n, 'xs:anyURI')),
    el('algorithmParams', 'xs:string'),
    el('randomSeed', 'xs:integer'),
    el('realRuntime', 'xs:integer'),
    ...COUNTS,
    ...integers(['numTrainingRows', 'numTrainingStructures', 'numTestRows', 'numTestStructures']),
    el('crossvalidationInfo', 'CrossvalidationInfo'),
    el('classificationStatistics', 'ClassificationStatistics'),
    el('regressionStatistics', 'RegressionStatistics'),
    el('conformalStatistics', 'ConformalStatistics'),
  ],
  true,
)}
${choice('ConformalStatistics', [el('confidenceLevel', 'xs:double'), el('numInstances', 'xs:integer'), ...doubles(['coverage', 'meanIntervalWidth', 'medianIntervalWidth', 'singletonRate', 'emptySetRate', 'meanSetSize']), el('conformalClassStatistics', 'ConformalClassStatistics')])}
${choice('ConformalClassStatistics', [el('classValue', 'xs:string'), el('numInstances', 'xs:integer'), ...doubles(['coverage', 'singletonRate', 'emptySetRate', 'meanSetSize'])])}
${choice('CrossvalidationInfo', [el('crossvalidation', 'xs:anyURI'), el('crossvalidationFold', 'xs:integer')])}
${choice('ClassificationStatistics', [...integers(['numCorrect', 'numIncorrect']), ...doubles(['percentCorrect', 'percentIncorrect', 'accuracy', 'weightedAccuracy', 'averageAreaUnderRoc', 'matthewsCorrelationCoefficient']), el('confusionMatrix', 'ConfusionMatrix'), el('classValueStatistics', 'ClassValueStatistics')])}
${choice('ConfusionMatrix', [el('confusionMatrixCell', 'ConfusionMatrixCell')])}
${choice('ConfusionMatrixCell', [el('confusionMatrixActual', 'xs:string'), el('confusionMatrixPredicted', 'xs:string'), el('confusionMatrixValue', 'xs:integer')])}
${choice('ClassValueStatistics', [
  el('classValue', 'xs:string'),
  ...integers(['numTruePositives', 'numTrueNegatives', 'numFalsePositives', 'numFalseNegatives']),
  ...doubles(['truePositiveRate', 'trueNegativeRate', 'falsePositiveRate', 'falseNegativeRate', 'positivePredictiveValue', 'negativePredictiveValue', 'fMeasure', 'areaUnderRoc']),
])}
${choice(
  'RegressionStatistics',
  doubles([
    'rootMeanSquaredError',
    'meanAbsoluteError',
    'rSquare',
    'q2',
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
  ]),
)}
${choice(
  'Crossvalidation',
  [
    el('title', 'xs:string'),
    el('date', 'xs:dateTime'),
    ...['algorithm', 'dataset', 'predictionFeature', 'validation'].map((n) => el(n, 'xs:anyURI')),
    el('algorithmParams', 'xs:string'),
    el('numFolds', 'xs:integer'),
    el('stratified', 'xs:string'),
    el('randomSeed', 'xs:integer'),
    el('yScramble', 'xs:boolean'),
    el('yScrambleSeed', 'xs:integer'),
    el('leaveOneOut', 'xs:boolean'),
    el('description', 'xs:string'),
  ],
  true,
)}
</xs:schema>
`;
