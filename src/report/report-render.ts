import { readDocBook } from './docbook-reader.ts';
import { renderReportHtml } from './report-html.ts';
import { withPageSettings } from '../rdf/html.ts';
import { renderPdf } from './report-pdf.ts';

/**
 * Worker-pool entry: a stored DocBook report converted to HTML or PDF (spec 2.7: the other
 * formats are converted from the DocBook core). Parsing the plots and laying out pages is work
 * the main thread must not do.
 */
export async function convertReport(docbook: string, format: 'html' | 'pdf', alternates: Record<string, string> = {}, base = ''): Promise<string | Uint8Array> {
  // pages link local resources by their paths: this thread must know the base URL too
  const doc = readDocBook(docbook);
  if (format === 'html') return withPageSettings({ base, labels: new Map() }, () => renderReportHtml(doc, alternates));
  return new Uint8Array(await renderPdf(doc));
}
