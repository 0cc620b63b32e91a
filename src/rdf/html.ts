import type * as RDF from '@rdfjs/types';
import { createHash } from 'node:crypto';
import { PREFIXES, dc, rdf } from './namespaces.js';

/** The one stylesheet of every page, inline; the Content-Security-Policy allows it by its hash. */
const PAGE_STYLE = `
body{font-family:system-ui,sans-serif;margin:1.5rem auto;max-width:70rem;padding:0 1rem;color:#222}
header a{color:inherit;text-decoration:none;font-weight:600}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}
th,td{text-align:left;vertical-align:top;padding:.3rem .6rem;border-bottom:1px solid #ddd;word-break:break-word}
th{width:30%;font-weight:500;color:#555}
h2{font-size:1.05rem;margin-top:1.5rem}.types{color:#666;margin:.2rem 0}
nav.formats{margin:.5rem 0 1rem;font-size:.9rem}
.error{background:#fee;border:1px solid #e99;padding:.6rem 1rem}
textarea{width:100%;font-family:monospace}
table.report{width:auto;margin:.5rem 0 1.2rem;font-size:.9rem}
table.report th,table.report td{border:1px solid #bbb;padding:.2rem .5rem;width:auto;color:#222}
table.report thead th{background:#e8eef7}
table.report caption{text-align:left;font-weight:600;padding-bottom:.3rem}
figure{margin:1rem 0}figure img{max-width:100%;height:auto}
figcaption{font-style:italic;color:#555;font-size:.9rem}
`;
export const PAGE_STYLE_HASH = `'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function compact(iri: string): string {
  for (const [prefix, ns] of Object.entries(PREFIXES)) if (iri.startsWith(ns) && iri.length > ns.length) return `${prefix}:${iri.slice(ns.length)}`;
  return iri;
}

function termHtml(t: RDF.Term): string {
  if (t.termType === 'NamedNode') {
    const safe = /^https?:/i.test(t.value) ? escapeHtml(t.value) : '';
    return safe ? `<a href="${safe}">${escapeHtml(compact(t.value))}</a>` : escapeHtml(compact(t.value));
  }
  if (t.termType === 'BlankNode') return `<span class="bnode">_:${escapeHtml(t.value)}</span>`;
  if (t.termType === 'Literal') {
    const suffix = t.language ? ` <small>@${escapeHtml(t.language)}</small>` : t.datatype && !t.datatype.value.endsWith('#string') ? ` <small>${escapeHtml(compact(t.datatype.value))}</small>` : '';
    return `${escapeHtml(t.value)}${suffix}`;
  }
  return escapeHtml(t.value);
}

export interface PageOptions {
  title: string;
  /** HTML placed above the generic triple tables. */
  intro?: string;
  quads?: RDF.Quad[];
  /** Other representations of the same resource: label → href. */
  alternates?: Record<string, string>;
  status?: number;
}

/** A plain page for people browsing resources as linked data. */
export function renderPage(opts: PageOptions): string {
  const bySubject = new Map<string, { term: RDF.Term; rows: RDF.Quad[] }>();
  for (const q of opts.quads ?? []) {
    const key = `${q.subject.termType}:${q.subject.value}`;
    if (!bySubject.has(key)) bySubject.set(key, { term: q.subject, rows: [] });
    bySubject.get(key)!.rows.push(q);
  }
  const sections = [...bySubject.values()]
    .map(({ term, rows }) => {
      const title = rows.find((r) => r.predicate.equals(dc('title')))?.object.value;
      const types = rows.filter((r) => r.predicate.equals(rdf('type'))).map((r) => compact(r.object.value));
      const id = term.termType === 'NamedNode' && term.value.includes('#') ? ` id="${escapeHtml(term.value.split('#').pop()!)}"` : '';
      return `<section${id}><h2>${termHtml(term)}${title ? ` — ${escapeHtml(title)}` : ''}</h2>${types.length ? `<p class="types">${types.map(escapeHtml).join(', ')}</p>` : ''}
<table><tbody>${rows
        .sort((a, b) => a.predicate.value.localeCompare(b.predicate.value))
        .map((r) => `<tr><th>${termHtml(r.predicate)}</th><td>${termHtml(r.object)}</td></tr>`)
        .join('\n')}</tbody></table></section>`;
    })
    .join('\n');
  const alternates = opts.alternates
    ? `<nav class="formats">Also as: ${Object.entries(opts.alternates)
        .map(([label, href]) => `<a href="${escapeHtml(href)}">${escapeHtml(label)}</a>`)
        .join(' · ')}</nav>`
    : '';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(opts.title)} · ToxGraph</title>
<style>${PAGE_STYLE}</style></head>
<body><header><a href="/">ToxGraph</a></header>
<h1>${escapeHtml(opts.title)}</h1>
${alternates}
${opts.intro ?? ''}
${sections}
</body></html>`;
}
