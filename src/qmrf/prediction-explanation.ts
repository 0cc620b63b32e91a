import type { DatasetMeta } from '../dataset/dataset-store.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import { DOMAIN_METHODS } from '../learning/applicability-domain.ts';
import { learnerById } from '../learning/learners.ts';
import type { ModelStore } from '../model/model-store.ts';
import { ot } from '../rdf/namespaces.ts';
import { escapeHtml, formatNumber, iriHtml, linkOf } from '../rdf/html.ts';
import type { TripleStore } from '../store/triple-store.ts';
import type { PredictionFacts, QprfFacts } from './qprf-facts.ts';
import { standardisedInputText } from '../model/standardisation-record.ts';
import { neighbourSourceText, predictionReading } from './prediction-reading.ts';

/** Predictions explained on a page: at most this many rows (each reads the training set's nearest structures). */
export const EXPLAINED_ROWS = 3;

/**
 * What a person needs beside a predicted value, on the page of a prediction dataset (the model's
 * form leads there): per predicted structure (the first EXPLAINED_ROWS), the value with its
 * units, what the model's confidence means (an uncertain class is not shown as a firm one), the
 * applicability-domain verdicts with their metric and its limit, the most similar training
 * structures with their measured and out-of-fold predicted values (the facts a QPRF reports), a
 * flag when the prediction disagrees with all of them, and the form that makes the QPRF. Empty for a dataset a model did not make.
 */
export async function predictionExplanationHtml(
  deps: { facts: QprfFacts; models: Pick<ModelStore, 'load'>; store: TripleStore },
  meta: DatasetMeta,
  compounds: string[],
  canRead: (uri: string) => boolean,
): Promise<string> {
  const source = meta.annotations.find(([p]) => p.equals(ot('hasSource')))?.[1].value;
  // the explanation shows the model's training structures and values: only to who may read them
  if (!source || !canRead(source)) return '';
  const model = await deps.models.load(source);
  if (!model || (model.task !== 'regression' && model.task !== 'classification') || !model.trainingDataset || !canRead(model.trainingDataset)) return '';
  const shown = [...new Set(compounds)].slice(0, EXPLAINED_ROWS);
  const target = (await readFeatureRecords(deps.store, [model.dependent])).get(model.dependent);
  // a class is not a quantity: a units row's "[class]" stays off the class shown
  const units = target?.units && model.task === 'regression' ? ` ${target.units}` : '';
  const methods = new Map<string, string>();
  for (const d of [
    ...(model.domain ? [{ model: model.uri, method: model.domain.method }] : []),
    ...(await Promise.all(model.linkedDomains.map(async (l) => ({ model: l.model, method: (await deps.models.load(l.model))?.learnerId ?? '' })))),
  ])
    methods.set(d.model, d.method);
  const cards: string[] = [];
  for (const compound of shown) {
    let facts: PredictionFacts;
    try {
      facts = await deps.facts.of(await deps.facts.check({ datasetUri: meta.uri, compoundUri: compound }));
    } catch {
      continue; // a row whose compound is gone: the table still shows it
    }
    cards.push(cardHtml(facts, { units, targetTitle: target?.title ?? model.dependent, methods }));
  }
  if (!cards.length) return '';
  const more =
    compounds.length > shown.length ? `<p><small>The first ${shown.length} structures are explained here; every row has its values in the table below and in each download.</small></p>` : '';
  return `<h2>The prediction${shown.length > 1 ? 's' : ''}, explained</h2>\n${cards.join('\n')}${more}`;
}

function cardHtml(f: PredictionFacts, about: { units: string; targetTitle: string; methods: Map<string, string> }): string {
  const { model, prediction } = f;
  const reading = predictionReading(f);
  const compound = linkOf(f.compound.uri).href;
  const number = prediction.value ? `${escapeHtml(shown(prediction.value.value))}${escapeHtml(about.units)}` : '';
  // a class barely favoured (or a tie) is not printed as a firm class
  const value = !prediction.value
    ? 'not predicted (the structure lacks the model’s variables)'
    : reading.certainty?.uncertain
      ? `<span class="uncertain">${number} (uncertain)</span> <small>${escapeHtml(reading.certainty.text)}</small>`
      : `<strong>${number}</strong>${reading.certainty ? ` <small>${escapeHtml(reading.certainty.text)}</small>` : ''}`;
  const flag = reading.disagreesWithNeighbours ? `\n<p class="warning"><strong>Disagrees with its neighbours:</strong> ${escapeHtml(reading.disagreesWithNeighbours.text)}</p>` : '';
  const confidence = prediction.confidence
    ? `${formatNumber(Number(prediction.confidence.value))} <small>(${escapeHtml(confidenceMeaning(model.learnerId, model.task === 'classification' ? 'classification' : 'regression'))})</small>`
    : '–';
  const domains = prediction.domains.length
    ? prediction.domains
        .map((d) => {
          const method = DOMAIN_METHODS.find((m) => m.id === about.methods.get(d.model));
          const verdict = d.inside === undefined ? 'no estimate' : d.inside ? '<strong class="inside">inside</strong>' : '<strong class="outside">outside: treat the prediction with caution</strong>';
          const metric = d.metric === undefined ? '' : `; ${escapeHtml(method?.metric ?? 'metric')} ${formatNumber(d.metric)}${d.limit ? ` (${escapeHtml(d.limit.text)})` : ''}`;
          return `<li>${verdict}${metric}${method ? ` <small>(${escapeHtml(method.title)}${d.model === model.uri ? ', carried by the model' : `, ${iriHtml(d.model, 'AD model')}`})</small>` : ''}</li>`;
        })
        .join('')
    : '<li>none: the model carries no applicability domain (train it again with one, or fit one from the catalogue)</li>';
  // a model that standardises predicts the structure's parent: said beside the value
  const input = f.standardisation ? `<dt>Structure predicted</dt><dd>${escapeHtml(standardisedInputText(f.standardisation.options, f.standardisation.parent))}</dd>\n` : '';
  const neighbours = f.neighbours
    .map((n) => {
      const href = linkOf(n.compound.uri).href;
      return `<tr><td><a href="${escapeHtml(href)}"><img src="${escapeHtml(href)}?media=image%2Fsvg%2Bxml&amp;w=120&amp;h=90" width="120" height="90" loading="lazy" alt="${escapeHtml(n.compound.smiles)}"></a></td><td>${formatNumber(n.similarity)}</td><td>${escapeHtml(n.measured === undefined ? '–' : shown(n.measured))}</td><td>${escapeHtml(n.predicted === undefined ? '–' : shown(n.predicted))}</td></tr>`;
    })
    .join('');
  return `<section class="explained" aria-label="Prediction of ${escapeHtml(f.compound.smiles)}">
<div class="structure"><a href="${escapeHtml(compound)}"><img src="${escapeHtml(compound)}?media=image%2Fsvg%2Bxml&amp;w=220&amp;h=160" width="220" height="160" alt="${escapeHtml(f.compound.smiles)}"></a><br><code>${escapeHtml(f.compound.smiles)}</code></div>
<dl class="facts">
<dt>${escapeHtml(about.targetTitle)}</dt><dd>${value} <small>by ${iriHtml(model.uri, model.title)}</small></dd>
${input}<dt>Confidence</dt><dd>${confidence}</dd>
<dt>Applicability domain</dt><dd><ul class="plain">${domains}</ul></dd>
</dl>${flag}
<table class="report neighbours"><caption>The ${f.neighbours.length} most similar of the ${f.trainingRows} training structures (Tanimoto, Morgan fingerprints); ${escapeHtml(neighbourSourceText(f))}</caption><thead><tr><th>structure</th><th>similarity</th><th>measured</th><th>predicted out of fold</th></tr></thead><tbody>${neighbours}</tbody></table>
<form class="run" method="post" action="/reach_report/qprf"><input type="hidden" name="dataset_uri" value="${escapeHtml(f.source.kind === 'dataset' ? f.source.uri : '')}"><input type="hidden" name="compound_uri" value="${escapeHtml(f.compound.uri)}"><button type="submit">Make a QPRF of this prediction</button></form>
</section>`;
}

/** A value as a page shows it: numbers to 4 significant digits, other values as they are. */
function shown(value: string): string {
  const n = Number(value);
  return value.trim() !== '' && Number.isFinite(n) ? formatNumber(n) : value;
}

/** What a learner's confidence means, from its description ("Confidence: …"), or by its task. */
export function confidenceMeaning(learnerId: string, task: 'regression' | 'classification'): string {
  const description = learnerById(learnerId)?.description ?? '';
  const sentence = /\bconfidence(?: is|:)?\s+(.+?)(?:\.\s|\.$)/is.exec(description)?.[1];
  if (sentence) return `${sentence.replace(/\s+/g, ' ')}`;
  return task === 'classification' ? 'the probability the model gives the predicted class' : 'from 0 (no better than the training mean) to 1';
}
