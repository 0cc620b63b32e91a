import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import type { Services } from '../core/services.ts';
import { ot } from '../rdf/namespaces.ts';
import { escapeHtml, iriHtml, linkOf } from '../rdf/html.ts';
import { select } from '../store/query-helpers.ts';
import type { TripleStore } from '../store/triple-store.ts';
import { serviceQueries } from './service-queries.ts';

/** Every component and what it is for; `working` says whether this server implements it yet. */
export const COMPONENTS: { path: string; title: string; working: boolean }[] = [
  { path: '/compound', title: 'Compounds and conformers', working: true },
  { path: '/feature', title: 'Features', working: true },
  { path: '/dataset', title: 'Datasets', working: true },
  { path: '/algorithm', title: 'Algorithms', working: true },
  { path: '/model', title: 'Models', working: true },
  { path: '/validation', title: 'Validations', working: true },
  { path: '/crossvalidation', title: 'Cross-validations', working: true },
  { path: '/report', title: 'Validation reports', working: true },
  { path: '/reach_report/qmrf', title: 'REACH (QMRF) reports', working: true },
  { path: '/category', title: 'Read-across categories (analogues of a target: GET /compound/{id}/analogues)', working: true },
  { path: '/assessment', title: 'Read-across assessments (RAAF scenarios, scores, versions, provenance)', working: true },
  { path: '/task', title: 'Tasks', working: true },
  { path: '/ontology', title: 'Ontology service (SPARQL over the published scope)', working: true },
  { path: '/sparql', title: 'SPARQL endpoint (the whole store)', working: true },
];

/** What the service holds, by resource type: shown on the home page. */
const COUNTED: [string, string, RDF.NamedNode][] = [
  ['/compound', 'compounds', ot('Compound')],
  ['/dataset', 'datasets', ot('Dataset')],
  ['/model', 'models', ot('Model')],
  ['/validation', 'validations', ot('Validation')],
  ['/crossvalidation', 'cross-validations', ot('Crossvalidation')],
  ['/report', 'validation reports', ot('ValidationReport')],
  ['/reach_report/qmrf', 'QMRF reports', ot('QMRFReport')],
];

/**
 * The home page's counts, kept for COUNTS_MS: counting scans every resource of a type (about
 * 0.1–0.25 s for 4,000 compounds), which is not for every view of the home page of a large store.
 */
const COUNTS_MS = 10_000;
const counted = new WeakMap<TripleStore, { at: number; counts: Promise<number[]> }>();

function countsOf(services: Pick<Services, 'store'>): Promise<number[]> {
  const kept = counted.get(services.store);
  if (kept && Date.now() - kept.at < COUNTS_MS) return kept.counts;
  const counts = Promise.all(COUNTED.map(async ([, , type]) => Number((await select(services.store, serviceQueries.count(type)))[0]?.n?.value ?? 0)));
  counted.set(services.store, { at: Date.now(), counts });
  counts.catch(() => counted.delete(services.store));
  return counts;
}

/** The newest of a collection that the caller may read and that is nobody's intermediate work, with its title. */
export interface Latest {
  uri: string;
  title: string;
}

/**
 * The home page: a path from a table to a documented prediction, each step a link with the
 * caller's newest dataset or model already chosen; then what the service holds, recent tasks,
 * every component, and how to talk to the API. The service's own RDF is in its other formats.
 */
export async function homeHtml(services: Pick<Services, 'config' | 'store' | 'tasks'>, ctx: Context, latest: { dataset?: Latest; model?: Latest; described: boolean }): Promise<string> {
  const counts = await countsOf(services);
  const canRead: (uri: string) => boolean = ctx.state.canRead ?? (() => true);
  const tasks = (await services.tasks.list()).filter(canRead).slice(-8).reverse();
  const taskRows = await Promise.all(
    tasks.map(async (t) => {
      const record = (await services.tasks.read(t))?.record;
      if (!record) return '';
      return `<tr><td>${iriHtml(t, record.title || t)}</td><td>${escapeHtml(record.status)}</td><td>${record.resultUri ? iriHtml(record.resultUri) : ''}</td></tr>`;
    }),
  );
  const base = services.config.baseUrl;
  return `<p>An OpenTox web service for chemical modelling and validation, on an embedded triplestore: every resource is linked data, and every page has its data in RDF too.</p>
${pathHtml(latest)}
<h2>What it holds</h2><p><small>Counted at most 10 seconds ago; work made inside cross-validations and supermodels is not counted.</small></p>
<table class="report"><tbody>${COUNTED.map(([path, label], i) => `<tr><th><a href="${path}">${escapeHtml(label)}</a></th><td>${counts[i]}</td></tr>`).join('')}</tbody></table>
<h2>Recent tasks</h2>
${taskRows.length ? `<table class="report"><thead><tr><th>task</th><th>status</th><th>result</th></tr></thead><tbody>${taskRows.join('')}</tbody></table>` : '<p>None yet.</p>'}
<h2>Components</h2>
<ul>${COMPONENTS.map((c) => `<li><a href="${escapeHtml(c.path)}">${escapeHtml(c.path)}</a> — ${escapeHtml(c.title)}${c.working ? '' : ' <em>(not yet available)</em>'}</li>`).join('')}</ul>
<h2>Using the API</h2>
<p>Every resource answers the representation its <code>Accept</code> header asks for: <code>application/rdf+xml</code> (the default), <code>text/turtle</code>, <code>application/ld+json</code>, <code>text/uri-list</code> for lists, <code>text/csv</code> for datasets, <code>text/html</code> for this browser. Long work (uploads, training, validation, reports) answers <code>202</code> with a task URI to poll. <a href="/api">The API, operation by operation</a>.</p>
<pre>curl -H 'Accept: text/uri-list' ${escapeHtml(base)}/dataset
curl -X POST -H 'Content-Type: text/csv' --data-binary @data.csv ${escapeHtml(base)}/dataset
curl -X POST -d dataset_uri=${escapeHtml(base)}/dataset/1 -d prediction_feature=${escapeHtml(base)}/feature/1 ${escapeHtml(base)}/algorithm/random-forest-regression
curl -H 'Accept: text/uri-list' ${escapeHtml(base)}/task/1</pre>
<h2>For language-model agents</h2>
<p>An MCP client (Model Context Protocol, Streamable HTTP) connects to <code>${escapeHtml(base)}/mcp</code>, sending its token in a <code>subjectid</code> or <code>Authorization: Bearer</code> header: tools to search compounds, read resources, list models, predict with domains and nearest training compounds, upload, train, cross-validate, follow tasks, query SPARQL and make QPRFs, with the rights of that token.</p>`;
}

/** "Start here": the steps from a table to a documented prediction, linked with what was made last. */
function pathHtml(latest: { dataset?: Latest; model?: Latest; described: boolean }): string {
  const { dataset, model } = latest;
  const q = (uri: string) => encodeURIComponent(uri);
  const datasetLink = dataset ? iriHtml(dataset.uri, dataset.title) : '';
  const modelLink = model ? iriHtml(model.uri, model.title) : '';
  const steps = [
    `<strong><a href="/dataset">Upload a table</a></strong>: an Excel workbook, CSV or TSV with a SMILES (or InChI, molfile, CAS RN and name) column and your measured values, or an SDF. The page shows what was read: the columns, their units and the rows that could not be read.${dataset ? ` Your newest dataset: ${datasetLink}.` : ''}`,
    `<strong>${dataset && !latest.described ? `<a href="/algorithm/rdkit-descriptors?dataset_uri=${q(dataset.uri)}">Calculate descriptors</a>` : '<a href="/algorithm/rdkit-descriptors">Calculate descriptors</a>'}</strong> (RDKit's 43, or Morgan fingerprints): the model learns from them. Standardise the structures first if the table has salts or mixtures.`,
    `<strong>${dataset ? `<a href="/algorithm?dataset_uri=${q(dataset.uri)}">Train a model</a>` : 'Train a model'}</strong> on it: a random forest, k-NN, SVM, PLS…, with an applicability domain chosen for you, so that every prediction says whether it is inside.`,
    `<strong>Validate it</strong> from ${model ? `the page of ${modelLink}` : "the model's page"}: a 10-fold cross-validation, with its report and plots.`,
    `<strong>Predict</strong> one structure (typed or drawn) or a whole dataset from ${model ? `<a href="${escapeHtml(linkOf(model.uri).href)}">the model's page</a>` : "the model's page"}: each prediction with its applicability-domain verdict and the most similar training structures.`,
    "<strong>Document it</strong>: a QMRF of the model (its page), a QPRF of a prediction (the prediction's page), both editable, in PDF too.",
  ];
  const readAcross = [
    '<strong><a href="/compound">Open the compound</a></strong> whose data are missing (search by name, SMILES or CAS RN), and on its page <strong>Read across</strong>: the most similar compounds with measured values of the endpoint, from every dataset you may read.',
    '<strong>Make a category</strong> of them (a similarity, a substructure, a descriptor range, a profiler’s alert or class), with its data matrix.',
    '<strong>Fill the gap side by side</strong>: read-across (GenRA), the trend within the category, the worst case and any QSAR model, each with its uncertainty.',
    '<strong>Assess it</strong> under one of the RAAF scenarios: the data’s evidence beside each assessment element, your scores, the method you choose and your conclusion; then the report as PDF.',
  ];
  return `<h2>Start here: from a table to a documented prediction</h2>
<ol class="path">${steps.map((st) => `<li>${st}</li>`).join('\n')}</ol>
<h2>Or read across: a data gap filled from similar compounds</h2>
<ol class="path">${readAcross.map((st) => `<li>${st}</li>`).join('\n')}</ol>`;
}
