import { DOMParser, type Element, type Node } from '@xmldom/xmldom';
import { escapeXml } from '../rdf/xml-text.ts';
import type { QmrfElementSpec } from './qmrf-spec.ts';
import { QMRF_ELEMENTS } from './qmrf-structure.ts';

/**
 * QMRF documents (`application/qmrf-xml`, spec 2.8) as trees: written in DTD order, read from XML,
 * and checked against what the QMRF DTD allows (the generated structure), so that a document
 * this server stores or answers is always valid against `qmrf.dtd`.
 */

export interface QmrfNode {
  name: string;
  attributes: Record<string, string>;
  /** Text of a #PCDATA element. */
  text?: string;
  children: QmrfNode[];
}

export const QMRF_SPECS = new Map<string, QmrfElementSpec>(QMRF_ELEMENTS.map((e) => [e.name, e]));

export function spec(name: string): QmrfElementSpec {
  const s = QMRF_SPECS.get(name);
  if (!s) throw new Error(`${name} is not a QMRF element`);
  return s;
}

const DOCTYPE = '<!DOCTYPE QMRF PUBLIC " http://qmrf.sourceforge.net/qmrf3.0.1.dtd" "qmrf.dtd">';

function write(node: QmrfNode, indent: string): string {
  const attributes = Object.entries(node.attributes)
    .map(([k, v]) => ` ${k}="${escapeXml(v)}"`)
    .join('');
  if (!node.children.length) return `${indent}<${node.name}${attributes}>${escapeXml(node.text ?? '')}</${node.name}>\n`;
  return `${indent}<${node.name}${attributes}>\n${node.children.map((c) => write(c, `${indent}  `)).join('')}${indent}</${node.name}>\n`;
}

export function toQmrfXml(root: QmrfNode): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${DOCTYPE}\n${write(root, '')}`;
}

const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;

function elementChildren(e: Element): Element[] {
  const out: Element[] = [];
  for (let n: Node | null = e.firstChild; n; n = n.nextSibling) if (n.nodeType === ELEMENT_NODE) out.push(n as Element);
  return out;
}

function textOf(e: Node): string {
  let s = '';
  for (let n: Node | null = e.firstChild; n; n = n.nextSibling) if (n.nodeType === TEXT_NODE || n.nodeType === CDATA_SECTION_NODE) s += n.nodeValue ?? '';
  return s;
}

function where(n: Node): string {
  const line = (n as unknown as { lineNumber?: number }).lineNumber;
  return line ? ` (line ${line})` : '';
}

/** The content model of an element as a regular expression over its children's names. */
function modelPattern(s: QmrfElementSpec): RegExp | undefined {
  if (s.content.kind !== 'children') return undefined;
  const parts = s.content.children.map(([name, occurs]) => {
    const one = `(?:${name} )`;
    return occurs === '1' ? one : `${one}${occurs}`;
  });
  return new RegExp(`^${parts.join('')}$`);
}

const PATTERNS = new Map(QMRF_ELEMENTS.map((e) => [e.name, modelPattern(e)]));

/**
 * Parse and check a QMRF document: well-formed XML whose root is QMRF, every element and
 * attribute declared, children in the order and number the DTD gives, required attributes
 * present, enumerated and fixed values respected, IDs unique and every IDREF pointing to one.
 * Answers the tree, or the list of what is wrong.
 */
export function readQmrf(xml: string): { tree: QmrfNode } | { errors: string[] } {
  const errors: string[] = [];
  let dom: ReturnType<DOMParser['parseFromString']>;
  try {
    dom = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') errors.push(`not well-formed XML: ${String(message).split('\n')[0]}`);
      },
    }).parseFromString(xml, 'text/xml');
  } catch (e) {
    return { errors: [...errors, `not well-formed XML: ${(e as Error).message.split('\n')[0]}`] };
  }
  if (errors.length) return { errors };
  const root = dom.documentElement;
  if (root?.localName !== 'QMRF') return { errors: [`the root element is ${root?.localName ?? 'missing'}, not QMRF`] };
  const ids = new Set<string>();
  const refs: [string, Node][] = [];
  const visit = (e: Element): QmrfNode => {
    const name = e.localName ?? e.nodeName;
    const s = QMRF_SPECS.get(name);
    const node: QmrfNode = { name, attributes: {}, children: [] };
    if (!s) {
      errors.push(`element ${name}${where(e)} is not declared in the QMRF DTD`);
      return node;
    }
    for (let i = 0; i < e.attributes.length; i++) {
      const a = e.attributes.item(i)!;
      if (a.name.startsWith('xmlns')) continue;
      const declared = s.attributes.find((x) => x.name === a.name);
      if (!declared) {
        errors.push(`attribute ${a.name} of ${name}${where(e)} is not declared`);
        continue;
      }
      if (declared.fixed !== undefined && a.value !== declared.fixed) errors.push(`attribute ${a.name} of ${name}${where(e)} must be "${declared.fixed}"`);
      if (declared.values && !declared.values.includes(a.value)) errors.push(`attribute ${a.name} of ${name}${where(e)} is "${a.value}", not one of ${declared.values.join(', ')}`);
      if (declared.type === 'ID') {
        if (ids.has(a.value)) errors.push(`ID ${a.value}${where(e)} is used twice`);
        ids.add(a.value);
      }
      if (declared.type === 'IDREF') refs.push([a.value, e]);
      node.attributes[a.name] = a.value;
    }
    for (const a of s.attributes) if (a.required && e.getAttribute(a.name) === null) errors.push(`${name}${where(e)} lacks the required attribute ${a.name}`);
    const kids = elementChildren(e);
    const text = textOf(e);
    if (s.content.kind === 'text') {
      if (kids.length) errors.push(`${name}${where(e)} holds text only, not elements (${kids[0].localName})`);
      node.text = text;
    } else {
      if (text.trim()) errors.push(`${name}${where(e)} may not hold text`);
      if (s.content.kind === 'empty' && kids.length) errors.push(`${name}${where(e)} must be empty`);
      const pattern = PATTERNS.get(name);
      const sequence = kids.map((k) => `${k.localName} `).join('');
      if (pattern && !pattern.test(sequence)) {
        const expected = s.content.kind === 'children' ? s.content.children.map(([n, o]) => (o === '1' ? n : `${n}${o}`)).join(', ') : '';
        errors.push(`${name}${where(e)} holds ${kids.map((k) => k.localName).join(', ') || 'nothing'}; the DTD wants ${expected}`);
      }
      node.children = kids.map(visit);
    }
    return node;
  };
  const tree = visit(root);
  for (const [ref, e] of refs) if (!ids.has(ref)) errors.push(`IDREF ${ref}${where(e)} points to no ID`);
  return errors.length ? { errors } : { tree };
}

/** The first element of a tree with this name (depth first). */
export function find(node: QmrfNode, name: string): QmrfNode | undefined {
  if (node.name === name) return node;
  for (const c of node.children) {
    const hit = find(c, name);
    if (hit) return hit;
  }
  return undefined;
}
