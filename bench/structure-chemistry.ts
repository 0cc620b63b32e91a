import { Chemistry } from '../src/chemistry/chemistry.ts';

/**
 * The chemistry every registration needs, alone (the baseline of bench/structure-search.ts):
 * parse a SMILES, write its canonical SMILES and its InChIKey. A pure function for the worker
 * pool; answers how many structures RDKit read.
 */
export async function parseCanonicalise(smiles: string[]): Promise<number> {
  const chemistry = await Chemistry.load({ indigo: false });
  const rdkit = (chemistry as unknown as { rdkit: any }).rdkit;
  let read = 0;
  for (const s of smiles) {
    const mol = rdkit.get_mol(s);
    if (!mol?.is_valid()) continue;
    mol.get_smiles();
    rdkit.get_inchikey_for_inchi(mol.get_inchi());
    mol.delete();
    read++;
  }
  return read;
}
