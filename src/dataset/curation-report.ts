import { FLAG_DESCRIPTIONS, STANDARDISATION_RULES } from '../chemistry/standardisation.ts';
import { badRequest, notFound } from '../core/errors.ts';
import { readFeatureRecords } from '../feature/feature-record.ts';
import type { Renderer } from '../http/respond.ts';
import type { TripleStore } from '../store/triple-store.ts';
import { runInChunks, type WorkerPool } from '../task/worker-pool.ts';
import { escapeHtml, iriHtml, linkOf, renderPage } from '../rdf/html.ts';
import { ota } from '../rdf/namespaces.ts';
import type { DatasetMeta, DatasetStore } from './dataset-store.ts';

/**
 * The curation report of a dataset made by structure standardisation
 * (algorithm/structure-standardisation.ts): per row the original structure, the parent, the
 * rules that fired and the flags, with how often each rule and flag occurred and the rows that
 * share a parent. It is read from the dataset's four curation columns, which the algorithm marks
 * with `owl:sameAs` the terms below, so any dataset holding them (a subset, a merge) has one.
 */
export const CURATION_TERMS = {
  original: ota('OriginalStructure').value,
  parent: ota('StandardisedStructure').value,
  rules: ota('StandardisationRules').value,
  flags: ota('StandardisationFlags').value,
} as const;

export type CurationColumns = Record<keyof typeof CURATION_TERMS, string>;

/** The dataset's curation columns, when it has all four (by their features' owl:sameAs). */
export function curationColumnsOf(features: { uri: string; sameAs: string[] }[]): CurationColumns | undefined {
  const found: Partial<CurationColumns> = {};
  for (const [key, term] of Object.entries(CURATION_TERMS) as [keyof CurationColumns, string][]) {
    const feature = features.find((f) => f.sameAs.includes(term));
    if (!feature) return undefined;
    found[key] = feature.uri;
  }
  return found as CurationColumns;
}

/** Which rows the page lists: those standardisation changed or flagged (the default), only flagged, only unparseable, or all. */
export const CURATION_VIEWS = ['changed', 'flagged', 'unparseable', 'all'] as const;

export interface CurationSelection {
  show: (typeof CURATION_VIEWS)[number];
  /** Only rows where this rule fired / with this flag. */
  rule?: string;
  flag?: string;
  page: number;
  pagesize: number;
}

/** A selection from a request's parameters (400 for what does not fit; rule and flag names are checked when read). */
export function curationSelectionOf(p: { show?: string; rule?: string; flag?: string; page?: string; pagesize?: string }): CurationSelection {
  const show = (p.show ?? 'changed') as CurationSelection['show'];
  if (!CURATION_VIEWS.includes(show)) throw badRequest(`show: ${p.show} is none of ${CURATION_VIEWS.join(', ')}`);
  const count = (name: string, v: string | undefined, fallback: number, least: number) => {
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < least) throw badRequest(`${name}: ${v} is not a whole number of at least ${least}`);
    return n;
  };
  return { show, rule: p.rule || undefined, flag: p.flag || undefined, page: count('page', p.page, 0, 0), pagesize: Math.min(500, count('pagesize', p.pagesize, 50, 1)) };
}

export interface CurationEntry {
  /** Row number, from 1 (the dataset's order). */
  row: number;
  compound: string;
  original?: string;
  parent?: string;
  rules: string[];
  flags: string[];
}

export interface CurationReport {
  dataset: string;
  title: string;
  /** The dataset that was standardised (dc:source), when named. */
  source?: string;
  rows: number;
  /** Rows a rule changed or flagged. */
  changed: number;
  unparseable: number;
  rules: { name: string; description: string; rows: number }[];
  flags: { name: string; description: string; rows: number }[];
  /** The dataset's warnings that name rows sharing a parent structure. */
  sharedParents: string[];
  selection: CurationSelection;
  /** Rows the selection matches (all pages). */
  matching: number;
  entries: CurationEntry[];
}

const split = (v: string | undefined) => (v ? v.split(/,\s*/).filter(Boolean) : []);

/** The report of the dataset `uri` (404 when there is no such dataset, or it has no curation columns). */
export async function curationReportOf(datasets: DatasetStore, store: TripleStore, uri: string, selection: CurationSelection): Promise<CurationReport> {
  const meta = await datasets.readMeta(uri);
  if (!meta) throw notFound(`dataset ${uri} not found`);
  const columns = curationColumnsOf([...(await readFeatureRecords(store, meta.features)).values()]);
  if (!columns) throw notFound(`dataset ${uri} has no curation report: it holds no curation columns (the algorithm standardise-structures makes them)`);
  return readCurationReport(datasets, meta, columns, selection);
}

/** Reads the report: counts over every row, the selected page of entries. */
export async function readCurationReport(datasets: DatasetStore, meta: DatasetMeta, columns: CurationColumns, selection: CurationSelection): Promise<CurationReport> {
  const known = { rule: STANDARDISATION_RULES.map((r) => r.name), flag: Object.keys(FLAG_DESCRIPTIONS) };
  for (const key of ['rule', 'flag'] as const) {
    const v = selection[key];
    if (v !== undefined && !known[key].includes(v)) throw badRequest(`${key}: ${v} is none of ${known[key].join(', ')}`);
  }
  const ruleCounts = new Map<string, number>();
  const flagCounts = new Map<string, number>();
  const matching: CurationEntry[] = [];
  let rows = 0;
  let changed = 0;
  let unparseable = 0;
  for await (const r of datasets.rows(meta.uri)) {
    const entry: CurationEntry = {
      row: ++rows,
      compound: r.compound,
      original: r.values.get(columns.original)?.value,
      parent: r.values.get(columns.parent)?.value,
      rules: split(r.values.get(columns.rules)?.value),
      flags: split(r.values.get(columns.flags)?.value),
    };
    for (const name of entry.rules) ruleCounts.set(name, (ruleCounts.get(name) ?? 0) + 1);
    for (const name of entry.flags) flagCounts.set(name, (flagCounts.get(name) ?? 0) + 1);
    if (entry.rules.length || entry.flags.length) changed++;
    if (entry.flags.includes('unparseable')) unparseable++;
    if (selects(selection, entry)) matching.push(entry);
  }
  const start = selection.page * selection.pagesize;
  return {
    dataset: meta.uri,
    title: meta.title ?? meta.uri,
    source: meta.annotations.find(([p]) => p.value === 'http://purl.org/dc/elements/1.1/source')?.[1].value,
    rows,
    changed,
    unparseable,
    rules: STANDARDISATION_RULES.map((r) => ({ name: r.name, description: r.description, rows: ruleCounts.get(r.name) ?? 0 })),
    flags: Object.entries(FLAG_DESCRIPTIONS).map(([name, description]) => ({ name, description, rows: flagCounts.get(name) ?? 0 })),
    sharedParents: meta.warnings.filter((w) => w.includes('the same parent structure')),
    selection,
    matching: matching.length,
    entries: matching.slice(start, start + selection.pagesize),
  };
}

function selects(s: CurationSelection, e: CurationEntry): boolean {
  if (s.rule && !e.rules.includes(s.rule)) return false;
  if (s.flag && !e.flags.includes(s.flag)) return false;
  if (s.show === 'changed') return e.rules.length > 0 || e.flags.length > 0;
  if (s.show === 'flagged') return e.flags.length > 0;
  if (s.show === 'unparseable') return e.flags.includes('unparseable');
  return true;
}

/**
 * The report as a page: what was done (counts per rule and flag, each a link to its rows), the
 * rows sharing a parent, then one page of rows with the original and the parent drawn side by
 * side. `depictions` holds SVG pictures of the entries' original structures, in entry order.
 */
export function curationReportHtml(report: CurationReport, depictions: (string | undefined)[], linkTo: (change: Partial<CurationSelection>) => string): string {
  const { selection } = report;
  const count = (n: number, what: Partial<CurationSelection>) => (n ? `<a href="${escapeHtml(linkTo({ show: 'all', rule: undefined, flag: undefined, page: 0, ...what }))}">${n}</a>` : '0');
  const summary = `<p>${report.rows} row(s)${report.source ? ` standardised from ${iriHtml(report.source)}` : ''}: ${count(report.changed, { show: 'changed' })} changed or flagged by a rule, ${count(report.unparseable, { show: 'unparseable' })} not standardised (unparseable). Every row is kept; rows that share a parent are listed below, never merged.</p>
<p><a href="${escapeHtml(linkOf(report.dataset).href)}">The standardised dataset</a> holds the same four columns for download (CSV, Excel, SDF).</p>`;
  const table = (title: string, items: { name: string; description: string; rows: number }[], key: 'rule' | 'flag') =>
    `<h2>${title}</h2><table class="report"><thead><tr><th>${key}</th><th>rows</th><th>what it does</th></tr></thead><tbody>${items
      .map((i) => `<tr><td>${escapeHtml(i.name)}</td><td>${count(i.rows, { [key]: i.name })}</td><td>${escapeHtml(i.description)}</td></tr>`)
      .join('')}</tbody></table>`;
  const shared = report.sharedParents.length
    ? `<h2>Rows sharing a parent (${report.sharedParents.length})</h2><ul>${report.sharedParents.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>`
    : '<h2>Rows sharing a parent</h2><p>None: every parent belongs to one source compound.</p>';
  const views = CURATION_VIEWS.map((v) =>
    v === selection.show && !selection.rule && !selection.flag ? `<strong>${v}</strong>` : `<a href="${escapeHtml(linkTo({ show: v, rule: undefined, flag: undefined, page: 0 }))}">${v}</a>`,
  ).join(' · ');
  const filter = [selection.rule && `rule ${selection.rule}`, selection.flag && `flag ${selection.flag}`].filter(Boolean).join(', ');
  const pages = Math.max(1, Math.ceil(report.matching / selection.pagesize));
  const pager = `<nav class="pager" aria-label="Pages">${selection.page > 0 ? `<a rel="prev" href="${escapeHtml(linkTo({ page: selection.page - 1 }))}">← previous</a> ` : ''}page ${selection.page + 1} of ${pages}${selection.page + 1 < pages ? ` <a rel="next" href="${escapeHtml(linkTo({ page: selection.page + 1 }))}">next →</a>` : ''}</nav>`;
  const picture = (svg: string | undefined, alt: string) =>
    svg ? `<img src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}" width="150" height="110" alt="${escapeHtml(alt)}">` : '';
  const rows = report.entries
    .map((e, i) => {
      const compound = linkOf(e.compound).href;
      const parent = `<a href="${escapeHtml(compound)}"><img src="${escapeHtml(compound)}?media=image%2Fsvg%2Bxml&amp;w=150&amp;h=110" width="150" height="110" loading="lazy" alt="${escapeHtml(e.parent ?? '')}"></a>`;
      return `<tr><td>${e.row}</td><td>${picture(depictions[i], e.original ?? '')}<br><code>${escapeHtml(e.original ?? '')}</code></td><td>${e.parent ? parent : ''}<br><code>${escapeHtml(e.parent ?? '')}</code></td><td>${escapeHtml(e.rules.join(', '))}</td><td>${escapeHtml(e.flags.join(', '))}</td></tr>`;
    })
    .join('\n');
  return `${summary}
${table('Rules', report.rules, 'rule')}
${table('Flags', report.flags, 'flag')}
${shared}
<h2>Rows: ${report.matching} ${filter ? `with ${escapeHtml(filter)}` : escapeHtml(selection.show)}</h2>
<nav class="views" aria-label="Which rows">Show: ${views}</nav>
${pager}
<table class="report curation"><thead><tr><th>row</th><th>original structure</th><th>parent (QSAR-ready)</th><th>rules</th><th>flags</th></tr></thead><tbody>
${rows}
</tbody></table>
${pager}`;
}

const DEPICTION_MODULE = new URL('../chemistry/structure-worker.ts', import.meta.url).href;

/**
 * The report for people (HTML, the original structures drawn on the worker pool) and for
 * programs (JSON, the report as read).
 */
export function curationRenderers(report: CurationReport, workers: WorkerPool): Record<string, Renderer> {
  const linkTo = (change: Partial<CurationSelection>) => selectionLink(report, change);
  return {
    'application/json': () => `${JSON.stringify(report)}\n`,
    'text/html': async () => {
      const originals = report.entries.map((e) => e.original ?? '');
      const depictions = await runInChunks<string, string | undefined>(workers, { module: DEPICTION_MODULE, fn: 'depictSmiles', chunk: 25, args: [150, 110] }, originals);
      return renderPage({
        title: `Curation report: ${report.title}`,
        alternates: { 'application/json': selectionLink(report, {}, 'application/json') },
        intro: curationReportHtml(report, depictions, linkTo),
      });
    },
  };
}

/** The report's address with another selection (and a media type, for links that cannot set Accept). */
function selectionLink(report: CurationReport, change: Partial<CurationSelection>, media?: string): string {
  const s = { ...report.selection, ...change };
  const q = new URLSearchParams({ show: s.show });
  if (s.rule) q.set('rule', s.rule);
  if (s.flag) q.set('flag', s.flag);
  q.set('page', String(s.page));
  q.set('pagesize', String(s.pagesize));
  if (media) q.set('media', media);
  return `${linkOf(report.dataset).href}/curation?${q}`;
}
