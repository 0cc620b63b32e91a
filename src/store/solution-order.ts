import type * as RDF from '@rdfjs/types';
import type { Solution } from './triple-store.ts';
import { isNumericType } from './sparql-expressions.ts';

/** One key of ORDER BY: a variable, ascending or descending. */
export interface OrderKey {
  variable: string;
  descending: boolean;
}

const XSD = 'http://www.w3.org/2001/XMLSchema#';
/** A dateTime with a time zone: only those compare without the 14-hour indeterminacy of SPARQL's rules. */
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?(Z|[+-]\d\d:\d\d)$/;
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** How a term orders: its rank among term kinds and the value compared within a kind. */
type SortValue = [rank: number, value: number | string];

/**
 * The solutions in the order of ORDER BY (SPARQL 1.1 15.1: unbound first, then blank nodes, IRIs
 * and literals; literals by the value of their type), a stable sort. Undefined when a key holds
 * literals this order cannot decide as SPARQL's `<` would (language-tagged strings, literals of
 * different types, dateTimes without a time zone, malformed numbers): the query engine orders those.
 */
export function sortSolutions(solutions: Solution[], keys: readonly OrderKey[]): Solution[] | undefined {
  const values: SortValue[][] = solutions.map(() => []);
  for (const { variable } of keys) {
    let literalKind: string | undefined;
    for (const [i, s] of solutions.entries()) {
      const term = s[variable];
      const v = sortValue(term);
      if (!v) return undefined;
      if (term?.termType === 'Literal') {
        const kind = literalKindOf(term as RDF.Literal);
        if (literalKind !== undefined && kind !== literalKind) return undefined;
        literalKind = kind;
      }
      values[i].push(v);
    }
  }
  const order = solutions.map((_, i) => i);
  order.sort((a, b) => {
    for (const [k, key] of keys.entries()) {
      const c = compare(values[a][k], values[b][k]);
      if (c !== 0) return key.descending ? -c : c;
    }
    return a - b;
  });
  return order.map((i) => solutions[i]);
}

function literalKindOf(l: RDF.Literal): string {
  const type = l.datatype.value;
  return isNumericType(type) ? 'number' : type;
}

function sortValue(term: RDF.Term | undefined): SortValue | undefined {
  if (!term) return [0, 0];
  if (term.termType === 'BlankNode') return [1, term.value];
  if (term.termType === 'NamedNode') return [2, term.value];
  if (term.termType !== 'Literal' || term.language) return undefined;
  const type = term.datatype.value;
  if (type === `${XSD}string`) return [3, term.value];
  if (isNumericType(type)) {
    if (!NUMBER.test(term.value.trim())) return undefined;
    return [3, Number(term.value)];
  }
  if (type === `${XSD}dateTime`) {
    if (!DATE_TIME.test(term.value)) return undefined;
    const ms = Date.parse(term.value);
    return Number.isNaN(ms) ? undefined : [3, ms];
  }
  if (type === `${XSD}boolean`) {
    if (term.value !== 'true' && term.value !== 'false') return undefined;
    return [3, term.value === 'true' ? 1 : 0];
  }
  return undefined;
}

function compare(a: SortValue, b: SortValue): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  return a[1] === b[1] ? 0 : a[1] < b[1] ? -1 : 1;
}
