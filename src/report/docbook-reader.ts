import { DOMParser, XMLSerializer, type Element, type Node } from '@xmldom/xmldom';
import { DOCBOOK_NS, type Block, type ReportDocument, type Section, type Text } from './report-document.ts';

/**
 * Reads the DocBook 5 a report stores back into its document (the subset `toDocBook` writes:
 * article info, sections of para, variablelist, table and figure with inline SVG). What it
 * does not know it keeps as plain text, so no content is silently lost.
 */

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;

function children(e: Element, name?: string): Element[] {
  const out: Element[] = [];
  for (let n: Node | null = e.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === ELEMENT_NODE && (name === undefined || (n as Element).localName === name)) out.push(n as Element);
  }
  return out;
}

function child(e: Element, name: string): Element | undefined {
  return children(e, name)[0];
}

function plain(n: Node): string {
  if (n.nodeType === TEXT_NODE || n.nodeType === CDATA_SECTION_NODE) return n.nodeValue ?? '';
  let s = '';
  for (let c: Node | null = n.firstChild; c; c = c.nextSibling) s += plain(c);
  return s;
}

/** Mixed content: text and links. */
function inline(e: Element | undefined): Text[] {
  if (!e) return [];
  const out: Text[] = [];
  for (let n: Node | null = e.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === ELEMENT_NODE && (n as Element).localName === 'link') {
      const href = (n as Element).getAttributeNS('http://www.w3.org/1999/xlink', 'href') ?? (n as Element).getAttribute('linkend') ?? '';
      out.push(href ? { text: plain(n), href } : plain(n));
    } else {
      const text = plain(n);
      if (text) out.push(text);
    }
  }
  return out;
}

function blockOf(e: Element): Block | undefined {
  switch (e.localName) {
    case 'title':
      return undefined;
    case 'para':
      return { kind: 'para', text: inline(e) };
    case 'variablelist':
      return {
        kind: 'facts',
        rows: children(e, 'varlistentry').map((v) => ({ label: plain(child(v, 'term') ?? v).trim(), value: inline(child(child(v, 'listitem') ?? v, 'para') ?? child(v, 'listitem')) })),
      };
    case 'table':
    case 'informaltable': {
      const group = child(e, 'tgroup') ?? e;
      const rowsOf = (part?: Element) => (part ? children(part, 'row').map((r) => children(r, 'entry').map((c) => mergeText(inline(c)))) : []);
      const head = rowsOf(child(group, 'thead'))[0] ?? [];
      return { kind: 'table', title: plain(child(e, 'title') ?? e).trim(), head: head.map((h) => (typeof h === 'string' ? h : h.text)), rows: rowsOf(child(group, 'tbody')) };
    }
    case 'figure': {
      const svg = e.getElementsByTagNameNS('http://www.w3.org/2000/svg', 'svg')[0];
      const title = plain(child(e, 'title') ?? e).trim();
      return svg ? { kind: 'figure', title, svg: new XMLSerializer().serializeToString(svg) } : { kind: 'para', text: [title] };
    }
    default: {
      const text = plain(e).trim();
      return text ? { kind: 'para', text: [text] } : undefined;
    }
  }
}

/** A table cell is one piece: a link, or the text of its parts. */
function mergeText(parts: Text[]): Text {
  if (parts.length === 1) return parts[0];
  return parts.map((p) => (typeof p === 'string' ? p : p.text)).join('');
}

export function readDocBook(xml: string): ReportDocument {
  const dom = new DOMParser({ onError: () => {} }).parseFromString(xml, 'text/xml');
  const article = dom.documentElement;
  if (!article || article.localName !== 'article' || article.namespaceURI !== DOCBOOK_NS) throw new Error('not a DocBook 5 article');
  const info = child(article, 'info');
  const sections: Section[] = children(article, 'section').map((s) => ({
    title: plain(child(s, 'title') ?? s).trim(),
    blocks: children(s).flatMap((b) => blockOf(b) ?? []),
  }));
  return {
    title: plain(child(info ?? article, 'title') ?? article).trim(),
    subtitle: info && child(info, 'subtitle') ? plain(child(info, 'subtitle')!).trim() : undefined,
    date: info && child(info, 'date') ? plain(child(info, 'date')!).trim() : '',
    sections,
  };
}
