import { escapeHtml, renderPage } from '../rdf/html.js';
import type { Block, ReportDocument, Text } from './report-document.js';

/**
 * A report document as an HTML page: the sections, tables and facts as HTML, plots as inline
 * SVG (drawn by this server, never taken from a request). Links to other representations of
 * the report (its DocBook, PDF and RDF) are given by the caller.
 */

function inline(parts: Text[]): string {
  return parts.map((t) => (typeof t === 'string' ? escapeHtml(t) : /^https?:/i.test(t.href) ? `<a href="${escapeHtml(t.href)}">${escapeHtml(t.text)}</a>` : escapeHtml(t.text))).join('');
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
      return `<figure>${b.svg.replace(/^\s*<\?xml[^>]*\?>/, '')}<figcaption>${escapeHtml(b.title)}</figcaption></figure>`;
  }
}

const STYLE = `<style>
table.report { border-collapse: collapse; margin: 0.5em 0 1.2em; font-size: 0.9em; }
table.report th, table.report td { border: 1px solid #bbb; padding: 0.2em 0.5em; text-align: left; }
table.report thead th { background: #e8eef7; }
table.report caption { text-align: left; font-weight: bold; padding-bottom: 0.3em; }
table.facts th { text-align: left; padding-right: 1em; color: #555; font-weight: 600; vertical-align: top; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; }
figcaption { font-style: italic; color: #555; font-size: 0.9em; }
</style>`;

export function renderReportHtml(doc: ReportDocument, alternates: Record<string, string>): string {
  const body = [
    STYLE,
    doc.subtitle ? `<p class="subtitle">${escapeHtml(doc.subtitle)}</p>` : '',
    `<p class="types">${escapeHtml(doc.date)}</p>`,
    ...doc.sections.map((s) => `<section><h2>${escapeHtml(s.title)}</h2>${s.blocks.map(block).join('\n')}</section>`),
  ].join('\n');
  return renderPage({ title: doc.title, intro: body, alternates });
}
