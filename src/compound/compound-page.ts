import type * as RDF from '@rdfjs/types';
import type { Context } from 'koa';
import { alternateLinks, rdfRenderers, sendNegotiated, uriList } from '../http/respond.ts';
import { escapeHtml, linkOf, renderPage } from '../rdf/html.ts';
import { df, literal, ot, xsd } from '../rdf/namespaces.ts';
import { RDF_OUTPUT_TYPES } from '../rdf/serialize.ts';
import type { CompoundHits } from './compound-search.ts';
import { structureFrom } from './compound-codec.ts';

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

/** Compounds a grid shows at most. */
const GRID_LIMIT = 200;

/** Compounds as a grid of depictions (at most `limit`), each named by its name and SMILES (when `described`), with its similarity when there is one. */
export function compoundGridHtml(uris: string[], similarity?: Map<string, number>, limit = GRID_LIMIT, described: Map<string, { smiles: string; names: string[] }> = new Map()): string {
  const shown = uris.slice(0, limit);
  const cells = shown
    .map((u) => {
      const path = linkOf(u).href;
      const score = similarity?.get(u);
      const d = described.get(u);
      const name = d?.names[0];
      const label = name ?? d?.smiles ?? path;
      const caption = `<a href="${escapeHtml(path)}" title="${escapeHtml(u)}">${escapeHtml(label)}</a>${name && d ? `<br><code>${escapeHtml(d.smiles)}</code>` : ''}`;
      return `<figure class="compound"><a href="${escapeHtml(path)}"><img src="${escapeHtml(path)}?media=image%2Fsvg%2Bxml&amp;w=150&amp;h=110" width="150" height="110" loading="lazy" alt="${escapeHtml(label === path ? `structure of ${u}` : label)}"></a><figcaption>${caption}${score === undefined ? '' : ` · ${score.toFixed(3)}`}</figcaption></figure>`;
    })
    .join('\n');
  return `<p>${uris.length} compound(s)${uris.length > shown.length ? `, the first ${shown.length} shown` : ''}.</p><div class="grid">${cells}</div>`;
}

/** The SMILES and names of the compounds a grid shows (read from their graphs at once). */
async function describedCompounds(uris: string[], graphsOf: (uris: string[]) => Promise<RDF.Quad[]>): Promise<Map<string, { smiles: string; names: string[] }>> {
  const quads = await graphsOf(uris);
  const bySubject = new Map<string, RDF.Quad[]>();
  for (const q of quads) bySubject.set(q.subject.value, [...(bySubject.get(q.subject.value) ?? []), q]);
  const out = new Map<string, { smiles: string; names: string[] }>();
  for (const u of uris) {
    const s = structureFrom(bySubject.get(u) ?? [], u);
    if (s) out.set(u, { smiles: s.smiles, names: s.names });
  }
  return out;
}

/** This request on another page (relative to the service, as a dataset's page links are). */
function pageLink(ctx: Context, page: number, pagesize: number): string {
  const q = new URLSearchParams(ctx.querystring);
  q.set('page', String(page));
  q.set('pagesize', String(pagesize));
  return `${ctx.path}?${q}`;
}

/**
 * Answer what a compound query found, as far as the caller may read it: a URI list, RDF (the
 * compounds' graphs, with `ot:similarity` for a similarity search), CSV of the similarities, or
 * the page with the search form and a grid of depictions. Substructure pages link the next and
 * previous page (`Link: rel=next/prev`).
 */
export async function sendCompoundHits(ctx: Context, hits: CompoundHits, graphsOf: (uris: string[]) => Promise<RDF.Quad[]>): Promise<void> {
  const { query, similarity, title } = hits;
  if (query.kind === 'smarts') {
    if (hits.more) ctx.append('Link', `<${pageLink(ctx, query.page + 1, query.pagesize)}>; rel="next"`);
    if (query.page > 0) ctx.append('Link', `<${pageLink(ctx, query.page - 1, query.pagesize)}>; rel="prev"`);
  }
  const canRead: (uri: string) => boolean = ctx.state.canRead ?? (() => true);
  const visible = hits.uris.filter(canRead);
  const rdf = async () => {
    const quads = await graphsOf(visible);
    for (const u of visible) if (similarity?.has(u)) quads.push(df.quad(df.namedNode(u), ot('similarity'), literal(String(similarity.get(u)), xsd('double'))));
    return quads;
  };
  const form =
    query.kind === 'search'
      ? { kind: query.kind, text: query.text }
      : query.kind === 'smarts'
        ? { kind: query.kind, text: query.pattern }
        : query.kind === 'similarity'
          ? { kind: query.kind, text: query.query, threshold: String(query.threshold) }
          : {};
  await sendNegotiated(ctx, {
    'text/uri-list': () => uriList(visible),
    ...rdfRenderers(ctx, rdf, title),
    ...(similarity ? { 'text/csv': () => `compound,similarity\r\n${visible.map((u) => `${u},${similarity.get(u)}\r\n`).join('')}` } : {}),
    'text/html': async () =>
      renderPage({
        title,
        intro: `${searchFormHtml(form)}${compoundGridHtml(visible, similarity, GRID_LIMIT, await describedCompounds(visible.slice(0, GRID_LIMIT), graphsOf))}`,
        alternates: alternateLinks(ctx, ['text/uri-list', ...RDF_OUTPUT_TYPES]),
      }),
  });
}
