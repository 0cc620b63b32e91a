import { badRequest } from '../core/errors.ts';
import { algorithmById } from '../algorithm/catalogue.ts';
import { checkParameters } from '../algorithm/parameters.ts';
import { RDKIT_DESCRIPTOR_NAMES } from '../algorithm/descriptor-sets.ts';
import type { DescriptorAlgorithm, DescriptorCalculation } from '../algorithm/descriptor-calculation.ts';

/** RDKit descriptors of compounds (on the worker pool), as this service's descriptor calculation: its features, and per compound one value per name. */
export type DescriptorValues = (names: string[], compounds: string[]) => Promise<{ features: string[]; values: (number | undefined)[][] }>;

/**
 * `mint`: the values as features of this service's algorithm instance (written once, for a data
 * matrix's RDF); without, the numbers alone, and nothing is written (filters and trends: a
 * search, even a refused one, writes nothing).
 */
export function descriptorValues(descriptors: DescriptorCalculation, mint = false): DescriptorValues {
  return async (names, compounds) => {
    const def = algorithmById('rdkit-descriptors') as DescriptorAlgorithm;
    const values = checkParameters(def.parameters, { descriptors: names.join(',') });
    const instance = mint ? await descriptors.instance(def, values) : { uri: '', columns: def.descriptors.columns(values), features: [] as string[] };
    const columns = await descriptors.calculate(def, values, instance, compounds);
    // the instance lists its columns in its own order: values in the order of the names asked for
    const order = names.map((n) => instance.columns.findIndex((c) => c.key === n));
    return { features: order.map((j) => instance.features[j]), values: compounds.map((_, i) => order.map((j) => (columns[j][i] ? Number(columns[j][i]!.value) : undefined))) };
  };
}

/** A descriptor range: analogues whose descriptor is within ± delta of the target's (`CrippenClogP:1`). */
export interface DescriptorRange {
  name: string;
  delta: number;
}

/** `descriptor_range` values (`name:delta`, several allowed); 400 naming the parameter otherwise. */
export function descriptorRanges(given: string[]): DescriptorRange[] {
  return given
    .flatMap((v) => v.split(/[\s,]+/))
    .filter(Boolean)
    .map((text) => {
      const m = /^([A-Za-z0-9_]+):([0-9.eE+]+)$/.exec(text);
      const delta = m ? Number(m[2]) : Number.NaN;
      if (!m || !RDKIT_DESCRIPTOR_NAMES.includes(m[1]) || !(delta >= 0))
        throw badRequest(`descriptor_range: ${text.slice(0, 60)} is not name:delta with an RDKit descriptor's name (e.g. CrippenClogP:1; names: ${RDKIT_DESCRIPTOR_NAMES.slice(0, 8).join(', ')}, …)`);
      return { name: m[1], delta };
    });
}

/** The candidates whose descriptors are all within range of the target's (a candidate or target without the value is out). */
export async function withinRanges<T extends { compound: string }>(
  describe: DescriptorValues,
  target: string,
  ranked: T[],
  ranges: DescriptorRange[],
): Promise<{ kept: T[]; out: Map<string, string> }> {
  if (!ranges.length) return { kept: ranked, out: new Map() };
  const { values } = await describe(
    ranges.map((r) => r.name),
    [target, ...ranked.map((c) => c.compound)],
  );
  const out = new Map<string, string>();
  const kept = ranked.filter((c, i) => {
    const miss = ranges.findIndex((r, j) => {
      const t = values[0][j];
      const v = values[i + 1][j];
      return t === undefined || v === undefined || Math.abs(v - t) > r.delta;
    });
    if (miss >= 0) {
      const r = ranges[miss];
      out.set(c.compound, `${r.name} ${values[i + 1][miss]?.toFixed(2) ?? 'not calculable'} is not within ±${r.delta} of the target's ${values[0][miss]?.toFixed(2) ?? '(not calculable)'}`);
    }
    return miss < 0;
  });
  return { kept, out };
}
