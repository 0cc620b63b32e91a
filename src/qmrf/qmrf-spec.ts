/** How many times a child may occur: once, at most once, any number, at least once. */
export type Occurrence = '1' | '?' | '*' | '+';

/** What the QMRF DTD says of one element (generated into qmrf-structure.ts). */
export interface QmrfElementSpec {
  name: string;
  content: { kind: 'empty' } | { kind: 'text' } | { kind: 'children'; children: [string, Occurrence][] };
  attributes: QmrfAttributeSpec[];
}

export interface QmrfAttributeSpec {
  name: string;
  /** CDATA, ID or IDREF; absent for an enumeration (`values`). */
  type?: string;
  values?: string[];
  required?: boolean;
  fixed?: string;
  default?: string;
}
