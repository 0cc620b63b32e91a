import { escapeHtml, iriHtml } from '../rdf/html.ts';
import { csvField } from '../http/csv-text.ts';
import { writeWorkbook } from '../dataset/xlsx-table.ts';
import type { Readable } from 'node:stream';
import type { Category } from './category-codec.ts';
import type { DataMatrix } from './data-matrix.ts';

/** A category's page: its definition, its members with roles and reasons, the compounds left out and why. */
export function categoryHtml(c: Category, subcategories: string[]): string {
  const row = (m: Category['members'][number]) =>
    `<tr><td>${iriHtml(m.compound)}</td><td>${escapeHtml(m.role)}</td><td>${m.similarity === undefined ? '' : m.similarity.toFixed(3)}</td><td>${m.sourceFor.map((e) => iriHtml(e)).join('<br>')}</td><td>${escapeHtml(m.reason)}</td></tr>`;
  const table = (members: Category['members']) =>
    `<table><thead><tr><th>compound</th><th>role</th><th>similarity</th><th>source for</th><th>reason</th></tr></thead><tbody>${members.map(row).join('')}</tbody></table>`;
  const members = c.members.filter((m) => m.included);
  const left = c.members.filter((m) => !m.included);
  return `<p>Target ${iriHtml(c.target)}; endpoints ${c.endpoints.map((e) => iriHtml(e)).join(', ')}.</p>
<p>Definition: Tanimoto similarity to the target ≥ ${c.similarityThreshold} (Morgan, radius 2, 2048 bits), at most ${c.maxSources} sources per endpoint${c.smarts === undefined ? '' : `, holding the substructure <code>${escapeHtml(c.smarts)}</code>`}${c.parent ? `, within ${iriHtml(c.parent)}` : ''}.</p>
<h2>Members (${members.length})</h2>${table(members)}
<p><a href="${escapeHtml(new URL(`${c.uri}/matrix`).pathname)}">The data matrix</a> (HTML, CSV, XLSX, RDF).</p>
${subcategories.length ? `<h2>Subcategories</h2><ul>${subcategories.map((s) => `<li>${iriHtml(s)}</li>`).join('')}</ul>` : ''}
<h2>Left out (${left.length}, the nearest)</h2>${table(left)}`;
}

const header = (m: DataMatrix) => ['compound', 'SMILES', 'role', 'similarity', ...m.columns.map((c) => c.title)];
const line = (m: DataMatrix, r: DataMatrix['rows'][number]) => [r.compound, r.smiles ?? '', r.role, r.similarity, ...r.cells];

export function matrixCsv(m: DataMatrix): string {
  return [header(m), ...m.rows.map((r) => line(m, r))].map((l) => `${l.map((v) => csvField(v === undefined ? '' : String(v))).join(',')}\r\n`).join('');
}

export function matrixWorkbook(m: DataMatrix): Readable {
  return writeWorkbook([
    { name: 'matrix', rows: [header(m), ...m.rows.map((r) => line(m, r))], widths: [40, 40, 10, 10, ...m.columns.map(() => 18)] },
    {
      name: 'about',
      rows: [['category', m.category], ['several values of one compound', m.collapse], [], ['column', 'URI', 'kind'], ...m.columns.map((c) => [c.title, c.uri, c.kind])],
      widths: [30, 60, 12],
    },
  ]);
}

export function matrixJson(m: DataMatrix) {
  return {
    category: m.category,
    collapse: m.collapse,
    columns: m.columns,
    rows: m.rows.map((r) => ({ ...r, sources: r.sources.map((list) => list.map((v) => ({ value: v.value.value, feature: v.feature, dataset: v.dataset }))) })),
  };
}

export function matrixHtml(m: DataMatrix): string {
  const cell = (v: unknown) => (v === undefined ? '' : escapeHtml(typeof v === 'number' ? String(Number(v.toPrecision(6))) : String(v)));
  const rows = m.rows
    .map(
      (r) =>
        `<tr><td>${iriHtml(r.compound)}</td><td>${escapeHtml(r.smiles ?? '')}</td><td>${escapeHtml(r.role)}</td><td>${r.similarity === undefined ? '' : r.similarity.toFixed(3)}</td>${r.cells.map((c) => `<td>${cell(c)}</td>`).join('')}</tr>`,
    )
    .join('');
  return `<p>Category ${iriHtml(m.category)}. Several values of one compound: <strong>${escapeHtml(m.collapse)}</strong> (change with <code>?collapse=all|mean|median|min|max</code>).</p>
<table><thead><tr>${header(m)
    .map((h) => `<th>${escapeHtml(h)}</th>`)
    .join('')}</tr></thead><tbody>${rows}</tbody></table>`;
}
