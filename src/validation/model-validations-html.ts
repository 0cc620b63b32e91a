import type { Services } from '../core/services.ts';
import { escapeHtml, iriHtml, formatNumber } from '../rdf/html.ts';
import { resourceTree, type Tree } from '../rdf/resource-tree.ts';
import { selectUris } from '../store/query-helpers.ts';
import type { ModelDescription } from '../model/model-codec.ts';
import { datasetSelectHtml } from '../dataset/dataset-page.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import { keyStatistics } from './statistic-labels.ts';
import { baselineOfStatistics } from './baseline.ts';
import { DOMAIN_OPTION } from '../learning/applicability-domain.ts';
import { CONFORMAL_PARAMETERS } from '../learning/conformal.ts';
import { validationQueries } from './validation-queries.ts';
import { learnerOf, parseAlgorithmParams } from './validation-runner.ts';
import { ONNX_IMPORT_ID } from '../algorithm/catalogue.ts';

/**
 * The validations section of a model's page: the statistics of its validations and of the
 * cross-validations of its recipe, and forms that start more (on a test dataset, on a split of
 * its training data, a cross-validation of its recipe).
 */
export async function modelValidationsHtml(services: Pick<Services, 'uris' | 'store'>, datasets: DatasetStore, d: ModelDescription, canRead: (uri: string) => boolean): Promise<string> {
  const { store } = services;
  // the recipe (algorithm, parameters, target, training data) for the forms that repeat it: the
  // learner's own parameters (a model also records what its learner does not take, such as the
  // standardisation its training structures went through)
  let learnerParameters: Set<string> | undefined;
  try {
    learnerParameters = new Set(learnerOf(services, d.algorithm).parameters.map((p) => p.name));
  } catch {
    learnerParameters = undefined; // not a learner (a supermodel's steps): the recipe's defaults, below
  }
  let algorithmParams = Object.entries(d.parameters)
    .filter(([k]) => !learnerParameters || learnerParameters.has(k))
    // the domain is the model's own, not a parameter of its learner (fold models carry none)
    .filter(([k]) => k !== DOMAIN_OPTION.name)
    // calibration parameters at their defaults (none) need not be repeated
    .filter(([k, v]) => !CONFORMAL_PARAMETERS.some((p) => p.name === k && String(p.default) === v))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join(';');
  try {
    parseAlgorithmParams(learnerOf(services, d.algorithm), algorithmParams);
  } catch {
    algorithmParams = ''; // not a learner's own parameters (a supermodel's steps): the recipe's defaults
  }
  const recipe = `<input type="hidden" name="dataset_uri" value="${escapeHtml(d.trainingDataset ?? '')}">
<input type="hidden" name="algorithm_uri" value="${escapeHtml(d.algorithm)}">
<input type="hidden" name="prediction_feature" value="${escapeHtml(d.dependent)}">${algorithmParams ? `\n<input type="hidden" name="algorithm_params" value="${escapeHtml(algorithmParams)}">` : ''}`;
  const validations = (await selectUris(store, validationQueries.validations({ model: d.uri }))).filter((v) => services.uris.isIn('validation', v) && canRead(v));
  // a model trained here has a recipe (algorithm, parameters, training data) to repeat; an imported one has not
  const { trainingDataset } = d;
  const hasRecipe = !!trainingDataset && services.uris.idIn('algorithm', d.algorithm) !== ONNX_IMPORT_ID;
  const crossvalidations = trainingDataset ? (await selectUris(store, validationQueries.crossvalidations({ algorithm: d.algorithm, dataset: trainingDataset }))).filter(canRead) : [];
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
    // what the figures are read against: the majority class, or the mean predictor, on the same rows
    const baseline = baselineOfStatistics(stats, task, tree);
    const against = !baseline
      ? '–'
      : baseline.kind === 'majority class'
        ? `accuracy ${formatNumber(baseline.accuracy)} <small>(always “${escapeHtml(baseline.classValue)}”)</small>`
        : `RMSE ${formatNumber(baseline.rootMeanSquaredError)}, R² 0 <small>(always the mean)</small>`;
    return `<tr><td>${iriHtml(uri, kind)}</td>${keyStatistics(task)
      .map(([k, name]) => `<td title="${escapeHtml(name)}">${escapeHtml(name)} ${formatNumber(typeof stats[k] === 'number' ? (stats[k] as number) : undefined)}</td>`)
      .join('')}<td class="baseline">${against}</td><td>${formatNumber(typeof tree.numInstances === 'number' ? tree.numInstances : undefined)}</td></tr>`;
  };
  const rows = [...(await Promise.all(validations.map((v) => row(v, v)))), ...(await Promise.all(crossvalidations.map((c) => row(c, services.uris.subgraph(c, 'statistics')))))].filter((r) => r);
  return `<h2>Validations</h2>
${rows.length ? `<table class="report sortable"><thead><tr><th>validation</th><th colspan="4">statistics</th><th>baseline</th><th>rows</th></tr></thead><tbody>${rows.join('')}</tbody></table>` : '<p>None yet.</p>'}
<h3>Validate</h3>
<form class="run" method="post" action="/validation/test_set_validation">
<input type="hidden" name="model_uri" value="${escapeHtml(d.uri)}">
<p>${(await datasetSelectHtml(datasets, canRead, { name: 'test_dataset_uri', label: 'Test dataset' })).html}
<button type="submit">Validate this model on it</button></p>
</form>
${
  hasRecipe
    ? `<form class="run" method="post" action="/validation/training_test_split">
${recipe}
<p><label>Training share <input name="split_ratio" type="number" min="0.01" max="0.99" step="0.01" value="0.67"></label> <label>Random seed <input name="random_seed" type="number" value="1"></label>
<button type="submit">Validate the recipe on a split of the training data</button></p>
</form>
<form class="run" method="post" action="/crossvalidation">
${recipe}
<p><label>Folds <input name="num_folds" type="number" min="2" max="100" value="10"></label> <label>Random seed <input name="random_seed" type="number" value="1"></label>
<button type="submit">Cross-validate this recipe</button></p>
</form>`
    : ''
}
`;
}
