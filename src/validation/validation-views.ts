import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { resourceTree, type Tree, type TreeValue } from '../rdf/resource-tree.ts';
import { escapeHtml, formatNumber, iriHtml, renderPage } from '../rdf/html.ts';
import { alternateLinks, sendNegotiated, type Renderer, resourceRenderers } from '../http/respond.ts';
import { RDF_OUTPUT_TYPES, serializeRdf } from '../rdf/serialize.ts';
import { baselineOfStatistics, baselineText } from './baseline.ts';
import { CLASS_VALUE_COLUMNS, CLASSIFICATION_LABELS, COUNT_LABELS, keyStatistics, mean, MORE_CLASS_VALUE_LABELS, REGRESSION_LABELS, standardDeviation } from './statistic-labels.ts';
import { algorithmById } from '../algorithm/catalogue.ts';
import { VALIDATION_KINDS } from './validation-record.ts';
import { titlesOf } from '../store/query-helpers.ts';
import type { TripleStore } from '../store/triple-store.ts';

/** Statistics named as the reports name them (the key stays as the row's title), in the reports' order first. */
const LABELS = new Map([...COUNT_LABELS, ...REGRESSION_LABELS, ...CLASSIFICATION_LABELS, ...CLASS_VALUE_COLUMNS, ...MORE_CLASS_VALUE_LABELS]);
const ORDER = [...LABELS.keys()];
const byLabelOrder = ([a]: [string, unknown], [b]: [string, unknown]) => (ORDER.indexOf(a) + 1 || ORDER.length + 1) - (ORDER.indexOf(b) + 1 || ORDER.length + 1);
const statisticName = (key: string) => `<span title="${escapeHtml(key)}">${escapeHtml(LABELS.get(key) ?? key)}</span>`;

/** The XML namespace of validations as `application/xml`; its schema is served at /validation/schema.xsd. */
export const VALIDATION_XML_NS = 'urn:toxgraph:validation:1';

function xmlOf(name: string, value: TreeValue, indent: string): string {
  if (Array.isArray(value)) return value.map((v) => xmlOf(name, v as TreeValue, indent)).join('');
  if (typeof value === 'object') {
    const inner = Object.entries(value)
      .filter(([k]) => k !== 'uri')
      .map(([k, v]) => xmlOf(k, v, `${indent}  `))
      .join('');
    const uri = typeof value.uri === 'string' ? ` uri="${escapeHtml(value.uri)}"` : '';
    return `${indent}<${name}${uri}>\n${inner}${indent}</${name}>\n`;
  }
  return `${indent}<${name}>${escapeHtml(String(value))}</${name}>\n`;
}

/** A validation (or cross-validation) as XML in the namespace of /validation/schema.xsd. */
export function toXml(root: string, tree: Tree): string {
  const body = xmlOf(root, tree, '');
  return `<?xml version="1.0" encoding="UTF-8"?>\n${body.replace(`<${root}`, `<${root} xmlns="${VALIDATION_XML_NS}"`)}`;
}

const fmt = (v: unknown) => (typeof v === 'number' ? formatNumber(v) : escapeHtml(String(v ?? '')));

/** Tables for people: the statistics and the confusion matrix. */
function statisticsHtml(tree: Tree): string {
  const parts: string[] = [];
  const table = (title: string, rows: [string, unknown][]) =>
    `<h2>${escapeHtml(title)}</h2><table><tbody>${[...rows]
      .sort(byLabelOrder)
      .map(([k, v]) => `<tr><th>${statisticName(k)}</th><td>${fmt(v)}</td></tr>`)
      .join('')}</tbody></table>`;
  const counts = ['numInstances', 'numWithoutClass', 'numUnpredicted', 'percentWithoutClass', 'percentUnpredicted'].filter((k) => tree[k] !== undefined).map((k) => [k, tree[k]] as [string, unknown]);
  if (counts.length) parts.push(table('Instances', counts));
  const regression = tree.regressionStatistics as Tree | undefined;
  if (regression) parts.push(table('Regression statistics', Object.entries(regression)));
  const classification = tree.classificationStatistics as Tree | undefined;
  if (classification) {
    parts.push(
      table(
        'Classification statistics',
        Object.entries(classification).filter(([, v]) => typeof v !== 'object'),
      ),
    );
    const cells = ((classification.confusionMatrix as Tree | undefined)?.confusionMatrixCell as Tree[] | undefined) ?? [];
    const classes = [...new Set(cells.flatMap((c) => [String(c.confusionMatrixActual), String(c.confusionMatrixPredicted)]))].sort();
    const cell = (a: string, p: string) => cells.find((c) => String(c.confusionMatrixActual) === a && String(c.confusionMatrixPredicted) === p)?.confusionMatrixValue ?? 0;
    parts.push(
      `<h2>Confusion matrix</h2><table><thead><tr><th>actual \\ predicted</th>${classes.map((c) => `<th>${escapeHtml(c)}</th>`).join('')}</tr></thead><tbody>${classes.map((a) => `<tr><th>${escapeHtml(a)}</th>${classes.map((p) => `<td>${fmt(cell(a, p))}</td>`).join('')}</tr>`).join('')}</tbody></table>`,
    );
    const perClass = (classification.classValueStatistics as Tree[] | undefined) ?? [];
    if (perClass.length) {
      const keys = [...new Set(perClass.flatMap((c) => Object.keys(c)))].filter((k) => k !== 'classValue');
      parts.push(
        `<h2>Per class</h2><table><thead><tr><th>statistic</th>${perClass.map((c) => `<th>${escapeHtml(String(c.classValue))}</th>`).join('')}</tr></thead><tbody>${keys.map((k) => `<tr><th>${statisticName(k)}</th>${perClass.map((c) => `<td>${fmt(c[k])}</td>`).join('')}</tr>`).join('')}</tbody></table>`,
      );
    }
  }
  // what the figures are read against: a model that learnt nothing, on the same rows
  const stats = regression ?? classification;
  const baseline = stats && baselineOfStatistics(stats, regression ? 'regression' : 'classification', tree);
  if (baseline) parts.push(`<h2>Baseline</h2><p class="baseline">${escapeHtml(baselineText(baseline))}.</p>`);
  const conformal = tree.conformalStatistics as Tree[] | undefined;
  if (conformal?.length) parts.push(conformalHtml(conformal));
  return parts.join('\n');
}

/** The conformal guarantee per level: coverage against the level and efficiency; for classes the same per class (the rows whose true class it is). */
function conformalHtml(levels: Tree[]): string {
  const sorted = [...levels].sort((a, b) => Number(a.confidenceLevel) - Number(b.confidenceLevel));
  const classesOf = (l: Tree) => [...((l.conformalClassStatistics as Tree[] | undefined) ?? [])].sort((a, b) => (String(a.classValue) < String(b.classValue) ? -1 : 1));
  const intervals = sorted.some((l) => l.meanIntervalWidth !== undefined);
  type Column = [string, (l: Tree) => unknown];
  const efficiency: Column[] = intervals
    ? [
        ['mean interval width', (l) => l.meanIntervalWidth],
        ['median interval width', (l) => l.medianIntervalWidth],
      ]
    : [
        ['single-label sets', (l) => l.singletonRate],
        ['empty sets', (l) => l.emptySetRate],
        ['mean set size', (l) => l.meanSetSize],
      ];
  const table = (columns: Column[], rows: Tree[]) =>
    `<table><thead><tr>${columns.map(([name]) => `<th>${escapeHtml(name)}</th>`).join('')}</tr></thead><tbody>${rows.map((l) => `<tr>${columns.map(([, of]) => `<td>${fmt(of(l))}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
  const perLevel = table([['confidence level', (l) => l.confidenceLevel], ['coverage', (l) => l.coverage], ['test rows', (l) => l.numInstances], ...efficiency], sorted);
  const perClassRows = sorted.flatMap((l) => classesOf(l).map((c): Tree => ({ ...c, confidenceLevel: l.confidenceLevel })));
  const perClass = perClassRows.length
    ? `<h3>Per class (the test rows of each class)</h3>${table(
        [['confidence level', (c) => c.confidenceLevel], ['class', (c) => c.classValue], ['coverage', (c) => c.coverage], ['test rows', (c) => c.numInstances], ...efficiency],
        perClassRows,
      )}`
    : '';
  return `<h2>Conformal prediction: coverage and efficiency</h2><p>Under exchangeability, the share of test compounds whose true value is in the ${intervals ? 'interval' : 'prediction set'} is at least the confidence level (within the binomial error of the test set's size)${intervals ? '' : ', for each class'}.</p>${perLevel}${perClass}`;
}

/**
 * What a validation or cross-validation is, in words, for its page's title: "10-fold
 * cross-validation of Random forest regression on Daphnia LC50", "Fold 3 of 10 of …",
 * "Training/test split validation of <model> on <test set>".
 */
export async function validationTitle(store: TripleStore, tree: Tree): Promise<string> {
  const uri = String(tree.uri ?? '');
  const id = (u: unknown) =>
    String(u ?? '')
      .split('/')
      .pop() ?? '';
  if (tree.numFolds !== undefined || tree.leaveOneOut !== undefined) {
    const titles = await titlesOf(store, [String(tree.dataset ?? '')]);
    const algorithm = algorithmById(id(tree.algorithm))?.title ?? String(tree.algorithm ?? 'an algorithm');
    const kind = tree.leaveOneOut === true || tree.leaveOneOut === 'true' ? 'Leave-one-out' : `${tree.numFolds}-fold`;
    return `${kind} cross-validation of ${algorithm} on ${titles.get(String(tree.dataset)) ?? String(tree.dataset ?? 'a dataset')}`;
  }
  const info = tree.crossvalidationInfo as Tree | undefined;
  if (info?.crossvalidation) {
    const cv = String(info.crossvalidation);
    return `Fold ${info.crossvalidationFold} of the ${lowerFirst(await validationTitle(store, resourceTree(await store.readGraph(cv), cv, false)))}`;
  }
  const titles = await titlesOf(store, [String(tree.model ?? ''), String(tree.testDataset ?? '')]);
  const kind = VALIDATION_KINDS[String(tree.validationType)] ?? 'Validation';
  const model = titles.get(String(tree.model)) ?? (tree.model ? String(tree.model) : undefined);
  const test = titles.get(String(tree.testDataset)) ?? (tree.testDataset ? String(tree.testDataset) : undefined);
  return `${kind}${model ? ` of ${model}` : ''}${test ? ` on ${test}` : ''}` || `Validation ${uri}`;
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/**
 * A cross-validation's page leads with what it found: the pooled statistics, then each fold's
 * key statistics beside the mean and standard deviation over the folds.
 */
export function crossvalidationHtml(pooled: Tree, folds: { uri: string; tree: Tree }[]): string {
  const task = pooled.regressionStatistics ? 'regression' : 'classification';
  const statsOf = (t: Tree) => (t.regressionStatistics ?? t.classificationStatistics) as Tree | undefined;
  const keys = keyStatistics(task);
  const values = (k: string) => folds.map((f) => statsOf(f.tree)?.[k]).filter((v): v is number => typeof v === 'number');
  const rows = folds
    .map((f, i) => `<tr><td>${iriHtml(f.uri, `fold ${i + 1}`)}</td>${keys.map(([k]) => `<td>${fmt(statsOf(f.tree)?.[k])}</td>`).join('')}<td>${fmt(f.tree.numInstances)}</td></tr>`)
    .join('');
  const summary = (name: string, of: (v: number[]) => number) => `<tr><th>${name}</th>${keys.map(([k]) => `<td>${values(k).length ? fmt(of(values(k))) : '–'}</td>`).join('')}<td></td></tr>`;
  return `${statisticsHtml(pooled).replace('<h2>Instances</h2>', '<h2>Pooled over the folds: instances</h2>')}
<h2>Per fold</h2><table class="report sortable"><thead><tr><th>fold</th>${keys.map(([, name]) => `<th>${escapeHtml(name)}</th>`).join('')}<th>test rows</th></tr></thead><tbody>${rows}</tbody><tfoot>${summary('mean', mean)}${summary('standard deviation', standardDeviation)}</tfoot></table>`;
}

/** Every representation of a validation: RDF, HTML tables, XML (with a schema), YAML, JSON. */
export async function sendValidation(ctx: Context, uri: string, quads: RDF.Quad[], name: (tree: Tree) => Promise<string>, root = 'validation'): Promise<void> {
  const tree = resourceTree(quads, uri, false);
  const renderers: Record<string, Renderer> = {
    ...resourceRenderers(ctx, uri, quads, `Validation ${uri}`, { tree }),
    'application/xml': () => toXml(root, tree),
    'text/xml': () => toXml(root, tree),
  };
  // a validation's page offers its report (with the plots of its predictions)
  const report =
    root === 'validation' && !tree.crossvalidationInfo
      ? `<form class="run" method="post" action="/report/validation"><input type="hidden" name="validation_uris" value="${escapeHtml(uri)}"><button type="submit">Make a report of this validation (with plots)</button></form>`
      : '';
  renderers['text/html'] = async () =>
    renderPage({
      title: await name(tree),
      intro: `${report}${statisticsHtml(tree)}`,
      quads,
      alternates: alternateLinks(ctx, [...RDF_OUTPUT_TYPES, 'application/xml', 'application/json', 'text/x-yaml']),
      jsonld: await serializeRdf(quads, 'application/ld+json'),
    });
  await sendNegotiated(ctx, renderers);
}
