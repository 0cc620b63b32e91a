import { datasetSelectHtml } from '../dataset/dataset-page.ts';
import type { DatasetStore } from '../dataset/dataset-store.ts';
import type { TripleStore } from '../store/triple-store.ts';
import { readFeatureRecords, type FeatureRecord } from '../feature/feature-record.ts';
import { isOwnColumn, targetChoice } from './target-choice.ts';
import { escapeHtml, iriHtml, linkOf } from '../rdf/html.ts';
import type { ParameterSpec } from '../learning/learner.ts';
import type { AlgorithmDefinition } from './catalogue.ts';
import { DOMAIN_METHODS, DOMAIN_OPTION } from '../learning/applicability-domain.ts';

/** The applicability-domain choices of the training form, in words. */
const DOMAIN_LABELS: Record<string, string> = {
  auto: 'by the features (recommended): similarity to the training compounds',
  none: 'none',
  ...Object.fromEntries(DOMAIN_METHODS.map((m) => [m.id, m.title])),
};

/**
 * Algorithm pages for people: the catalogue grouped by what the algorithms do, and on each
 * algorithm's page a form that runs it (dataset, prediction feature and its own parameters),
 * posting to `POST /algorithm/{id}` like any client; the browser then follows the task to the
 * result.
 */

const KIND_TITLES: Record<AlgorithmDefinition['kind'], string> = {
  learner: 'Learning (builds a model)',
  super: 'Superalgorithm (a whole modelling recipe in one model)',
  descriptors: 'Descriptor calculation',
  selection: 'Feature selection',
  domain: 'Applicability domain',
  cleanup: 'Data cleanup',
  standardisation: 'Structure standardisation (QSAR-ready structures)',
  mining: 'Pattern mining',
  import: 'Models trained elsewhere (imported)',
};

/**
 * The catalogue grouped by what the algorithms do, learners by the endpoint they predict
 * (numbers or classes); links keep a chosen dataset (`?dataset_uri=`), and with one chosen the
 * learners that cannot learn any of its columns are left out, saying why.
 */
export async function catalogueHtml(defs: AlgorithmDefinition[], ctx: { datasets: DatasetStore; store: TripleStore; dataset?: string }): Promise<string> {
  const { dataset } = ctx;
  const query = dataset ? `?dataset_uri=${encodeURIComponent(dataset)}` : '';
  // the endpoints a chosen dataset can give: its own columns (descriptors calculated here are not endpoints)
  const meta = dataset ? await ctx.datasets.readMeta(dataset) : undefined;
  const own = meta ? [...(await readFeatureRecords(ctx.store, meta.features)).values()].filter(isOwnColumn) : [];
  const has = { regression: own.some((f) => f.numeric), classification: own.some((f) => f.nominal) };
  const item = (d: AlgorithmDefinition) => `<li><a href="/algorithm/${encodeURIComponent(d.id)}${query}">${escapeHtml(d.title)}</a></li>`;
  const groups = (Object.keys(KIND_TITLES) as AlgorithmDefinition['kind'][])
    .map((kind) => {
      const members = defs.filter((d) => d.kind === kind);
      if (!members.length) return '';
      if (kind !== 'learner') return `<h2>${escapeHtml(KIND_TITLES[kind])}</h2><ul>${members.map(item).join('')}</ul>`;
      return (['regression', 'classification'] as const)
        .map((task) => {
          const title = task === 'regression' ? 'Learning a numeric endpoint (regression)' : 'Learning classes (classification)';
          const of = members.filter((d) => d.kind === 'learner' && (d.learner.task === task || d.learner.forTarget !== undefined));
          if (meta && !has[task]) return `<h2>${title}</h2><p>Not for this dataset: it has no ${task === 'regression' ? 'numeric' : 'class'} column of its own.</p>`;
          return `<h2>${title}</h2><ul>${of.map(item).join('')}</ul>`;
        })
        .join('\n');
    })
    .join('\n');
  return `${meta ? `<p>For the dataset ${iriHtml(meta.uri, meta.title ?? meta.uri)}: choose what to run.</p>` : ''}${groups}`;
}

function parameterInput(p: ParameterSpec): string {
  const name = escapeHtml(p.name);
  const label = `<span title="${escapeHtml(p.description)}">${name}</span>`;
  if (p.type === 'boolean')
    return `<label>${label} <select name="${name}"><option${p.default === true ? ' selected' : ''}>true</option><option${p.default === false ? ' selected' : ''}>false</option></select></label>`;
  if (p.choices?.length) return `<label>${label} <select name="${name}">${p.choices.map((c) => `<option${c === p.default ? ' selected' : ''}>${escapeHtml(c)}</option>`).join('')}</select></label>`;
  const numeric = p.type === 'integer' || p.type === 'number';
  const bounds = numeric ? `${p.min !== undefined ? ` min="${p.min}"` : ''}${p.max !== undefined ? ` max="${p.max}"` : ''} step="${p.type === 'integer' ? 1 : 'any'}"` : '';
  return `<label>${label} <input name="${name}" type="${numeric ? 'number' : 'text'}" value="${escapeHtml(String(p.default))}"${bounds}></label>`;
}

/** Does running this algorithm ask for a prediction feature? */
function wantsTarget(def: AlgorithmDefinition): 'required' | 'optional' | undefined {
  if (def.kind === 'learner' || def.kind === 'super') return 'required';
  if (def.kind === 'selection') return def.method.supervised ? 'required' : undefined;
  // an applicability domain leaves the endpoint out
  if (def.kind === 'domain') return 'optional';
  return undefined;
}

/** The form that runs an algorithm on a dataset (chosen from the stored ones; its features offered as the target). */
export async function runFormHtml(def: AlgorithmDefinition, ctx: { datasets: DatasetStore; store: TripleStore; chosen?: string; canRead: (uri: string) => boolean }): Promise<string> {
  if (def.kind === 'import') return importFormHtml();
  const target = wantsTarget(def);
  // choosing another dataset reloads the page with its features (the page's script does it)
  const { html: datasetSelect, chosen } = await datasetSelectHtml(ctx.datasets, ctx.canRead, { name: 'dataset_uri', label: 'Dataset', chosen: ctx.chosen, reload: Boolean(target) });
  let targetField = '';
  if (target) {
    if (chosen) {
      const meta = await ctx.datasets.readMeta(chosen);
      const records = await readFeatureRecords(ctx.store, meta?.features ?? []);
      const { ordered, chosen: endpoint } = targetChoice([...records.values()], def.kind === 'learner' && !def.learner.forTarget ? def.learner.task : undefined);
      const option = (f: FeatureRecord) => `<option value="${escapeHtml(f.uri)}"${target === 'required' && f.uri === endpoint ? ' selected' : ''}>${escapeHtml(f.title ?? f.uri)}</option>`;
      const own = ordered.filter(isOwnColumn);
      const calculated = ordered.filter((f) => !isOwnColumn(f));
      // the dataset's own columns first, the descriptors calculated here after them
      const options =
        calculated.length && own.length
          ? `<optgroup label="The dataset's own columns">${own.map(option).join('')}</optgroup><optgroup label="Calculated descriptors">${calculated.map(option).join('')}</optgroup>`
          : ordered.map(option).join('');
      targetField =
        target === 'required'
          ? `<label>Feature to predict <select name="prediction_feature" required>${endpoint ? '' : '<option value="">choose the endpoint</option>'}${options}</select></label>`
          : `<label>The endpoint, left out of the domain <select name="prediction_feature"><option value="">none</option>${options}</select></label> <small>(by default the domain uses the descriptors calculated here, not the table's own values)</small>`;
    } else
      targetField = `<label>${target === 'required' ? 'Feature to predict' : 'The endpoint, left out of the domain'} (URI) <input name="prediction_feature" size="50"${target === 'required' ? ' required' : ''}></label>`;
  }
  const extra =
    def.kind === 'learner'
      ? `<label title="${escapeHtml(DOMAIN_OPTION.description)}">Applicability domain <select name="applicability_domain">${DOMAIN_OPTION.choices!.map((c) => `<option value="${c}"${c === DOMAIN_OPTION.default ? ' selected' : ''}>${escapeHtml(DOMAIN_LABELS[c] ?? c)}</option>`).join('')}</select></label>`
      : def.kind === 'super'
        ? '<label>Learning algorithm <input name="model_learning" value="random-forest-regression" size="30" required></label></p>\n<p><label><input type="checkbox" name="structure_standardisation" value="standardise-structures" checked> Standardise the structures first (salts stripped, charges neutralised, one tautomer): the model predicts a salt as its parent</label>'
        : '';
  const parameters = def.parameters.map((p) => `<p>${parameterInput(p)}</p>`).join('\n');
  const chooseDataset = chosen ? '' : `<p><small>The features to predict are listed once a dataset is chosen: open this page from a dataset's page, or <a href="/dataset">choose one</a>.</small></p>`;
  return `<h2>Run it</h2>
<form class="run" method="post" action="${escapeHtml(linkOf(`/algorithm/${def.id}`).href)}">
<p>${datasetSelect}</p>
${targetField ? `<p>${targetField}</p>` : ''}
${extra ? `<p>${extra}</p>` : ''}
${parameters}
${chooseDataset}
<p><button type="submit">Run ${escapeHtml(def.title)}</button></p>
</form>`;
}

/** The upload form of an imported model: the file and its variables, posted to /model. */
function importFormHtml(): string {
  return `<h2>Import a model</h2>
<form class="run" method="post" enctype="multipart/form-data" action="${escapeHtml(linkOf('/model').href)}">
<p><label>ONNX file <input type="file" name="file" accept=".onnx,application/onnx" required></label></p>
<p><label>Independent features (URIs, in the order of the input columns, one per line) <textarea name="independent_features" rows="4" cols="60" required></textarea></label></p>
<p><label>Prediction feature (URI) <input name="prediction_feature" size="50" required></label></p>
<p><label>Title <input name="title" size="50"></label></p>
<p><label>Training dataset (URI, optional: its means fill missing values) <input name="training_dataset" size="50"></label></p>
<p><label>How it was made <textarea name="algorithm_description" rows="3" cols="60"></textarea></label></p>
<p><button type="submit">Import</button></p>
</form>`;
}
