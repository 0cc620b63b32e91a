import type * as RDF from '@rdfjs/types';
import { Parser } from 'sparqljs';
import type { SparqlText } from './sparql-template.ts';

/**
 * Named templates compiled once. A `sparql` template whose interpolated values are all single
 * IRIs or literals is parsed the first time its call site runs, with a placeholder variable in
 * each slot, and kept by its call site (the template's `strings` array, which JavaScript gives
 * each call site once). A later call binds its terms into a copy of that parse, so the store's
 * evaluators see the parsed query without the text being parsed again. The text is still written
 * (and checked: IRIs, language tags) for stores and engines that take text.
 */

/** The prefix of the placeholder variables: nothing a template writes itself starts with it. */
const SLOT = 'toxgraphSlot';
const SLOT_NAME = new RegExp(`^${SLOT}(\\d+)$`);

/** Parses of call sites (null: the template does not parse with placeholders, e.g. a slot in INSERT DATA). */
const parses = new WeakMap<TemplateStringsArray, object | null>();

/** The parse of a template's call site with a placeholder in each slot (null when it has none). */
function compiledTemplate(strings: TemplateStringsArray): object | null {
  let parsed = parses.get(strings);
  if (parsed === undefined) {
    let text = strings[0];
    for (let i = 1; i < strings.length; i++) text += ` ?${SLOT}${i - 1} ${strings[i]}`;
    try {
      parsed = new Parser().parse(text) as object;
    } catch {
      parsed = null; // a slot where SPARQL takes no variable: the text is parsed on every run
    }
    parses.set(strings, parsed);
  }
  return parsed;
}

/**
 * A copy of a compiled parse with the terms in its slots. Only what holds a slot is copied; the
 * rest is shared with the compiled parse, which nobody changes (parsed-query.ts's rule).
 */
function substitute(node: any, terms: readonly RDF.Term[]): any {
  if (node === null || typeof node !== 'object') return node;
  if (node.termType === 'Variable') {
    const slot = SLOT_NAME.exec(node.value);
    return slot ? terms[Number(slot[1])] : node;
  }
  if (typeof node.termType === 'string' && node.termType !== 'Quad') return node;
  if (Array.isArray(node)) {
    let out: any[] | undefined;
    for (let i = 0; i < node.length; i++) {
      const v = substitute(node[i], terms);
      if (v !== node[i]) {
        out ??= node.slice();
        out[i] = v;
      }
    }
    return out ?? node;
  }
  let out: any;
  for (const key of Object.keys(node)) {
    const v = substitute(node[key], terms);
    if (v !== node[key]) {
      out ??= { ...node };
      out[key] = v;
    }
  }
  return out ?? node;
}

/**
 * Whether two parses say the same (terms compared by value, blank node labels ignored: a parser
 * names them afresh each time). The check of compiled against parsed text that tests switch on.
 */
export function sameParse(a: any, b: any): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (typeof a.termType === 'string' || typeof b.termType === 'string') {
    if (a.termType !== b.termType) return false;
    if (a.termType === 'BlankNode') return true;
    if (a.termType === 'Quad') return ['subject', 'predicate', 'object', 'graph'].every((k) => sameParse(a[k], b[k]));
    if (a.termType === 'Literal') return a.value === b.value && a.language === b.language && a.datatype?.value === b.datatype?.value;
    return a.value === b.value;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a).filter((k) => a[k] !== undefined);
  const keysB = Object.keys(b).filter((k) => b[k] !== undefined);
  return keysA.length === keysB.length && keysA.every((k) => sameParse(a[k], b[k]));
}

/**
 * The parse of a template's text from its call site's compiled parse, or undefined when it has
 * none (a text, or a template with a list or another template in a slot). With
 * `TOXGRAPH_CHECK_TEMPLATES=1` (the tests) each is compared with the parse of its text.
 */
export function templateParse(query: SparqlText | string): any {
  if (typeof query === 'string' || !query.slots) return undefined;
  const compiled = compiledTemplate(query.slots.strings);
  if (!compiled) return undefined;
  const bound = substitute(compiled, query.slots.terms);
  if (CHECK && !sameParse(bound, new Parser().parse(query.text))) throw new Error(`compiled template differs from its text: ${query.text}`);
  return bound;
}

const CHECK = process.env.TOXGRAPH_CHECK_TEMPLATES === '1';
