import type { Context } from 'koa';
import { compoundOf } from '../core/uri-scheme.ts';
import type * as RDF from '@rdfjs/types';
import { alternateLinks, rdfRenderers, uriList, type Renderer } from '../http/respond.ts';
import { escapeHtml, iriHtml, linkOf, renderPage } from '../rdf/html.ts';
import { searchFormHtml } from './compound-page.ts';
import type { Chemistry } from '../chemistry/chemistry.ts';
import type { StoredStructure } from './compound-codec.ts';
import type { FeatureValue } from './feature-values.ts';

/** Media types of a compound or conformer (spec 4.10), the default first. */
export const STRUCTURE_OUTPUT_TYPES = [
  'chemical/x-daylight-smiles',
  'chemical/x-inchi',
  'chemical/x-inchi-key',
  'chemical/x-mdl-sdfile',
  'chemical/x-mdl-molfile',
  'chemical/x-cml',
  'image/png',
  'image/svg+xml',
  'text/plain',
];

function size(ctx: Context): { w: number; h: number } {
  if (!ctx.querystring) return { w: 300, h: 240 };
  const q = new URLSearchParams(ctx.querystring);
  const clamp = (v: string | null, d: number) => Math.min(2000, Math.max(50, Number(v) || d));
  return { w: clamp(q.get('w'), 300), h: clamp(q.get('h'), 240) };
}

/** An SD record: the molfile, then names and the requested feature values as SD fields. */
export function sdRecord(s: StoredStructure, molfileText: string, values: FeatureValue[], titles: Map<string, string>): string {
  const fields = [...(s.names.length ? [['Names', s.names.join('; ')]] : []), ['InChIKey', s.inchiKey], ...values.map((v) => [titles.get(v.feature) ?? v.feature, v.value.value])];
  const molfile = molfileText.endsWith('\n') ? molfileText : `${molfileText}\n`;
  return `${molfile}${fields.map(([k, v]) => `> <${k.replace(/[<>\r\n]/g, ' ')}>\n${v.replace(/\r?\n\s*\r?\n/g, '\n')}\n\n`).join('')}$$$$\n`;
}

/** What only some representations show (feature values, their titles, related resources), loaded when one of them is asked for. */
export interface StructureDetails {
  rdf: RDF.Quad[];
  values: FeatureValue[];
  titles: Map<string, string>;
  related: { label: string; uris: string[] }[];
  /** The measured endpoints of the datasets that hold it (read across: its data gap is filled from other compounds'). */
  endpoints: { endpoint: string; title: string }[];
}

/** `rdf`: the quads of the RDF representations (the structure's graph, with the values asked for). */
export function structureRenderers(
  ctx: Context,
  chemistry: Chemistry,
  s: StoredStructure,
  details: () => Promise<StructureDetails>,
  rdf: () => Promise<RDF.Quad[]> | RDF.Quad[],
): Record<string, Renderer> {
  const { w, h } = size(ctx);
  const v3000 = !!ctx.querystring && new URLSearchParams(ctx.querystring).get('molfile') === 'v3000';
  const title = s.names[0] ?? s.smiles;
  // laid out when a representation needs it (see Chemistry.molfileOf)
  const molfile = () => chemistry.molfileOf(s);
  const renderers: Record<string, Renderer> = {
    'chemical/x-daylight-smiles': () => `${s.smiles}\n`,
    'chemical/x-inchi': () => `${s.inchi}\n`,
    'chemical/x-inchi-key': () => `${s.inchiKey}\n`,
    'chemical/x-mdl-sdfile': async () => {
      const { values, titles } = await details();
      return sdRecord(s, molfile(), values, titles);
    },
    'chemical/x-mdl-molfile': () => (v3000 ? chemistry.v3000(molfile()) : molfile()),
    'chemical/x-cml': () => chemistry.cml(molfile()),
    'image/png': () => chemistry.png(molfile(), w, h),
    'image/svg+xml': () => chemistry.svg(molfile(), w, h),
    'text/plain': () => s.names.map((n) => `${n}\n`).join(''),
    ...rdfRenderers(ctx, rdf, title),
    'text/uri-list': () => uriList([s.uri]),
  };
  renderers['text/html'] = async () => {
    const { values, titles, related, endpoints } = await details();
    const ids = [['SMILES', s.smiles], ['InChI', s.inchi], ['InChIKey', s.inchiKey], ...(s.names.length ? [['Names', s.names.join('; ')]] : []), ...(s.parent ? [['Parent compound', s.parent]] : [])];
    const depiction = `data:image/svg+xml;base64,${Buffer.from(chemistry.svg(molfile(), 360, 280)).toString('base64')}`;
    // an image, not inline SVG: the page's Content-Security-Policy allows no inline styles
    const intro = `<figure><img src="${depiction}" width="360" height="280" alt="${escapeHtml(`structure of ${s.smiles}`)}"></figure>
<table><tbody>${ids.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${/^https?:/.test(v) ? iriHtml(v, v) : escapeHtml(v)}</td></tr>`).join('')}</tbody></table>
${values.length ? `<h2>Feature values</h2><table><tbody>${values.map((v) => `<tr><th>${iriHtml(v.feature, titles.get(v.feature) ?? v.feature)}</th><td>${escapeHtml(v.value.value)}</td></tr>`).join('')}</tbody></table>` : ''}
${related
  .filter((r) => r.uris.length)
  .map((r) => `<h2>${escapeHtml(r.label)}</h2><ul>${r.uris.map((u) => `<li>${iriHtml(u, u)}</li>`).join('')}</ul>`)
  .join('')}
<h2>Find similar structures</h2>
${searchFormHtml({ kind: 'similarity', text: s.smiles })}
<h2>Structural profile</h2>
<p><a href="${escapeHtml(`${linkOf(compoundOf(s.uri)).href}/profile`)}">Functional groups, Benigni–Bossa alerts and Verhaar’s class</a> (the profilers of this service, with their sources)</p>
<h2>Read across</h2>
<form class="run" method="get" action="${escapeHtml(`${linkOf(compoundOf(s.uri)).href}/analogues`)}"><p>${
      endpoints.length
        ? `<label>Endpoint <select name="endpoint">${endpoints.map((e) => `<option value="${escapeHtml(e.endpoint)}">${escapeHtml(e.title)}</option>`).join('')}</select></label>`
        : '<label>Endpoint: a feature URI, or an ontology term such as http://www.opentox.org/echaEndpoints.owl#Acute_toxicity_to_fish_lethality <input name="endpoint" required size="70"></label>'
    }</p>
<p><label>least similarity <input name="threshold" value="0.3" size="4"></label> <label>at most <input name="k" value="10" size="4"> analogues</label> <button type="submit">Find analogues with data</button></p></form>`;
    return renderPage({ title, intro, alternates: alternateLinks(ctx, STRUCTURE_OUTPUT_TYPES) });
  };
  return renderers;
}
