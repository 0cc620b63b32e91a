import type { Block, ReportDocument, Text } from '../report/report-document.ts';
import { spec, find, type QmrfNode } from './qmrf-xml.ts';
import { qafModelChecklist } from './qaf-checklist.ts';

/**
 * A QMRF as a report document (DocBook at its core, then HTML and PDF): one section per
 * chapter, one fact per element with its chapter number and name, references resolved to the
 * catalogue entries they point to, answers (Yes/No, All/Some…) shown with the text.
 */

const ATTRIBUTES_SHOWN = ['answer', 'chemname', 'cas', 'smiles', 'inchi', 'mol', 'formula', 'nanomaterial'];

function catalogueEntries(tree: QmrfNode): Map<string, QmrfNode> {
  const out = new Map<string, QmrfNode>();
  for (const catalogue of find(tree, 'Catalogs')?.children ?? []) for (const e of catalogue.children) if (e.attributes.id) out.set(e.attributes.id, e);
  return out;
}

function entryText(e: QmrfNode | undefined, idref: string): Text {
  if (!e) return idref;
  const a = e.attributes;
  const label = a.name ?? a.definition ?? a.title ?? idref;
  const extra = [a.version && `version ${a.version}`, a.units && `units ${a.units}`, a.affiliation, a.email].filter((x) => x).join(', ');
  const text = `${label}${extra ? ` (${extra})` : ''}`;
  const link = [a.url, a.ontology_term].find((u) => u && /^https?:\/\//.test(u));
  return link ? { text, href: link } : text;
}

function elementValue(node: QmrfNode, entries: Map<string, QmrfNode>): Text[] {
  const answers = ATTRIBUTES_SHOWN.filter((k) => node.attributes[k]).map((k) => `${k}: ${node.attributes[k]}`);
  const parts: Text[] = [];
  if (answers.length) parts.push(`[${answers.join(', ')}] `);
  if (node.text?.trim()) parts.push(node.text.trim());
  for (const c of node.children) {
    if (c.attributes.idref) {
      if (parts.length) parts.push('; ');
      parts.push(entryText(entries.get(c.attributes.idref), c.attributes.idref));
    } else if (c.name === 'equation' && c.text?.trim()) parts.push(`${parts.length ? '; ' : ''}equation: ${c.text.trim()}`);
    else if (c.name === 'molecules' || c.name === 'document') {
      if (parts.length) parts.push('; ');
      parts.push({ text: `${c.attributes.description ?? c.name}: ${c.attributes.url}`, href: c.attributes.url });
    }
  }
  return parts.length ? parts : ['–'];
}

/** The label of an element: its chapter number and name (from the DTD's fixed attributes). */
export function labelOf(name: string): string {
  const s = spec(name);
  const chapter = s.attributes.find((a) => a.name === 'chapter')?.fixed;
  const title = s.attributes.find((a) => a.name === 'name')?.fixed ?? name;
  return chapter ? `${chapter} ${title}` : title;
}

export function qmrfDocument(tree: QmrfNode, meta: { uri: string; date: string }): ReportDocument {
  const entries = catalogueEntries(tree);
  const chapters = find(tree, 'QMRF_chapters')?.children ?? [];
  const sections = chapters.map((chapter) => {
    const rows = chapter.children.flatMap((element): { label: string; value: Text[] }[] => {
      if (element.name === 'attachments')
        return element.children.map((a) => ({ label: `${labelOf('attachments')}: ${a.name.replace('attachment_', '').replace('_', ' ')}`, value: elementValue(a, entries) }));
      return [{ label: labelOf(element.name), value: elementValue(element, entries) }];
    });
    const blocks: Block[] = [{ kind: 'facts', rows }];
    return { title: labelOf(chapter.name), blocks };
  });
  const checklist = qafModelChecklist(tree);
  const tally = (['met', 'not met', 'not known'] as const).map((v) => `${checklist.filter((c) => c.verdict === v).length} ${v}`).join(', ');
  sections.push({
    title: 'OECD QSAR Assessment Framework: model checklist',
    blocks: [
      { kind: 'para', text: [`Each assessment element of the QAF model checklist, judged from what this QMRF states (${tally}). “Not known” marks what the modeller has yet to state.`] },
      { kind: 'table', title: 'Model checklist', head: ['principle', 'assessment element', 'verdict', 'evidence'], rows: checklist.map((c) => [c.principle, c.question, c.verdict, c.evidence]) },
    ],
  });
  return { title: `QMRF: ${find(tree, 'QSAR_title')?.text?.trim() || meta.uri}`, subtitle: `(Q)SAR Model Reporting Format 3.0.1 · ${meta.uri}`, date: meta.date, sections };
}
