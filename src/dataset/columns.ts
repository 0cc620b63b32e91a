import type * as RDF from '@rdfjs/types';
import { literal, xsd } from '../rdf/namespaces.js';
import type { InputTable } from './table-input.js';

export type ColumnKind = 'numeric' | 'nominal' | 'string';

export interface TypedColumn {
  title: string;
  kind: ColumnKind;
  /** Accepted values of a nominal column, in order of first appearance. */
  accepted: string[];
  featureUri?: string;
}

/** A column is numeric when at least this share of its non-empty cells are numbers. */
const NUMERIC_SHARE = 0.75;
/** A text column is nominal (a fixed set of classes) when it has at most this many distinct values. */
const MAX_NOMINAL_VALUES = 50;

const isNumber = (s: string) => s.trim() !== '' && Number.isFinite(Number(s.trim()));

/**
 * Decide each column's feature type from its cells and turn the cells into typed literals:
 * numeric columns hold xsd:double; a non-number in a numeric column is left out and reported
 * ("row 7: 'n/a' is not a number (column LC50), value skipped"); empty cells are missing values.
 */
export function typeColumns(table: InputTable): { columns: TypedColumn[]; values: (RDF.Literal | undefined)[][] } {
  const columns: TypedColumn[] = table.columns.map((c, j) => {
    const texts: string[] = [];
    const literals: RDF.Literal[] = [];
    for (const row of table.rows) {
      const cell = row.cells[j];
      if (cell === undefined) continue;
      if (typeof cell === 'string') {
        if (cell.trim() !== '') texts.push(cell.trim());
      } else literals.push(cell);
    }
    if (literals.length) {
      const numeric = literals.every((l) => isNumericDatatype(l.datatype.value));
      return { title: c.title, kind: numeric ? 'numeric' : 'string', accepted: [], featureUri: c.featureUri };
    }
    const numbers = texts.filter(isNumber).length;
    if (texts.length > 0 && numbers / texts.length >= NUMERIC_SHARE) return { title: c.title, kind: 'numeric', accepted: [], featureUri: c.featureUri };
    const distinct = [...new Set(texts)];
    return distinct.length <= MAX_NOMINAL_VALUES
      ? { title: c.title, kind: 'nominal', accepted: distinct, featureUri: c.featureUri }
      : { title: c.title, kind: 'string', accepted: [], featureUri: c.featureUri };
  });
  const values = table.rows.map((row) =>
    columns.map((col, j) => {
      const cell = row.cells[j];
      if (cell === undefined) return undefined;
      if (typeof cell !== 'string') return cell;
      const text = cell.trim();
      if (text === '') return undefined;
      if (col.kind === 'numeric') {
        if (!isNumber(text)) {
          table.warnings.push(`${table.unit} ${row.line}: ${JSON.stringify(text)} is not a number (column ${col.title}), value skipped`);
          return undefined;
        }
        return literal(String(Number(text)), xsd('double'));
      }
      return literal(text);
    }),
  );
  return { columns, values };
}

export function isNumericDatatype(iri: string): boolean {
  return /#(double|float|decimal|integer|int|long|short|byte|nonNegativeInteger|positiveInteger|negativeInteger|nonPositiveInteger|unsignedInt|unsignedLong)$/.test(iri);
}
