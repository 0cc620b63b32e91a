import type PDFDocument from 'pdfkit';
import type SVGtoPDF from 'svg-to-pdfkit';
import type { Block, ReportDocument, Section, Text } from './report-document.ts';
import { textOf } from './report-document.ts';
import { FONTS } from './report-fonts.ts';

/**
 * A report document as PDF (pdfkit, plots through svg-to-pdfkit as vector graphics), set in
 * DejaVu Sans so that every character of the text (R², ±, Greek, accents) is drawn. A4, tables
 * broken across pages with their header repeated, their columns as wide as their widest word (no
 * word is broken inside). A page break keeps a heading with what follows it and leaves no line of
 * a paragraph or fact alone on either side.
 */

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

/** The height of a text set in a font and size across a width. */
const textHeight = (doc: Doc, text: string, width: number, size: number, font = 'regular') =>
  doc
    .font(font)
    .fontSize(size)
    .heightOfString(text || ' ', { width });

/** The height of a page between its margins. */
const pageHeight = (doc: Doc) => doc.page.height - 2 * MARGIN;

/**
 * Start a new page before a block of text `height` tall unless it fits here, or breaks where it
 * leaves at least two lines on each side (no heading or first line alone at the foot of a page,
 * no last line or word alone at the head of the next).
 */
function keepLines(doc: Doc, height: number, lineHeight: number): void {
  const room = doc.page.height - MARGIN - doc.y;
  if (height <= room || height > pageHeight(doc)) {
    if (height > room && room < 2 * lineHeight) doc.addPage();
    return;
  }
  if (room < 2 * lineHeight || height - room < 2 * lineHeight) doc.addPage();
}

/** Whitespace-separated words; a word this long (a URI, a SMILES) may be broken, a shorter one never. */
const BREAKABLE_LENGTH = 25;
const wordsOf = (text: string) => text.split(/\s+/).filter((w) => w !== '' && w.length < BREAKABLE_LENGTH);

/** The width of the widest word of the texts in the font set now (with a space after it, as pdfkit measures a word in a line). */
const widestWord = (doc: Doc, texts: string[]) => Math.max(0, ...texts.flatMap(wordsOf).map((w) => doc.widthOfString(`${w} `)));

/** The label column of facts: at least as wide as the widest word of a label. */
function labelWidthOf(doc: Doc, rows: { label: string }[], width: number): number {
  doc.font('bold').fontSize(9.5);
  const widest = widestWord(
    doc,
    rows.map((r) => r.label),
  );
  return Math.min(width / 2, Math.max(150, widest + 9));
}

function facts(doc: Doc, rows: { label: string; value: Text[] }[], width: number): void {
  const labelWidth = labelWidthOf(doc, rows, width);
  for (const r of rows) {
    keepLines(doc, rowHeight(doc, r, width, labelWidth), doc.font('regular').fontSize(9.5).currentLineHeight(true));
    const page = doc.page;
    let top = doc.y;
    doc
      .font('bold')
      .fontSize(9.5)
      .fillColor(GREY)
      .text(r.label, MARGIN, top, { width: labelWidth - 8 });
    const labelBottom = doc.y;
    // a label that went on to the next page (a fact taller than a page): its value follows it there
    if (doc.page !== page) top = doc.y;
    doc.x = MARGIN + labelWidth;
    doc.y = top;
    const valuePage = doc.page;
    textRuns(doc, r.value, { width: width - labelWidth, size: 9.5 });
    doc.x = MARGIN;
    doc.y = (doc.page === valuePage ? Math.max(doc.y, labelBottom) : doc.y) + 3;
  }
}

/** The height of a fact: its label or its value, whichever is taller. */
function rowHeight(doc: Doc, r: { label: string; value: Text[] }, width: number, labelWidth: number): number {
  const label = textHeight(doc, r.label, labelWidth - 8, 9.5, 'bold');
  const value = textHeight(doc, r.value.map(textOf).join(''), width - labelWidth, 9.5);
  return Math.max(label, value);
}

const CELL_PAD = 3;
const SMALLEST_TABLE_FONT = 5.5;

/**
 * The font size and column widths of a table, set as a browser sets an automatic table layout:
 * every column at least as wide as its widest word, so that no word is broken inside (the font
 * shrinks while the words alone are wider than the page); the width left over goes to the columns
 * by how much wider their longest text would like to be.
 */
function tableLayout(doc: Doc, head: string[], rows: Text[][], width: number): { size: number; widths: number[] } {
  const columns = head.map((h, c) => ({ head: h, cells: rows.map((r) => textOf(r[c] ?? '')) }));
  const widestWords = (size: number) =>
    columns.map((col) => {
      const headWord = widestWord(doc.font('bold').fontSize(size), [col.head]);
      return Math.max(headWord, widestWord(doc.font('regular').fontSize(size), col.cells)) + 2 * CELL_PAD + 1;
    });
  let size = head.length > 6 ? 7.5 : 8.5;
  let least = widestWords(size);
  while (sum(least) > width && size > SMALLEST_TABLE_FONT) {
    size -= 0.5;
    least = widestWords(size);
  }
  // words too wide for the page at the smallest font: shared out as they are (they break)
  if (sum(least) > width) return { size, widths: least.map((w) => (w / sum(least)) * width) };
  const wanted = columns.map((col, c) => {
    const headWidth = doc.font('bold').fontSize(size).widthOfString(col.head);
    doc.font('regular').fontSize(size);
    return Math.min(width, Math.max(least[c], headWidth + 2 * CELL_PAD, ...col.cells.map((t) => doc.widthOfString(t) + 2 * CELL_PAD)));
  });
  if (sum(wanted) <= width) return { size, widths: wanted.map((w) => (w / sum(wanted)) * width) };
  // a column whose text fits on one line in an equal share of the width left takes what it wants (a rank, a verdict)
  const whole = new Set<number>();
  for (;;) {
    const open = columns.map((_, c) => c).filter((c) => !whole.has(c));
    const share = (width - sum([...whole].map((c) => wanted[c]))) / open.length;
    const fits = open.filter((c) => wanted[c] <= share);
    if (!fits.length || fits.length === open.length) break;
    for (const c of fits) whole.add(c);
  }
  const open = columns.map((_, c) => c).filter((c) => !whole.has(c));
  const slack = width - sum([...whole].map((c) => wanted[c])) - sum(open.map((c) => least[c]));
  const more = wanted.map((w, c) => (whole.has(c) ? 0 : w - least[c]));
  if (slack < 0 || sum(more) <= 0) return { size, widths: least.map((w, c) => w + ((width - sum(least)) * (wanted[c] - least[c])) / (sum(wanted) - sum(least))) };
  return { size, widths: wanted.map((w, c) => (whole.has(c) ? w : least[c] + (slack * more[c]) / sum(more))) };
}

const sum = (values: number[]) => values.reduce((a, v) => a + v, 0);

/** The height of the cells of a table row. */
function cellsHeight(doc: Doc, cells: string[], font: string, size: number, widths: number[]): number {
  doc.font(font).fontSize(size);
  return Math.max(...cells.map((c, i) => doc.heightOfString(c || ' ', { width: widths[i] - 2 * CELL_PAD }))) + 2 * CELL_PAD;
}

/** The height of a table's title, header and first row. */
function tableStartHeight(doc: Doc, b: Extract<Block, { kind: 'table' }>, width: number): number {
  const { size, widths } = tableLayout(doc, b.head, b.rows, width);
  const title = textHeight(doc, b.title, width, 9.5, 'bold') + doc.currentLineHeight(true) * 0.3;
  return title + cellsHeight(doc, b.head, 'bold', size, widths) + (b.rows.length ? cellsHeight(doc, b.rows[0].map(textOf), 'regular', size, widths) : 0);
}

function table(doc: Doc, b: Extract<Block, { kind: 'table' }>, width: number): void {
  const cols = b.head.length;
  const { size, widths } = tableLayout(doc, b.head, b.rows, width);
  const pad = CELL_PAD;
  const heightOf = (cells: string[], font: string) => cellsHeight(doc, cells, font, size, widths);
  const drawRow = (cells: Text[], font: string, shade: boolean) => {
    const h = heightOf(cells.map(textOf), font);
    // a row taller than a page is drawn where it is (its text goes on to the next page)
    if (doc.y + h > doc.page.height - MARGIN && h + heightOf(b.head, 'bold') <= pageHeight(doc)) {
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
  // the title, the header and the first row together
  const start = tableStartHeight(doc, b, width);
  if (start <= pageHeight(doc)) ensureSpace(doc, start);
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
  const maxHeight = pageHeight(doc) * 0.6;
  const scale = Math.min(1, width / w, maxHeight / h);
  const caption = textHeight(doc, b.title, width, 8.5, 'italic');
  ensureSpace(doc, h * scale + 4 + caption);
  const x = MARGIN + (width - w * scale) / 2;
  // without its own width and height the SVG's viewBox fills the box given here (else its pixels would be taken as 0.75 pt each)
  const scalable = b.svg.replace(/(<svg\b[^>]*?)\swidth=(["'])[^"']*\2/, '$1').replace(/(<svg\b[^>]*?)\sheight=(["'])[^"']*\2/, '$1');
  drawSvg(doc, scalable, x, doc.y, { width: w * scale, height: h * scale, fontCallback: (_family: string, bold: boolean, italic: boolean) => (bold ? 'bold' : italic ? 'italic' : 'regular') });
  doc.y += h * scale + 4;
  doc.x = MARGIN;
  doc.font('italic').fontSize(8.5).fillColor(GREY).text(b.title, MARGIN, doc.y, { width, align: 'center' });
  doc.fillColor('black').moveDown(0.8);
}

/** How tall the start of a block is (a figure, two lines, a fact, a table's title, header and first row): a heading is kept with it. */
function leadingHeight(doc: Doc, b: Block | undefined, width: number): number {
  if (!b) return 0;
  switch (b.kind) {
    case 'figure': {
      const { w, h } = svgSize(b.svg);
      return Math.min(h * Math.min(1, width / w), pageHeight(doc) * 0.6) + 40;
    }
    case 'para':
      return Math.min(textHeight(doc, b.text.map(textOf).join(''), width, 10), 2 * doc.currentLineHeight(true));
    case 'facts':
      return b.rows.length ? rowHeight(doc, b.rows[0], width, labelWidthOf(doc, b.rows, width)) : 0;
    case 'table':
      return tableStartHeight(doc, b, width);
  }
}

function section(doc: Doc, s: Section, width: number, drawSvg: DrawSvg): void {
  const heading = textHeight(doc, s.title, width, 13, 'bold') + doc.currentLineHeight(true);
  const start = heading + leadingHeight(doc, s.blocks[0], width);
  if (start <= pageHeight(doc)) ensureSpace(doc, start);
  doc.moveDown(0.6).font('bold').fontSize(13).fillColor('black').text(s.title, MARGIN, doc.y, { width });
  doc.moveDown(0.4);
  for (const b of s.blocks) {
    if (b.kind === 'para') {
      doc.x = MARGIN;
      keepLines(doc, textHeight(doc, b.text.map(textOf).join(''), width, 10), doc.currentLineHeight(true));
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
