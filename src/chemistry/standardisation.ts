/**
 * QSAR-ready structure standardisation on RDKit.js (MinimalLib, which has no MolStandardize): one
 * parent structure per input, as RDKit canonical SMILES, with the names of the rules that changed
 * something and flags for what a model should not be trained on blindly (mixtures, inorganics,
 * metals).
 *
 * Pure and synchronous: `standardise(rdkit, input, options)` depends on nothing but its arguments
 * (the salt list's lookup keys are worked out once per RDKit module and kept), frees every RDKit
 * object it makes, and leaves RDKit's settings as it found them (the one it touches, legacy stereo
 * perception, is switched off only while a molecule is rebuilt from its JSON, which otherwise
 * loses double-bond stereo, and switched back at once).
 *
 * How it works. A molecule between rules is its canonical SMILES. A rule that edits atoms reads
 * the molecule as RDKit's JSON (kekulé bonds, hydrogen counts, charges, stereo), changes charges,
 * hydrogen counts and bond orders there, and has RDKit rebuild and sanitise it; an edit RDKit
 * cannot sanitise is dropped. Where a rule has to find a group it asks RDKit with SMARTS. The
 * hypervalent forms (nitro as N(=O)=O, N-oxides as N=O) are fixed before sanitisation, on the
 * structure as parsed: RDKit's own sanitisation would otherwise clean some of them up unseen.
 *
 * Order (each a named rule, see STANDARDISATION_RULES): metal disconnection and functional-group
 * normalisation first (salt matching and charge balance need nitro, N-oxide and the like in one
 * form), then the options that act on the whole input (isotopes, stereo, hydrogens), then salts
 * and fragments, neutralisation, tautomers, and explicit hydrogens last.
 *
 * Unreadable input is an error result, not an exception (`ok: false`, flag 'unparseable'), so a
 * dataset can be standardised row by row; only a programming error (an unknown option value)
 * throws.
 */

import { isWasmCrash } from '../task/worker-pool.ts';
import { structureTextKind, structureTextProblem } from './structure-limits.ts';

/** The RDKit.js module as `Chemistry.load()` holds it. */
type RDKitModule = any;

export interface StandardisationOptions {
  /** 'keep' (default) or 'remove' every tetrahedral and double-bond stereo mark. */
  stereo?: 'keep' | 'remove';
  /** 'keep' (default) or 'remove' isotope labels ([13C] → C, [2H] → H). */
  isotopes?: 'keep' | 'remove';
  /**
   * 'implicit' (default): hydrogen atoms given explicitly are folded into their heavy atoms
   * (isotopic ones are kept as atoms while isotopes are kept); 'explicit': every hydrogen of the
   * parent is written as an atom. Rules always work on the hydrogen-suppressed structure.
   */
  hydrogens?: 'implicit' | 'explicit';
}

export type StandardisationFlag = 'mixture' | 'metal' | 'inorganic' | 'unparseable';

export interface Standardised {
  ok: true;
  /** RDKit canonical SMILES of the standardised parent. */
  parent: string;
  /** RDKit canonical SMILES of the input as RDKit reads it, before any rule. */
  original: string;
  /** Names of the rules that changed something, in the order they ran. */
  rules: string[];
  /** 'mixture', 'metal', 'inorganic' (see FLAG_DESCRIPTIONS). */
  flags: StandardisationFlag[];
}

export interface NotStandardised {
  ok: false;
  /** The input text as given. */
  original: string;
  error: string;
  rules: [];
  flags: ['unparseable'];
}

export type StandardisationResult = Standardised | NotStandardised;

export const FLAG_DESCRIPTIONS: Readonly<Record<StandardisationFlag, string>> = {
  mixture: 'more than one distinct organic fragment was left after salts and solvents were stripped; the parent is the largest',
  metal: 'a metal atom (METAL_ELEMENTS) is left after salts were stripped: an organometallic, a complex, or a metal salt whose metal is not a listed counter-ion',
  inorganic: 'the parent has no carbon atom',
  unparseable: 'RDKit cannot read or sanitise the input; no parent',
};

type Stage = 'normalise' | 'options' | 'fragments' | 'charges' | 'tautomers';

export interface StandardisationRule {
  name: string;
  stage: Stage;
  description: string;
}

// ---------------------------------------------------------------------------------------------
// Elements

const SYMBOLS =
  'H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu Am Cm Bk Cf Es Fm Md No Lr Rf Db Sg Bh Hs Mt Ds Rg Cn Nh Fl Mc Lv Ts Og'.split(
    ' ',
  );
const atomicNumber = (symbol: string): number => SYMBOLS.indexOf(symbol) + 1;

/** The elements counted as metals for the 'metal' flag (metalloids B, Si, Ge, As, Sb, Te are not). */
export const METAL_ELEMENTS: readonly string[] = SYMBOLS.filter((_, i) => {
  const z = i + 1;
  const metalloidOrNonMetal = [1, 2, 5, 6, 7, 8, 9, 10, 14, 15, 16, 17, 18, 32, 33, 34, 35, 36, 51, 52, 53, 54, 85, 86, 117, 118];
  return !metalloidOrNonMetal.includes(z);
});
const METALS = new Set(METAL_ELEMENTS.map(atomicNumber));

/** Metals whose bonds to N, O, S, P and halogens are ionic: broken by 'disconnect-metals' unless the metal is bonded to carbon. */
export const IONIC_METAL_ELEMENTS: readonly string[] = ['Li', 'Na', 'K', 'Rb', 'Cs', 'Mg', 'Ca', 'Sr', 'Ba'];
const IONIC_METALS = new Set(IONIC_METAL_ELEMENTS.map(atomicNumber));
const DISCONNECTED_FROM = new Set(['N', 'O', 'F', 'P', 'S', 'Cl', 'Se', 'Br', 'I'].map(atomicNumber));

/** A fragment of one atom of these elements, whatever its charge or hydrogens, is a counter-ion. */
export const COUNTER_ION_ELEMENTS: readonly string[] = ['H', 'Li', 'Na', 'K', 'Rb', 'Cs', 'Mg', 'Ca', 'Sr', 'Ba', 'Zn', 'Al', 'F', 'Cl', 'Br', 'I'];
const COUNTER_ION_ATOMS = new Set(COUNTER_ION_ELEMENTS.map(atomicNumber));

/**
 * Counter-ions and solvents stripped by 'strip-salts', as neutral SMILES. A fragment matches when
 * its neutralised, stereo-free canonical SMILES is one of these (so sulfate, hydrogen sulfate and
 * sulfuric acid are one entry; maleate and fumarate are one).
 */
export const SALTS_AND_SOLVENTS: readonly (readonly [smiles: string, name: string])[] = [
  ['O', 'water, hydroxide'],
  ['N', 'ammonia, ammonium'],
  ['OS(=O)(=O)O', 'sulfuric acid, sulfate'],
  ['O=[N+]([O-])O', 'nitric acid, nitrate'],
  ['O=P(O)(O)O', 'phosphoric acid, phosphate'],
  ['OC(=O)O', 'carbonic acid, carbonate'],
  ['O=Cl(=O)(=O)O', 'perchloric acid, perchlorate'],
  ['F[B-](F)(F)F', 'tetrafluoroborate'],
  ['F[P-](F)(F)(F)(F)F', 'hexafluorophosphate'],
  ['O=CO', 'formic acid, formate'],
  ['CC(=O)O', 'acetic acid, acetate'],
  ['O=C(O)C(F)(F)F', 'trifluoroacetic acid'],
  ['O=C(O)C(=O)O', 'oxalic acid, oxalate'],
  ['O=C(O)C=CC(=O)O', 'maleic and fumaric acid'],
  ['O=C(O)CCC(=O)O', 'succinic acid'],
  ['O=C(O)CC(=O)O', 'malonic acid'],
  ['O=C(O)C(O)C(O)C(=O)O', 'tartaric acid'],
  ['O=C(O)CC(O)C(=O)O', 'malic acid'],
  ['O=C(O)CC(O)(CC(=O)O)C(=O)O', 'citric acid'],
  ['CC(O)C(=O)O', 'lactic acid'],
  ['O=C(O)c1ccccc1', 'benzoic acid'],
  ['CS(=O)(=O)O', 'methanesulfonic acid (mesylate)'],
  ['CCS(=O)(=O)O', 'ethanesulfonic acid (esylate)'],
  ['O=S(=O)(O)c1ccccc1', 'benzenesulfonic acid (besylate)'],
  ['Cc1ccc(S(=O)(=O)O)cc1', 'p-toluenesulfonic acid (tosylate)'],
  ['NC(CO)(CO)CO', 'tromethamine'],
  ['CNCC(O)C(O)C(O)C(O)CO', 'meglumine'],
  ['CO', 'methanol'],
  ['CCO', 'ethanol'],
  ['CC(C)O', '2-propanol'],
  ['CC(C)=O', 'acetone'],
  ['CC#N', 'acetonitrile'],
  ['CS(C)=O', 'dimethyl sulfoxide'],
  ['CN(C)C=O', 'dimethylformamide'],
  ['CCOCC', 'diethyl ether'],
  ['CCOC(C)=O', 'ethyl acetate'],
  ['C1CCOC1', 'tetrahydrofuran'],
  ['C1COCCO1', '1,4-dioxane'],
  ['ClCCl', 'dichloromethane'],
  ['ClC(Cl)Cl', 'chloroform'],
];

// ---------------------------------------------------------------------------------------------
// RDKit molecules and their JSON graphs

interface Atom {
  z: number;
  impHs: number;
  chg: number;
  nRad: number;
  isotope: number;
  stereo: string;
}

interface Bond {
  bo: number;
  atoms: [number, number];
  stereo: string;
  stereoAtoms?: number[];
}

/** One molecule of RDKit's JSON, defaults filled in; `doc` is the rest of the document. */
interface Graph {
  atoms: Atom[];
  bonds: Bond[];
  doc: any;
}

const KEEP_HS = JSON.stringify({ removeHs: false });
const RAW = JSON.stringify({ sanitize: false, removeHs: false });

function parse(rdkit: RDKitModule, text: string, details?: string): any | null {
  let mol: any = null;
  try {
    mol = details === undefined ? rdkit.get_mol(text) : rdkit.get_mol(text, details);
  } catch (e) {
    // a crash is not an unreadable input: the module is unusable (Chemistry replaces it)
    if (isWasmCrash(e)) throw e;
    mol = null;
  }
  if (mol && !mol.is_valid()) {
    mol.delete();
    mol = null;
  }
  return mol;
}

/** Run `work` on the molecule of a SMILES the pipeline wrote (always readable), and free it. */
function withMol<T>(rdkit: RDKitModule, smiles: string, keepHs: boolean, work: (mol: any) => T): T {
  const mol = parse(rdkit, smiles, keepHs ? KEEP_HS : undefined);
  if (!mol) throw new Error(`standardisation: RDKit cannot read its own SMILES ${smiles}`);
  try {
    return work(mol);
  } finally {
    mol.delete();
  }
}

/** RDKit canonical SMILES, hydrogen atoms kept or folded; null when RDKit cannot read it. */
function canonical(rdkit: RDKitModule, smiles: string, keepHs = false): string | null {
  const mol = parse(rdkit, smiles, keepHs ? KEEP_HS : undefined);
  if (!mol) return null;
  try {
    return mol.get_smiles();
  } finally {
    mol.delete();
  }
}

function graphOf(json: string): Graph {
  const doc = JSON.parse(json);
  const mol = doc.molecules?.[0] ?? {};
  return {
    atoms: (mol.atoms ?? []).map((a: object) => ({ ...doc.defaults.atom, ...a })),
    bonds: (mol.bonds ?? []).map((b: object) => ({ ...doc.defaults.bond, ...b })),
    doc,
  };
}

function cloneGraph(g: Graph): Graph {
  return { atoms: g.atoms.map((a) => ({ ...a })), bonds: g.bonds.map((b) => ({ ...b, atoms: [...b.atoms] as [number, number] })), doc: g.doc };
}

/**
 * The canonical SMILES of an edited graph, or null when RDKit cannot sanitise it. Perception and
 * coordinates are left to RDKit: the aromaticity extension and any conformers are dropped.
 */
function smilesOfGraph(rdkit: RDKitModule, g: Graph, keepHs: boolean): string | null {
  const { extensions: _e, conformers: _c, ...rest } = g.doc.molecules[0];
  const json = JSON.stringify({ ...g.doc, molecules: [{ ...rest, atoms: g.atoms, bonds: g.bonds }] });
  // under legacy stereo perception RDKit drops the double-bond stereo of a molecule read from JSON
  const legacy = rdkit.use_legacy_stereo_perception(false);
  let smiles: string | null = null;
  try {
    const mol = parse(rdkit, json, KEEP_HS);
    if (mol) {
      smiles = mol.get_smiles();
      mol.delete();
    }
  } finally {
    rdkit.use_legacy_stereo_perception(legacy);
  }
  return smiles === null ? null : canonical(rdkit, smiles, keepHs);
}

/** Apply `edit` to the graph of a SMILES; the new canonical SMILES, or the same one when nothing changed or RDKit refuses the edit. */
function editSmiles(rdkit: RDKitModule, smiles: string, keepHs: boolean, edit: (g: Graph) => boolean): string {
  const g = withMol(rdkit, smiles, keepHs, (mol) => graphOf(mol.get_json()));
  if (!edit(g)) return smiles;
  return smilesOfGraph(rdkit, g, keepHs) ?? smiles;
}

/** Atom indices of every match of a SMARTS, in RDKit's order. */
function matchesOf(rdkit: RDKitModule, mol: any, smarts: string): number[][] {
  const query = rdkit.get_qmol(smarts);
  if (!query) throw new Error(`standardisation: bad SMARTS ${smarts}`);
  try {
    const found = JSON.parse(mol.get_substruct_matches(query));
    return Array.isArray(found) ? found.map((m: { atoms: number[] }) => m.atoms) : [];
  } finally {
    query.delete();
  }
}

interface Neighbour {
  atom: number;
  bond: number;
}

function neighbours(g: Graph): Neighbour[][] {
  const adj: Neighbour[][] = g.atoms.map(() => []);
  g.bonds.forEach((b, i) => {
    adj[b.atoms[0]].push({ atom: b.atoms[1], bond: i });
    adj[b.atoms[1]].push({ atom: b.atoms[0], bond: i });
  });
  return adj;
}

const isTerminal = (adj: Neighbour[][], i: number): boolean => adj[i].length === 1;

// ---------------------------------------------------------------------------------------------
// Normalisation: graph edits on the structure as parsed, before RDKit sanitises it

/** Bonds between ionic metals and N, O, S, P or halogens are broken, the charges going to the two atoms. */
function disconnectMetals(g: Graph): boolean {
  const adj = neighbours(g);
  const organometallic = (i: number) => adj[i].some((n) => g.atoms[n.atom].z === 6);
  const broken = new Set<number>();
  g.bonds.forEach((b, i) => {
    const [p, q] = b.atoms;
    for (const [metal, other] of [
      [p, q],
      [q, p],
    ]) {
      if (IONIC_METALS.has(g.atoms[metal].z) && DISCONNECTED_FROM.has(g.atoms[other].z) && !organometallic(metal)) {
        g.atoms[metal].chg += b.bo;
        g.atoms[other].chg -= b.bo;
        broken.add(i);
      }
    }
  });
  g.bonds = g.bonds.filter((_, i) => !broken.has(i));
  return broken.size > 0;
}

/** N(=O)=O → [N+](=O)[O-]. */
function chargeSeparateNitro(g: Graph): boolean {
  const adj = neighbours(g);
  let changed = false;
  g.atoms.forEach((n, i) => {
    if (n.z !== 7 || n.chg !== 0) return;
    const oxo = adj[i].filter((x) => g.bonds[x.bond].bo === 2 && g.atoms[x.atom].z === 8 && g.atoms[x.atom].chg === 0 && isTerminal(adj, x.atom));
    if (oxo.length < 2) return;
    const o = oxo[oxo.length - 1];
    n.chg = 1;
    g.atoms[o.atom].chg = -1;
    g.bonds[o.bond].bo = 1;
    changed = true;
  });
  return changed;
}

/** Pentavalent N=O (amine oxide, nitrone, pyridine N-oxide as n=O) → [N+][O-]. */
function chargeSeparateNOxide(g: Graph): boolean {
  const adj = neighbours(g);
  let changed = false;
  g.atoms.forEach((n, i) => {
    if (n.z !== 7 || n.chg !== 0) return;
    const valence = adj[i].reduce((v, x) => v + g.bonds[x.bond].bo, n.impHs);
    const oxo = adj[i].find((x) => g.bonds[x.bond].bo === 2 && g.atoms[x.atom].z === 8 && g.atoms[x.atom].chg === 0 && isTerminal(adj, x.atom));
    if (valence !== 5 || !oxo) return;
    n.chg = 1;
    g.atoms[oxo.atom].chg = -1;
    g.bonds[oxo.bond].bo = 1;
    changed = true;
  });
  return changed;
}

/**
 * X=N#N and [X-]-[N+]#N → X=[N+]=[N-]: azides (X = N) and diazo compounds (X = C).
 */
function cumulateNitrogens(first: number): (g: Graph) => boolean {
  return (g) => {
    const adj = neighbours(g);
    let changed = false;
    g.atoms.forEach((mid, m) => {
      if (mid.z !== 7) return;
      const end = adj[m].find((x) => g.bonds[x.bond].bo === 3 && g.atoms[x.atom].z === 7 && g.atoms[x.atom].chg === 0 && isTerminal(adj, x.atom));
      if (!end) return;
      for (const x of adj[m]) {
        const a = g.atoms[x.atom];
        const bond = g.bonds[x.bond];
        if (x.atom === end.atom || a.z !== first) continue;
        // X=N#N: the middle nitrogen is pentavalent
        const plain = bond.bo === 2 && a.chg === 0 && mid.chg === 0;
        // [X-]-[N+]#N: the other charge-separated form
        const separated = bond.bo === 1 && a.chg === -1 && mid.chg === 1;
        if (!plain && !separated) continue;
        a.chg = 0;
        bond.bo = 2;
        mid.chg = 1;
        g.bonds[end.bond].bo = 2;
        g.atoms[end.atom].chg = -1;
        changed = true;
        return;
      }
    });
    return changed;
  };
}

/** [S+]-[O-] → S=O (sulfoxides, sulfones, sulfonyl groups drawn charge-separated); P likewise. */
function recombineOxide(element: number): (g: Graph) => boolean {
  return (g) => {
    const adj = neighbours(g);
    let changed = false;
    g.atoms.forEach((x, i) => {
      if (x.z !== element) return;
      for (const o of adj[i]) {
        if (x.chg <= 0) return;
        const oxygen = g.atoms[o.atom];
        if (oxygen.z !== 8 || oxygen.chg !== -1 || g.bonds[o.bond].bo !== 1 || !isTerminal(adj, o.atom)) continue;
        g.bonds[o.bond].bo = 2;
        oxygen.chg = 0;
        x.chg -= 1;
        changed = true;
      }
    });
    return changed;
  };
}

// ---------------------------------------------------------------------------------------------
// Options

function removeIsotopes(g: Graph): boolean {
  let changed = false;
  for (const a of g.atoms) {
    if (a.isotope !== 0) {
      a.isotope = 0;
      changed = true;
    }
  }
  return changed;
}

function removeStereo(g: Graph): boolean {
  let changed = false;
  for (const x of [...g.atoms, ...g.bonds]) {
    if (x.stereo !== 'unspecified') {
      x.stereo = 'unspecified';
      changed = true;
    }
  }
  for (const b of g.bonds) delete b.stereoAtoms;
  return changed;
}

// ---------------------------------------------------------------------------------------------
// Neutralisation

/**
 * How readily a negative atom takes a proton back: the weakest acids' anions first (alkoxides,
 * phenolates, thiolates, N-), then carboxylates and the like, then sulfonates, sulfates and
 * phosphates, and last an anion next to a cation (nitro, N-oxide, azide), which only goes when
 * the molecule has more negative charge than that.
 */
function protonationRank(g: Graph, adj: Neighbour[][], i: number): number {
  if (adj[i].some((x) => g.atoms[x.atom].chg > 0)) return 3;
  if (adj[i].some((x) => g.atoms[x.atom].z === 15 || g.atoms[x.atom].z === 16)) return 2;
  const oxoAcid = adj[i].some((x) => adj[x.atom].some((y) => y.atom !== i && g.bonds[y.bond].bo === 2 && [7, 8, 16].includes(g.atoms[y.atom].z)));
  return oxoAcid ? 1 : 0;
}

/**
 * Protonated nitrogens ([NH+], [NH2+], [NH3+], [nH+]) lose a proton and O-, S- and N- anions gain
 * one, as many of each as keep the molecule's net charge nearest zero: a betaine or a quaternary
 * ammonium carboxylate stays a zwitterion, an amino acid becomes neutral, a quaternary ammonium
 * cation stays a cation, nitro and N-oxides keep their charges.
 */
function neutraliseGraph(g: Graph): boolean {
  const adj = neighbours(g);
  const indices = g.atoms.map((_, i) => i);
  const cations = indices.filter((i) => g.atoms[i].z === 7 && g.atoms[i].chg === 1 && g.atoms[i].impHs > 0);
  const anions = indices
    .filter((i) => [7, 8, 16].includes(g.atoms[i].z) && g.atoms[i].chg === -1)
    .map((i) => ({ i, rank: protonationRank(g, adj, i) }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((x) => x.i);
  const net = g.atoms.reduce((q, a) => q + a.chg, 0);
  let best = { p: 0, n: 0, charge: Math.abs(net) };
  for (let p = 0; p <= cations.length; p++) {
    for (let n = 0; n <= anions.length; n++) {
      const charge = Math.abs(net - p + n);
      if (charge < best.charge || (charge === best.charge && p + n > best.p + best.n)) best = { p, n, charge };
    }
  }
  for (const i of cations.slice(0, best.p)) {
    g.atoms[i].chg = 0;
    g.atoms[i].impHs -= 1;
  }
  for (const i of anions.slice(0, best.n)) {
    g.atoms[i].chg = 0;
    g.atoms[i].impHs += 1;
  }
  return best.p + best.n > 0;
}

/** A charge in a SMILES is in a bracket atom. */
const CHARGED = /\[[^\]]*[+-][^\]]*\]/;

function neutralise(rdkit: RDKitModule, smiles: string): string {
  if (!CHARGED.test(smiles)) return smiles;
  return editSmiles(rdkit, smiles, false, neutraliseGraph);
}

// ---------------------------------------------------------------------------------------------
// Fragments

interface Fragment {
  smiles: string;
  heavy: number;
  carbons: number;
  elements: Set<number>;
}

function fragmentsOf(rdkit: RDKitModule, smiles: string): Fragment[] {
  // a canonical SMILES never closes a ring across a '.'
  return smiles.split('.').map((part) =>
    withMol(rdkit, part, false, (mol) => {
      const g = graphOf(mol.get_json());
      return {
        smiles: mol.get_smiles(),
        heavy: g.atoms.filter((a) => a.z !== 1).length,
        carbons: g.atoms.filter((a) => a.z === 6).length,
        elements: new Set(g.atoms.map((a) => a.z)),
      };
    }),
  );
}

/** The key a fragment is looked up by in the salt list: neutral, stereo-free, canonical. */
function saltKey(rdkit: RDKitModule, smiles: string): string {
  return neutralise(rdkit, editSmiles(rdkit, smiles, false, removeStereo));
}

const saltKeysByModule = new WeakMap<object, Set<string>>();

function saltKeys(rdkit: RDKitModule): Set<string> {
  let keys = saltKeysByModule.get(rdkit);
  if (!keys) {
    keys = new Set(SALTS_AND_SOLVENTS.map(([smiles]) => saltKey(rdkit, canonical(rdkit, smiles)!)));
    saltKeysByModule.set(rdkit, keys);
  }
  return keys;
}

function isCounterIon(rdkit: RDKitModule, f: Fragment): boolean {
  if (f.heavy + (f.elements.has(1) ? 1 : 0) === 1 && [...f.elements].every((z) => COUNTER_ION_ATOMS.has(z))) return true;
  return saltKeys(rdkit).has(saltKey(rdkit, f.smiles));
}

/** Counter-ions and solvents go; when nothing else is left the organic ones stay (sodium acetate → acetate), or all of them. */
function stripSalts(rdkit: RDKitModule, smiles: string): string {
  if (!smiles.includes('.')) return smiles;
  const fragments = fragmentsOf(rdkit, smiles);
  let kept = fragments.filter((f) => !isCounterIon(rdkit, f));
  if (kept.length === 0) kept = fragments.filter((f) => f.carbons > 0);
  if (kept.length === 0 || kept.length === fragments.length) return smiles;
  return canonical(rdkit, kept.map((f) => f.smiles).join('.'))!;
}

const organicFirst = (a: Fragment, b: Fragment): number =>
  Number(b.carbons > 0) - Number(a.carbons > 0) || b.heavy - a.heavy || b.carbons - a.carbons || (a.smiles < b.smiles ? -1 : a.smiles > b.smiles ? 1 : 0);

function distinctFragments(rdkit: RDKitModule, smiles: string): Fragment[] {
  const seen = new Map<string, Fragment>();
  for (const f of fragmentsOf(rdkit, smiles)) if (!seen.has(f.smiles)) seen.set(f.smiles, f);
  return [...seen.values()];
}

/** The largest organic fragment: most heavy atoms, then most carbons, then the first canonical SMILES. */
function largestFragment(rdkit: RDKitModule, smiles: string): string {
  if (!smiles.includes('.')) return smiles;
  return distinctFragments(rdkit, smiles).sort(organicFirst)[0].smiles;
}

// ---------------------------------------------------------------------------------------------
// Tautomers
//
// Not a tautomer enumerator: a handful of one-way proton shifts that map each of the common
// tautomer pairs below onto one member, applied until none matches (so the result is the same
// from either member, and standardising it again changes nothing). Each shift moves one hydrogen
// from a donor atom to an acceptor along a path of alternating single and double bonds in the
// kekulé structure, flipping those bonds; RDKit then re-perceives aromaticity.
//
// Covered: enol → ketone (not enediols, ketene acetals or enols next to N, O, S; phenols are
// aromatic and never touched); enamine → imine (not enaminones and other push-pull enamines,
// enamides or ketene aminals); imidic acid → amide and thioimidic acid → thioamide; 2- and
// 4-hydroxy (and mercapto) azines and azoles → lactam (2-pyridone, uracil, guanine); 2- and
// 4-imino-dihydroazines → aminoazines (2-aminopyridine, cytosine, adenine); C-nitroso with an
// α-hydrogen → oxime; cyclohexadienones with a ring CH → phenol.
//
// Not covered: tautomers that differ only in which nitrogen of an amidine, guanidine or azole
// holds the hydrogen (1H/2H-tetrazole, 1H/3H-imidazole, N-substituted amidines): drawn as given;
// ring-chain tautomers (sugars, lactols); keto forms of fused phenols (naphthalenones);
// nitro/aci-nitro; hydrazone/azo; any tautomer reached only through a charged form. When a rule
// applies at several places the product whose canonical SMILES sorts first is taken.

interface Shift {
  /** Donor (atom 0, holding the hydrogen) and acceptor (atom `acceptor`) of one match. */
  smarts: string;
  acceptor: number;
}

/** A path from donor to acceptor whose bonds alternate single, double, …, double; the shortest one. */
function alternatingPath(g: Graph, adj: Neighbour[][], from: number, to: number, maxBonds = 8): number[] | null {
  let best: number[] | null = null;
  const seen = new Set([from]);
  const walk = (atom: number, order: number, path: number[]) => {
    if (path.length >= maxBonds || (best && path.length + 1 >= best.length)) return;
    for (const x of adj[atom]) {
      if (seen.has(x.atom) || g.bonds[x.bond].bo !== order) continue;
      if (x.atom === to) {
        if (order === 2) best = [...path, x.bond];
        continue;
      }
      seen.add(x.atom);
      walk(x.atom, 3 - order, [...path, x.bond]);
      seen.delete(x.atom);
    }
  };
  walk(from, 1, []);
  return best;
}

function shiftHydrogen(g: Graph, donor: number, acceptor: number): boolean {
  if (g.atoms[donor].impHs < 1) return false;
  const path = alternatingPath(g, neighbours(g), donor, acceptor);
  if (!path) return false;
  for (const i of path) {
    const b = g.bonds[i];
    b.bo = 3 - b.bo;
    b.stereo = 'unspecified';
    delete b.stereoAtoms;
  }
  g.atoms[donor].impHs -= 1;
  g.atoms[acceptor].impHs += 1;
  g.atoms[donor].stereo = 'unspecified';
  g.atoms[acceptor].stereo = 'unspecified';
  return true;
}

/**
 * One proton shift by the first of `rules` (name and shifts) that applies to the molecule: the
 * rule's name and its product, the first by canonical SMILES that RDKit accepts; or null.
 */
function firstShift(rdkit: RDKitModule, smiles: string, rules: readonly (readonly [string, readonly Shift[]])[]): { name: string; smiles: string } | null {
  return withMol(rdkit, smiles, false, (mol) => {
    let base: Graph | null = null;
    for (const [name, shifts] of rules) {
      const products = new Set<string>();
      for (const s of shifts) {
        for (const match of matchesOf(rdkit, mol, s.smarts)) {
          base ??= graphOf(mol.get_json());
          const g = cloneGraph(base);
          if (!shiftHydrogen(g, match[0], match[s.acceptor])) continue;
          const product = smilesOfGraph(rdkit, g, false);
          if (product && product !== smiles) products.add(product);
        }
      }
      if (products.size) return { name, smiles: [...products].sort()[0] };
    }
    return null;
  });
}

/** Proton shifts until none of `names` applies (each time by the first rule that does): the result and the rules used. */
function tautomerise(rdkit: RDKitModule, smiles: string, names: readonly string[]): { smiles: string; applied: string[] } {
  const rules = names.map((name) => [name, TAUTOMER_SHIFTS[name]] as const);
  const applied: string[] = [];
  for (let i = 0; i < 50; i++) {
    const shift = firstShift(rdkit, smiles, rules);
    if (!shift) break;
    smiles = shift.smiles;
    if (!applied.includes(shift.name)) applied.push(shift.name);
  }
  return { smiles, applied };
}

/** A heteroatom bonded by a single bond (N, O, S): what excludes enediols, ketene acetals and the like. */
const HETERO = '[#7,#8,#16]';

const TAUTOMER_SHIFTS: Record<string, readonly Shift[]> = {
  'lactim-to-lactam': [
    { smarts: '[O,S;X2;H1;+0]-c:[nX2;H0;+0]', acceptor: 2 },
    { smarts: '[O,S;X2;H1;+0]-c1:c:c:[nX2;H0;+0]:c:c:1', acceptor: 4 },
  ],
  'imine-to-aminoheteroarene': [
    { smarts: '[nX3;H1;+0]:c=[NX2;+0]', acceptor: 2 },
    { smarts: '[nX3;H1;+0]1:c:c:c(=[NX2;+0]):c:c:1', acceptor: 4 },
  ],
  'imidic-acid-to-amide': [{ smarts: '[O,S;X2;H1;+0]-[C;+0]=[N;+0]', acceptor: 2 }],
  'enol-to-keto': [{ smarts: `[OX2;H1;+0]-[C;+0;!$(C(-[OX2H1])-${HETERO})]=[C;+0;!$(C-${HETERO})]`, acceptor: 2 }],
  'enamine-to-imine': [
    {
      smarts: `[NX3;!H0;+0;!$(N-[C,S,P]=[O,S,N])]-[C;+0;!$(C(-N)-${HETERO})]=[C;+0;!$(C-${HETERO});!$(C-[C,N,S,P]=[O,S,N]);!$(C-C#N)]`,
      acceptor: 2,
    },
  ],
  'nitroso-to-oxime': [{ smarts: '[CX4;!H0;+0]-[NX2;+0]=[OX1;+0]', acceptor: 2 }],
  'dienone-to-phenol': [
    { smarts: '[CX4;!H0;+0]1-[C;+0](=[OX1;+0])-[C;+0]=[C;+0]-[C;+0]=[C;+0]-1', acceptor: 2 },
    { smarts: '[CX4;!H0;+0]1-[C;+0]=[C;+0]-[C;+0](=[OX1;+0])-[C;+0]=[C;+0]-1', acceptor: 4 },
  ],
};

// ---------------------------------------------------------------------------------------------
// The rules

type GraphRule = StandardisationRule & { kind: 'graph'; apply: (g: Graph) => boolean };
type SmilesRule = StandardisationRule & { kind: 'smiles'; apply: (rdkit: RDKitModule, smiles: string) => string };
type Rule = GraphRule | SmilesRule;

const graphRule = (name: string, stage: Stage, description: string, apply: (g: Graph) => boolean): GraphRule => ({ kind: 'graph', name, stage, description, apply });
const smilesRule = (name: string, stage: Stage, description: string, apply: (rdkit: RDKitModule, smiles: string) => string): SmilesRule => ({
  kind: 'smiles',
  name,
  stage,
  description,
  apply,
});
const tautomerRule = (name: string, description: string): SmilesRule => smilesRule(name, 'tautomers', description, (rdkit, smiles) => tautomerise(rdkit, smiles, [name]).smiles);
const onGraph = (edit: (g: Graph) => boolean, keepHs: boolean) => (rdkit: RDKitModule, smiles: string) => editSmiles(rdkit, smiles, keepHs, edit);

const RULES: readonly Rule[] = [
  graphRule(
    'disconnect-metals',
    'normalise',
    `bonds from ${IONIC_METAL_ELEMENTS.join(', ')} to N, O, S, P or halogens are broken into ions (CC(=O)O[Na] → CC(=O)[O-].[Na+]) unless the metal is bonded to carbon`,
    disconnectMetals,
  ),
  graphRule('nitro', 'normalise', 'pentavalent nitro N(=O)=O → [N+](=O)[O-]', chargeSeparateNitro),
  graphRule('n-oxide', 'normalise', 'pentavalent N-oxides (amine oxides, nitrones, pyridine n=O) → [N+][O-]', chargeSeparateNOxide),
  graphRule('azide', 'normalise', 'azides N=N#N and [N-][N+]#N → N=[N+]=[N-]', cumulateNitrogens(7)),
  graphRule('diazo', 'normalise', 'diazo compounds C=N#N and [C-][N+]#N → C=[N+]=[N-]', cumulateNitrogens(6)),
  graphRule('sulfoxide-sulfone', 'normalise', 'charge-separated sulfoxides, sulfones and sulfonyls [S+][O-] → S=O', recombineOxide(16)),
  graphRule('phosphoryl', 'normalise', 'charge-separated phosphoryl [P+][O-] → P=O (phosphine oxides, phosphates)', recombineOxide(15)),
  smilesRule('remove-isotopes', 'options', 'option isotopes: remove — isotope labels removed ([13C] → C, [2H] → H)', onGraph(removeIsotopes, true)),
  smilesRule('remove-stereo', 'options', 'option stereo: remove — tetrahedral and double-bond stereo removed', onGraph(removeStereo, true)),
  smilesRule(
    'remove-hydrogens',
    'options',
    'hydrogen atoms given explicitly are folded into their heavy atoms (recorded with hydrogens: implicit)',
    (rdkit, smiles) => canonical(rdkit, smiles) ?? smiles,
  ),
  smilesRule('strip-salts', 'fragments', 'counter-ions and solvents (SALTS_AND_SOLVENTS, single ions of COUNTER_ION_ELEMENTS) are removed, never every fragment', stripSalts),
  smilesRule('largest-fragment', 'fragments', 'the largest organic fragment is kept: most heavy atoms, then most carbons, then the first canonical SMILES', largestFragment),
  smilesRule('neutralise', 'charges', 'protonated amines lose and O-, S-, N- anions gain a proton where a neutral form exists, keeping the net charge nearest zero', neutralise),
  tautomerRule('lactim-to-lactam', '2-/4-hydroxy and mercapto azines and azoles → lactam, thiolactam (2-hydroxypyridine → 2-pyridone)'),
  tautomerRule('imine-to-aminoheteroarene', '2-/4-imino-dihydroazines → aminoazines (2(1H)-pyridinimine → 2-aminopyridine)'),
  tautomerRule('imidic-acid-to-amide', 'imidic and thioimidic acids → amides, thioamides (CC(O)=N → CC(N)=O)'),
  tautomerRule('enol-to-keto', 'enols → ketones and aldehydes (C=CO → CC=O); enediols and phenols untouched'),
  tautomerRule('enamine-to-imine', 'enamines with N-H → imines (C=CNC → CC=NC); push-pull enamines and enamides untouched'),
  tautomerRule('nitroso-to-oxime', 'C-nitroso with an α-hydrogen → oxime (CC(C)N=O → CC(C)=NO)'),
  tautomerRule('dienone-to-phenol', 'cyclohexa-2,4- and 2,5-dienones with a ring CH → phenols'),
  smilesRule('add-hydrogens', 'options', 'option hydrogens: explicit — every hydrogen of the parent written as an atom', (rdkit, smiles) =>
    withMol(rdkit, smiles, true, (mol) => {
      mol.add_hs_in_place();
      return canonical(rdkit, mol.get_smiles(), true) ?? smiles;
    }),
  ),
];

/** Every rule, in the order the pipeline runs them, with a one-line description. */
export const STANDARDISATION_RULES: readonly StandardisationRule[] = RULES.map(({ name, stage, description }) => ({ name, stage, description }));

const TAUTOMER_RULES = RULES.filter((r) => r.stage === 'tautomers').map((r) => r.name);
const rule = (name: string): Rule => RULES.find((r) => r.name === name)!;

// ---------------------------------------------------------------------------------------------
// Reading

/** The input as parsed, not yet sanitised (so RDKit has not cleaned up nitro groups and the like unseen). */
function readGraph(rdkit: RDKitModule, text: string): Graph | null {
  for (const details of [RAW, KEEP_HS]) {
    const mol = parse(rdkit, text, details);
    if (!mol) continue;
    try {
      return graphOf(mol.get_json());
    } catch (e) {
      if (isWasmCrash(e)) throw e;
      // RDKit could not write it (a kekulé structure of the unsanitised molecule): try sanitised
    } finally {
      mol.delete();
    }
  }
  return null;
}

function inputText(input: string): string {
  return input.includes('\n') ? input : input.trim();
}

function resolve(options: StandardisationOptions): Required<StandardisationOptions> {
  const o = { stereo: 'keep', isotopes: 'keep', hydrogens: 'implicit', ...options } as Required<StandardisationOptions>;
  if (o.stereo !== 'keep' && o.stereo !== 'remove') throw new Error(`standardisation: stereo must be 'keep' or 'remove', not ${JSON.stringify(o.stereo)}`);
  if (o.isotopes !== 'keep' && o.isotopes !== 'remove') throw new Error(`standardisation: isotopes must be 'keep' or 'remove', not ${JSON.stringify(o.isotopes)}`);
  if (o.hydrogens !== 'implicit' && o.hydrogens !== 'explicit') throw new Error(`standardisation: hydrogens must be 'implicit' or 'explicit', not ${JSON.stringify(o.hydrogens)}`);
  return o;
}

const FLAG_ORDER: readonly StandardisationFlag[] = ['mixture', 'metal', 'inorganic'];

// ---------------------------------------------------------------------------------------------
// The pipeline

/**
 * The QSAR-ready parent of a structure given as SMILES or a molfile. Never throws on bad input:
 * what RDKit cannot read or sanitise is `{ ok: false, flags: ['unparseable'] }`.
 */
export function standardise(rdkit: RDKitModule, input: string, options: StandardisationOptions = {}): StandardisationResult {
  const o = resolve(options);
  const text = inputText(input);
  const failed = (error: string): NotStandardised => ({ ok: false, original: input, error, rules: [], flags: ['unparseable'] });
  if (text === '') return failed('the input is empty');
  // what RDKit would crash on is not read (structure-limits.ts)
  const tooLarge = structureTextProblem(structureTextKind(text), text, 'input');
  if (tooLarge) return failed(tooLarge);

  const graph = readGraph(rdkit, text);
  if (!graph) return failed('RDKit cannot parse the input as SMILES or a molfile');
  if (graph.atoms.length === 0) return failed('the input has no atoms');
  const rules: string[] = [];
  for (const r of RULES) if (r.kind === 'graph' && r.apply(graph)) rules.push(r.name);
  const asRead = smilesOfGraph(rdkit, graph, true);
  if (asRead === null) return failed('RDKit cannot sanitise the structure (a valence, charge or aromaticity error)');
  const original = canonical(rdkit, text) ?? canonical(rdkit, asRead)!;

  let smiles = asRead;
  const run = (name: string, record = true) => {
    const next = (rule(name) as SmilesRule).apply(rdkit, smiles);
    if (next !== smiles && record && !rules.includes(name)) rules.push(name);
    smiles = next;
  };
  // written with implicit hydrogens, so 'add-hydrogens' changes it
  const implicitHydrogens = o.hydrogens === 'explicit' && withMol(rdkit, smiles, true, (mol) => graphOf(mol.get_json()).atoms.some((a) => a.impHs > 0));
  if (o.isotopes === 'remove') run('remove-isotopes');
  if (o.stereo === 'remove') run('remove-stereo');
  run('remove-hydrogens', o.hydrogens === 'implicit');

  run('strip-salts');
  const remaining = distinctFragments(rdkit, smiles);
  const flags = new Set<StandardisationFlag>();
  if (remaining.filter((f) => f.carbons > 0).length > 1) flags.add('mixture');
  if (remaining.some((f) => [...f.elements].some((z) => METALS.has(z)))) flags.add('metal');
  run('largest-fragment');
  run('neutralise');
  const tautomers = tautomerise(rdkit, smiles, TAUTOMER_RULES);
  smiles = tautomers.smiles;
  rules.push(...tautomers.applied);
  if (fragmentsOf(rdkit, smiles).every((f) => f.carbons === 0)) flags.add('inorganic');
  if (o.hydrogens === 'explicit') run('add-hydrogens', implicitHydrogens);

  return { ok: true, parent: smiles, original, rules, flags: FLAG_ORDER.filter((f) => flags.has(f)) };
}

/**
 * One rule on its own, on a SMILES or molfile: the canonical SMILES it gives (hydrogen atoms
 * folded, except for the option rules that keep them), or null when RDKit cannot read the input.
 * A normalisation rule runs on the input as parsed, before RDKit sanitises it.
 */
export function applyRule(rdkit: RDKitModule, name: string, input: string): string | null {
  const r = RULES.find((x) => x.name === name);
  if (!r) throw new Error(`standardisation: no rule named ${JSON.stringify(name)}`);
  const text = inputText(input);
  if (structureTextProblem(structureTextKind(text), text, 'input')) return null;
  if (r.kind === 'graph') {
    const graph = readGraph(rdkit, text);
    if (!graph) return null;
    r.apply(graph);
    const s = smilesOfGraph(rdkit, graph, true);
    return s === null ? null : canonical(rdkit, s);
  }
  const keepHs = r.stage === 'options';
  const smiles = canonical(rdkit, text, keepHs);
  return smiles === null ? null : r.apply(rdkit, smiles);
}
