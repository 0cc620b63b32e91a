import type * as RDF from '@rdfjs/types';
import { createHash } from 'node:crypto';
import { AsyncLocalStorage } from 'node:async_hooks';
import { PREFIXES, dc, rdf } from './namespaces.ts';
import { xmlText } from './xml-text.ts';
import { TimeSlices } from '../core/time-slices.ts';

/** The one stylesheet of every page, inline; the Content-Security-Policy allows it by its hash. */
const PAGE_STYLE = `
body{font-family:system-ui,sans-serif;margin:1.5rem auto;max-width:70rem;padding:0 1rem;color:#222}
nav.site{display:flex;flex-wrap:wrap;gap:.3rem 1rem;padding-bottom:.5rem;border-bottom:1px solid #ddd;font-size:.95rem}
nav.site a{color:#1a5fb4;text-decoration:none}nav.site a.home{color:inherit;font-weight:700}
a.remote::after{content:" ↗";font-size:.8em}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}
th,td{text-align:left;vertical-align:top;padding:.3rem .6rem;border-bottom:1px solid #ddd;overflow-wrap:break-word}
th{width:30%;font-weight:500;color:#555}
h2{font-size:1.05rem;margin-top:1.5rem}.types{color:#666;margin:.2rem 0}
nav.formats{margin:.5rem 0 1rem;font-size:.9rem}
.error{background:#fee;border:1px solid #e99;padding:.6rem 1rem}
textarea{width:100%;font-family:monospace}
progress{width:20rem;height:1.2rem}.task-status{font-size:1.1rem}
table.dataset td{white-space:nowrap;word-break:normal}table.dataset td:nth-child(3){white-space:normal;word-break:break-all;min-width:10rem;max-width:22rem}
th[role=button]{cursor:pointer}th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
div.grid{display:flex;flex-wrap:wrap;gap:.6rem}figure.compound{margin:0;width:150px;border:1px solid #ddd;padding:.3rem;font-size:.8rem}
pre{white-space:pre-wrap;word-break:break-all}main{overflow-wrap:break-word}main a{overflow-wrap:anywhere}select,input,textarea,label{max-width:100%;box-sizing:border-box}
@media (max-width:40rem){body{margin:.5rem auto;padding:0 .5rem}th{width:auto}table{display:block;overflow-x:auto}nav.site{font-size:.85rem;gap:.2rem .6rem}h1{font-size:1.4rem}table.dataset td:nth-child(3){max-width:9rem}form.run input[size],form.search input[size]{width:100%}}
nav.actions{margin:.8rem 0;padding:.5rem .8rem;background:#f3f6fb;border-radius:4px}
section.explained{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:flex-start;border:1px solid #ccd;border-radius:4px;padding:.6rem .8rem;margin:.8rem 0}section.explained dl.facts{flex:1 1 20rem}section.explained table{width:auto}section.explained form{flex-basis:100%}
ol.path li{margin:.35rem 0}
strong.inside{color:#1b6e2a}strong.outside{color:#a51d2d}ul.plain{list-style:none;margin:0;padding:0}
details.draw{margin:.3rem 0 1rem}details.draw summary{cursor:pointer;color:#1a5fb4}.structure-editor{width:min(40rem,100%);height:24rem;border:1px solid #bbb;margin-top:.4rem}
form.run label,form.upload label{display:inline-block;margin:.2rem 0}form.run input,form.run select{margin-left:.4rem}
table.report{width:auto;margin:.5rem 0 1.2rem;font-size:.9rem}
table.report th,table.report td{border:1px solid #bbb;padding:.2rem .5rem;width:auto;color:#222}
table.report thead th{background:#e8eef7}
table.report caption{text-align:left;font-weight:600;padding-bottom:.3rem}
figure{margin:1rem 0}figure img{max-width:100%;height:auto}
figcaption{font-style:italic;color:#555;font-size:.9rem}
`;
export const PAGE_STYLE_HASH = `'sha256-${createHash('sha256').update(PAGE_STYLE).digest('base64')}'`;

/** Text as HTML character data or an attribute value: markup escaped, and the characters XML cannot carry dropped as every XML output drops them (xml-text.ts). */
export function escapeHtml(s: string): string {
  return xmlText(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A number as pages show it (statistics, values): integers as they are, other numbers with four significant digits. */
export function formatNumber(v: number | undefined): string {
  if (v === undefined || Number.isNaN(v)) return '–';
  if (Number.isInteger(v)) return String(v);
  return Number(v.toPrecision(4)).toString();
}

/**
 * A value as a page shows it: a number written with more than 4 significant digits is shortened
 * to 4, its full value on hover (every download keeps it whole); other text as it is. Escaped.
 */
export function valueHtml(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '' || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) return escapeHtml(text);
  const n = Number(trimmed);
  if (Number.isInteger(n) && Math.abs(n) < 1e15) return escapeHtml(trimmed);
  const shown = formatNumber(n);
  return shown === trimmed ? escapeHtml(trimmed) : `<span class="number" title="${escapeHtml(trimmed)}">${escapeHtml(shown)}</span>`;
}

/** An IRI as a prefixed name where a known namespace allows (`ot:Feature`). */
export function compact(iri: string): string {
  for (const [prefix, ns] of Object.entries(PREFIXES)) if (iri.startsWith(ns) && iri.length > ns.length) return `${prefix}:${iri.slice(ns.length)}`;
  return iri;
}

/** What every page needs to know of the server: its base URL (local IRIs browse in place) and the ontologies' labels. */
export interface PageSettings {
  base: string;
  labels: ReadonlyMap<string, string>;
}
const NO_SETTINGS: PageSettings = { base: '', labels: new Map() };
const pageSettings = new AsyncLocalStorage<PageSettings>();

/** Render within these settings: the app runs each request in them, a rendering thread each conversion. */
export function withPageSettings<T>(settings: PageSettings, render: () => T): T {
  return pageSettings.run(settings, render);
}

function settings(): PageSettings {
  return pageSettings.getStore() ?? NO_SETTINGS;
}

/** The labelled terms of a namespace in the ontologies this server holds (IRI, label), by label: for forms that offer them. */
export function labelledTerms(namespace: string): [string, string][] {
  return [...settings().labels].filter(([iri]) => iri.startsWith(namespace)).sort((a, b) => a[1].localeCompare(b[1]));
}

/** Namespaces whose terms have pages here (`/ontology/term?iri=`). */
const OWN_VOCABULARIES = [PREFIXES.ot, PREFIXES.ota, PREFIXES.otee];

/** Where a link to an IRI goes: a local resource by its path (it browses in place on whatever host serves the page), a vocabulary term to its page here, anything else as it is. */
export function linkOf(iri: string): { href: string; remote: boolean } {
  const { base } = settings();
  if (base && iri.startsWith(`${base}/`)) return { href: iri.slice(base.length), remote: false };
  if (OWN_VOCABULARIES.some((ns) => iri.startsWith(ns) && iri.length > ns.length)) return { href: `/ontology/term?iri=${encodeURIComponent(iri)}`, remote: false };
  return { href: iri, remote: true };
}

/** An IRI as a link: local ones browse in place, remote ones are marked. */
export function iriHtml(iri: string, text = compact(iri)): string {
  if (!/^https?:/i.test(iri)) return escapeHtml(text);
  const { href, remote } = linkOf(iri);
  return remote ? `<a class="remote" rel="external" href="${escapeHtml(href)}">${escapeHtml(text)}</a>` : `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
}

function termHtml(t: RDF.Term): string {
  if (t.termType === 'NamedNode') return iriHtml(t.value);
  if (t.termType === 'BlankNode') return `<span class="bnode">_:${escapeHtml(t.value)}</span>`;
  if (t.termType === 'Literal') {
    const suffix = t.language ? ` <small>@${escapeHtml(t.language)}</small>` : t.datatype && !t.datatype.value.endsWith('#string') ? ` <small>${escapeHtml(compact(t.datatype.value))}</small>` : '';
    return `${NUMERIC_TYPES.has(t.datatype?.value ?? '') ? valueHtml(t.value) : escapeHtml(t.value)}${suffix}`;
  }
  return escapeHtml(t.value);
}

const NUMERIC_TYPES = new Set(['double', 'float', 'decimal'].map((t) => `http://www.w3.org/2001/XMLSchema#${t}`));

/** A property named by its label in the ontologies (its compact IRI as the tooltip). */
function propertyHtml(p: RDF.Term): string {
  const label = settings().labels.get(p.value);
  return label ? `<span title="${escapeHtml(compact(p.value))}">${iriHtml(p.value, label)}</span>` : termHtml(p);
}

/** Short names of media types, for the links to a page's other representations. */
const FORMAT_NAMES: Record<string, string> = {
  'application/rdf+xml': 'RDF/XML',
  'text/turtle': 'Turtle',
  'application/n-triples': 'N-Triples',
  'application/ld+json': 'JSON-LD',
  'text/n3': 'N3',
  'text/uri-list': 'URI list',
  'application/json': 'JSON',
  'text/x-yaml': 'YAML',
  'text/csv': 'CSV',
  'application/pdf': 'PDF',
  'text/xml': 'XML',
  'application/xml': 'XML',
  'application/docbook+xml': 'DocBook',
  'application/qmrf-xml': 'QMRF XML',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'XLSX',
  'chemical/x-mdl-sdfile': 'SDF',
  'chemical/x-mdl-molfile': 'molfile',
  'chemical/x-daylight-smiles': 'SMILES',
  'text/x-arff': 'ARFF',
  'image/png': 'PNG',
  'image/svg+xml': 'SVG',
};

/** The site's navigation, on every page. */
const NAVIGATION: [string, string][] = [
  ['/compound', 'Compounds'],
  ['/dataset', 'Datasets'],
  ['/algorithm', 'Algorithms'],
  ['/model', 'Models'],
  ['/validation', 'Validations'],
  ['/crossvalidation', 'Cross-validations'],
  ['/report', 'Reports'],
  ['/reach_report/qmrf', 'QMRF'],
  ['/task', 'Tasks'],
  ['/sparql', 'SPARQL'],
  ['/api', 'API'],
];

export interface PageOptions {
  title: string;
  /** HTML placed above the generic triple tables. */
  intro?: string;
  quads?: RDF.Quad[];
  /** Other representations of the same resource: media type → href (linked in the page and as `<link rel="alternate">`). */
  alternates?: Record<string, string>;
  /** The resource's description as JSON-LD, embedded for crawlers and linked-data browsers. */
  jsonld?: string;
  /** More of the head: a page's own scripts and stylesheets (files of this server only). */
  head?: string;
  /** Reload after `seconds` (a task's progress), at `url` when given. */
  refresh?: { seconds: number; url?: string };
  status?: number;
}

/** Statements by subject, in the order their subjects first come. */
function bySubject(quads: RDF.Quad[]): { term: RDF.Term; rows: RDF.Quad[] }[] {
  const subjects = new Map<string, { term: RDF.Term; rows: RDF.Quad[] }>();
  for (const q of quads) {
    const key = `${q.subject.termType}:${q.subject.value}`;
    const entry = subjects.get(key);
    if (entry) entry.rows.push(q);
    else subjects.set(key, { term: q.subject, rows: [q] });
  }
  return [...subjects.values()];
}

const collator = new Intl.Collator();

/** A subject's statements as its table lists them: by property (as localeCompare orders them), each property's in their order. */
function byProperty(rows: RDF.Quad[]): RDF.Quad[] {
  const properties = new Map<string, RDF.Quad[]>();
  for (const r of rows) {
    const same = properties.get(r.predicate.value);
    if (same) same.push(r);
    else properties.set(r.predicate.value, [r]);
  }
  return [...properties.keys()].sort(collator.compare).flatMap((p) => properties.get(p)!);
}

const rowHtml = (r: RDF.Quad) => `<tr><th>${propertyHtml(r.predicate)}</th><td>${termHtml(r.object)}</td></tr>`;

/** One subject's section of a page: its title and types, then the table of its statements (`rows`, as rowHtml wrote them). */
function sectionHtml(term: RDF.Term, statements: RDF.Quad[], rows: string[]): string {
  const title = statements.find((r) => r.predicate.equals(dc('title')))?.object.value;
  const types = statements.filter((r) => r.predicate.equals(rdf('type'))).map((r) => compact(r.object.value));
  const id = term.termType === 'NamedNode' && term.value.includes('#') ? ` id="${escapeHtml(term.value.split('#').pop()!)}"` : '';
  return `<section${id}><h2>${termHtml(term)}${title ? ` — ${escapeHtml(title)}` : ''}</h2>${types.length ? `<p class="types">${types.map(escapeHtml).join(', ')}</p>` : ''}
<table><tbody>${rows.join('\n')}</tbody></table></section>`;
}

/** A plain page for people browsing resources as linked data. */
export function renderPage(opts: PageOptions): string {
  const sections = bySubject(opts.quads ?? []).map(({ term, rows }) => {
    const ordered = byProperty(rows);
    return sectionHtml(term, ordered, ordered.map(rowHtml));
  });
  return pageHtml(opts, sections.join('\n'));
}

/**
 * renderPage for pages of many statements (a dataset's metadata with thousands of columns, a
 * list): the statements are written in time slices, the event loop given its turns between.
 */
export async function renderPageInSlices(opts: PageOptions): Promise<string> {
  const slices = new TimeSlices();
  const sections: string[] = [];
  for (const { term, rows } of bySubject(opts.quads ?? [])) {
    const ordered = byProperty(rows);
    sections.push(sectionHtml(term, ordered, await slices.map(ordered, rowHtml, 64)));
    await slices.pause();
  }
  return pageHtml(opts, sections.join('\n'));
}

/** The page around its sections. */
function pageHtml(opts: PageOptions, sections: string): string {
  const alternates = Object.entries(opts.alternates ?? {}).map(([type, href]): [string, string] => [type, linkOf(href).href]);
  const formats = alternates.length
    ? `<nav class="formats">Also as: ${alternates.map(([type, href]) => `<a href="${escapeHtml(href)}" type="${escapeHtml(type)}">${escapeHtml(FORMAT_NAMES[type] ?? type)}</a>`).join(' · ')}</nav>`
    : '';
  const links = alternates.map(([type, href]) => `<link rel="alternate" type="${escapeHtml(type)}" href="${escapeHtml(href)}">`).join('\n');
  // a data block, not a script: "</" cannot end it early
  const jsonld = opts.jsonld ? `<script type="application/ld+json">${opts.jsonld.replace(/</g, '\\u003c')}</script>` : '';
  const navigation = NAVIGATION.map(([href, label]) => `<a href="${href}">${label}</a>`).join(' ');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(opts.title)} · ToxGraph</title>
${opts.refresh ? `<meta http-equiv="refresh" content="${opts.refresh.seconds}${opts.refresh.url ? `; url=${escapeHtml(opts.refresh.url)}` : ''}">` : ''}
<style>${PAGE_STYLE}</style>
${links}
${jsonld}
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<script src="/static/workbench.js" defer></script>
${opts.head ?? ''}</head>
<body><header><nav class="site" aria-label="ToxGraph"><a class="home" href="/">ToxGraph</a> ${navigation}</nav></header>
<main>
<h1>${escapeHtml(opts.title)}</h1>
${formats}
${opts.intro ?? ''}
${sections}
</main>
</body></html>`;
}
