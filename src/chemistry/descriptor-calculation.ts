import initRDKitModule from '@rdkit/rdkit';
import { isWasmCrash } from '../task/worker-pool.ts';
import { structureTextKind, structureTextProblem } from './structure-limits.ts';
import { descriptorProblem, heavyAtomPaths, readsPaths, type HeavyAtomPaths } from './descriptor-validity.ts';

/**
 * Descriptor and fingerprint calculation with RDKit.js, as pure functions of SMILES so that
 * they run in worker threads (each thread loads its own RDKit once). A structure RDKit cannot
 * read gives null values, never an exception for the whole batch.
 */

let rdkit: Promise<any> | undefined;
/** This thread's RDKit module, loaded once. */
export function toolkit(): Promise<any> {
  rdkit ??= (async () => {
    const r = await (initRDKitModule as any)();
    r.disable_logging();
    return r;
  })();
  return rdkit;
}

/**
 * After a crash of this thread's RDKit (a WebAssembly trap: its memory may be corrupt) nothing
 * runs on that module again: the next `toolkit()` loads a fresh one. The error goes on to the
 * worker pool, which ends the thread.
 */
export function forgetToolkitAfter(e: unknown): void {
  if (isWasmCrash(e)) rdkit = undefined;
}

/**
 * `work` on each structure; null for one RDKit cannot read, and for one beyond
 * structure-limits.ts (never handed to RDKit). A crash of RDKit is thrown, not a null.
 */
export async function eachMolecule<T>(smiles: string[], work: (mol: any) => T): Promise<(T | null)[]> {
  const r = await toolkit();
  return smiles.map((s) => {
    if (structureTextProblem(structureTextKind(s), s, 'structure')) return null;
    let mol: any = null;
    try {
      mol = r.get_mol(s);
      if (!mol?.is_valid()) return null;
      return work(mol);
    } catch (e) {
      if (isWasmCrash(e)) {
        forgetToolkitAfter(e);
        mol = null; // not freed on a module that crashed
        throw e;
      }
      return null;
    } finally {
      mol?.delete();
    }
  });
}

/** The names of the descriptors `get_descriptors()` gives, in its order. */
export async function rdkitDescriptorNames(): Promise<string[]> {
  const [names] = await eachMolecule(['C'], (mol) => Object.keys(JSON.parse(mol.get_descriptors())));
  return names ?? [];
}

/**
 * One row per structure: the values of `names` (null when the structure cannot be read); a value
 * that is not meaningful for the structure (descriptor-validity.ts) is the reason why, in words.
 */
export async function rdkitDescriptors(smiles: string[], names: string[]): Promise<((number | string)[] | null)[]> {
  const paths = readsPaths(names);
  return eachMolecule(smiles, (mol) => {
    const all = JSON.parse(mol.get_descriptors()) as Record<string, number>;
    const structure: HeavyAtomPaths = paths ? heavyAtomPaths(mol.get_json()) : { paths: [true, true, true] };
    return names.map((n) => {
      const v = typeof all[n] === 'number' && Number.isFinite(all[n]) ? all[n] : NaN;
      return descriptorProblem(n, v, structure) ?? v;
    });
  });
}

/** Morgan (ECFP-like) fingerprints as lists of the indices of set bits. */
export async function morganFingerprints(smiles: string[], radius: number, nBits: number, useChirality: boolean): Promise<(number[] | null)[]> {
  const options = JSON.stringify({ radius, nBits, useChirality });
  return eachMolecule(smiles, (mol) => onBits(mol.get_morgan_fp(options)));
}

/** MACCS keys (167 bits, bit 0 unused) as lists of the indices of set bits. */
export async function maccsKeys(smiles: string[]): Promise<(number[] | null)[]> {
  return eachMolecule(smiles, (mol) => onBits(mol.get_maccs_fp()));
}

function onBits(bitString: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < bitString.length; i++) if (bitString.charCodeAt(i) === 49) out.push(i);
  return out;
}
