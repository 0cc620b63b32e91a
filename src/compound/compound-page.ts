import { escapeHtml, linkOf } from '../rdf/html.ts';

/**
 * Compound pages for people: a structure search (exact name or identifier, substructure by
 * SMARTS, similarity to a SMILES) and results as a grid of depictions.
 */

/** The search form; `current` keeps what was searched. */
export function searchFormHtml(current: { kind?: 'search' | 'smarts' | 'similarity'; text?: string; threshold?: string }): string {
  const option = (value: string, label: string) => `<option value="${value}"${current.kind === value ? ' selected' : ''}>${label}</option>`;
  return `<form class="run search" method="get" action="/compound">
<p><label>Find <select name="kind" data-search-kind>${option('search', 'by name or identifier (SMILES, InChI, InChIKey, CAS)')}${option('smarts', 'by substructure (SMARTS)')}${option('similarity', 'by similarity to a SMILES')}</select></label>
<input name="q" size="50" required value="${escapeHtml(current.text ?? '')}" aria-label="what to find" data-structure-editor="smiles">
<label>Tanimoto ≥ <input name="threshold" type="number" min="0" max="1" step="0.05" value="${escapeHtml(current.threshold ?? '0.7')}"></label>
<button type="submit">Search</button></p></form>`;
}

/** Compounds as a grid of depictions (at most `limit`), with their similarity when there is one. */
export function compoundGridHtml(uris: string[], similarity?: Map<string, number>, limit = 200): string {
  const shown = uris.slice(0, limit);
  const cells = shown
    .map((u) => {
      const path = linkOf(u).href;
      const score = similarity?.get(u);
      return `<figure class="compound"><a href="${escapeHtml(path)}"><img src="${escapeHtml(path)}?media=image%2Fsvg%2Bxml&amp;w=150&amp;h=110" width="150" height="110" loading="lazy" alt="structure of ${escapeHtml(u)}"></a><figcaption><a href="${escapeHtml(path)}">${escapeHtml(path)}</a>${score === undefined ? '' : ` · ${score.toFixed(3)}`}</figcaption></figure>`;
    })
    .join('\n');
  return `<p>${uris.length} compound(s)${uris.length > shown.length ? `, the first ${shown.length} shown` : ''}.</p><div class="grid">${cells}</div>`;
}
