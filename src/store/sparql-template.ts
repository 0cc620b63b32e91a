import { appendFileSync } from 'node:fs';
import type * as RDF from '@rdfjs/types';
import { badRequest } from '../core/errors.ts';
import { checkIri } from '../rdf/terms.ts';

/**
 * Safe SPARQL templates. Every value interpolated into a `sparql\`...\`` template must be an
 * RDF/JS term (or a list of terms, or another template); terms are written in escaped SPARQL
 * syntax. Plain strings are refused at run time, so request input can never become query text.
 */
export class SparqlText {
  readonly text: string;
  /**
   * The template's call site and the terms in its slots, when every slot holds one IRI, literal or
   * variable: the store then binds the terms into the call site's compiled parse
   * (compiled-template.ts) instead of parsing the text.
   */
  readonly slots?: { strings: TemplateStringsArray; terms: readonly RDF.Term[] };
  constructor(text: string, slots?: SparqlText['slots']) {
    this.text = text;
    this.slots = slots;
  }
  toString(): string {
    return this.text;
  }
}

export type SparqlValue = RDF.Term | SparqlText | readonly (RDF.Term | SparqlText)[];

/**
 * `TOXGRAPH_TEMPLATE_LOG=file`: every template made in this process is appended to the file at
 * exit, one JSON array per line: the script the process runs (a test file) and the template's text
 * with `{…}` for the slots. The tests use it to show
 * which templates a set of test files makes (docs/development.md, "The remote-store runs").
 */
const TEMPLATE_LOG = process.env.TOXGRAPH_TEMPLATE_LOG;
const templatesMade = TEMPLATE_LOG ? new Set<TemplateStringsArray>() : undefined;
if (TEMPLATE_LOG && templatesMade) {
  process.on('exit', () => {
    const script = process.argv[1] ?? '';
    const lines = [...templatesMade].map((strings) => JSON.stringify([script, strings.join('{…}').replace(/\s+/g, ' ').trim()]));
    appendFileSync(TEMPLATE_LOG, lines.map((line) => `${line}\n`).join(''));
  });
}

export function sparql(strings: TemplateStringsArray, ...values: SparqlValue[]): SparqlText {
  templatesMade?.add(strings);
  let out = strings[0];
  let bindable = true;
  values.forEach((value, i) => {
    out += writeValue(value) + strings[i + 1];
    bindable &&= isSlotTerm(value);
  });
  return new SparqlText(out, bindable ? { strings, terms: values as RDF.Term[] } : undefined);
}

function isSlotTerm(value: SparqlValue): boolean {
  const type = (value as RDF.Term).termType;
  return type === 'NamedNode' || type === 'Literal' || type === 'Variable';
}

function writeValue(value: SparqlValue): string {
  if (value instanceof SparqlText) return value.text;
  if (Array.isArray(value)) return value.map((v) => writeValue(v)).join(' ');
  if (value && typeof value === 'object' && 'termType' in value) return writeTerm(value as RDF.Term);
  throw new TypeError('sparql template: only RDF terms and sparql templates may be interpolated');
}

// IRIREF of the SPARQL grammar: no control characters, spaces or <>"{}|^`\
const LANGTAG = /^[a-zA-Z]+(-[a-zA-Z0-9]+)*$/;
const VARNAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function writeIri(iri: string): string {
  return `<${checkIri(iri)}>`;
}

export function writeStringLiteral(value: string): string {
  return `"${value.replace(/[\\"\n\r\t\b\f]/g, (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' })[c]!)}"`;
}

export function writeTerm(term: RDF.Term): string {
  switch (term.termType) {
    case 'NamedNode':
      return writeIri(term.value);
    case 'Literal': {
      const body = writeStringLiteral(term.value);
      if (term.language) {
        if (!LANGTAG.test(term.language)) throw badRequest(`not a valid language tag: ${JSON.stringify(term.language)}`);
        return `${body}@${term.language}`;
      }
      if (term.datatype && term.datatype.value !== 'http://www.w3.org/2001/XMLSchema#string') {
        return `${body}^^${writeIri(term.datatype.value)}`;
      }
      return body;
    }
    case 'Variable':
      if (!VARNAME.test(term.value)) throw new TypeError(`sparql template: bad variable name ${term.value}`);
      return `?${term.value}`;
    case 'BlankNode':
      throw new TypeError('sparql template: blank nodes cannot be bound into queries; use IRIs');
    case 'DefaultGraph':
      throw new TypeError('sparql template: the default graph is not a term');
    default:
      throw new TypeError(`sparql template: cannot write term type ${term.termType}`);
  }
}

/**
 * Triples of a data block (`INSERT DATA`, `INSERT { } WHERE { }`), one `s p o .` per quad (the
 * graph term is ignored): terms escaped as in templates, blank nodes written with a label
 * (in data they name fresh nodes, and the same label the same node within one operation).
 */
export function dataTriples(quads: readonly RDF.Quad[]): SparqlText {
  const term = (t: RDF.Term) => (t.termType === 'BlankNode' ? `_:b${t.value.replace(/[^A-Za-z0-9]/g, '_')}` : writeTerm(t));
  return new SparqlText(quads.map((q) => [term(q.subject), term(q.predicate), term(q.object), '.'].join(' ')).join('\n'));
}
