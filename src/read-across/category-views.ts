import { escapeHtml, iriHtml } from '../rdf/html.ts';
import { csvField } from '../http/csv-text.ts';
import { writeWorkbook } from '../dataset/xlsx-table.ts';
import type { Readable } from 'node:stream';
import type { Category } from './category-codec.ts';
import type { DataMatrix } from './data-matrix.ts';
import type { EndpointFilling, GapFilling } from './gap-filling.ts';

/** A category's page: its definition, its members with roles and reasons, the compounds left out and why. */
export function categoryHtml(c: Category, subcategories: string[], next = ''): string {
  const row = (m: Category['members'][number]) =>
    `<tr><td>${iriHtml(m.compound)}</td><td>${escapeHtml(m.role)}</td><td>${m.similarity === undefined ? '' : m.similarity.toFixed(3)}</td><td>${m.sourceFor.map((e) => iriHtml(e)).join('<br>')}</td><td>${escapeHtml(m.reason)}</td></tr>`;
  const table = (members: Category['members']) =>
    `<table><thead><tr><th>compound</th><th>role</th><th>similarity</th><th>source for</th><th>reason</th></tr></thead><tbody>${members.map(row).join('')}</tbody></table>`;
  const members = c.members.filter((m) => m.included);
  const left = c.members.filter((m) => !m.included);
  return `<p>Target ${iriHtml(c.target)}; endpoints ${c.endpoints.map((e) => iriHtml(e)).join(', ')}.</p>
<p>Definition: Tanimoto similarity to the target ≥ ${c.similarityThreshold} (Morgan, radius 2, 2048 bits), at most ${c.maxSources} sources per endpoint${c.smarts === undefined ? '' : `, holding the substructure <code>${escapeHtml(c.smarts)}</code>`}${c.parent ? `, within ${iriHtml(c.parent)}` : ''}.</p>
<h2>Members (${members.length})</h2>${table(members)}
<p><a href="${escapeHtml(new URL(`${c.uri}/matrix`).pathname)}">The data matrix</a> (HTML, CSV, XLSX, RDF) · <a href="${escapeHtml(new URL(`${c.uri}/gap-filling`).pathname)}">The data gap filled side by side</a></p>
${next}
${subcategories.length ? `<h2>Subcategories</h2><ul>${subcategories.map((s) => `<li>${iriHtml(s)}</li>`).join('')}</ul>` : ''}
<h2>Left out (${left.length}, the nearest)</h2>${table(left)}`;
}

const header = (m: DataMatrix) => ['compound', 'SMILES', 'role', 'similarity', ...m.columns.map((c) => c.title)];
const line = (r: DataMatrix['rows'][number]) => [r.compound, r.smiles ?? '', r.role, r.similarity, ...r.cells];

export function matrixCsv(m: DataMatrix): string {
  return [header(m), ...m.rows.map(line)].map((l) => `${l.map((v) => csvField(v === undefined ? '' : String(v))).join(',')}\r\n`).join('');
}

export function matrixWorkbook(m: DataMatrix, removed: { compound: string; dataset: string; remark: string }[] = []): Readable {
  return writeWorkbook([
    { name: 'matrix', rows: [header(m), ...m.rows.map(line)], widths: [40, 40, 10, 10, ...m.columns.map(() => 18)] },
    {
      name: 'about',
      rows: [['category', m.category], ['several values of one compound', m.collapse], [], ['column', 'URI', 'kind'], ...m.columns.map((c) => [c.title, c.uri, c.kind])],
      widths: [30, 60, 12],
    },
    // an assessment's values taken out: kept, with the remark, not in the cells
    ...(removed.length ? [{ name: 'taken out', rows: [['compound', 'dataset', 'remark'], ...removed.map((r) => [r.compound, r.dataset, r.remark])], widths: [50, 50, 60] }] : []),
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

export function gapFillingJson(g: GapFilling) {
  const plain = (values: EndpointFilling['targetValues']) => values.map((v) => ({ value: v.value.value, feature: v.feature, dataset: v.dataset }));
  return { ...g, endpoints: g.endpoints.map((e) => ({ ...e, targetValues: plain(e.targetValues), sources: e.sources.map((r) => ({ ...r, measured: plain(r.measured) })) })) };
}

const num = (v: number | undefined, digits = 3) => (v === undefined ? '' : Number(v.toFixed(digits)).toString());

/** The gap filling as a page: one section per endpoint, the answers side by side, each with its uncertainty or its reason. */
export function gapFillingHtml(g: GapFilling): string {
  return `<p>Target ${iriHtml(g.target)}, category ${iriHtml(g.category)}.</p>${g.endpoints.map(endpointHtml).join('')}`;
}

function endpointHtml(e: EndpointFilling): string {
  const ra = e.readAcross;
  const t = e.trend;
  const w = e.worstCase;
  const readAcross =
    ra.value === undefined
      ? escapeHtml(ra.reason ?? '')
      : `<strong>${escapeHtml(typeof ra.value === 'number' ? num(ra.value) : ra.value)}</strong>${ra.weightedSd === undefined ? '' : ` ± ${num(ra.weightedSd)} (weighted SD)`}${ra.score === undefined ? '' : ` (activity score ${num(ra.score)} for ${escapeHtml(ra.positive ?? '')}; threshold 0.5)`}<br><small>${ra.n} sources, similarity mean ${num(ra.meanSimilarity)}, least ${num(ra.minSimilarity)}</small>`;
  const trend =
    t.value === undefined
      ? escapeHtml(t.reason ?? '')
      : `<strong>${num(t.value)}</strong>, 95 % prediction interval [${num(t.interval![0])}, ${num(t.interval![1])}]<br><small>on ${escapeHtml(t.descriptor)} = ${num(t.at)}${t.interpolated ? ' (within the sources’ range)' : ' <strong>outside the sources’ range: an extrapolation</strong>'}; n = ${t.n}, R² = ${num(t.rSquare)}, slope ${num(t.slope)} (p = ${t.pSlope!.toPrecision(2)})</small>`;
  const worst = w.reason
    ? escapeHtml(w.reason)
    : w.positive
      ? `${escapeHtml(w.positive.value)} (${w.positive.compounds.length} source(s))`
      : `lowest ${num(Number(w.lowest!.value))} (${iriHtml(w.lowest!.compound)}), highest ${num(Number(w.highest!.value))} (${iriHtml(w.highest!.compound)})`;
  const qsar = e.qsar.length
    ? e.qsar
        .map(
          (q) =>
            `${iriHtml(q.model, q.title)}: ${q.value === undefined ? escapeHtml(q.reason ?? '') : `<strong>${escapeHtml(q.value)}</strong>${q.inside === undefined ? '' : q.inside ? ' (inside its domain)' : ' (<strong>outside its domain</strong>)'}`}`,
        )
        .join('<br>')
    : 'no model of this endpoint';
  const own = e.targetValues.length
    ? `<p>The target has measured values: ${e.targetValues.map((v) => `${escapeHtml(v.value.value)} (${iriHtml(v.dataset)})`).join('; ')}; there is no gap to fill.</p>`
    : '';
  return `<h2>${iriHtml(e.endpoint)}</h2>${own}<table><thead><tr><th>read-across (GenRA)</th><th>trend</th><th>worst case</th><th>QSAR</th></tr></thead><tbody><tr><td>${readAcross}</td><td>${trend}</td><td>${worst}</td><td>${qsar}</td></tr></tbody></table><p>Consistency: ${escapeHtml(e.consistency.text)}.</p>`;
}
