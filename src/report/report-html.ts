import { escapeHtml, iriHtml, renderPage } from '../rdf/html.ts';
import type { Block, ReportDocument, Text } from './report-document.ts';

/**
 * A report document as an HTML page: the sections, tables and facts as HTML, plots as SVG
 * images (drawn by this server, never taken from a request). Links to other representations of
 * the report (its DocBook, PDF and RDF) are given by the caller.
 */

function inline(parts: Text[]): string {
  return parts.map((t) => (typeof t === 'string' ? escapeHtml(t) : iriHtml(t.href, t.text))).join('');
}

function block(b: Block): string {
  switch (b.kind) {
    case 'para':
      return `<p>${inline(b.text)}</p>`;
    case 'facts':
      return `<table class="facts"><tbody>${b.rows.map((r) => `<tr><th>${escapeHtml(r.label)}</th><td>${inline(r.value)}</td></tr>`).join('')}</tbody></table>`;
    case 'table':
      return `<table class="report"><caption>${escapeHtml(b.title)}</caption><thead><tr>${b.head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${b.rows
        .map((r) => `<tr>${r.map((c) => `<td>${inline([c])}</td>`).join('')}</tr>`)
        .join('')}</tbody></table>`;
    case 'figure':
      // as an image: the page's Content-Security-Policy allows no inline styles, which plots and depictions use
      return `<figure><img src="data:image/svg+xml;base64,${Buffer.from(b.svg).toString('base64')}" alt="${escapeHtml(b.title)}"><figcaption>${escapeHtml(b.title)}</figcaption></figure>`;
  }
}

export function renderReportHtml(doc: ReportDocument, alternates: Record<string, string>): string {
  const body = [
    doc.subtitle ? `<p class="subtitle">${escapeHtml(doc.subtitle)}</p>` : '',
    `<p class="types">${escapeHtml(doc.date)}</p>`,
    ...doc.sections.map((s) => `<section><h2>${escapeHtml(s.title)}</h2>${s.blocks.map(block).join('\n')}</section>`),
  ].join('\n');
  return renderPage({ title: doc.title, intro: body, alternates });
}
