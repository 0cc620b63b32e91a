import jstat from 'jstat';
import { eachMolecule, forgetToolkitAfter, toolkit } from './descriptor-calculation.ts';
import { checkStructureText } from './structure-limits.ts';
import { isWasmCrash } from '../task/worker-pool.ts';

/**
 * Frequent substructure mining (spec 2.4 `PatternMining`) over linear fragments: every simple
 * path of up to `maxBonds` bonds (single atoms included) of a structure, written as a SMARTS
 * chain of element, aromaticity and bond order (`c:c-O`, `C=O`, `Cl`), canonical as the smaller
 * of its two spellings. A fragment occurs in a structure exactly when RDKit's substructure
 * match of its SMARTS finds it, so the features can be checked and searched with `smarts=`.
 * Pure functions of SMILES, run on the worker pool.
 */

/** Elements with a one-letter-or-two SMARTS symbol; the others are written `[#z]`. */
const SYMBOLS: Record<number, string> = { 5: 'B', 6: 'C', 7: 'N', 8: 'O', 9: 'F', 15: 'P', 16: 'S', 17: 'Cl', 35: 'Br', 53: 'I' };
const AROMATIC_SYMBOLS = new Set([5, 6, 7, 8, 15, 16]);
/** Paths kept per structure at most (a cage of fused rings has very many). */
const MAX_PATHS_PER_STRUCTURE = 20_000;

interface Graph {
  atoms: string[];
  /** Per atom: [neighbour, bond token]. */
  neighbours: [number, string][][];
}

function graphOf(json: string): Graph {
  const doc = JSON.parse(json);
  const mol = doc.molecules[0];
  const defaults = doc.defaults;
  const rep = (mol.extensions ?? []).find((e: { name: string }) => e.name === 'rdkitRepresentation') ?? {};
  const aromaticAtoms = new Set<number>(rep.aromaticAtoms ?? []);
  const aromaticBonds = new Set<number>(rep.aromaticBonds ?? []);
  const atoms = (mol.atoms as { z?: number }[]).map((a, i) => {
    const z = a.z ?? defaults.atom.z;
    const symbol = SYMBOLS[z];
    if (!symbol) return `[#${z}]`;
    return aromaticAtoms.has(i) && AROMATIC_SYMBOLS.has(z) ? symbol.toLowerCase() : symbol;
  });
  const neighbours: [number, string][][] = atoms.map(() => []);
  (mol.bonds ?? []).forEach((b: { bo?: number; atoms: [number, number] }, i: number) => {
    const bo = b.bo ?? defaults.bond.bo;
    const token = aromaticBonds.has(i) ? ':' : bo === 2 ? '=' : bo === 3 ? '#' : '-';
    const [x, y] = b.atoms;
    neighbours[x].push([y, token]);
    neighbours[y].push([x, token]);
  });
  return { atoms, neighbours };
}

/** The distinct fragments of one structure. */
function fragmentsOf(g: Graph, maxBonds: number): Set<string> {
  const found = new Set<string>();
  const visit = (path: number[], tokens: string[]) => {
    if (found.size >= MAX_PATHS_PER_STRUCTURE) return;
    const forward = path.map((a, i) => (i ? tokens[i - 1] : '') + g.atoms[a]).join('');
    const reversed = [...path]
      .reverse()
      .map((a, i) => (i ? tokens[tokens.length - i] : '') + g.atoms[a])
      .join('');
    found.add(forward < reversed ? forward : reversed);
    if (tokens.length >= maxBonds) return;
    const last = path[path.length - 1];
    for (const [next, bond] of g.neighbours[last]) {
      if (path.includes(next)) continue;
      path.push(next);
      tokens.push(bond);
      visit(path, tokens);
      path.pop();
      tokens.pop();
    }
  };
  for (let a = 0; a < g.atoms.length; a++) visit([a], []);
  return found;
}

export interface MinedFragment {
  smarts: string;
  /** The fraction of the readable structures that hold it. */
  support: number;
  /** Supervised mining: the p-value of the chi-square test of independence of fragment and class, and the class it is most enriched in (an index into the classes). */
  pValue?: number;
  enrichedIn?: number;
}

export interface MinedFragments {
  /** Fragments (SMARTS) with their support: the most frequent first (supervised: the most significant first). */
  fragments: MinedFragment[];
  /** Per structure: the indices (into `fragments`) of those it holds; null where RDKit cannot read it. */
  occurrences: (number[] | null)[];
}

/**
 * Supervised mining: per structure its class (an index, null when unknown); a frequent
 * fragment is kept when the chi-square test of its occurrence against the class (Pearson's,
 * over the structures with a class) gives a p-value below `pValue`.
 */
export interface MiningTarget {
  classes: (number | null)[];
  classCount: number;
  pValue: number;
}

/** The fragments held by at least `minSup` of the readable structures, at most `maxFragments`. */
export async function mineFragments(smiles: string[], minSup: number, maxBonds: number, maxFragments: number, target?: MiningTarget): Promise<MinedFragments> {
  const sets = await eachMolecule(smiles, (mol) => fragmentsOf(graphOf(mol.get_json()), maxBonds));
  const readable = sets.filter((s): s is Set<string> => !!s);
  const counts = new Map<string, number>();
  for (const s of readable) for (const f of s) counts.set(f, (counts.get(f) ?? 0) + 1);
  const needed = Math.max(1, Math.ceil(minSup * readable.length));
  let frequent: MinedFragment[] = [...counts]
    .filter(([, n]) => n >= needed)
    .sort((a, b) => b[1] - a[1] || a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1))
    .map(([smarts, n]) => ({ smarts, support: n / readable.length }));
  if (target) {
    frequent = frequent
      .map((f) => ({ ...f, ...association(f.smarts, sets, target) }))
      .filter((f) => f.pValue < target.pValue)
      .sort((a, b) => a.pValue - b.pValue || b.support - a.support);
  }
  const fragments = frequent.slice(0, maxFragments);
  const index = new Map(fragments.map((f, i) => [f.smarts, i]));
  return { fragments, occurrences: sets.map((s) => (s ? [...s].flatMap((f) => (index.has(f) ? [index.get(f)!] : [])) : null)) };
}

/** Pearson's chi-square test of independence of a fragment's occurrence and the class (a 2 × classes table). */
function association(fragment: string, sets: (Set<string> | null)[], target: MiningTarget): { pValue: number; enrichedIn: number } {
  const held = new Array<number>(target.classCount).fill(0);
  const total = new Array<number>(target.classCount).fill(0);
  sets.forEach((s, i) => {
    const c = target.classes[i];
    if (!s || c === null || c === undefined) return;
    total[c]++;
    if (s.has(fragment)) held[c]++;
  });
  const n = total.reduce((a, b) => a + b, 0);
  const withFragment = held.reduce((a, b) => a + b, 0);
  let chi2 = 0;
  let dof = -1;
  let enrichedIn = 0;
  for (let c = 0; c < target.classCount; c++) {
    if (!total[c]) continue;
    dof++;
    for (const [observed, rowTotal] of [
      [held[c], withFragment],
      [total[c] - held[c], n - withFragment],
    ]) {
      const expected = (rowTotal * total[c]) / n;
      if (expected > 0) chi2 += (observed - expected) ** 2 / expected;
    }
    if (held[c] / total[c] > held[enrichedIn] / (total[enrichedIn] || 1)) enrichedIn = c;
  }
  // a fragment in every or no classed structure, or a single class: no evidence of association
  if (dof < 1 || withFragment === 0 || withFragment === n) return { pValue: 1, enrichedIn };
  return { pValue: 1 - jstat.jStat.chisquare.cdf(chi2, dof), enrichedIn };
}

/**
 * Per structure, the indices (into `smarts`) of the patterns RDKit finds in it; null where it
 * cannot read the structure. How fragment features (`ot:Substructure` with `ot:smarts`) are
 * calculated for structures a model has not seen. A pattern RDKit cannot read is an error.
 */
export async function substructureOccurrences(smiles: string[], smarts: string[]): Promise<(number[] | null)[]> {
  // measured before RDKit reads any (structure-limits.ts)
  smarts.forEach((s, k) => checkStructureText('smarts', s, `fragment SMARTS ${k + 1}`));
  const r = await toolkit();
  const queries: any[] = [];
  try {
    for (const s of smarts) {
      const q = r.get_qmol(s);
      if (!q?.is_valid()) {
        q?.delete();
        throw new Error(`not a valid SMARTS pattern: ${JSON.stringify(s.slice(0, 80))}`);
      }
      queries.push(q);
    }
    return await eachMolecule(smiles, (mol) => queries.flatMap((q, k) => (mol.get_substruct_match(q) !== '{}' ? [k] : [])));
  } catch (e) {
    forgetToolkitAfter(e);
    // queries of a module that crashed are not freed on it
    if (isWasmCrash(e)) queries.length = 0;
    throw e;
  } finally {
    for (const q of queries) q.delete();
  }
}
