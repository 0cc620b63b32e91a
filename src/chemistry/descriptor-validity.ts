/**
 * When an RDKit descriptor's value means something, per family of descriptors. RDKit computes a
 * number for every structure, also where the descriptor is not defined: Kier's κ3 of a single
 * atom (`[Cd+2]`: thousands, or −104 for water) comes from its Hall–Kier α correction dividing
 * by a path count of zero. Such a value is left empty, with the reason, rather than stored as a
 * number a model would learn from.
 *
 * - Kier's shape indices `kappa1`, `kappa2`, `kappa3`: defined only for a structure with a path
 *   of 1, 2 or 3 bonds between heavy atoms (κ1 a bond, κ2 two bonds in a row, κ3 three), and
 *   never negative.
 * - Kier's flexibility `Phi` (κ1·κ2/A): where κ1 and κ2 are, and never negative.
 * - Counts, masses, surfaces, molar refractivity and connectivity (`Num…`, `lipinski…`,
 *   `exactmw`, `amw`, `labuteASA`, `tpsa`, `CrippenMR`, `chi…`): never negative.
 * - `FractionCSP3`: a fraction, from 0 to 1.
 * - `CrippenClogP` and `hallKierAlpha`: any finite number.
 */

/** What the rules read of a structure: whether it has paths of 1, 2 and 3 bonds between heavy atoms. */
export interface HeavyAtomPaths {
  /** paths[n - 1]: is there a path of n bonds between heavy atoms (n = 1, 2, 3)? */
  paths: [boolean, boolean, boolean];
}

/** The paths of a structure from RDKit's JSON of it (`mol.get_json()`): hydrogens are not heavy atoms. */
export function heavyAtomPaths(molJson: string): HeavyAtomPaths {
  const doc = JSON.parse(molJson) as { defaults?: { atom?: { z?: number } }; molecules?: { atoms?: { z?: number }[]; bonds?: { atoms: [number, number] }[] }[] };
  const defaultZ = doc.defaults?.atom?.z ?? 6;
  const neighbours = new Map<number, number[]>();
  // RDKit writes one molecule for a structure, its fragments (a salt's ions) in it
  const [m] = doc.molecules ?? [];
  const heavy = (m?.atoms ?? []).map((a) => (a.z ?? defaultZ) !== 1);
  for (const {
    atoms: [a, b],
  } of m?.bonds ?? []) {
    if (!heavy[a] || !heavy[b]) continue;
    neighbours.set(a, [...(neighbours.get(a) ?? []), b]);
    neighbours.set(b, [...(neighbours.get(b) ?? []), a]);
  }
  const bonds = [...neighbours].flatMap(([a, ns]) => ns.filter((b) => a < b).map((b) => [a, b] as const));
  const two = [...neighbours.values()].some((ns) => ns.length >= 2);
  // a path a'–a–b–b' of three bonds: a' and b' other atoms than each other (a triangle has none)
  const three = bonds.some(([a, b]) => (neighbours.get(a) ?? []).some((x) => x !== b && (neighbours.get(b) ?? []).some((y) => y !== a && y !== x)));
  return { paths: [bonds.length > 0, two, three] };
}

type Rule = (value: number, s: HeavyAtomPaths) => string | undefined;

const nonNegative: Rule = (v) => (v < 0 ? 'it is never negative' : undefined);
const kappa =
  (n: 1 | 2 | 3): Rule =>
  (v, s) =>
    !s.paths[n - 1] ? `Kier's κ${n} is defined only for a structure with a path of ${n} bond(s) between heavy atoms` : nonNegative(v, s);

const RULES: Record<string, Rule> = {
  kappa1: kappa(1),
  kappa2: kappa(2),
  kappa3: kappa(3),
  Phi: (v, s) => (!s.paths[1] ? "Kier's flexibility Φ = κ1·κ2/A is defined only where κ2 is (a path of 2 bonds between heavy atoms)" : nonNegative(v, s)),
  FractionCSP3: (v) => (v < 0 || v > 1 ? 'a fraction is from 0 to 1' : undefined),
  CrippenClogP: () => undefined,
  hallKierAlpha: () => undefined,
};

/** Why a descriptor's value for a structure is not meaningful (undefined: it is). */
export function descriptorProblem(name: string, value: number, structure: HeavyAtomPaths): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  return (RULES[name] ?? nonNegative)(value, structure);
}

/** Does a descriptor's meaning depend on the structure's paths (so the worker must read them)? */
export const readsPaths = (names: string[]) => names.some((n) => /^(kappa[123]|Phi)$/.test(n));
