import type { Services } from '../core/services.ts';
import { featureTitles } from '../feature/feature-record.ts';
import { escapeHtml, iriHtml, linkOf } from '../rdf/html.ts';
import { resourceTree, type Tree } from '../rdf/resource-tree.ts';
import { formatNumber, keyStatistics } from '../report/statistic-labels.ts';
import { selectUris } from '../store/query-helpers.ts';
import { validationQueries } from '../validation/validation-queries.ts';
import { learnerOf, parseAlgorithmParams } from '../validation/validation-runner.ts';
import type { ModelDescription } from './model-codec.ts';
import { datasetSelectHtml } from '../dataset/dataset-page.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';

/**
 * A model's page for people: what it was trained on and what it predicts, the statistics of its
 * validations, a form that predicts a structure (typed as SMILES or drawn), and forms that
 * start validations (on a test dataset, on a split of its training data, a cross-validation of
 * its recipe) and a QMRF report.
 */
export async function modelPageHtml(services: Services, datasets: DatasetStore, d: ModelDescription, canRead: (uri: string) => boolean): Promise<string> {
  const { store } = services;
  const titles = await featureTitles(
    store,
    [d.dependent, ...d.independent].filter((f) => f),
  );
  const feature = (f: string) => iriHtml(f, titles.get(f) ?? f);
  // the recipe (algorithm, parameters, target, training data) for the forms that repeat it
  let algorithmParams = Object.entries(d.parameters)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join(';');
  try {
    parseAlgorithmParams(learnerOf(services, d.algorithm), algorithmParams);
  } catch {
    algorithmParams = ''; // not a learner's own parameters (a supermodel's steps): the recipe's defaults
  }
  const recipe = `<input type="hidden" name="dataset_uri" value="${escapeHtml(d.trainingDataset)}">
<input type="hidden" name="algorithm_uri" value="${escapeHtml(d.algorithm)}">
<input type="hidden" name="prediction_feature" value="${escapeHtml(d.dependent)}">${algorithmParams ? `\n<input type="hidden" name="algorithm_params" value="${escapeHtml(algorithmParams)}">` : ''}`;
  const path = linkOf(d.uri).href;
  const validations = (await selectUris(store, validationQueries.validations({ model: d.uri }))).filter((v) => services.uris.isIn('validation', v) && canRead(v));
  const crossvalidations = (await selectUris(store, validationQueries.crossvalidations({ algorithm: d.algorithm, dataset: d.trainingDataset }))).filter(canRead);
  const row = async (uri: string, statisticsGraph: string) => {
    const tree = resourceTree(await store.readGraph(statisticsGraph), statisticsGraph, false);
    const stats = (tree.regressionStatistics ?? tree.classificationStatistics) as Tree | undefined;
    if (!stats) return '';
    const task = tree.regressionStatistics ? 'regression' : 'classification';
    const own = resourceTree(await store.readGraph(uri), uri, false);
    const kind =
      own.numFolds !== undefined
        ? `${own.leaveOneOut ? 'leave-one-out' : `${own.numFolds}-fold`} cross-validation${own.yScramble ? ' (y-scrambled)' : ''}`
        : String(own.validationType ?? 'validation');
    return `<tr><td>${iriHtml(uri, kind)}</td>${keyStatistics(task)
      .map(([k, name]) => `<td title="${escapeHtml(name)}">${escapeHtml(name)} ${formatNumber(typeof stats[k] === 'number' ? (stats[k] as number) : undefined)}</td>`)
      .join('')}<td>${formatNumber(typeof tree.numInstances === 'number' ? tree.numInstances : undefined)}</td></tr>`;
  };
  const rows = [...(await Promise.all(validations.map((v) => row(v, v)))), ...(await Promise.all(crossvalidations.map((c) => row(c, services.uris.subgraph(c, 'statistics')))))].filter((r) => r);
  return `<dl class="facts">
<dt>Trained on</dt><dd>${iriHtml(d.trainingDataset)}</dd>
<dt>Algorithm</dt><dd>${iriHtml(d.algorithm)}</dd>
<dt>Predicts</dt><dd>${d.dependent ? feature(d.dependent) : '–'}</dd>
<dt>From</dt><dd>${d.independent.length} features: ${d.independent.slice(0, 12).map(feature).join(', ')}${d.independent.length > 12 ? ' …' : ''}</dd>
${d.hasDomain.length ? `<dt>Applicability domain</dt><dd>${d.hasDomain.map((m) => iriHtml(m)).join(', ')}</dd>` : ''}
</dl>
<h2>Predict a structure</h2>
<form class="run predict" method="post" action="${escapeHtml(path)}">
<p><label>SMILES <input name="smiles" size="60" required placeholder="e.g. CCCCCCCCO" data-structure-editor="smiles"></label> <button type="submit">Predict</button></p>
</form>
<p><small>Or predict a whole dataset: <a href="/dataset">choose it</a> and post its URI as <code>dataset_uri</code> to this model.</small></p>
<h2>Validations</h2>
${rows.length ? `<table class="report sortable"><thead><tr><th>validation</th><th colspan="4">statistics</th><th>rows</th></tr></thead><tbody>${rows.join('')}</tbody></table>` : '<p>None yet.</p>'}
<h3>Validate</h3>
<form class="run" method="post" action="/validation/test_set_validation">
<input type="hidden" name="model_uri" value="${escapeHtml(d.uri)}">
<p>${(await datasetSelectHtml(datasets, canRead, { name: 'test_dataset_uri', label: 'Test dataset' })).html}
<button type="submit">Validate this model on it</button></p>
</form>
<form class="run" method="post" action="/validation/training_test_split">
${recipe}
<p><label>Training share <input name="split_ratio" type="number" min="0.01" max="0.99" step="0.01" value="0.67"></label> <label>Random seed <input name="random_seed" type="number" value="1"></label>
<button type="submit">Validate the recipe on a split of the training data</button></p>
</form>
<form class="run" method="post" action="/crossvalidation">
${recipe}
<p><label>Folds <input name="num_folds" type="number" min="2" max="100" value="10"></label> <label>Random seed <input name="random_seed" type="number" value="1"></label>
<button type="submit">Cross-validate this recipe</button></p>
</form>
<h2>Regulatory documents</h2>
<form class="run" method="post" action="/reach_report/qmrf"><input type="hidden" name="model_uri" value="${escapeHtml(d.uri)}"><p><button type="submit">Make a QMRF report of this model</button></p></form>`;
}
