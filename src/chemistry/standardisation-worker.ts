import { Chemistry, type Structure } from './chemistry.ts';
import type { StandardisationFlag, StandardisationOptions } from './standardisation.ts';

/**
 * Structure standardisation as a pure function of SMILES, for worker threads (each thread loads
 * its RDKit once, without Indigo): the parent of every input, and the parent parsed as a
 * structure to register when it is not the input itself.
 */
export type StandardisedStructure =
  | {
      ok: true;
      /** The parent as the standardisation wrote it (explicit hydrogens when asked for). */
      parent: string;
      /** The input as RDKit reads it, before any rule. */
      original: string;
      rules: string[];
      flags: StandardisationFlag[];
      /** The parent's structure record; none when the parent is the input's own structure. */
      structure?: Structure;
    }
  | { ok: false; error: string };

export async function standardiseStructures(inputs: string[], options: StandardisationOptions): Promise<StandardisedStructure[]> {
  const chemistry = await Chemistry.load({ indigo: false });
  const results: StandardisedStructure[] = [];
  for (const input of inputs) {
    // after a crash on one row, a fresh toolkit (Chemistry reloads it) for the rest
    await chemistry.ready();
    results.push(standardiseOne(chemistry, input, options));
  }
  return results;
}

function standardiseOne(chemistry: Chemistry, input: string, options: StandardisationOptions): StandardisedStructure {
  // one structure RDKit trips over (an exception, not a result) fails its row, not the dataset
  try {
    const r = chemistry.standardise(input, options);
    if (!r.ok) return { ok: false, error: r.error };
    const { parent, original, rules, flags } = r;
    // the same structure (written with explicit hydrogens, or a tautomer the standard InChI does not tell apart): no other compound
    if (parent === input || parent === original || chemistry.inchiKeyOf(parent) === chemistry.inchiKeyOf(original)) return { ok: true, parent, original, rules, flags };
    return { ok: true, parent, original, rules, flags, structure: chemistry.fromSmiles(parent, 'parent structure') };
  } catch (e) {
    return { ok: false, error: (e as Error)?.message ?? String(e) };
  }
}
