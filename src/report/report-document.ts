/**
 * The content of a report document (validation reports, and the QMRF/QPRF documents built on the
 * same machinery): sections of paragraphs, fact lists, tables and figures. It is written as
 * DocBook 5 (the stored core of a report, spec 2.7) and read back from it; HTML and PDF are
 * rendered from what is read back, so every format says exactly what the DocBook says.
 */
import { escapeXml } from '../rdf/xml-text.ts';

/** A piece of text, or a link. */
export type Text = string | { text: string; href: string };

export type Block =
  | { kind: 'para'; text: Text[] }
  /** Label–value pairs (DocBook variablelist). */
  | { kind: 'facts'; rows: { label: string; value: Text[] }[] }
  | { kind: 'table'; title: string; head: string[]; rows: Text[][] }
  /** A plot as SVG (drawn on the server), with its title. */
  | { kind: 'figure'; title: string; svg: string };

export interface Section {
  title: string;
  blocks: Block[];
}

export interface ReportDocument {
  title: string;
  subtitle?: string;
  /** ISO 8601. */
  date: string;
  sections: Section[];
}

export const DOCBOOK_NS = 'http://docbook.org/ns/docbook';
const XLINK_NS = 'http://www.w3.org/1999/xlink';

export function textOf(t: Text): string {
  return typeof t === 'string' ? t : t.text;
}

function inline(parts: Text[]): string {
  return parts.map((t) => (typeof t === 'string' ? escapeXml(t) : `<link xlink:href="${escapeXml(t.href)}">${escapeXml(t.text)}</link>`)).join('');
}

/** An SVG document as an element to embed (no XML declaration or doctype). */
function svgElement(svg: string): string {
  return svg.replace(/^\s*<\?xml[^>]*\?>\s*/, '').replace(/<!DOCTYPE[^>]*>\s*/, '');
}

function block(b: Block, indent: string): string {
  switch (b.kind) {
    case 'para':
      return `${indent}<para>${inline(b.text)}</para>\n`;
    case 'facts':
      return `${indent}<variablelist>\n${b.rows
        .map((r) => `${indent}  <varlistentry><term>${escapeXml(r.label)}</term><listitem><para>${inline(r.value)}</para></listitem></varlistentry>\n`)
        .join('')}${indent}</variablelist>\n`;
    case 'table': {
      const row = (cells: Text[]) => `<row>${cells.map((c) => `<entry>${inline([c])}</entry>`).join('')}</row>`;
      return (
        `${indent}<table frame="all"><title>${escapeXml(b.title)}</title>\n` +
        `${indent}  <tgroup cols="${b.head.length}">\n` +
        `${indent}    <thead>${row(b.head)}</thead>\n` +
        `${indent}    <tbody>\n${b.rows.map((r) => `${indent}      ${row(r)}\n`).join('')}${indent}    </tbody>\n` +
        `${indent}  </tgroup>\n${indent}</table>\n`
      );
    }
    case 'figure':
      return `${indent}<figure><title>${escapeXml(b.title)}</title><mediaobject><imageobject><imagedata format="svg">${svgElement(b.svg)}</imagedata></imageobject></mediaobject></figure>\n`;
  }
}

/** The document as DocBook 5 XML (an `article`). */
export function toDocBook(doc: ReportDocument): string {
  const sections = doc.sections.map((s) => `  <section>\n    <title>${escapeXml(s.title)}</title>\n${s.blocks.map((b) => block(b, '    ')).join('')}  </section>\n`).join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<article xmlns="${DOCBOOK_NS}" xmlns:xlink="${XLINK_NS}" version="5.0">\n` +
    `  <info>\n    <title>${escapeXml(doc.title)}</title>\n` +
    (doc.subtitle ? `    <subtitle>${escapeXml(doc.subtitle)}</subtitle>\n` : '') +
    `    <date>${escapeXml(doc.date)}</date>\n    <author><orgname>ToxGraph</orgname></author>\n  </info>\n` +
    sections +
    '</article>\n'
  );
}
