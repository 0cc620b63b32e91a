import type { DatasetRow, DatasetStore } from './dataset-store.ts';
import { escapeHtml, iriHtml, linkOf, formatNumber, valueHtml } from '../rdf/html.ts';
import { TimeSlices } from '../core/time-slices.ts';

/**
 * The HTML of a dataset for people: what can be done with it (calculate descriptors, train a
 * model, download), its metadata as an editable form, statistics of its columns, and one page
 * of its rows with structure thumbnails (a table the page's script can sort). Only one page of
 * rows is read for the table; column statistics are given for datasets of up to
 * `STATISTICS_ROWS` rows, and the table the first `PAGE_COLUMNS` columns (a dataset of thousands
 * of fingerprint bits is read column by column in its downloads, not in a browser). Both are
 * made in time slices: the event loop gets its turns while thousands of columns are counted and
 * written.
 */

export const STATISTICS_ROWS = 5000;
export const PAGE_COLUMNS = 1000;

export interface PageFeature {
  uri: string;
  title: string;
  kind: 'numeric' | 'nominal' | 'string';
}

export interface ColumnStatistics {
  values: number;
  numeric?: { min: number; mean: number; max: number };
  /** The most frequent values of a non-numeric column, with their counts. */
  top?: [string, number][];
}

/** Statistics of every column, from all rows (streamed). */
export async function columnStatistics(features: PageFeature[], rows: AsyncIterable<DatasetRow>): Promise<Map<string, ColumnStatistics>> {
  const slices = new TimeSlices();
  const acc = new Map(features.map((f) => [f.uri, { values: 0, sum: 0, min: Infinity, max: -Infinity, counts: new Map<string, number>() }]));
  for await (const r of rows) {
    for (const [i, f] of features.entries()) {
      if (i % 256 === 255) await slices.pause();
      const v = r.values.get(f.uri)?.value.trim();
      if (!v) continue;
      const a = acc.get(f.uri)!;
      a.values++;
      if (f.kind === 'numeric') {
        const n = Number(v);
        if (Number.isFinite(n)) {
          a.sum += n;
          a.min = Math.min(a.min, n);
          a.max = Math.max(a.max, n);
        }
      } else if (a.counts.size < 1000 || a.counts.has(v)) a.counts.set(v, (a.counts.get(v) ?? 0) + 1);
    }
  }
  const out = new Map<string, ColumnStatistics>();
  for (const [i, f] of features.entries()) {
    if (i % 256 === 255) await slices.pause();
    const a = acc.get(f.uri)!;
    out.set(f.uri, {
      values: a.values,
      numeric: f.kind === 'numeric' && a.values ? { min: a.min, mean: a.sum / a.values, max: a.max } : undefined,
      top: f.kind === 'numeric' ? undefined : [...a.counts].sort((x, y) => y[1] - x[1]).slice(0, 3),
    });
  }
  return out;
}

export async function datasetPageHtml(p: {
  uri: string;
  title?: string;
  description?: string;
  license?: string;
  count: number;
  features: PageFeature[];
  statistics?: Map<string, ColumnStatistics>;
  /** The rows of the page, with the values of the first PAGE_COLUMNS columns (at most). */
  rows: { index: number; compound: string; smiles: string; values: (string | undefined)[] }[];
  paging: { previous?: string; next?: string; page: number; pages: number };
  warnings: string[];
  /** Does it have a curation report (its structures were standardised)? */
  curation?: boolean;
  /** A prediction dataset: its predictions explained (ExplainPredictions). */
  explained?: string;
  /** Rows chosen by the value of a column of a few values (where_feature, where_value). */
  choices?: { where?: { feature: string; value: string }; all: string; columns: { uri: string; title: string; values: { value: string; n: number; href: string }[] }[] };
}): Promise<string> {
  const slices = new TimeSlices();
  const path = linkOf(p.uri).href;
  const q = encodeURIComponent(p.uri);
  const actions = `<nav class="actions" aria-label="What to do with this dataset">
<a href="/algorithm/rdkit-descriptors?dataset_uri=${q}">Calculate descriptors</a> ·
<a href="/algorithm?dataset_uri=${q}">Train a model or run another algorithm</a> ·
<a href="${escapeHtml(path)}?media=text%2Fcsv&amp;bom=1">Download CSV</a> ·
<a href="${escapeHtml(path)}?media=chemical%2Fx-mdl-sdfile">Download SDF</a>${p.curation ? ` ·\n<a href="${escapeHtml(path)}/curation">Curation report</a>` : ''}</nav>`;
  const metadata = `<details><summary>Edit the metadata</summary>
<form method="post" action="${escapeHtml(path)}/metadata">
<p><label>Title <input name="title" size="60" value="${escapeHtml(p.title ?? '')}"></label></p>
<p><label>Description <textarea name="description" rows="3">${escapeHtml(p.description ?? '')}</textarea></label></p>
<p><label>License (URI) <input name="license" size="60" value="${escapeHtml(p.license ?? '')}"></label></p>
<p><button type="submit">Save</button></p></form></details>`;
  const columnStatistics = p.statistics;
  const statistics = columnStatistics
    ? `<h2>Columns</h2><table class="report sortable"><thead><tr><th>column</th><th>kind</th><th>values</th><th>min</th><th>mean</th><th>max</th><th>most frequent</th></tr></thead><tbody>${(
        await slices.map(
          p.features,
          (f) => {
            const st = columnStatistics.get(f.uri)!;
            const n = st.numeric;
            return `<tr><td>${iriHtml(f.uri, f.title)}</td><td>${f.kind}</td><td>${st.values}</td><td>${n ? formatNumber(n.min) : ''}</td><td>${n ? formatNumber(n.mean) : ''}</td><td>${n ? formatNumber(n.max) : ''}</td><td>${(st.top ?? []).map(([v, c]) => `${escapeHtml(v)} (${c})`).join(', ')}</td></tr>`;
          },
          64,
        )
      ).join('')}</tbody></table>`
    : `<p>Column statistics are shown for datasets of up to ${STATISTICS_ROWS} rows.</p>`;
  const pager = `<nav class="pager" aria-label="Pages">${p.paging.previous ? `<a rel="prev" href="${escapeHtml(p.paging.previous)}">← previous</a> ` : ''}page ${p.paging.page + 1} of ${Math.max(1, p.paging.pages)}${p.paging.next ? ` <a rel="next" href="${escapeHtml(p.paging.next)}">next →</a>` : ''}</nav>`;
  const lines: string[] = [];
  for (const r of p.rows) {
    const compound = linkOf(r.compound).href;
    const thumbnail = `<img src="${escapeHtml(compound)}?media=image%2Fsvg%2Bxml&amp;w=120&amp;h=90" width="120" height="90" loading="lazy" alt="${escapeHtml(r.smiles)}">`;
    const cells = await slices.map(r.values.slice(0, PAGE_COLUMNS), (v) => `<td>${valueHtml(v ?? '')}</td>`);
    lines.push(`<tr><td>${r.index}</td><td><a href="${escapeHtml(compound)}">${thumbnail}</a></td><td>${escapeHtml(r.smiles)}</td>${cells.join('')}</tr>`);
  }
  const rows = lines.join('\n');
  const shown = p.features.slice(0, PAGE_COLUMNS);
  const headers = (await slices.map(shown, (f) => `<th title="${escapeHtml(f.uri)}">${escapeHtml(f.title)}</th>`)).join('');
  const more =
    shown.length < p.features.length
      ? `<p>The table shows the first ${shown.length} of the ${p.features.length} columns; the downloads have them all, and <code>feature_uris[]</code> chooses the columns.</p>`
      : '';
  const warnings = p.warnings.length ? `<details><summary>${p.warnings.length} warning(s)</summary><ul>${p.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul></details>` : '';
  return `${p.description ? `<p>${escapeHtml(p.description)}</p>` : ''}<p>${p.count} row${p.count === 1 ? '' : 's'}, ${p.features.length} column${p.features.length === 1 ? '' : 's'}.</p>
${actions}
${p.explained ?? ''}
${metadata}
${warnings}
${statistics}
<h2>Rows</h2>
${choicesHtml(p.choices)}
${pager}
${more}<table class="report sortable dataset"><thead><tr><th>#</th><th>structure</th><th>SMILES</th>${headers}</tr></thead><tbody>
${rows}
</tbody></table>
${pager}`;
}

/** Links that show only the rows with one value of a column (and back to all rows). */
function choicesHtml(c: Parameters<typeof datasetPageHtml>[0]['choices']): string {
  if (!c?.columns.length && !c?.where) return '';
  const lines = (c.columns ?? []).map(
    (col) =>
      `<li>${escapeHtml(col.title)}: ${col.values
        .map((v) =>
          c.where?.feature === col.uri && c.where.value === v.value ? `<strong>${escapeHtml(v.value)} (${v.n})</strong>` : `<a href="${escapeHtml(v.href)}">${escapeHtml(v.value)} (${v.n})</a>`,
        )
        .join(' · ')}</li>`,
  );
  const all = c.where ? `<li><a href="${escapeHtml(c.all)}">all rows</a></li>` : '';
  return `<nav class="choices" aria-label="Show only some rows"><ul class="plain">${lines.join('')}${all}</ul></nav>`;
}

/**
 * A `<select>` of the datasets the caller may read (the newest 200, by title) for forms that
 * take one; `reload` makes the page's script reload with the choice (fields that depend on it).
 */
export async function datasetSelectHtml(
  datasets: DatasetStore,
  canRead: (uri: string) => boolean,
  field: { name: string; label: string; chosen?: string; reload?: boolean },
): Promise<{ html: string; chosen?: string }> {
  const metas = (await datasets.listWithTitles())
    .filter((d) => canRead(d.uri))
    .slice(-200)
    .reverse();
  const chosen = field.chosen && metas.some((m) => m.uri === field.chosen) ? field.chosen : undefined;
  const html = `<label>${escapeHtml(field.label)} <select name="${escapeHtml(field.name)}" required${field.reload ? ` data-reload="${escapeHtml(field.name)}"` : ''}>${chosen ? '' : '<option value="">choose a dataset</option>'}${metas
    .map((m) => `<option value="${escapeHtml(m.uri)}"${m.uri === chosen ? ' selected' : ''}>${escapeHtml(m.title ?? m.uri)}</option>`)
    .join('')}</select></label>`;
  return { html, chosen };
}
