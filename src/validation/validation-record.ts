import type * as RDF from '@rdfjs/types';
import { df, ot, rdf, dc, literal, xsd } from '../rdf/namespaces.ts';
import type { ClassificationStatistics, ClassValueStatistics, RegressionStatistics, ValidationCounts } from './statistics.ts';
import { describeResource, many, optional, required } from '../rdf/resource-description.ts';
import type { ConformalClassStatistics, ConformalStatistics } from './conformal-statistics.ts';
import { doubleLiteral, doubleOf } from '../rdf/terms.ts';

/** What a validation (spec 2.6, DESIGN.md "Validation vocabulary") records. */
export interface ValidationRecord {
  validationType: string;
  /** What it is, in words (dc:title): lists name it by this. */
  title?: string;
  model?: string;
  algorithm?: string;
  algorithmParams?: string;
  trainingDataset?: string;
  testDataset?: string;
  testTargetDataset?: string;
  predictionDataset?: string;
  predictionFeature: string;
  randomSeed?: number;
  crossvalidation?: { uri: string; fold: number };
  realRuntimeMs: number;
  date: Date;
  statistics: { kind: 'classification'; values: ClassificationStatistics } | { kind: 'regression'; values: RegressionStatistics };
  /** Rows and distinct structures of each side, for the splits and folds this service draws. */
  sides?: { training: { rows: number; structures: number }; test: { rows: number; structures: number } };
  /** Statistics of pooled cross-validation predictions: rSquare is then also given as Q². */
  pooled?: boolean;
  /** A conformal model's coverage and efficiency, per confidence level. */
  conformal?: ConformalStatistics[];
}

/** The kinds of validation, in words (titles). */
export const VALIDATION_KINDS: Record<string, string> = {
  test_set_validation: 'Test set validation',
  training_test_validation: 'Training/test validation',
  training_test_split: 'Training/test split validation',
  bootstrapping: 'Bootstrapping validation',
  validate_datasets: 'Validation of predictions',
  crossvalidation: 'Cross-validation fold',
  leave_one_out_read_across: 'Leave-one-out read-across',
};

const COUNT_KEYS: (keyof ValidationCounts)[] = ['numInstances', 'numWithoutClass', 'numUnpredicted', 'percentWithoutClass', 'percentUnpredicted'];
const INTEGER_KEYS = new Set(['numInstances', 'numWithoutClass', 'numUnpredicted', 'numCorrect', 'numIncorrect', 'numTruePositives', 'numTrueNegatives', 'numFalsePositives', 'numFalseNegatives']);

const number = (key: string, v: number) => (INTEGER_KEYS.has(key) ? literal(String(v), xsd('integer')) : doubleLiteral(v));

/** A local name usable in an IRI fragment. */
const fragment = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The validation node described once (DESIGN.md "Validation vocabulary"); its statistics nodes are read and written below. */
export const validationDescription = describeResource([ot('Validation')], {
  validationType: required('text', ot('validationType')),
  title: optional('text', dc('title')),
  date: required('date', dc('date')),
  predictionFeature: required('iri', ot('predictionFeature')),
  realRuntimeMs: required('integer', ot('realRuntime')),
  model: optional('iri', ot('model')),
  algorithm: optional('iri', ot('algorithm')),
  trainingDataset: optional('iri', ot('trainingDataset')),
  testDataset: optional('iri', ot('testDataset')),
  testTargetDataset: optional('iri', ot('testTargetDataset')),
  predictionDataset: optional('iri', ot('predictionDataset')),
  algorithmParams: optional('text', ot('algorithmParams')),
  randomSeed: optional('integer', ot('randomSeed')),
  numTrainingRows: optional('integer', ot('numTrainingRows')),
  numTrainingStructures: optional('integer', ot('numTrainingStructures')),
  numTestRows: optional('integer', ot('numTestRows')),
  numTestStructures: optional('integer', ot('numTestStructures')),
  crossvalidationInfo: optional('iri', ot('crossvalidationInfo')),
  classificationStatistics: optional('iri', ot('classificationStatistics')),
  regressionStatistics: optional('iri', ot('regressionStatistics')),
});

/**
 * The RDF of a validation: the validation node with its resources and counts, and a
 * statistics node (`{uri}#classificationStatistics` or `{uri}#regressionStatistics`) with the
 * confusion matrix cells and per-class statistics as nodes under the validation URI.
 */
export function validationQuads(uri: string, v: ValidationRecord): RDF.Quad[] {
  const s = df.namedNode(uri);
  const statisticsNode = df.namedNode(`${uri}#${v.statistics.kind}Statistics`);
  const quads: RDF.Quad[] = [
    ...validationDescription.encode({
      uri,
      ...v,
      realRuntimeMs: Math.round(v.realRuntimeMs),
      ...(v.sides ? { numTrainingRows: v.sides.training.rows, numTrainingStructures: v.sides.training.structures, numTestRows: v.sides.test.rows, numTestStructures: v.sides.test.structures } : {}),
      crossvalidationInfo: v.crossvalidation ? `${uri}#crossvalidationInfo` : undefined,
      [`${v.statistics.kind}Statistics`]: statisticsNode.value,
    }),
    df.quad(s, dc('identifier'), literal(uri, xsd('anyURI'))),
  ];
  if (v.crossvalidation) {
    const info = df.namedNode(`${uri}#crossvalidationInfo`);
    quads.push(
      df.quad(info, rdf('type'), ot('CrossvalidationInfo')),
      df.quad(info, ot('crossvalidation'), df.namedNode(v.crossvalidation.uri)),
      df.quad(info, ot('crossvalidationFold'), literal(v.crossvalidation.fold)),
    );
  }
  for (const c of v.conformal ?? []) quads.push(...conformalQuads(uri, c));
  const values = v.statistics.values as unknown as Record<string, unknown>;
  for (const key of COUNT_KEYS) if (typeof values[key] === 'number') quads.push(df.quad(s, ot(key), number(key, values[key] as number)));
  const scalar = (node: RDF.NamedNode, from: Record<string, unknown>, skip: Set<string>) => {
    for (const [key, value] of Object.entries(from)) if (typeof value === 'number' && !skip.has(key)) quads.push(df.quad(node, ot(key), number(key, value)));
  };
  const node = statisticsNode;
  if (v.statistics.kind === 'classification') {
    const stats = v.statistics.values;
    quads.push(df.quad(node, rdf('type'), ot('ClassificationStatistics')));
    scalar(node, values, new Set(COUNT_KEYS));
    const matrix = df.namedNode(`${uri}#confusionMatrix`);
    quads.push(df.quad(node, ot('confusionMatrix'), matrix), df.quad(matrix, rdf('type'), ot('ConfusionMatrix')));
    for (const [actual, row] of Object.entries(stats.confusionMatrix)) {
      for (const [predicted, count] of Object.entries(row)) {
        const cell = df.namedNode(`${uri}#cell-${fragment(actual)}-${fragment(predicted)}`);
        quads.push(
          df.quad(matrix, ot('confusionMatrixCell'), cell),
          df.quad(cell, rdf('type'), ot('ConfusionMatrixCell')),
          df.quad(cell, ot('confusionMatrixActual'), literal(actual)),
          df.quad(cell, ot('confusionMatrixPredicted'), literal(predicted)),
          df.quad(cell, ot('confusionMatrixValue'), literal(count)),
        );
      }
    }
    for (const [value, perClass] of Object.entries(stats.classValueStatistics)) {
      const c = df.namedNode(`${uri}#class-${fragment(value)}`);
      quads.push(df.quad(node, ot('classValueStatistics'), c), df.quad(c, rdf('type'), ot('ClassValueStatistics')), df.quad(c, ot('classValue'), literal(value)));
      scalar(c, perClass as unknown as Record<string, unknown>, new Set());
    }
  } else {
    quads.push(df.quad(node, rdf('type'), ot('RegressionStatistics')));
    scalar(node, values, new Set(COUNT_KEYS));
    if (v.pooled && typeof v.statistics.values.rSquare === 'number') quads.push(df.quad(node, ot('q2'), number('q2', v.statistics.values.rSquare)));
  }
  return quads;
}

/** A conformal statistics node (`{uri}#conformal-{level}`) with its per-class nodes (coverage and efficiency of the rows of each class). */
function conformalQuads(uri: string, c: ConformalStatistics): RDF.Quad[] {
  const node = df.namedNode(`${uri}#conformal-${c.confidenceLevel}`);
  const { classes, ...values } = c;
  const quads = [df.quad(df.namedNode(uri), ot('conformalStatistics'), node), df.quad(node, rdf('type'), ot('ConformalStatistics'))];
  for (const [key, value] of Object.entries(values)) if (typeof value === 'number') quads.push(df.quad(node, ot(key), number(key, value)));
  for (const k of classes ?? []) {
    const cn = df.namedNode(`${uri}#conformal-${c.confidenceLevel}-class-${fragment(k.classValue)}`);
    const { classValue, ...numbers } = k;
    quads.push(df.quad(node, ot('conformalClassStatistics'), cn), df.quad(cn, ot('classValue'), literal(classValue)));
    for (const [key, value] of Object.entries(numbers)) if (typeof value === 'number') quads.push(df.quad(cn, ot(key), number(key, value)));
  }
  return quads;
}

/** The conformal statistics nodes of a validation's graph, by ascending level. */
function conformalOf(quads: RDF.Quad[], uri: string): ConformalStatistics[] | undefined {
  const nodes = quads.filter((q) => q.subject.value === uri && q.predicate.equals(ot('conformalStatistics'))).map((q) => q.object.value);
  if (!nodes.length) return undefined;
  const about = (node: string) => quads.filter((q) => q.subject.value === node);
  const numbersOf = (node: string): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const q of about(node)) if (q.object.termType === 'Literal' && q.predicate.value.startsWith(ot('').value)) out[q.predicate.value.slice(ot('').value.length)] = doubleOf(q.object);
    return out;
  };
  return nodes
    .map((node): ConformalStatistics => {
      const { confidenceLevel, numInstances, ...rest } = numbersOf(node);
      const classNodes = about(node).filter((q) => q.predicate.equals(ot('conformalClassStatistics')));
      const classes = classNodes.map((q): ConformalClassStatistics => {
        const { numInstances: n, classValue: _, ...rest } = numbersOf(q.object.value);
        const classValue = about(q.object.value).find((c) => c.predicate.equals(ot('classValue')))?.object.value ?? '';
        return { classValue, numInstances: n ?? 0, ...rest };
      });
      return { confidenceLevel, numInstances: numInstances ?? 0, ...rest, ...(classNodes.length ? { classes: classes.sort((a, b) => (a.classValue < b.classValue ? -1 : 1)) } : {}) };
    })
    .sort((a, b) => a.confidenceLevel - b.confidenceLevel);
}

/** The record of the validation `uri` in its graph (validationQuads read back); undefined when the graph holds none. */
export function validationRecord(quads: RDF.Quad[], uri: string): ValidationRecord | undefined {
  if (!validationDescription.isComplete(quads, uri)) return undefined;
  const {
    uri: _,
    numTrainingRows,
    numTrainingStructures,
    numTestRows,
    numTestStructures,
    crossvalidationInfo,
    classificationStatistics,
    regressionStatistics,
    ...v
  } = validationDescription.decode(quads, uri);
  const about = (node: string) => quads.filter((q) => q.subject.value === node);
  const value = (node: string, p: string) => about(node).find((q) => q.predicate.equals(ot(p)))?.object.value;
  /** The numbers of a node, by local name (ot:…). */
  const numbers = (node: string, skip = new Set<string>()) => {
    const out: Record<string, number> = {};
    for (const q of about(node)) {
      const key = q.predicate.value.slice(ot('').value.length);
      if (q.object.termType === 'Literal' && q.predicate.value.startsWith(ot('').value) && !skip.has(key) && !Number.isNaN(Number(q.object.value))) out[key] = Number(q.object.value);
    }
    return out;
  };
  const counts = Object.fromEntries(Object.entries(numbers(uri)).filter(([key]) => (COUNT_KEYS as string[]).includes(key)));
  let statistics: ValidationRecord['statistics'];
  let pooled: boolean | undefined;
  if (classificationStatistics) {
    const confusionMatrix: Record<string, Record<string, number>> = {};
    const matrix = value(classificationStatistics, 'confusionMatrix');
    for (const cell of matrix ? about(matrix).filter((q) => q.predicate.equals(ot('confusionMatrixCell'))) : []) {
      const actual = value(cell.object.value, 'confusionMatrixActual') ?? '';
      (confusionMatrix[actual] ??= {})[value(cell.object.value, 'confusionMatrixPredicted') ?? ''] = Number(value(cell.object.value, 'confusionMatrixValue'));
    }
    const classValueStatistics: Record<string, ClassValueStatistics> = {};
    for (const c of about(classificationStatistics).filter((q) => q.predicate.equals(ot('classValueStatistics'))))
      classValueStatistics[value(c.object.value, 'classValue') ?? ''] = numbers(c.object.value, new Set(['classValue'])) as unknown as ClassValueStatistics;
    statistics = { kind: 'classification', values: { ...counts, ...numbers(classificationStatistics), confusionMatrix, classValueStatistics } as unknown as ClassificationStatistics };
  } else if (regressionStatistics) {
    const { q2, ...values } = numbers(regressionStatistics);
    pooled = q2 !== undefined || undefined;
    statistics = { kind: 'regression', values: { ...counts, ...values } as unknown as RegressionStatistics };
  } else return undefined;
  const fold = crossvalidationInfo ? value(crossvalidationInfo, 'crossvalidationFold') : undefined;
  const crossvalidation = crossvalidationInfo && value(crossvalidationInfo, 'crossvalidation');
  const conformal = conformalOf(quads, uri);
  return {
    ...v,
    statistics,
    ...(pooled ? { pooled } : {}),
    ...(conformal ? { conformal } : {}),
    ...(numTrainingRows !== undefined
      ? { sides: { training: { rows: numTrainingRows, structures: numTrainingStructures ?? 0 }, test: { rows: numTestRows ?? 0, structures: numTestStructures ?? 0 } } }
      : {}),
    ...(crossvalidation ? { crossvalidation: { uri: crossvalidation, fold: Number(fold) } } : {}),
  };
}

/** What a cross-validation (spec 4.2) records besides its pooled statistics. */
export interface CrossvalidationRecord {
  algorithm: string;
  algorithmParams: string;
  predictionFeature: string;
  dataset: string;
  numFolds: number;
  stratified: string;
  randomSeed: number;
  leaveOneOut: boolean;
  yScrambleSeed?: number;
  /** How the folds were made when the request left it to a default. */
  note?: string;
  /** The fold validations, in fold order. */
  folds: string[];
  date: Date;
  /** What it is, in words (dc:title). */
  title?: string;
}

/** A cross-validation described once (its pooled statistics are a validation of their own graph). */
export const crossvalidationDescription = describeResource([ot('Crossvalidation')], {
  date: required('date', dc('date')),
  title: optional('text', dc('title')),
  algorithm: required('iri', ot('algorithm')),
  algorithmParams: required('text', ot('algorithmParams')),
  predictionFeature: required('iri', ot('predictionFeature')),
  dataset: required('iri', ot('dataset')),
  numFolds: required('integer', ot('numFolds')),
  stratified: required('text', ot('stratified')),
  randomSeed: required('integer', ot('randomSeed')),
  leaveOneOut: required('boolean', ot('leaveOneOut')),
  yScramble: required('boolean', ot('yScramble')),
  folds: many('iri', ot('validation')),
  yScrambleSeed: optional('integer', ot('yScrambleSeed')),
  note: optional('text', dc('description')),
});

export function crossvalidationQuads(uri: string, cv: CrossvalidationRecord): RDF.Quad[] {
  return [
    ...crossvalidationDescription.encode({ uri, ...cv, note: cv.note || undefined, yScramble: cv.yScrambleSeed !== undefined }),
    df.quad(df.namedNode(uri), dc('identifier'), literal(uri, xsd('anyURI'))),
  ];
}

/** The record of the cross-validation `uri` in its graph; undefined when the graph holds none. Its folds come unordered (the graph keeps no order). */
export function crossvalidationRecord(quads: RDF.Quad[], uri: string): CrossvalidationRecord | undefined {
  if (!crossvalidationDescription.isComplete(quads, uri)) return undefined;
  const { uri: _, yScramble: __, ...cv } = crossvalidationDescription.decode(quads, uri);
  return cv;
}

/** The fold validations of a cross-validation's graph (unordered: the graph does not keep an order). */
export function crossvalidationFolds(quads: RDF.Quad[], uri: string): string[] {
  return quads.filter((q) => q.subject.value === uri && q.predicate.equals(ot('validation'))).map((q) => q.object.value);
}

/** The fold number of a fold validation's graph (0 when it is none). */
export function foldNumber(quads: RDF.Quad[]): number {
  return Number(quads.find((q) => q.predicate.equals(ot('crossvalidationFold')))?.object.value ?? 0);
}
