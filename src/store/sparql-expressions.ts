import type * as RDF from '@rdfjs/types';
import { df } from '../rdf/namespaces.ts';
import type { Solution } from './triple-store.ts';

/**
 * SPARQL 1.1 expressions the store's own evaluator (plan-evaluator.ts) computes for FILTER and
 * ORDER BY: comparisons, `&&`, `||`, `!`, BOUND, isIRI/isLiteral/isBlank/isNumeric, sameTerm,
 * STR, LANG, LANGMATCHES, DATATYPE, REGEX, CONTAINS, STRSTARTS, STRENDS, LCASE, UCASE, IN and
 * NOT IN, with the operator semantics of SPARQL 1.1 (17.2, 17.3): an error (undefined here) makes
 * a FILTER false, numbers compare by value across their types, a plain string and a
 * language-tagged one are different values. compileExpression answers undefined for any other
 * expression: the query then goes to the query engine whole.
 */

/** An expression's value in a solution: a term, or undefined for SPARQL's type error. */
export type Evaluate = (s: Solution) => RDF.Term | undefined;

const XSD = 'http://www.w3.org/2001/XMLSchema#';
const XSD_STRING = `${XSD}string`;
const XSD_BOOLEAN = `${XSD}boolean`;
const XSD_DATE_TIME = `${XSD}dateTime`;
const LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';
const INTEGER_TYPES = [
  'integer',
  'int',
  'long',
  'short',
  'byte',
  'nonNegativeInteger',
  'positiveInteger',
  'nonPositiveInteger',
  'negativeInteger',
  'unsignedLong',
  'unsignedInt',
  'unsignedShort',
  'unsignedByte',
].map((t) => XSD + t);
const INTEGER = new Set(INTEGER_TYPES);
const NUMERIC = new Set([...INTEGER_TYPES, `${XSD}decimal`, `${XSD}double`, `${XSD}float`]);
const INTEGER_FORM = /^[+-]?\d+$/;
const DECIMAL_FORM = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const DOUBLE_FORM = /^([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?INF|NaN)$/;
const DATE_TIME_FORM = /^-?\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?$/;

export const TRUE = df.literal('true', df.namedNode(XSD_BOOLEAN));
export const FALSE = df.literal('false', df.namedNode(XSD_BOOLEAN));
const bool = (b: boolean) => (b ? TRUE : FALSE);

/** Whether a literal's datatype is one of XSD's numeric types. */
export function isNumericType(datatype: string): boolean {
  return NUMERIC.has(datatype);
}

/** A numeric literal's value; undefined when it is not numeric or its lexical form is not of its type. */
function numberOf(l: RDF.Literal): number | undefined {
  const type = l.datatype.value;
  if (!NUMERIC.has(type)) return undefined;
  const text = l.value;
  if (INTEGER.has(type)) return INTEGER_FORM.test(text) ? Number(text) : undefined;
  if (type === `${XSD}decimal`) return DECIMAL_FORM.test(text) ? Number(text) : undefined;
  if (!DOUBLE_FORM.test(text)) return undefined;
  return text.endsWith('INF') ? (text.startsWith('-') ? -Infinity : Infinity) : Number(text);
}

function booleanOf(l: RDF.Literal): boolean | undefined {
  if (l.datatype.value !== XSD_BOOLEAN) return undefined;
  return l.value === 'true' || l.value === '1' ? true : l.value === 'false' || l.value === '0' ? false : undefined;
}

/** A dateTime's instant in ms (one without a time zone taken as UTC). */
function dateTimeOf(l: RDF.Literal): number | undefined {
  if (l.datatype.value !== XSD_DATE_TIME || !DATE_TIME_FORM.test(l.value)) return undefined;
  const zoned = /(Z|[+-]\d\d:\d\d)$/.test(l.value) ? l.value : `${l.value}Z`;
  const ms = Date.parse(zoned);
  return Number.isNaN(ms) ? undefined : ms;
}

const isLiteral = (t: RDF.Term | undefined): t is RDF.Literal => t?.termType === 'Literal';
/** A simple literal or xsd:string (the same in RDF 1.1). */
const isSimple = (t: RDF.Term | undefined): t is RDF.Literal => isLiteral(t) && !t.language && t.datatype.value === XSD_STRING;
/** A string literal of SPARQL's string functions: simple, xsd:string or language-tagged. */
const isStringLike = (t: RDF.Term | undefined): t is RDF.Literal => isLiteral(t) && (t.language !== '' || t.datatype.value === XSD_STRING);

/** A comparable value of a literal: its kind and value, or undefined for a literal no operator orders. */
type Comparable = { kind: 'number' | 'string' | 'boolean' | 'dateTime' | 'langString'; value: number | string | boolean; language?: string };

function comparable(l: RDF.Literal): Comparable | undefined {
  if (l.language) return { kind: 'langString', value: l.value, language: l.language.toLowerCase() };
  const type = l.datatype.value;
  if (type === XSD_STRING) return { kind: 'string', value: l.value };
  const n = numberOf(l);
  if (n !== undefined) return { kind: 'number', value: n };
  const b = booleanOf(l);
  if (b !== undefined) return { kind: 'boolean', value: b };
  const d = dateTimeOf(l);
  if (d !== undefined) return { kind: 'dateTime', value: d };
  return undefined;
}

/** `a = b` (SPARQL 1.1 17.3 with RDFterm-equal): true, false or a type error. */
export function termsEqual(a: RDF.Term, b: RDF.Term): boolean | undefined {
  if (a.termType !== 'Literal' || b.termType !== 'Literal') return a.equals(b);
  const x = comparable(a as RDF.Literal);
  const y = comparable(b as RDF.Literal);
  if (x && y) {
    const strings = (k: string) => k === 'string' || k === 'langString';
    if (x.kind === y.kind) return x.kind === 'number' ? x.value === y.value : x.value === y.value && x.language === y.language;
    // a plain string and a language-tagged one are two known, different values
    if (strings(x.kind) && strings(y.kind)) return false;
  }
  // literals of types not compared by value (or of different types): equal only when the same term
  return a.equals(b) ? true : undefined;
}

/** The order of two terms under `<` (negative, 0, positive), or undefined when `<` is a type error for them. */
function order(a: RDF.Term, b: RDF.Term): number | undefined {
  if (a.termType !== 'Literal' || b.termType !== 'Literal') return undefined;
  const x = comparable(a as RDF.Literal);
  const y = comparable(b as RDF.Literal);
  if (!x || !y || x.kind !== y.kind || x.kind === 'langString') return undefined;
  if (x.kind === 'number' && (Number.isNaN(x.value) || Number.isNaN(y.value))) return Number.NaN;
  return x.value === y.value ? 0 : x.value < y.value ? -1 : 1;
}

/** The effective boolean value of a term (17.2.2), or undefined for a type error. */
export function effectiveBoolean(t: RDF.Term | undefined): boolean | undefined {
  if (!isLiteral(t)) return undefined;
  const type = t.datatype.value;
  if (type === XSD_BOOLEAN) return booleanOf(t) ?? false;
  if (t.language || type === XSD_STRING) return t.value.length > 0;
  if (NUMERIC.has(type)) {
    const n = numberOf(t);
    return n !== undefined && n !== 0 && !Number.isNaN(n);
  }
  return undefined;
}

/** The variables an expression reads. */
export function expressionVariables(e: any, out = new Set<string>()): Set<string> {
  if (Array.isArray(e)) for (const x of e) expressionVariables(x, out);
  else if (e?.termType === 'Variable') out.add(e.value);
  else if (e?.type === 'operation' || e?.type === 'functionCall') expressionVariables(e.args, out);
  return out;
}

/** A sparqljs expression as a function of a solution, or undefined when it uses what this module does not compute. */
export function compileExpression(e: any): Evaluate | undefined {
  if (!e || typeof e !== 'object') return undefined;
  if (e.termType === 'Variable') {
    const name = e.value as string;
    return (s) => s[name];
  }
  if (e.termType === 'NamedNode' || e.termType === 'Literal') {
    const term = df.fromTerm(e) as RDF.Term;
    return () => term;
  }
  if (e.type !== 'operation') return undefined;
  const op = String(e.operator).toLowerCase();
  const args: any[] = e.args ?? [];
  if (op === 'bound') {
    if (args.length !== 1 || args[0]?.termType !== 'Variable') return undefined;
    const name = args[0].value as string;
    return (s) => bool(s[name] !== undefined);
  }
  if (op === 'in' || op === 'notin') return compileIn(args, op === 'notin');
  if (op === 'regex') return compileRegex(args);
  const compiled = args.map(compileExpression);
  if (compiled.some((c) => !c)) return undefined;
  const f = compiled as Evaluate[];
  const unary = (fn: (t: RDF.Term) => RDF.Term | undefined): Evaluate | undefined =>
    f.length === 1
      ? (s) => {
          const t = f[0](s);
          return t === undefined ? undefined : fn(t);
        }
      : undefined;
  const binary = (fn: (a: RDF.Term, b: RDF.Term) => RDF.Term | undefined): Evaluate | undefined =>
    f.length === 2
      ? (s) => {
          const a = f[0](s);
          if (a === undefined) return undefined;
          const b = f[1](s);
          return b === undefined ? undefined : fn(a, b);
        }
      : undefined;
  const compared = (test: (c: number) => boolean) =>
    binary((a, b) => {
      const c = order(a, b);
      return c === undefined ? undefined : bool(!Number.isNaN(c) && test(c));
    });
  switch (op) {
    case '=':
      return binary((a, b) => maybeBool(termsEqual(a, b)));
    case '!=':
      return binary((a, b) => {
        const eq = termsEqual(a, b);
        return eq === undefined ? undefined : bool(!eq);
      });
    case '<':
      return compared((c) => c < 0);
    case '>':
      return compared((c) => c > 0);
    case '<=':
      return compared((c) => c <= 0);
    case '>=':
      return compared((c) => c >= 0);
    case '&&':
      return f.length === 2 ? logical(f[0], f[1], false) : undefined;
    case '||':
      return f.length === 2 ? logical(f[0], f[1], true) : undefined;
    case '!':
      return f.length === 1
        ? (s) => {
            const a = effectiveBoolean(f[0](s));
            return a === undefined ? undefined : bool(!a);
          }
        : undefined;
    case 'isiri':
    case 'isuri':
      return unary((t) => bool(t.termType === 'NamedNode'));
    case 'isliteral':
      return unary((t) => bool(t.termType === 'Literal'));
    case 'isblank':
      return unary((t) => bool(t.termType === 'BlankNode'));
    case 'isnumeric':
      return unary((t) => bool(isLiteral(t) && numberOf(t) !== undefined));
    case 'sameterm':
      return binary((a, b) => bool(a.equals(b)));
    case 'str':
      return unary((t) => (t.termType === 'NamedNode' || t.termType === 'Literal' ? df.literal(t.value) : undefined));
    case 'lang':
      return unary((t) => (isLiteral(t) ? df.literal(t.language) : undefined));
    case 'datatype':
      return unary((t) => (isLiteral(t) ? df.namedNode(t.language ? LANG_STRING : t.datatype.value) : undefined));
    case 'langmatches':
      return binary((a, b) => (isSimple(a) && isSimple(b) ? bool(langMatches(a.value, b.value)) : undefined));
    case 'contains':
      return binary((a, b) => (compatible(a, b) ? bool(a.value.includes(b.value)) : undefined));
    case 'strstarts':
      return binary((a, b) => (compatible(a, b) ? bool(a.value.startsWith(b.value)) : undefined));
    case 'strends':
      return binary((a, b) => (compatible(a, b) ? bool(a.value.endsWith(b.value)) : undefined));
    case 'lcase':
      return unary((t) => (isStringLike(t) ? sameKind(t, t.value.toLowerCase()) : undefined));
    case 'ucase':
      return unary((t) => (isStringLike(t) ? sameKind(t, t.value.toUpperCase()) : undefined));
    default:
      return undefined;
  }
}

const maybeBool = (b: boolean | undefined) => (b === undefined ? undefined : bool(b));

/** A string of the same language tag or datatype as `t`. */
function sameKind(t: RDF.Literal, value: string): RDF.Literal {
  return t.language ? df.literal(value, t.language) : df.literal(value);
}

/** Argument compatibility of the two-string functions (17.4.3.1.2). */
function compatible(a: RDF.Term, b: RDF.Term): a is RDF.Literal {
  if (!isStringLike(a) || !isStringLike(b)) return false;
  return !b.language || a.language.toLowerCase() === b.language.toLowerCase();
}

/** RFC 4647 basic filtering, as LANGMATCHES has it. */
function langMatches(tag: string, range: string): boolean {
  if (range === '*') return tag !== '';
  const t = tag.toLowerCase();
  const r = range.toLowerCase();
  return t === r || t.startsWith(`${r}-`);
}

/** `x IN (…)`: true when one is equal, else an error when one comparison was, else false (17.4.1.9). */
function compileIn(args: any[], negated: boolean): Evaluate | undefined {
  if (args.length !== 2 || !Array.isArray(args[1])) return undefined;
  const of = compileExpression(args[0]);
  const list = (args[1] as any[]).map(compileExpression);
  if (!of || list.some((c) => !c)) return undefined;
  const items = list as Evaluate[];
  return (s) => {
    const x = of(s);
    if (x === undefined) return undefined;
    let error = false;
    for (const item of items) {
      const y = item(s);
      const eq = y === undefined ? undefined : termsEqual(x, y);
      if (eq === true) return bool(!negated);
      if (eq === undefined) error = true;
    }
    return error ? undefined : bool(negated);
  };
}

/** REGEX with a constant pattern and flags (i, m, s) that JavaScript reads as XPath does; anything else is left to the engine. */
function compileRegex(args: any[]): Evaluate | undefined {
  if (args.length < 2 || args.length > 3) return undefined;
  const text = compileExpression(args[0]);
  const [pattern, flags] = [args[1], args[2]];
  const constant = (t: any) => t?.termType === 'Literal' && !t.language && t.datatype?.value === XSD_STRING;
  if (!text || !constant(pattern) || (flags !== undefined && !constant(flags))) return undefined;
  const flagText: string = flags?.value ?? '';
  if (!/^[ims]*$/.test(flagText)) return undefined;
  // XPath's own syntax (class subtraction, \i \c, back references) reads differently in JavaScript
  if (/-\[|\\[icIC]|\\\d|\(\?/.test(pattern.value)) return undefined;
  let re: RegExp;
  try {
    re = new RegExp(pattern.value, flagText);
  } catch {
    return undefined;
  }
  return (s) => {
    const t = text(s);
    return isStringLike(t) ? bool(re.test(t.value)) : undefined;
  };
}

/** A FILTER's test: true only when the expressions' effective boolean values are all true. */
export function compileFilter(expressions: any[]): ((s: Solution) => boolean) | undefined {
  const compiled = expressions.map(compileExpression);
  if (compiled.some((c) => !c)) return undefined;
  const tests = compiled as Evaluate[];
  return (s) => tests.every((t) => effectiveBoolean(t(s)) === true);
}

/**
 * `&&` (decisive false) and `||` (decisive true) with SPARQL's error rules: a side that is the
 * decisive value decides even when the other is an error; otherwise an error makes the result one.
 */
function logical(left: Evaluate, right: Evaluate, decisive: boolean): Evaluate {
  const decided = bool(decisive);
  const other = bool(!decisive);
  return (s) => {
    const a = effectiveBoolean(left(s));
    if (a === decisive) return decided;
    const b = effectiveBoolean(right(s));
    if (b === decisive) return decided;
    return a === undefined || b === undefined ? undefined : other;
  };
}
