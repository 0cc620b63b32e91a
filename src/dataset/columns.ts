import type * as RDF from '@rdfjs/types';
import { literal, xsd } from '../rdf/namespaces.ts';
import type { Cell, Endpoint, InputColumn, InputTable } from './table-input.ts';

export type ColumnKind = 'numeric' | 'nominal' | 'string';

export interface TypedColumn {
  title: string;
  kind: ColumnKind;
  /** Accepted values of a nominal column, in order of first appearance. */
  accepted: string[];
  featureUri?: string;
  units?: string;
  endpoint?: Endpoint;
}

/** A column is numeric when at least this share of its non-empty cells are numbers. */
const NUMERIC_SHARE = 0.75;
/** A text column is nominal (a fixed set of classes) when it has at most this many distinct values. */
const MAX_NOMINAL_VALUES = 50;

const isNumber = (s: string) => s.trim() !== '' && Number.isFinite(Number(s.trim()));

/**
 * Decides each column's feature type from the cells it is shown, row by row, holding only
 * counts and the first distinct values (memory does not grow with the number of rows).
 */
export class ColumnTyper {
  private readonly seen: { texts: number; numbers: number; literals: number; nonNumericLiterals: number; distinct: Set<string> }[];

  private readonly input: InputColumn[];
  constructor(input: InputColumn[]) {
    this.input = input;
    this.seen = input.map(() => ({ texts: 0, numbers: 0, literals: 0, nonNumericLiterals: 0, distinct: new Set<string>() }));
  }

  observe(cells: Cell[]): void {
    this.seen.forEach((s, j) => {
      const cell = cells[j];
      if (cell === undefined) return;
      if (typeof cell !== 'string') {
        s.literals++;
        if (!isNumericDatatype(cell.datatype.value)) s.nonNumericLiterals++;
        return;
      }
      const text = cell.trim();
      if (text === '') return;
      s.texts++;
      if (isNumber(text)) s.numbers++;
      if (s.distinct.size <= MAX_NOMINAL_VALUES) s.distinct.add(text);
    });
  }

  columns(): TypedColumn[] {
    return this.input.map((c, j) => {
      const s = this.seen[j];
      const base = { title: c.title, featureUri: c.featureUri, units: c.units, endpoint: c.endpoint, accepted: [] as string[] };
      if (c.identifier) return { ...base, kind: 'string' };
      if (s.literals) return { ...base, kind: s.nonNumericLiterals ? 'string' : 'numeric' };
      if (s.texts > 0 && s.numbers / s.texts >= NUMERIC_SHARE) return { ...base, kind: 'numeric' };
      return s.distinct.size <= MAX_NOMINAL_VALUES ? { ...base, kind: 'nominal', accepted: [...s.distinct] } : { ...base, kind: 'string' };
    });
  }
}

/**
 * A row's cells as typed literals: numeric columns hold xsd:double; a non-number in a numeric
 * column is left out and reported ("row 7: 'n/a' is not a number (column LC50), value
 * skipped"); empty cells are missing values.
 */
export function typedCells(cells: Cell[], columns: TypedColumn[], where: string, warnings: string[]): (RDF.Literal | undefined)[] {
  return columns.map((col, j) => {
    const cell = cells[j];
    if (cell === undefined) return undefined;
    if (typeof cell !== 'string') return cell;
    const text = cell.trim();
    if (text === '') return undefined;
    if (col.kind === 'numeric') {
      if (!isNumber(text)) {
        warnings.push(`${where}: ${JSON.stringify(text)} is not a number (column ${col.title}), value skipped`);
        return undefined;
      }
      return literal(String(Number(text)), xsd('double'));
    }
    return literal(text);
  });
}

/** Type the columns of a whole table in memory. */
export function typeColumns(table: InputTable): { columns: TypedColumn[]; values: (RDF.Literal | undefined)[][] } {
  const typer = new ColumnTyper(table.columns);
  for (const row of table.rows) typer.observe(row.cells);
  const columns = typer.columns();
  return { columns, values: table.rows.map((row) => typedCells(row.cells, columns, `${table.unit} ${row.line}`, table.warnings)) };
}

export function isNumericDatatype(iri: string): boolean {
  return /#(double|float|decimal|integer|int|long|short|byte|nonNegativeInteger|positiveInteger|negativeInteger|nonPositiveInteger|unsignedInt|unsignedLong)$/.test(iri);
}
