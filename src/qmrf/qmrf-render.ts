import { loadExcel } from '../dataset/xlsx-table.ts';
import { escapeHtml, linkOf, withPageSettings } from '../rdf/html.ts';
import { textOf, toDocBook } from '../report/report-document.ts';
import { renderReportHtml } from '../report/report-html.ts';
import { renderPdf } from '../report/report-pdf.ts';
import { labelOf, qmrfDocument } from './qmrf-document.ts';
import { readQmrf, spec, type QmrfNode } from './qmrf-xml.ts';

/**
 * Worker-pool entry: a stored QMRF in the formats a reader asks for: DocBook, HTML (the report
 * and a form that edits it), PDF and a spreadsheet. The document is the same in each.
 */
export function convertQmrf(xml: string, format: QmrfFormat, meta: QmrfMeta): Promise<string | Uint8Array> {
  // pages link local resources by their paths: this thread must know the base URL too
  return withPageSettings({ base: meta.base, labels: new Map() }, () => convert(xml, format, meta));
}

type QmrfFormat = 'docbook' | 'html' | 'pdf' | 'xlsx';
interface QmrfMeta {
  uri: string;
  date: string;
  alternates: Record<string, string>;
  base: string;
}

async function convert(xml: string, format: QmrfFormat, meta: QmrfMeta): Promise<string | Uint8Array> {
  const read = readQmrf(xml);
  if ('errors' in read) throw new Error(`the stored QMRF is not valid: ${read.errors[0]}`);
  const doc = qmrfDocument(read.tree, meta);
  switch (format) {
    case 'docbook':
      return toDocBook(doc);
    case 'pdf':
      return new Uint8Array(await renderPdf(doc));
    case 'html':
      return renderReportHtml(doc, meta.alternates).replace('</body>', `${editingForm(read.tree, meta.uri)}</body>`);
    case 'xlsx': {
      const book = new (await loadExcel()).Workbook();
      book.creator = 'ToxGraph';
      const sheet = book.addWorksheet('QMRF');
      sheet.columns = [
        { header: 'Element', key: 'label', width: 60 },
        { header: 'Value', key: 'value', width: 100 },
      ];
      sheet.getRow(1).font = { bold: true };
      sheet.addRow({ label: doc.title, value: doc.subtitle ?? '' }).font = { bold: true };
      for (const s of doc.sections) {
        sheet.addRow({ label: s.title }).font = { bold: true };
        for (const b of s.blocks) {
          if (b.kind === 'facts') for (const r of b.rows) sheet.addRow({ label: r.label, value: r.value.map(textOf).join('') });
          if (b.kind === 'table') for (const r of b.rows) sheet.addRow({ label: textOf(r[1] ?? ''), value: `${textOf(r[2] ?? '')}: ${r.slice(3).map(textOf).join(' ')}` });
        }
      }
      sheet.getColumn('value').alignment = { wrapText: true, vertical: 'top' };
      return new Uint8Array(await book.xlsx.writeBuffer());
    }
  }
}

/** An HTML form posting the section updates of `POST /reach_report/qmrf/{id}`: one field per text element, one choice per answer. */
function editingForm(tree: QmrfNode, uri: string): string {
  const fields: string[] = [];
  const visit = (n: QmrfNode, seen: Set<string>) => {
    const s = spec(n.name);
    if (seen.has(n.name)) return;
    seen.add(n.name);
    for (const a of s.attributes.filter((x) => x.values && x.fixed === undefined)) {
      const options = a.values!.map((v) => `<option${n.attributes[a.name] === v ? ' selected' : ''}>${escapeHtml(v)}</option>`).join('');
      fields.push(`<label>${escapeHtml(labelOf(n.name))}: ${escapeHtml(a.name)} <select name="${escapeHtml(`${n.name}@${a.name}`)}">${options}</select></label>`);
    }
    if (s.content.kind === 'text' && n.name !== 'equation') {
      fields.push(`<label>${escapeHtml(labelOf(n.name))}<br><textarea name="${escapeHtml(n.name)}" rows="2" cols="100">${escapeHtml(n.text ?? '')}</textarea></label>`);
    }
    for (const c of n.children) visit(c, seen);
  };
  const seen = new Set<string>();
  for (const chapter of tree.children[0]?.children ?? []) visit(chapter, seen);
  return `<section><h2>Edit this report</h2><form method="post" action="${escapeHtml(linkOf(uri).href)}" enctype="application/x-www-form-urlencoded">
${fields.map((f) => `<p>${f}</p>`).join('\n')}
<p><label>Attach a validation or cross-validation of the model (URI) <input name="validation_uri" size="80"></label></p>
<p><button type="submit">Save</button></p></form></section>`;
}
