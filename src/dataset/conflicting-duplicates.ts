import { isIdentifierHeader } from './column-roles.ts';

/**
 * Rows of the same compound whose values disagree: pentachlorophenol carcinogenic in rows 79
 * and 150, non-carcinogenic in row 312 (a conflict of classes), or two measurements of a number
 * that differ (replicates). Only the columns that are values of the substance are
 * compared (classes and numbers); identifiers and names (a `Name`, a `CAS` or a `… ID` column,
 * free text) differ from row to row by nature. Each row is compared with the first value its
 * compound had in that column, so that a table is read once and only one value per compound and
 * column is held.
 */

/** Is a column one whose values two rows of the same compound should share? */
export function comparedColumn(column: { title: string; kind: string }): boolean {
  return (column.kind === 'nominal' || column.kind === 'numeric') && !isIdentifierHeader(column.title);
}

/** One row's disagreement with the first row of its compound. */
export interface Conflict {
  line: number;
  firstLine: number;
  compound: string;
  column: string;
  value: string;
  firstValue: string;
}

export class ConflictFinder {
  /** Per compound and compared column: the first value and its row. */
  private readonly first = new Map<string, Map<string, { value: string; line: number }>>();
  private readonly found: Conflict[] = [];

  /** Compare a row's values (column title → value as text, empty ones left out) with its compound's first ones. */
  observe(compound: string, line: number, values: [string, string][]): void {
    let seen = this.first.get(compound);
    if (!seen) this.first.set(compound, (seen = new Map()));
    for (const [column, value] of values) {
      const first = seen.get(column);
      if (!first) seen.set(column, { value, line });
      else if (!sameValue(first.value, value)) {
        this.found.push({ line, firstLine: first.line, compound, column, value, firstValue: first.value });
      }
    }
  }

  conflicts(): Conflict[] {
    return this.found;
  }
}

const sameValue = (a: string, b: string) => a === b || (a.trim() !== '' && Number(a) === Number(b));

/**
 * The words of a disagreement, at its row: of classes, a conflict (`row 312: conflicting
 * duplicate of row 79 (…): Carcinogenicity is "non-carcinogenic" here, "carcinogenic" in row 79`);
 * of numbers (`numeric`), replicates whose values differ, which measurements do.
 */
export function conflictWarning(c: Conflict, unit: string, numeric = false): string {
  return `${unit} ${c.line}: ${numeric ? 'differing replicate' : 'conflicting duplicate'} of ${unit} ${c.firstLine} (${c.compound}): ${c.column} is ${JSON.stringify(c.value)} here, ${JSON.stringify(c.firstValue)} in ${unit} ${c.firstLine}`;
}

/** The summary notes of an upload's disagreements (`numeric`: is a column numbers?), or none. */
export function conflictSummary(conflicts: Conflict[], numeric: (column: string) => boolean): string[] {
  const classes = new Set(conflicts.filter((c) => !numeric(c.column)).map((c) => c.compound)).size;
  const numbers = new Set(conflicts.filter((c) => numeric(c.column)).map((c) => c.compound)).size;
  return [
    ...(classes ? [`${classes} structure(s) have rows whose classes disagree (conflicting duplicates, all rows kept): see the warnings "conflicting duplicate of"`] : []),
    ...(numbers ? [`${numbers} structure(s) have replicate rows whose numbers differ (all rows kept): see the warnings "differing replicate of"`] : []),
  ];
}
