import type { QmrfNode } from './qmrf-xml.ts';
import { spec } from './qmrf-xml.ts';

/**
 * Builds a complete QMRF document: every element the DTD requires, in its order, with the fixed
 * attributes a reader shows (chapter numbers and names), and the values given for single
 * elements: a text, attributes, references to catalogue entries, or catalogue entries.
 * Whatever is not given stays empty, and required answers default to the most cautious one
 * ("No", "Unknown").
 */
export class QmrfBuilder {
  private readonly texts = new Map<string, string>();
  private readonly attributeValues = new Map<string, Record<string, string>>();
  private readonly childLists = new Map<string, QmrfNode[]>();

  /** The text of a #PCDATA element (e.g. `QSAR_title`). */
  text(element: string, value: string | undefined): this {
    if (value !== undefined) this.texts.set(element, value);
    return this;
  }

  attributes(element: string, values: Record<string, string>): this {
    this.attributeValues.set(element, { ...this.attributeValues.get(element), ...values });
    return this;
  }

  /** Children of an element made of references (`software_ref`, `author_ref` …) or catalogue entries. */
  children(element: string, nodes: QmrfNode[]): this {
    this.childLists.set(element, nodes);
    return this;
  }

  /** The document (or one element of it, with what it must hold) with the values given. */
  build(name = 'QMRF'): QmrfNode {
    return this.element(name);
  }

  private element(name: string): QmrfNode {
    const s = spec(name);
    const attributes: Record<string, string> = {};
    for (const a of s.attributes) {
      if (a.fixed !== undefined) attributes[a.name] = a.fixed;
      else if (a.required && a.values) attributes[a.name] = a.values.includes('Unknown') ? 'Unknown' : a.values.includes('No') ? 'No' : a.values[0];
    }
    Object.assign(attributes, this.attributeValues.get(name));
    const node: QmrfNode = { name, attributes, children: [] };
    if (s.content.kind === 'text') node.text = this.texts.get(name) ?? '';
    if (s.content.kind !== 'children') return node;
    const given = this.childLists.get(name) ?? [];
    for (const [child, occurs] of s.content.children) {
      const mine = given.filter((g) => g.name === child);
      if (mine.length) node.children.push(...mine);
      else if (occurs === '1' || occurs === '+') node.children.push(this.element(child));
    }
    return node;
  }
}

/** An empty element with attributes: a catalogue entry or a reference to one. */
export function entry(name: string, attributes: Record<string, string>): QmrfNode {
  return { name, attributes, children: [] };
}
