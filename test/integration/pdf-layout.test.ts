import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { renderPlots } from '../../src/report/plots.ts';
import type { ReportDocument, Section } from '../../src/report/report-document.ts';
import { renderPdf } from '../../src/report/report-pdf.ts';
import { loadTextWidth, type TextWidth } from '../../src/report/report-fonts.ts';
import { sharedCsv, startTestServer, http, form, waitForTask, type TestServer } from '../helpers.ts';

/**
 * The layout of report PDFs as a reader sees it (poppler's pdftotext and pdfinfo read them): no
 * page left with a word or two on it, no word broken inside (a table's header above all), and
 * confusion-matrix axis labels that stand apart.
 */

let s: TestServer;
after(() => s?.stop());

const run$ = promisify(execFile);
const local = (uri: string) => uri.replace(s.base, s.url);

async function run(url: string, params: Record<string, string | string[]>): Promise<string> {
  const r = await http(local(url), { method: 'POST', body: form(params), accept: 'text/uri-list' });
  if (r.status === 200) return r.text.trim();
  assert.equal(r.status, 202, r.text);
  return waitForTask(s, r.text.trim());
}

async function upload(csv: string): Promise<{ dataset: string; target: string }> {
  const up = await http(`${s.url}/dataset`, { method: 'POST', body: csv, contentType: 'text/csv', accept: 'text/uri-list' });
  assert.equal(up.status, 200, up.text);
  const raw = up.text.trim();
  const target = (await http(`${local(raw)}/features`, { accept: 'text/uri-list' })).text.trim();
  return { dataset: await run(`${s.base}/algorithm/rdkit-descriptors`, { dataset_uri: raw, descriptors: 'tpsa,exactmw,CrippenClogP,NumHBD' }), target };
}

/** A document as PDF and as the DocBook it is rendered from (the source of every word in the PDF). */
interface Rendered {
  name: string;
  pdf: Buffer;
  docbook: string;
}
const documents: Rendered[] = [];

async function rendered(name: string, uri: string): Promise<Rendered> {
  const pdf = await fetch(local(uri), { headers: { accept: 'application/pdf' } });
  assert.equal(pdf.status, 200);
  const docbook = await http(local(uri), { accept: 'application/docbook+xml' });
  assert.equal(docbook.status, 200);
  return { name, pdf: Buffer.from(await pdf.arrayBuffer()), docbook: docbook.text };
}

before(async () => {
  s = await startTestServer();
  // regression: a QMRF and a QPRF (its nearest-neighbour table) of a linear model on 50 fathead minnow structures
  const minnows = await upload(sharedCsv('EPAFHM_log10.csv', 50));
  const model = await run(`${s.base}/algorithm/mlr`, { dataset_uri: minnows.dataset, prediction_feature: minnows.target });
  const compound = (await http(`${local(minnows.dataset)}/compounds`, { accept: 'text/uri-list' })).text.trim().split('\r\n')[3];
  // classification: a cross-validation report (tables and a confusion matrix) on 60 Kazius structures of both classes
  const kazius = await upload(sharedCsv('kazius.csv', 60, 68));
  const cv = await run(`${s.base}/crossvalidation`, {
    dataset_uri: kazius.dataset,
    algorithm_uri: `${s.base}/algorithm/logistic-regression`,
    prediction_feature: kazius.target,
    num_folds: '3',
    random_seed: '2',
  });
  documents.push(
    await rendered('QMRF', await run(`${s.base}/reach_report/qmrf`, { model_uri: model })),
    await rendered('QPRF', await run(`${s.base}/reach_report/qprf`, { model_uri: model, compound_uri: compound })),
    await rendered('cross-validation report', await run(`${s.base}/report/crossvalidation`, { validation_uris: cv })),
  );
});

/** The text of each page of a PDF, in the order it is drawn (pdftotext -raw), without the page numbers. */
async function pagesOf(pdf: Buffer): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'toxgraph-pdf-layout-'));
  try {
    const file = join(dir, 'document.pdf');
    await writeFile(file, pdf);
    const info = (await run$('pdfinfo', [file])).stdout;
    const count = Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
    assert.ok(count > 0, info);
    // pdftotext ends each page with a form feed
    const pages = (await run$('pdftotext', ['-raw', '-enc', 'UTF-8', file, '-'])).stdout.split('\f').slice(0, -1);
    assert.equal(pages.length, count);
    return pages.map((text, i) => text.replace(new RegExp(`^${i + 1} / ${count}$`, 'm'), ''));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const wordsOf = (text: string) => text.split(/\s+/).filter((w) => w !== '');

function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(Number.parseInt(e.slice(e[1] === 'x' ? 2 : 1), e[1] === 'x' ? 16 : 10));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[e.toLowerCase()] ?? '';
  });
}

/** Every word of a DocBook document's text (its tables' cells, its plots' labels, ...); a link is a run of its paragraph's text. */
const sourceWords = (docbook: string) => new Set([...wordsOf(decodeXml(docbook.replace(/<\/?link\b[^>]*>/g, '').replace(/<[^>]*>/g, ' '))), 'ToxGraph', '·']);

/** The words of the header rows of a DocBook document's tables. */
const headerWords = (docbook: string) => [...docbook.matchAll(/<thead>([\s\S]*?)<\/thead>/g)].flatMap((m) => [...m[1].matchAll(/<entry>([^<]*)<\/entry>/g)].flatMap((e) => wordsOf(decodeXml(e[1]))));

/** A word this long (a URI, a SMILES) may be broken anywhere; the renderer keeps shorter ones whole. */
const LONG = 25;

/**
 * The words of a PDF's text that are not words of its source: pieces of a word broken inside.
 * Allowed: pieces of long words, and a line that ends after a hyphen or a slash where the word
 * goes on at the start of the next line.
 */
function brokenWords(pages: string[], source: Set<string>): string[] {
  const long = [...source].filter((w) => w.length >= LONG);
  const lines = pages.flatMap((p) => p.split('\n')).map(wordsOf);
  const broken: string[] = [];
  lines.forEach((line, i) =>
    line.forEach((word, j) => {
      if (source.has(word) || long.some((l) => l.includes(word))) return;
      const last = j === line.length - 1;
      const next = lines.slice(i + 1).find((l) => l.length)?.[0] ?? '';
      if (last && /[-/]$/.test(word) && [...source].some((w) => w.startsWith(word + next))) return;
      const previous =
        lines
          .slice(0, i)
          .reverse()
          .find((l) => l.length)
          ?.at(-1) ?? '';
      if (j === 0 && /[-/]$/.test(previous) && [...source].some((w) => w.includes(previous + word))) return;
      broken.push(last ? `${word}⏎${next}` : word);
    }),
  );
  return broken;
}

test('no page of a QMRF, a QPRF or a validation report is left with a few words on it (a heading, a label or a last word spilled over)', async () => {
  for (const d of documents) {
    const pages = await pagesOf(d.pdf);
    const counts = pages.map((p) => wordsOf(p).length);
    // the last page of a report may hold its last lines only; a QMRF's last page holds more than that
    const checked = d.name === 'QMRF' ? counts : counts.slice(0, -1);
    checked.forEach((n, i) => assert.ok(n >= 20, `${d.name}: page ${i + 1} of ${pages.length} holds ${n} words: ${pages[i].replace(/\s+/g, ' ').trim()}`));
  }
});

/**
 * Documents shaped like a QMRF (numbered fact labels of several lines beside a one-word value,
 * headings, paragraphs, a table), shifted down the page by `lead` lines so that every kind of
 * block meets the foot of a page somewhere.
 */
function qmrfShaped(lead: number): ReportDocument {
  const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ['model', 'training', 'set', 'descriptor', 'endpoint', 'validation', 'statistics', 'domain'][(i + from) % 8]).join(' ');
  const sections: Section[] = [{ title: 'About this document', blocks: [{ kind: 'para', text: [words(11 * lead + 5)] }] }];
  for (let chapter = 1; chapter <= 9; chapter++) {
    sections.push({
      title: `${chapter} Chapter of the report - OECD Principle ${chapter}`,
      blocks: [
        {
          kind: 'facts',
          rows: Array.from({ length: 7 }, (_, i) => ({
            label: `${chapter}.${i + 1} Robustness - Statistics obtained by ${i % 2 ? 'leave-many-out cross-validation' : 'bootstrap'}`,
            value: [i % 3 ? '–' : words(4 + 9 * i, i)],
          })),
        },
        { kind: 'para', text: [words(13 + 7 * chapter, chapter)] },
        ...(chapter % 3
          ? []
          : [
              {
                kind: 'table' as const,
                title: 'Checklist',
                head: ['principle', 'assessment element', 'verdict', 'evidence'],
                rows: Array.from({ length: 4 }, (_, i) => ['Principle 1', words(6, i), i % 2 ? 'met' : 'not known', words(10 + i, i)]),
              },
            ]),
      ],
    });
  }
  return { title: 'QMRF-shaped document', date: '2026-01-01', sections };
}

test('page breaks: a fact, a heading or a paragraph that reaches the foot of a page leaves no page with a word or two on it', async () => {
  for (let lead = 0; lead < 6; lead++) {
    const pages = await pagesOf(await renderPdf(qmrfShaped(lead)));
    const counts = pages.map((p) => wordsOf(p).length);
    counts.forEach((n, i) => assert.ok(n >= 20, `lead ${lead}: page ${i + 1} of ${pages.length} holds ${n} words: ${pages[i].replace(/\s+/g, ' ').trim()}`));
  }
});

test('no word is broken inside: every word of the PDF is a word of the document, and every table header word is whole', async () => {
  for (const d of documents) {
    const pages = await pagesOf(d.pdf);
    const source = sourceWords(d.docbook);
    assert.deepEqual(brokenWords(pages, source), [], `${d.name}: words broken inside`);
    const inPdf = new Set(pages.flatMap(wordsOf));
    const head = headerWords(d.docbook);
    assert.ok(head.length > 0, `${d.name} has tables`);
    assert.deepEqual(
      head.filter((w) => !inPdf.has(w)),
      [],
      `${d.name}: header words not whole in the PDF`,
    );
  }
  // the headers the toxicologist found broken: the checklists' verdict, the neighbour table's rank
  const [qmrf, qprf] = documents;
  assert.ok(headerWords(qmrf.docbook).includes('verdict') && headerWords(qprf.docbook).includes('rank'));
});

/** A text element of an SVG: where its anchor is, which way it runs, how it is anchored, its size and text. */
interface SvgText {
  x: number;
  y: number;
  angle: number;
  anchor: string;
  size: number;
  text: string;
}

/** The anchor point and angle of an SVG transform of translations and rotations (as vega writes them). */
function place(transform: string): { x: number; y: number; angle: number } {
  let x = 0;
  let y = 0;
  let angle = 0;
  for (const [, op, args] of transform.matchAll(/(translate|rotate)\(([^)]*)\)/g)) {
    const [a, b = 0] = args.split(/[\s,]+/).map(Number);
    if (op === 'rotate') angle += a;
    else {
      const r = (angle * Math.PI) / 180;
      x += a * Math.cos(r) - b * Math.sin(r);
      y += a * Math.sin(r) + b * Math.cos(r);
    }
  }
  return { x, y, angle: ((((angle + 180) % 360) + 360) % 360) - 180 };
}

/** The labels and the title of the X or Y axis of a vega SVG. */
function axisOf(svg: string, axis: 'X' | 'Y'): { labels: SvgText[]; title?: SvgText } {
  const start = svg.search(new RegExp(`aria-label="${axis}-axis`));
  assert.ok(start >= 0, `an ${axis} axis`);
  const texts = (role: string) => {
    const group = new RegExp(`role-axis-${role}"[^>]*>((?:<text[^>]*>[^<]*</text>)*)`).exec(svg.slice(start))?.[1] ?? '';
    return [...group.matchAll(/<text([^>]*)>([^<]*)<\/text>/g)].map(([, attributes, text]) => ({
      ...place(/transform="([^"]*)"/.exec(attributes)?.[1] ?? ''),
      anchor: /text-anchor="([^"]*)"/.exec(attributes)?.[1] ?? 'start',
      size: Number.parseFloat(/font-size="([^"]*)"/.exec(attributes)?.[1] ?? '11'),
      text: decodeXml(text),
    }));
  };
  return { labels: texts('label'), title: texts('title')[0] };
}

/**
 * Where the labels of an axis run into each other (as the PDF draws them: widths from DejaVu
 * Sans' metrics): level labels side by side must not share any width, labels one above another
 * or turned must stand apart by their font size; the labels must end before the axis title starts.
 */
function overlaps(axis: { labels: SvgText[]; title?: SvgText }, textWidth: TextWidth, direction: 'X' | 'Y'): string[] {
  const found: string[] = [];
  const extent = (t: SvgText) => {
    const w = textWidth(t.text, t.size);
    const left = t.anchor === 'middle' ? t.x - w / 2 : t.anchor === 'end' ? t.x - w : t.x;
    return { left, right: left + w };
  };
  const labels = [...axis.labels].sort((a, b) => (direction === 'X' ? a.x - b.x : a.y - b.y));
  for (let i = 1; i < labels.length; i++) {
    const [a, b] = [labels[i - 1], labels[i]];
    if (direction === 'X' && a.angle === 0) {
      if (extent(a).right > extent(b).left) found.push(`“${a.text}” runs into “${b.text}”`);
    } else {
      // lines of text side by side: apart by their font size across the way they run
      const apart = Math.abs((b.x - a.x) * Math.sin((a.angle * Math.PI) / 180)) + Math.abs((b.y - a.y) * Math.cos((a.angle * Math.PI) / 180));
      if (apart < a.size) found.push(`“${a.text}” and “${b.text}” are ${apart.toFixed(1)} apart, less than their size ${a.size}`);
    }
  }
  if (direction === 'X' && axis.title && labels.length) {
    // the lowest point of a label (its end when turned, its descent when level) above the title's ascent
    const bottom = Math.max(...labels.map((t) => t.y + Math.abs(Math.sin((t.angle * Math.PI) / 180)) * (extent(t).right - extent(t).left) + 0.25 * t.size));
    const top = axis.title.y - 0.8 * axis.title.size;
    if (bottom > top) found.push(`the labels reach ${bottom.toFixed(1)}, below the top of the title “${axis.title.text}” at ${top.toFixed(1)}`);
  }
  return found;
}

function checkConfusionSvg(svg: string, classes: string[], textWidth: TextWidth): void {
  for (const direction of ['X', 'Y'] as const) {
    const axis = axisOf(svg, direction);
    // every class named in full (not cut short with an ellipsis)
    assert.deepEqual(axis.labels.map((l) => l.text).sort(), [...classes].sort(), `${direction} axis labels`);
    assert.deepEqual(overlaps(axis, textWidth, direction), [], `${direction} axis of a confusion matrix of ${classes.join(', ')}`);
  }
}

test('confusion-matrix axis labels do not overlap, however long the class names', async () => {
  const textWidth = await loadTextWidth();
  const cases = [
    ['mutagenic', 'non-mutagenic'],
    ['non-carcinogenic', 'carcinogenic', 'equivocal'],
    ['active', 'inactive', 'inconclusive', 'cytotoxic'],
    ['very toxic to aquatic life', 'toxic to aquatic life', 'harmful to aquatic life', 'may cause long lasting harmful effects', 'not classified'],
  ];
  const svgs = await renderPlots(cases.map((classes) => ({ kind: 'confusion', title: 'Confusion matrix', classes, counts: classes.map((_, i) => classes.map((_, j) => (i === j ? 10 : 2))) })));
  svgs.forEach((svg, i) => checkConfusionSvg(svg, cases[i], textWidth));
  // and the confusion matrix of the cross-validation report as stored
  const report = documents.find((d) => d.name === 'cross-validation report')!;
  const figure = [...report.docbook.matchAll(/<figure><title>([^<]*)<\/title>[\s\S]*?(<svg[\s\S]*?<\/svg>)/g)].find((m) => /confusion/i.test(m[1]));
  assert.ok(figure, 'the report has a confusion-matrix figure');
  checkConfusionSvg(figure[2], ['mutagenic', 'non-mutagenic'], textWidth);
});
