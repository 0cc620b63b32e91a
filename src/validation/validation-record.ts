import type * as RDF from '@rdfjs/types';
import { df, ot, rdf, dc, literal, xsd } from '../rdf/namespaces.ts';
import type { ClassificationStatistics, RegressionStatistics, ValidationCounts } from './statistics.ts';

/** What a validation (spec 2.6, DESIGN.md "Validation vocabulary") records. */
export interface ValidationRecord {
  validationType: string;
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
}

const COUNT_KEYS: (keyof ValidationCounts)[] = ['numInstances', 'numWithoutClass', 'numUnpredicted', 'percentWithoutClass', 'percentUnpredicted'];
const INTEGER_KEYS = new Set(['numInstances', 'numWithoutClass', 'numUnpredicted', 'numCorrect', 'numIncorrect', 'numTruePositives', 'numTrueNegatives', 'numFalsePositives', 'numFalseNegatives']);

const number = (key: string, v: number) => (INTEGER_KEYS.has(key) ? literal(String(v), xsd('integer')) : literal(String(v), xsd('double')));

/** A local name usable in an IRI fragment. */
const fragment = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The RDF of a validation: the validation node with its resources and counts, and a
 * statistics node (`{uri}#classificationStatistics` or `{uri}#regressionStatistics`) with the
 * confusion matrix cells and per-class statistics as nodes under the validation URI.
 */
export function validationQuads(uri: string, v: ValidationRecord): RDF.Quad[] {
  const s = df.namedNode(uri);
  const quads: RDF.Quad[] = [
    df.quad(s, rdf('type'), ot('Validation')),
    df.quad(s, dc('identifier'), literal(uri, xsd('anyURI'))),
    df.quad(s, ot('validationType'), literal(v.validationType)),
    df.quad(s, dc('date'), literal(v.date)),
    df.quad(s, ot('predictionFeature'), df.namedNode(v.predictionFeature)),
    df.quad(s, ot('realRuntime'), literal(String(Math.round(v.realRuntimeMs)), xsd('integer'))),
  ];
  const link = (p: string, o?: string) => o && quads.push(df.quad(s, ot(p), df.namedNode(o)));
  link('model', v.model);
  link('algorithm', v.algorithm);
  link('trainingDataset', v.trainingDataset);
  link('testDataset', v.testDataset);
  link('testTargetDataset', v.testTargetDataset);
  link('predictionDataset', v.predictionDataset);
  if (v.algorithmParams !== undefined) quads.push(df.quad(s, ot('algorithmParams'), literal(v.algorithmParams)));
  if (v.randomSeed !== undefined) quads.push(df.quad(s, ot('randomSeed'), literal(v.randomSeed)));
  if (v.sides) {
    const integer = (n: number) => literal(String(n), xsd('integer'));
    quads.push(
      df.quad(s, ot('numTrainingRows'), integer(v.sides.training.rows)),
      df.quad(s, ot('numTrainingStructures'), integer(v.sides.training.structures)),
      df.quad(s, ot('numTestRows'), integer(v.sides.test.rows)),
      df.quad(s, ot('numTestStructures'), integer(v.sides.test.structures)),
    );
  }
  if (v.crossvalidation) {
    const info = df.namedNode(`${uri}#crossvalidationInfo`);
    quads.push(
      df.quad(s, ot('crossvalidationInfo'), info),
      df.quad(info, rdf('type'), ot('CrossvalidationInfo')),
      df.quad(info, ot('crossvalidation'), df.namedNode(v.crossvalidation.uri)),
      df.quad(info, ot('crossvalidationFold'), literal(v.crossvalidation.fold)),
    );
  }
  const values = v.statistics.values as unknown as Record<string, unknown>;
  for (const key of COUNT_KEYS) if (typeof values[key] === 'number') quads.push(df.quad(s, ot(key), number(key, values[key] as number)));
  const scalar = (node: RDF.NamedNode, from: Record<string, unknown>, skip: Set<string>) => {
    for (const [key, value] of Object.entries(from)) if (typeof value === 'number' && !skip.has(key)) quads.push(df.quad(node, ot(key), number(key, value)));
  };
  if (v.statistics.kind === 'classification') {
    const stats = v.statistics.values;
    const node = df.namedNode(`${uri}#classificationStatistics`);
    quads.push(df.quad(s, ot('classificationStatistics'), node), df.quad(node, rdf('type'), ot('ClassificationStatistics')));
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
    const node = df.namedNode(`${uri}#regressionStatistics`);
    quads.push(df.quad(s, ot('regressionStatistics'), node), df.quad(node, rdf('type'), ot('RegressionStatistics')));
    scalar(node, values, new Set(COUNT_KEYS));
    if (v.pooled && typeof v.statistics.values.rSquare === 'number') quads.push(df.quad(node, ot('q2'), number('q2', v.statistics.values.rSquare)));
  }
  return quads;
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
}

export function crossvalidationQuads(uri: string, cv: CrossvalidationRecord): RDF.Quad[] {
  const c = df.namedNode(uri);
  return [
    df.quad(c, rdf('type'), ot('Crossvalidation')),
    df.quad(c, dc('identifier'), literal(uri, xsd('anyURI'))),
    df.quad(c, dc('date'), literal(cv.date)),
    df.quad(c, ot('algorithm'), df.namedNode(cv.algorithm)),
    df.quad(c, ot('algorithmParams'), literal(cv.algorithmParams)),
    df.quad(c, ot('predictionFeature'), df.namedNode(cv.predictionFeature)),
    df.quad(c, ot('dataset'), df.namedNode(cv.dataset)),
    df.quad(c, ot('numFolds'), literal(cv.numFolds)),
    df.quad(c, ot('stratified'), literal(cv.stratified)),
    df.quad(c, ot('randomSeed'), literal(cv.randomSeed)),
    df.quad(c, ot('leaveOneOut'), literal(cv.leaveOneOut)),
    df.quad(c, ot('yScramble'), literal(cv.yScrambleSeed !== undefined)),
    ...cv.folds.map((f) => df.quad(c, ot('validation'), df.namedNode(f))),
    ...(cv.yScrambleSeed === undefined ? [] : [df.quad(c, ot('yScrambleSeed'), literal(cv.yScrambleSeed))]),
    ...(cv.note ? [df.quad(c, dc('description'), literal(cv.note))] : []),
  ];
}

/** The fold validations of a cross-validation's graph (unordered: the graph does not keep an order). */
export function crossvalidationFolds(quads: RDF.Quad[], uri: string): string[] {
  return quads.filter((q) => q.subject.value === uri && q.predicate.equals(ot('validation'))).map((q) => q.object.value);
}

/** The fold number of a fold validation's graph (0 when it is none). */
export function foldNumber(quads: RDF.Quad[]): number {
  return Number(quads.find((q) => q.predicate.equals(ot('crossvalidationFold')))?.object.value ?? 0);
}
