import { eachMolecule } from './descriptor-calculation.ts';
import { tanimoto } from './tanimoto.ts';

/**
 * The `k` structures most similar to a query: Tanimoto similarity on Morgan fingerprints
 * (radius 2, 2048 bits, as the compound search uses), best first. A pure function of SMILES for
 * the worker pool; structures RDKit cannot read are left out.
 */
export async function nearestNeighbours(query: string, smiles: string[], k: number): Promise<{ index: number; similarity: number }[]> {
  const fingerprint = (mol: { get_morgan_fp_as_uint8array(options: string): Uint8Array }) => mol.get_morgan_fp_as_uint8array(JSON.stringify({ radius: 2, nBits: 2048 }));
  const [probe] = await eachMolecule([query], fingerprint);
  if (!probe) return [];
  const prints = await eachMolecule(smiles, fingerprint);
  return prints
    .map((fp, index) => ({ index, similarity: fp ? tanimoto(probe, fp) : -1 }))
    .filter((n) => n.similarity >= 0)
    .sort((a, b) => b.similarity - a.similarity || a.index - b.index)
    .slice(0, k);
}
