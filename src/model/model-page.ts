import type { Services } from '../core/services.ts';
import { featureTitles } from '../feature/feature-record.ts';
import { escapeHtml, iriHtml, linkOf } from '../rdf/html.ts';
import { titlesOf } from '../store/query-helpers.ts';
import { algorithmById } from '../algorithm/catalogue.ts';
import type { ModelDescription } from './model-codec.ts';
import { CONFORMAL_METHODS, confidenceLevels, guaranteeText, percent, type ConformalState } from '../learning/conformal.ts';

/**
 * A model's page for people: what it was trained on and what it predicts, a form that predicts
 * a structure (typed as SMILES or drawn), its validations (`validationsHtml`, made by the
 * validation component: validation/model-validations-html.ts) and a QMRF report.
 */
export async function modelPageHtml(services: Pick<Services, 'store'>, d: ModelDescription, validationsHtml: string, datasetPicker: string): Promise<string> {
  const { store } = services;
  const titles = await featureTitles(
    store,
    [d.dependent, ...d.independent].filter((f) => f),
  );
  const feature = (f: string) => iriHtml(f, titles.get(f) ?? f);
  // what it was trained on and by, named by their titles
  const named = await titlesOf(store, d.trainingDataset ? [d.trainingDataset] : []);
  const algorithm = algorithmById(d.algorithm.split('/').pop() ?? '')?.title;
  const path = linkOf(d.uri).href;
  // what applies to it: a predictive model predicts, is validated and documented; an AD model
  // estimates; a filtering model cleans datasets
  const kind = d.dependent ? 'predictive' : d.adMetric ? 'domain' : 'cleanup';
  const facts = `<dl class="facts">
<dt>Trained on</dt><dd>${d.trainingDataset ? iriHtml(d.trainingDataset, named.get(d.trainingDataset) ?? d.trainingDataset) : 'no dataset of this service (an imported model)'}</dd>${d.description ? `\n<dt>Made</dt><dd>${escapeHtml(d.description)}</dd>` : ''}
<dt>Algorithm</dt><dd>${iriHtml(d.algorithm, algorithm ?? d.algorithm)}</dd>
<dt>${kind === 'predictive' ? 'Predicts' : 'Gives'}</dt><dd>${d.dependent ? feature(d.dependent) : kind === 'domain' ? 'whether a structure is inside the applicability domain, and its metric' : 'a cleaned dataset'}</dd>
<dt>From</dt><dd>${d.independent.length} features: ${d.independent.slice(0, 12).map(feature).join(', ')}${d.independent.length > 12 ? ' …' : ''}</dd>
${uncertaintyHtml(d)}${d.hasDomain.length ? `<dt>Applicability domain</dt><dd>${d.hasDomain.map((m) => (m === d.uri ? 'carried by the model: every prediction says whether the structure is inside it' : iriHtml(m))).join(', ')}</dd>` : ''}
</dl>`;
  const structureForm = (title: string, button: string) => `<h2>${title}</h2>
<form class="run predict" method="post" action="${escapeHtml(path)}">
<p><label>SMILES <input name="smiles" size="60" required placeholder="e.g. CCCCCCCCO" data-structure-editor="smiles"></label> <button type="submit">${button}</button></p>
</form>`;
  if (kind === 'cleanup') return `${facts}\n<p>A filtering model: post a dataset's URI as <code>dataset_uri</code> to it to get the dataset cleaned by its rules.</p>`;
  if (kind === 'domain') return `${facts}\n${structureForm('Is a structure inside this domain?', 'Estimate')}`;
  return `${facts}
${structureForm('Predict a structure', 'Predict')}
<h2>Predict a dataset</h2>
<form class="run" method="post" action="${escapeHtml(path)}">
<p>${datasetPicker} <button type="submit">Predict every structure</button></p>
<p><small>A dataset of structures alone will do: the model calculates the descriptors it needs. To predict a table of your own, <a href="/dataset">upload it</a> first. The predictions open as a dataset, with each row's applicability-domain verdict; show only the rows inside the domain from there.</small></p>
</form>
${validationsHtml}
<h2>Regulatory documents</h2>
<form class="run" method="post" action="/reach_report/qmrf"><input type="hidden" name="model_uri" value="${escapeHtml(d.uri)}"><p><button type="submit">Make a QMRF report of this model</button></p></form>`;
}

/** What a conformal model's predictions carry, and what its guarantee says (nothing for a model without calibration). */
function uncertaintyHtml(d: ModelDescription): string {
  const method = d.parameters.conformal;
  if (!method || method === 'none') return '';
  let levels: number[];
  try {
    levels = confidenceLevels(d.parameters.confidence_level ?? '0.9');
  } catch {
    return '';
  }
  const normalisation = d.parameters.conformal_normalisation;
  const how = `${method}${normalisation && normalisation !== 'none' ? `, normalised by ${normalisation}` : ''}`;
  const guarantee = CONFORMAL_METHODS.includes(method as never) ? guaranteeText({ method: method as ConformalState['method'], levels }) : '';
  return `<dt>Uncertainty</dt><dd>conformal prediction (${escapeHtml(how)}): every prediction comes with its ${escapeHtml(levels.map(percent).join(', '))} prediction interval, or prediction set with each class's p-value; ${escapeHtml(guarantee)}</dd>\n`;
}
