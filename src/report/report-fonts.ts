import { createRequire } from 'node:module';

/**
 * The fonts of report PDFs (DejaVu Sans: every character of the text, R², ±, Greek, accents, is
 * drawn), and the widths of text set in them: plots leave room for their labels by what the PDF
 * will draw, not by vega's estimate.
 */

const require = createRequire(import.meta.url);
const FONT_DIR = `${require.resolve('dejavu-fonts-ttf/package.json').replace(/package\.json$/, '')}ttf/`;
export const FONTS = { regular: `${FONT_DIR}DejaVuSans.ttf`, bold: `${FONT_DIR}DejaVuSans-Bold.ttf`, italic: `${FONT_DIR}DejaVuSans-Oblique.ttf` };

/** The width of a text in DejaVu Sans at a font size (in the unit of the size: points, or pixels). */
export type TextWidth = (text: string, size: number, bold?: boolean) => number;

let measuring: Promise<TextWidth> | undefined;

/** Text widths from pdfkit's font metrics, loaded when first asked for (reports only). */
export function loadTextWidth(): Promise<TextWidth> {
  measuring ??= import('pdfkit').then(({ default: PDFDocument }) => {
    const doc = new PDFDocument({ autoFirstPage: false });
    doc.registerFont('regular', FONTS.regular);
    doc.registerFont('bold', FONTS.bold);
    return (text: string, size: number, bold = false) =>
      doc
        .font(bold ? 'bold' : 'regular')
        .fontSize(size)
        .widthOfString(text);
  });
  return measuring;
}
