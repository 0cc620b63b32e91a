import initRDKitModule from '@rdkit/rdkit';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Random } from '../src/learning/random.ts';

const DATA = resolve(import.meta.dirname, '../../shared/data');

/** The structure column of the shared QSAR data sets, in file order. */
export function sharedSmiles(): string[] {
  const out: string[] = [];
  for (const file of ['kazius.csv', 'blood-brain-barrier.csv', 'EPAFHM_log10.csv', 'hamster_carcinogenicity.csv']) {
    const lines = readFileSync(`${DATA}/${file}`, 'utf8').split(/\r?\n/).slice(1);
    for (const line of lines) {
      const first = line.split(',')[0]?.replace(/^"|"$/g, '').trim();
      if (first) out.push(first);
    }
  }
  return out;
}

const ATOM = /\[[^\]]+\]|Br|Cl|[BCNOSPFI]|[bcnosp]|\*/g;
const FIRST_ATOM = /^(\[[^\]]+\]|Br|Cl|[BCNOSPFI]|[bcnosp])/;

/**
 * `n` distinct drug-like structures (canonical SMILES): the shared data sets' own structures,
 * then analogues made from them. RDKit.js has no BRICS, so analogues come from its matched
 * molecular pair fragmentation instead: every single cut of an acyclic single bond of every
 * shared structure (`get_mmpa_frags(1, 1, 20)`) gives two pieces with one attachment point
 * each; two pieces drawn at random (a seeded generator: the same `n` and `seed` give the same
 * list) are joined at their attachment points. A product RDKit cannot read, with fewer than 6 or
 * more than 60 heavy atoms, or seen before is skipped.
 */
export async function analogueSmiles(n: number, seed = 1): Promise<string[]> {
  const rdkit: any = await (initRDKitModule as any)();
  rdkit.disable_logging();
  const seen = new Set<string>();
  const out: string[] = [];
  const keep = (smiles: string, minAtoms: number, maxAtoms: number) => {
    const mol = rdkit.get_mol(smiles);
    try {
      if (!mol?.is_valid()) return;
      const atoms = mol.get_num_atoms(true);
      if (atoms < minAtoms || atoms > maxAtoms) return;
      const canonical = mol.get_smiles();
      if (seen.has(canonical) || canonical.includes('*')) return;
      seen.add(canonical);
      out.push(canonical);
    } finally {
      mol?.delete();
    }
  };
  const real = sharedSmiles();
  for (const s of real) {
    if (out.length >= n) return out;
    keep(s, 1, 1000);
  }
  const pieces = new Set<string>();
  for (const s of out) {
    const mol = rdkit.get_mol(s);
    if (!mol?.is_valid()) continue;
    const { sidechains, cores } = mol.get_mmpa_frags(1, 1, 20) ?? {};
    for (let i = 0; i < (sidechains?.size() ?? 0); i++) {
      const pair = sidechains.at(i);
      for (const piece of pair?.get_smiles().split('.') ?? []) {
        const joinable = attachable(rdkit, piece);
        if (joinable) pieces.add(joinable);
      }
      pair?.delete();
    }
    sidechains?.delete();
    cores?.delete();
    mol.delete();
  }
  const list = [...pieces].sort();
  const random = new Random(seed);
  for (let tries = 0; out.length < n && tries < n * 20; tries++) {
    const a = list[random.int(list.length)];
    const b = list[random.int(list.length)];
    keep(`${a}.${b}`, 6, 60);
  }
  return out;
}

/**
 * A piece `…[*:1]…` written so that its attachment is a ring-closure bond `%91` on the atom the
 * dummy atom was bonded to: two such pieces joined by `.` are one molecule.
 */
function attachable(rdkit: any, piece: string): string | undefined {
  const at = piece.indexOf('[*:1]');
  if (at < 0) return undefined;
  const index = (piece.slice(0, at).match(ATOM) ?? []).length;
  const mol = rdkit.get_mol(piece);
  try {
    if (!mol?.is_valid() || mol.get_num_atoms(true) < 2) return undefined;
    const rooted: string = mol.get_smiles(JSON.stringify({ rootedAtAtom: index, canonical: true }));
    if (!rooted.startsWith('[*:1]')) return undefined;
    const rest = rooted.slice(5).replace(/^[/\\]/, '');
    const first = FIRST_ATOM.exec(rest);
    return first ? `${first[0]}%91${rest.slice(first[0].length)}` : undefined;
  } finally {
    mol?.delete();
  }
}
