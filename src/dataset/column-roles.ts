import { badRequest } from '../core/errors.ts';

// What a table's columns are, by their headers: the structure (SMILES, InChI, a molfile, a
// compound URI), the substance's name, its CAS RN, and the units written in a header. A table
// with a name column and no structure column is read by name (chemical names as structures).

/** `any`: a column the uploader chose (`structure_column=`), each cell read as what it looks like (structureKindOf). */
export type StructureKind = 'smiles' | 'inchi' | 'molfile' | 'uri' | 'name' | 'any';

const STRUCTURE_HEADERS: [RegExp, StructureKind][] = [
  // SMILES or InChI with words that qualify it, in any order and punctuation: `Structure (SMILES)`, `smiles_std`, `InChI string`
  [
    /^((structure|canonical|isomeric|qsar|ready|std|standard|standardi[sz]ed|parent|input|string)[\W_]*)*smiles([\W_]*(structure|canonical|isomeric|std|standard|standardi[sz]ed|parent|input|string))*[\W_]*$/i,
    'smiles',
  ],
  [/^((std|standard|structure)[\W_]*)*inchi([\W_]*(std|standard|string|code|structure))*[\W_]*$/i, 'inchi'],
  [/^(mol|molfile|mol[ _]?block|ctab|sdf|structure[ _]?mol)$/i, 'molfile'],
  [/^(compound|compound[ _]?uri|compounduri|uri)$/i, 'uri'],
];
/** Of several structure columns, the one read: SMILES first (a column headed `mol` may be an identifier), a molfile when there is no SMILES. */
const STRUCTURE_ORDER: StructureKind[] = ['smiles', 'inchi', 'molfile', 'uri'];

const NAME_HEADERS = /^(name|chemical[ _]?name|compound[ _]?name|substance([ _]?name)?|iupac[ _]?name|preferred[ _]?name|test[ _]?substance)$/i;
const CAS_HEADERS = /^(cas|cas[ _-]?rn|casrn|cas[ _-]?(no\.?|number|registry[ _]?number)|cas[ _]?#)$/i;

/** Headers of identifier columns: `Lab ID`, `ID`, `Identifier`, `Ref`, `Code`, `No.`, `Number`. */
const IDENTIFIER_HEADERS = /(^|[\s_-])(id|identifier|ref|code|no\.?|number|#)$/i;

/** Does a header name the substance or a row rather than a value of it (a name, a CAS RN, an identifier)? */
export function isIdentifierHeader(header: string): boolean {
  return roleByHeader(header) !== 'value' || IDENTIFIER_HEADERS.test(header.trim());
}

/** What a column is by its header alone, for the upload preview: a structure, a name, a CAS RN, or a value. */
export function roleByHeader(header: string): 'structure' | 'name' | 'CAS RN' | 'value' {
  const h = header.trim();
  if (STRUCTURE_HEADERS.some(([re]) => re.test(h))) return 'structure';
  if (NAME_HEADERS.test(h)) return 'name';
  if (CAS_HEADERS.test(h)) return 'CAS RN';
  return 'value';
}

/** Where each role is in a header row; every column that is not the structure is a feature (names and CAS numbers too). */
export interface TableLayout {
  structureAt: number;
  kind: StructureKind;
  nameAt?: number;
  casAt?: number;
  featureAt: number[];
}

/**
 * Where the roles are in a header row. `structureColumn` (`structure_column=`: a header, or a column's
 * number from 1) names the structure column when its header does not say so. `orNone`: a table
 * without a structure column is laid out with none (structureAt -1) rather than refused.
 */
export function layoutOf(header: string[], structureColumn?: string, orNone = false): TableLayout {
  if (structureColumn !== undefined) return chosenLayout(header, structureColumn);
  const found = header.map((h, i) => ({ i, kind: STRUCTURE_HEADERS.find(([re]) => re.test(h.trim()))?.[1] })).filter((c): c is { i: number; kind: StructureKind } => !!c.kind);
  const at = (re: RegExp) => {
    const i = header.findIndex((h) => re.test(h.trim()));
    return i < 0 ? undefined : i;
  };
  const nameAt = at(NAME_HEADERS);
  // no structure but names: each row's name is its structure (and stays a column of its own)
  if (!found.length && nameAt !== undefined) return { structureAt: nameAt, kind: 'name', nameAt, casAt: at(CAS_HEADERS), featureAt: header.map((_, i) => i) };
  // the upload preview shows a table without one, for the person to choose it (structureAt -1: every row lacks its structure)
  if (!found.length && orNone) return { structureAt: -1, kind: 'any', featureAt: header.map((_, i) => i) };
  if (!found.length)
    throw badRequest(
      `the table has no structure column: name one SMILES, InChI, Molfile or Compound, or a Name column of chemical names, or choose it with structure_column= (its header or number; found ${header
        .slice(0, 10)
        .map((h) => JSON.stringify(h))
        .join(', ')})`,
    );
  const chosen = found.sort((a, b) => STRUCTURE_ORDER.indexOf(a.kind) - STRUCTURE_ORDER.indexOf(b.kind))[0];
  const structureColumns = new Set(found.map((c) => c.i));
  return { structureAt: chosen.i, kind: chosen.kind, nameAt, casAt: at(CAS_HEADERS), featureAt: header.map((_, i) => i).filter((i) => !structureColumns.has(i)) };
}

/** The layout with the structure in the column `chosen` names (its header, whitespace folded, or its number from 1). */
function chosenLayout(header: string[], chosen: string): TableLayout {
  const fold = (t: string) => t.replace(/\s+/gu, ' ').trim();
  const wanted = fold(chosen);
  let at = header.findIndex((h) => fold(h) === wanted);
  if (at < 0 && /^\d+$/.test(wanted) && Number(wanted) >= 1 && Number(wanted) <= header.length) at = Number(wanted) - 1;
  if (at < 0)
    throw badRequest(
      `structure_column: the table has no column ${JSON.stringify(wanted.slice(0, 100))} (give its header or its number from 1; found ${header
        .slice(0, 10)
        .map((h) => JSON.stringify(h))
        .join(', ')})`,
    );
  const kind = STRUCTURE_HEADERS.find(([re]) => re.test(header[at].trim()))?.[1] ?? (NAME_HEADERS.test(header[at].trim()) ? 'name' : 'any');
  const other = (re: RegExp) => {
    const i = header.findIndex((h, j) => j !== at && re.test(h.trim()));
    return i < 0 ? undefined : i;
  };
  const nameAt = kind === 'name' ? at : other(NAME_HEADERS);
  return { structureAt: at, kind, nameAt, casAt: other(CAS_HEADERS), featureAt: header.map((_, i) => i).filter((i) => i !== at || kind === 'name') };
}

/** What a structure written in a chosen column is: an InChI, a compound URI, a molfile, else SMILES. */
export function structureKindOf(text: string): Exclude<StructureKind, 'any' | 'name'> {
  if (/^InChI=/i.test(text)) return 'inchi';
  if (/^https?:\/\//i.test(text)) return 'uri';
  if (/\n\s*M\s+END/.test(text)) return 'molfile';
  return 'smiles';
}

/** Does a CAS RN's check digit hold (`50-00-0`: (0·1 + 0·2 + 0·3 + 5·4) mod 10 = 0)? */
export function isCasNumber(text: string): boolean {
  const m = /^(\d{2,7})-(\d{2})-(\d)$/.exec(text.trim());
  if (!m) return false;
  const digits = (m[1] + m[2]).split('').reverse();
  const sum = digits.reduce((s, d, i) => s + Number(d) * (i + 1), 0);
  return sum % 10 === Number(m[3]);
}

/**
 * A header's title and the units written in it: `LC50 [mg/L]`, `logP (-)`, `MW (g/mol)`. A
 * parenthesis is units only when it looks like units (after a space, short, no spaces), so
 * that `-log10(LC50_mmol)` stays a title.
 */
export function titleAndUnits(header: string): { title: string; units?: string } {
  // whitespace of every kind (an Excel Alt+Enter line break, tab, NBSP, U+2028) folds to one space
  const text = header.replace(/\s+/gu, ' ').trim();
  const bracket = /^(.+?)\s*\[([^\]]{1,30})\]$/.exec(text);
  if (bracket) return { title: bracket[1].trim(), units: bracket[2].trim() };
  const paren = /^(.+?)\s+\(([^()\s]{1,20})\)$/.exec(text);
  if (paren && UNIT_LIKE.test(paren[2])) return { title: paren[1].trim(), units: paren[2] };
  return { title: text };
}

/** A unit symbol: an SI prefix and a unit (`mg`, `µmol`, `L`, `kPa`), or a unit of its own (`min`, `°C`, `ppm`), with an optional power. */
const UNIT = '(?:[pnµμumcdk]?(?:g|l|L|mol|M|m|s|Pa|J|cal|eV|Da|Bq)|min|h|hr|d|days?|wk|yr|°C|K|Å|ppm|ppb|ppt|bw|mmHg|D)(?:[23²³])?';
/** Units as headers write them: `-`, `%`, `mg/L`, `mg/kg`, `µg/m3`, `°C`, `g/mol`, `Å²`; never a word (`Activity (active)` keeps its title). */
const UNIT_LIKE = new RegExp(`^(-|%|${UNIT}(/${UNIT}){0,2})$`);
