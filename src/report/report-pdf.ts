import { createRequire } from 'node:module';
import type PDFDocument from 'pdfkit';
import type SVGtoPDF from 'svg-to-pdfkit';
import type { Block, ReportDocument, Section, Text } from './report-document.ts';
import { textOf } from './report-document.ts';

/**
 * A report document as PDF (pdfkit, plots through svg-to-pdfkit as vector graphics), set in
 * DejaVu Sans so that every character of the text (R², ±, Greek, accents) is drawn. A4, tables
 * broken across pages with their header repeated.
 */

const require = createRequire(import.meta.url);
const FONT_DIR = `${require.resolve('dejavu-fonts-ttf/package.json').replace(/package\.json$/, '')}ttf/`;
const FONTS = { regular: `${FONT_DIR}DejaVuSans.ttf`, bold: `${FONT_DIR}DejaVuSans-Bold.ttf`, italic: `${FONT_DIR}DejaVuSans-Oblique.ttf` };

const MARGIN = 56;
const LINK = '#1a5fb4';
const GREY = '#555555';

type Doc = InstanceType<typeof PDFDocument>;
type DrawSvg = typeof SVGtoPDF;

/** pdfkit and svg-to-pdfkit, loaded when the first PDF is made (reports only), not when the server starts. */
let pdfLibraries: Promise<{ PDFDocument: typeof PDFDocument; drawSvg: DrawSvg }> | undefined;
const loadPdfLibraries = () => (pdfLibraries ??= Promise.all([import('pdfkit'), import('svg-to-pdfkit')]).then(([pdfkit, svg]) => ({ PDFDocument: pdfkit.default, drawSvg: svg.default })));

function textRuns(doc: Doc, parts: Text[], options: { width: number; size: number; font?: string }): void {
  doc.font(options.font ?? 'regular').fontSize(options.size);
  const runs = parts.filter((p) => textOf(p) !== '');
  if (!runs.length) {
    doc.text(' ', { width: options.width });
    return;
  }
  runs.forEach((p, i) => {
    const last = i === runs.length - 1;
    if (typeof p === 'string') doc.fillColor('black').text(p, { width: options.width, continued: !last, link: null as unknown as string, underline: false });
    else doc.fillColor(LINK).text(p.text, { width: options.width, continued: !last, link: p.href, underline: false });
  });
  doc.fillColor('black');
}

function ensureSpace(doc: Doc, height: number): void {
  if (doc.y + height > doc.page.height - MARGIN) doc.addPage();
}

function facts(doc: Doc, rows: { label: string; value: Text[] }[], width: number): void {
  const labelWidth = 150;
  for (const r of rows) {
    doc.font('regular').fontSize(9.5);
    const valueHeight = doc.heightOfString(r.value.map(textOf).join('') || ' ', { width: width - labelWidth });
    ensureSpace(doc, valueHeight + 4);
    const y = doc.y;
    doc
      .font('bold')
      .fontSize(9.5)
      .fillColor(GREY)
      .text(r.label, MARGIN, y, { width: labelWidth - 8 });
    const labelBottom = doc.y;
    doc.x = MARGIN + labelWidth;
    doc.y = y;
    textRuns(doc, r.value, { width: width - labelWidth, size: 9.5 });
    doc.x = MARGIN;
    doc.y = Math.max(doc.y, labelBottom) + 3;
  }
}

function table(doc: Doc, b: Extract<Block, { kind: 'table' }>, width: number): void {
  const size = b.head.length > 6 ? 7.5 : 8.5;
  const cols = b.head.length;
  // column widths: by the longest text of each column, within bounds
  const longest = b.head.map((h, c) => Math.max(h.length, ...b.rows.map((r) => textOf(r[c] ?? '').length)));
  // at least the longest word of the header, so that no heading is broken inside a word
  const weights = longest.map((n, c) => Math.min(40, Math.max(4, n, ...b.head[c].split(/\s+/).map((w) => w.length + 1))));
  const total = weights.reduce((a, w) => a + w, 0);
  const widths = weights.map((w) => (w / total) * width);
  const pad = 3;
  const heightOf = (cells: string[], font: string) => {
    doc.font(font).fontSize(size);
    return Math.max(...cells.map((c, i) => doc.heightOfString(c || ' ', { width: widths[i] - 2 * pad }))) + 2 * pad;
  };
  const drawRow = (cells: Text[], font: string, shade: boolean) => {
    const h = heightOf(cells.map(textOf), font);
    if (doc.y + h > doc.page.height - MARGIN) {
      doc.addPage();
      if (font !== 'bold') drawRow(b.head, 'bold', true);
    }
    const y = doc.y;
    let x = MARGIN;
    for (let c = 0; c < cols; c++) {
      if (shade) doc.rect(x, y, widths[c], h).fill('#e8eef7');
      doc.rect(x, y, widths[c], h).lineWidth(0.5).stroke('#999999');
      const cell = cells[c] ?? '';
      doc
        .font(font)
        .fontSize(size)
        .fillColor(typeof cell === 'string' ? 'black' : LINK)
        .text(textOf(cell), x + pad, y + pad, { width: widths[c] - 2 * pad, link: typeof cell === 'string' ? (null as unknown as string) : cell.href });
      x += widths[c];
    }
    doc.fillColor('black');
    doc.x = MARGIN;
    doc.y = y + h;
  };
  ensureSpace(doc, 40);
  doc.font('bold').fontSize(9.5).text(b.title, MARGIN, doc.y, { width });
  doc.moveDown(0.3);
  drawRow(b.head, 'bold', true);
  for (const r of b.rows) drawRow(r, 'regular', false);
  doc.moveDown(0.8);
}

/** The width and height an SVG document declares (vega's "550", RDKit's '300px'). */
function svgSize(svg: string): { w: number; h: number } {
  const attribute = (name: string, fallback: number) => Number(new RegExp(`<svg\\b[^>]*\\s${name}=["']([\\d.]+)(?:px)?["']`).exec(svg)?.[1] ?? fallback);
  return { w: attribute('width', 400), h: attribute('height', 300) };
}

function figure(doc: Doc, b: Extract<Block, { kind: 'figure' }>, width: number, drawSvg: DrawSvg): void {
  const { w, h } = svgSize(b.svg);
  const maxHeight = (doc.page.height - 2 * MARGIN) * 0.6;
  const scale = Math.min(1, width / w, maxHeight / h);
  ensureSpace(doc, h * scale + 24);
  const x = MARGIN + (width - w * scale) / 2;
  // without its own width and height the SVG's viewBox fills the box given here (else its pixels would be taken as 0.75 pt each)
  const scalable = b.svg.replace(/(<svg\b[^>]*?)\swidth=(["'])[^"']*\2/, '$1').replace(/(<svg\b[^>]*?)\sheight=(["'])[^"']*\2/, '$1');
  drawSvg(doc, scalable, x, doc.y, { width: w * scale, height: h * scale, fontCallback: (_family: string, bold: boolean, italic: boolean) => (bold ? 'bold' : italic ? 'italic' : 'regular') });
  doc.y += h * scale + 4;
  doc.x = MARGIN;
  doc.font('italic').fontSize(8.5).fillColor(GREY).text(b.title, MARGIN, doc.y, { width, align: 'center' });
  doc.fillColor('black').moveDown(0.8);
}

/** Roughly how tall a block starts: a heading is never left alone at the foot of a page. */
function leadingHeight(b: Block | undefined, width: number): number {
  if (b?.kind !== 'figure') return 60;
  const { w, h } = svgSize(b.svg);
  return Math.min(h * Math.min(1, width / w), 500) + 40;
}

function section(doc: Doc, s: Section, width: number, drawSvg: DrawSvg): void {
  ensureSpace(doc, 30 + leadingHeight(s.blocks[0], width));
  doc.moveDown(0.6).font('bold').fontSize(13).fillColor('black').text(s.title, MARGIN, doc.y, { width });
  doc.moveDown(0.4);
  for (const b of s.blocks) {
    if (b.kind === 'para') {
      doc.x = MARGIN;
      textRuns(doc, b.text, { width, size: 10 });
      doc.moveDown(0.5);
    } else if (b.kind === 'facts') facts(doc, b.rows, width);
    else if (b.kind === 'table') table(doc, b, width);
    else figure(doc, b, width, drawSvg);
  }
}

/** The PDF of a report document. */
export async function renderPdf(report: ReportDocument): Promise<Buffer> {
  const { PDFDocument, drawSvg } = await loadPdfLibraries();
  const doc = new PDFDocument({ size: 'A4', margin: MARGIN, info: { Title: report.title, Author: 'ToxGraph', Creator: 'ToxGraph' }, bufferPages: true });
  doc.registerFont('regular', FONTS.regular);
  doc.registerFont('bold', FONTS.bold);
  doc.registerFont('italic', FONTS.italic);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = doc.page.width - 2 * MARGIN;
  doc.font('bold').fontSize(18).text(report.title, { width });
  if (report.subtitle) doc.moveDown(0.2).font('regular').fontSize(11).fillColor(GREY).text(report.subtitle, { width });
  doc.moveDown(0.2).font('regular').fontSize(9).fillColor(GREY).text(`ToxGraph · ${report.date}`, { width });
  doc.fillColor('black');
  for (const s of report.sections) section(doc, s, width, drawSvg);
  // page numbers
  const range = doc.bufferedPageRange();
  for (let i = 0; i < range.count; i++) {
    doc.switchToPage(range.start + i);
    // in the bottom margin: without it pdfkit would start a new page
    doc.page.margins.bottom = 0;
    doc
      .font('regular')
      .fontSize(8)
      .fillColor(GREY)
      .text(`${i + 1} / ${range.count}`, MARGIN, doc.page.height - MARGIN + 20, { width, align: 'center', lineBreak: false });
  }
  doc.end();
  return await done;
}
