import { badRequest } from '../core/errors.ts';

/**
 * How large a structure or a pattern may be when it is handed to the chemistry toolkits, in one
 * place. RDKit's WebAssembly has a fixed stack of its own: a parse, a fingerprint or a match
 * recurses once per atom along the longest path of a molecule (or of a query, recursive SMARTS
 * inside it counted), and past some 580 atoms in a chain (200 nested `$(`) it writes over its own
 * memory ("memory access out of bounds"), which leaves that RDKit instance broken for every call
 * after. So every text is measured here before any toolkit reads it: Chemistry does on each of
 * its paths (withMol, SMARTS queries, InChI, CML), as do standardisation, descriptor calculation
 * and fragment SMARTS; the searches pass the name of their request parameter down. What is beyond
 * a limit answers 400 with an ot:ErrorReport that names the input and the limit (a row's error
 * where a table is read row by row). The atom limits keep well below where RDKit breaks; a
 * molecule's atoms bound the depth of any walk over it, whatever its shape.
 */

/** Characters of a SMARTS pattern (a substructure query): the longest published ones have a few hundred. */
export const SMARTS_MAX_CHARS = 2_000;
/** Atoms of a SMARTS pattern, those of its recursive SMARTS (`$(…)`) and hydrogens counted: a whole drug of 100 heavy atoms is a pattern, twice that is room. */
export const SMARTS_MAX_ATOMS = 200;
/** How deep recursive SMARTS may nest (`[$([$(…)])]`): real patterns use two or three levels. */
export const SMARTS_MAX_NESTING = 10;
/** Characters of a SMILES: a molecule of STRUCTURE_MAX_ATOMS atoms written with brackets, charges and stereo marks. */
export const SMILES_MAX_CHARS = 4_000;
/** Characters of a molfile (one record of an SD file): some 2,000 atoms with their bonds, explicit hydrogens included. */
export const MOLFILE_MAX_CHARS = 200_000;
/** Characters of an InChI: the layers of a molecule of STRUCTURE_MAX_ATOMS atoms with stereo and isotopes. */
export const INCHI_MAX_CHARS = 10_000;
/** Characters of a CML document of one molecule. */
export const CML_MAX_CHARS = 200_000;
/**
 * Atoms other than hydrogen of one structure (all its fragments together), counted in its text
 * (SMILES atoms, a molfile's atom block, an InChI's formula, CML atoms) before it is parsed, and
 * again as parsed. Polymers and peptides of some 150 residues fit; RDKit fails on a chain of 580.
 */
export const STRUCTURE_MAX_ATOMS = 500;

/**
 * Characters of a chemical name (`POST /compound` as text/plain, a table's name column): as long
 * as a SMILES, room for the systematic names of structures within STRUCTURE_MAX_ATOMS. A longer
 * name is refused before OPSIN or the name index sees it.
 */
export const NAME_MAX_CHARS = 4_000;

/**
 * Why a chemical name must not reach OPSIN (opsin-name-parser.ts reads one name a line) or the
 * name index: too long, or holding a line break or another control character (which would split
 * it into two names on OPSIN's side), or text that is not well-formed Unicode. `what` names it
 * ("the name on line 3"); the words never quote a name that is too long.
 */
export function nameTextProblem(name: string, what: string): string | undefined {
  if (name.length > NAME_MAX_CHARS) return `${what} is ${name.length} characters long; a chemical name may have at most ${NAME_MAX_CHARS}`;
  const control = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.exec(name);
  if (control) return `${what} holds the control character U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}; a chemical name is one line of text`;
  if (LONE_SURROGATE.test(name)) return `${what} holds a lone UTF-16 surrogate; a chemical name is text`;
  return undefined;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The kinds of structure text the toolkits read. */
export type StructureText = 'smarts' | 'smiles' | 'molfile' | 'inchi' | 'cml';

const MAX_CHARS: Record<StructureText, number> = {
  smarts: SMARTS_MAX_CHARS,
  smiles: SMILES_MAX_CHARS,
  molfile: MOLFILE_MAX_CHARS,
  inchi: INCHI_MAX_CHARS,
  cml: CML_MAX_CHARS,
};

const NAMES: Record<StructureText, string> = { smarts: 'a SMARTS pattern', smiles: 'a SMILES', molfile: 'a molfile', inchi: 'an InChI', cml: 'a CML document' };

/** A text that may be SMILES, a molfile or an InChI, as the toolkit will read it. */
export function structureTextKind(text: string): 'smiles' | 'molfile' | 'inchi' {
  if (text.includes('\n')) return 'molfile';
  return text.trimStart().startsWith('InChI=') ? 'inchi' : 'smiles';
}

/**
 * Why `text` (of `kind`) must not reach a toolkit: too long, too many atoms, recursive SMARTS
 * nested too deep; undefined when it may. `what` names the input in the words: "parameter smarts",
 * "SMILES on line 3".
 */
export function structureTextProblem(kind: StructureText, text: string, what: string): string | undefined {
  const maxChars = MAX_CHARS[kind];
  if (text.length > maxChars) return `the ${what} is ${text.length} characters long; ${NAMES[kind]} may have at most ${maxChars}`;
  if (kind === 'smarts') {
    const { atoms, hydrogens, nesting } = measureLineNotation(text);
    const all = atoms + hydrogens;
    if (nesting > SMARTS_MAX_NESTING) return `the ${what} nests recursive SMARTS ($(…)) ${nesting} deep; a SMARTS pattern may nest them at most ${SMARTS_MAX_NESTING} deep`;
    if (all > SMARTS_MAX_ATOMS) return `the ${what} has ${all} atoms (those of recursive SMARTS counted); a SMARTS pattern may have at most ${SMARTS_MAX_ATOMS}`;
    return undefined;
  }
  const atoms = kind === 'smiles' ? measureLineNotation(text).atoms : kind === 'molfile' ? molfileAtoms(text) : kind === 'inchi' ? inchiAtoms(text) : cmlAtoms(text);
  if (atoms > STRUCTURE_MAX_ATOMS) return tooManyAtoms(what, atoms);
  return undefined;
}

/** 400 (an ot:ErrorReport) when structureTextProblem finds a problem. */
export function checkStructureText(kind: StructureText, text: string, what: string): void {
  const problem = structureTextProblem(kind, text, what);
  if (problem) throw badRequest(problem);
}

/**
 * 400 for a search text (`search=`: a name, CAS number, InChIKey, InChI or SMILES) that is beyond
 * the limits of the structure it would be read as: an InChI, a molfile, or SMILES when it has no
 * white space; a name with white space is never read as a structure, and may be as long as a SMILES.
 */
export function checkSearchText(text: string, what: string): void {
  const kind = structureTextKind(text);
  if (kind === 'smiles' && /\s/.test(text.trim())) {
    if (text.length > SMILES_MAX_CHARS) throw badRequest(`the ${what} is ${text.length} characters long; a name or a SMILES may have at most ${SMILES_MAX_CHARS}`);
    return;
  }
  checkStructureText(kind, text, what);
}

/** The words for a structure over STRUCTURE_MAX_ATOMS (counted in its text, or as parsed). */
export function tooManyAtoms(what: string, atoms: number): string {
  return `the ${what} has ${atoms} atoms other than hydrogen; a structure may have at most ${STRUCTURE_MAX_ATOMS}`;
}

/**
 * Atoms of a SMILES or SMARTS as written: bracket atoms (hydrogens apart), and the atoms of the
 * organic subset, aromatic ones and `*` (SMARTS `a`, `A`) outside brackets, those inside
 * recursive SMARTS included; and how deep recursive SMARTS nest. Counted without parsing, a
 * character at a time: text that is not SMILES gets a count too (its letters), which the limit
 * then judges as the toolkit would read it at worst.
 */
export function measureLineNotation(text: string): { atoms: number; hydrogens: number; nesting: number } {
  let atoms = 0;
  let hydrogens = 0;
  let deepest = 0;
  // the open chains (the top level, then one per open `$(`), each with its open branches
  const chains: number[] = [0];
  let inBracket = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inBracket) {
      if (c === ']') inBracket = false;
      else if (c === '$' && text[i + 1] === '(') {
        chains.push(0);
        deepest = Math.max(deepest, chains.length - 1);
        inBracket = false;
        i++;
      }
      continue;
    }
    if (c === '[') {
      inBracket = true;
      HYDROGEN_ATOM.lastIndex = i;
      if (HYDROGEN_ATOM.test(text)) hydrogens++;
      else atoms++;
    } else if (c === '(') chains[chains.length - 1]++;
    else if (c === ')') {
      if (chains[chains.length - 1] > 0) chains[chains.length - 1]--;
      else if (chains.length > 1) {
        // the end of a recursive SMARTS: back inside its bracket atom
        chains.pop();
        inBracket = true;
      }
    } else if (c === '%' && text[i + 1] === '(') {
      // a ring bond number of more than two digits, %(123)
      const close = text.indexOf(')', i);
      i = close < 0 ? text.length : close;
    } else if (isLetter(c) || c === '*') {
      // the second letter of Cl and Br
      if ((c === 'l' && text[i - 1] === 'C') || (c === 'r' && text[i - 1] === 'B')) continue;
      atoms++;
    }
  }
  return { atoms, hydrogens, nesting: deepest };
}

/** A bracket atom of hydrogen ([H], [2H], [H+]), not of He, Hf, Hg, Ho or Hs. */
const HYDROGEN_ATOM = /\[\d*H(?![a-z])/y;

function isLetter(c: string): boolean {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

const HYDROGEN_SYMBOLS = new Set(['H', 'D', 'T']);

/** Atoms other than hydrogen of a molfile's atom block (V2000 or V3000), as far as it goes. */
export function molfileAtoms(molfile: string): number {
  const lines = molfile.split(/\r?\n/, 100_000);
  const counts = lines[3] ?? '';
  let atoms = 0;
  if (/V3000/.test(counts)) {
    let inAtoms = false;
    for (const line of lines) {
      if (/^M {2}V30 BEGIN ATOM/.test(line)) inAtoms = true;
      else if (/^M {2}V30 END ATOM/.test(line)) break;
      else if (inAtoms) {
        const symbol = /^M {2}V30 +\d+ +(\S+)/.exec(line)?.[1];
        if (symbol !== undefined && !HYDROGEN_SYMBOLS.has(symbol)) atoms++;
      }
    }
    return atoms;
  }
  const declared = Number.parseInt(counts.slice(0, 3), 10);
  const last = Math.min(lines.length, 4 + (Number.isFinite(declared) ? declared : 0));
  for (let i = 4; i < last; i++) if (!HYDROGEN_SYMBOLS.has(lines[i].slice(31, 34).trim())) atoms++;
  return atoms;
}

/** Atoms other than hydrogen of an InChI's formula layer (`C6H12O6`, `2C2H3O2.Ca`). */
export function inchiAtoms(inchi: string): number {
  const formula = /^InChI=1S?\/([^/]*)/.exec(inchi.trim())?.[1] ?? '';
  let atoms = 0;
  for (const part of formula.split('.')) {
    const [, times, elements] = /^(\d*)(.*)$/.exec(part)!;
    let n = 0;
    for (const [, element, count] of elements.matchAll(/([A-Z][a-z]?)(\d*)/g)) if (element !== 'H') n += count ? Number(count) : 1;
    atoms += (times ? Number(times) : 1) * n;
  }
  return atoms;
}

/** Atoms other than hydrogen of a CML document (its `<atom>` elements). */
export function cmlAtoms(cml: string): number {
  let atoms = 0;
  for (const [element] of cml.matchAll(/<(?:\w+:)?atom\b[^>]*>/g)) if (!/elementType\s*=\s*["'][HDT]["']/.test(element)) atoms++;
  return atoms;
}
