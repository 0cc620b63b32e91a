import { z } from 'zod';
import type { Context } from 'koa';
import { answers, param, type DescribedRoutes } from '../http/route-description.ts';
import { sendNegotiated } from '../http/respond.ts';
import { escapeHtml, iriHtml, renderPage } from '../rdf/html.ts';
import { csvField } from '../http/csv-text.ts';
import type { Services } from '../core/services.ts';
import { MAX_ANALOGUES, type AnalogueSearch, type Analogues } from './analogue-search.ts';
import { descriptorRanges } from './descriptor-values.ts';
import { profileTermsOf } from './profile-terms.ts';

/** Read-across's routes: the analogues of a target for an endpoint. */
export function readAcrossRoutes(routes: DescribedRoutes, services: Pick<Services, 'uris'>, analogues: AnalogueSearch): void {
  routes.add(
    {
      method: 'GET',
      path: '/compound/:id/analogues',
      summary: 'Read-across: the compounds most similar to this one that have measured values of an endpoint, in every dataset you may read, each value with its source',
      tag: 'compound',
      params: z.object({
        endpoint: param.required('A feature URI, or an ontology term (e.g. an otee: endpoint): every measured feature owl:sameAs it, pooled'),
        k: param.whole('k', 1, MAX_ANALOGUES, `At most this many analogues, the most similar first (default 10, at most ${MAX_ANALOGUES})`),
        threshold: param.fraction('threshold', 0, 'The least Tanimoto similarity (Morgan, radius 2, 2048 bits; default 0)'),
        smarts: param.optional('Only analogues holding this substructure (SMARTS)'),
        descriptor_range: param.optional('Only analogues with RDKit descriptors within a range of the target’s: name:delta, several separated by commas (e.g. CrippenClogP:1)'),
        profile: param.optional(
          'Only analogues whose profile carries these profilers’ rules or classes (IRIs, separated by spaces: a Benigni–Bossa alert, a Verhaar class; see /compound/{id}/profile)',
        ),
      }),
      responses: answers(['application/json', 'text/csv', 'text/html', 'text/uri-list'], 400, 404),
    },
    async (ctx, p) => {
      const found = await analogues.find({
        target: services.uris.item('compound', ctx.params.id),
        endpoint: p.endpoint.trim(),
        k: p.k ?? 10,
        threshold: p.threshold,
        smarts: p.smarts?.trim() || undefined,
        ranges: descriptorRanges(p.descriptor_range ? [p.descriptor_range] : []),
        profile: profileTermsOf(p.profile ? [p.profile] : []),
        canRead: ctx.state.canRead ?? (() => true),
      });
      await sendAnalogues(ctx, found, { threshold: p.threshold, k: p.k ?? 10 });
    },
  );
}

function sendAnalogues(ctx: Context, found: Analogues, asked: { threshold: number; k: number }): Promise<void> {
  return sendNegotiated(ctx, {
    'application/json': () => `${JSON.stringify(analoguesJson(found))}\n`,
    'text/csv': () => analoguesCsv(found),
    'text/html': () => renderPage({ title: `Analogues of ${found.target}`, intro: `${analoguesHtml(found)}${categoryFormHtml(found, asked)}` }),
    'text/uri-list': () => found.analogues.map((a) => `${a.compound}\r\n`).join(''),
  });
}

function analoguesJson(found: Analogues) {
  const values = (list: Analogues['targetValues']) => list.map((v) => ({ value: v.value.value, feature: v.feature, dataset: v.dataset }));
  return {
    target: found.target,
    smiles: found.targetSmiles,
    endpoint: found.endpoint,
    features: found.features,
    targetValues: values(found.targetValues),
    candidates: found.candidates,
    analogues: found.analogues.map((a) => ({ compound: a.compound, smiles: a.smiles, similarity: a.similarity, values: values(a.values) })),
  };
}

/** One line per measured value: compound, SMILES, similarity, value, feature, dataset. */
function analoguesCsv(found: Analogues): string {
  const lines = [['compound', 'SMILES', 'similarity', 'value', 'feature', 'dataset']];
  for (const a of found.analogues) for (const v of a.values) lines.push([a.compound, a.smiles ?? '', String(a.similarity), v.value.value, v.feature, v.dataset]);
  return lines.map((l) => `${l.map(csvField).join(',')}\r\n`).join('');
}

function analoguesHtml(found: Analogues): string {
  const own = found.targetValues.length ? found.targetValues.map((v) => `${escapeHtml(v.value.value)} (${iriHtml(v.dataset)})`).join('; ') : 'none: a data gap';
  const rows = found.analogues
    .map(
      (a, i) =>
        `<tr><td>${i + 1}</td><td>${iriHtml(a.compound)}</td><td>${escapeHtml(a.smiles ?? '')}</td><td>${a.similarity.toFixed(3)}</td><td>${a.values.map((v) => `${escapeHtml(v.value.value)} <small>(${iriHtml(v.dataset)})</small>`).join('<br>')}</td></tr>`,
    )
    .join('');
  return `<p>Target ${iriHtml(found.target)} ${escapeHtml(found.targetSmiles ?? '')}; endpoint ${iriHtml(found.endpoint)}; its own measured values: ${own}.</p>
<p>${found.analogues.length} of ${found.candidates} compounds with measured values (Tanimoto on Morgan bits, radius 2, 2048 bits; ties by compound id).</p>
<table><thead><tr><th>rank</th><th>compound</th><th>SMILES</th><th>similarity</th><th>measured (source dataset)</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The analogues page's next step: a category of them (its rule as the search's). */
function categoryFormHtml(found: Analogues, asked: { threshold: number; k: number }): string {
  return `<h2>Make a category of them</h2><form class="run" method="post" action="/category">
<input type="hidden" name="target" value="${escapeHtml(found.target)}"><input type="hidden" name="endpoint" value="${escapeHtml(found.endpoint)}">
<p><label>least similarity <input name="similarity_threshold" value="${asked.threshold}" size="4"></label> <label>at most <input name="max_sources" value="${asked.k}" size="4"> sources</label> <label>holding the substructure (SMARTS, optional) <input name="smarts" size="20"></label> <button type="submit">Make the category</button></p></form>`;
}
