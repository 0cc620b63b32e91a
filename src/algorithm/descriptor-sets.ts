import type { ParamValue } from '../learning/learner.ts';
import type { AlgorithmInfo } from './catalogue.ts';

/** The Blue Obelisk chemoinformatics algorithms / descriptor ontology. */
export const BO = 'http://www.blueobelisk.org/ontologies/chemoinformatics-algorithms/#';

/** One output column of a descriptor calculation: a numeric descriptor or a fingerprint. */
export interface DescriptorColumn {
  /** Stable key within the set (the RDKit name, or the fingerprint's name). */
  key: string;
  title: string;
  description: string;
  units: string;
  sameAs?: string;
  /** A fingerprint: its length in bits (values are the indices of set bits). */
  bits?: number;
}

/** What a worker computes: a function of descriptor-calculation.ts and its extra arguments. */
export interface CalculationCall {
  exportName: string;
  args: unknown[];
}

export interface DescriptorSet extends AlgorithmInfo {
  columns(params: Record<string, ParamValue>): DescriptorColumn[];
  /** The worker call computing `columns` for a chunk of SMILES (the SMILES list comes first). */
  call(params: Record<string, ParamValue>, columns: DescriptorColumn[]): CalculationCall;
}

type Meta = [title: string, units: string, sameAs?: string];
/** The 43 descriptors of RDKit's `get_descriptors()`, with titles, units and Blue Obelisk entries. */
const RDKIT: Record<string, Meta> = {
  exactmw: ['Exact molecular weight', 'Da', `${BO}weight`],
  amw: ['Average molecular weight', 'g/mol', `${BO}weight`],
  lipinskiHBA: ['Lipinski hydrogen bond acceptors', '', `${BO}hBondacceptors`],
  lipinskiHBD: ['Lipinski hydrogen bond donors', '', `${BO}hBondDonors`],
  NumRotatableBonds: ['Number of rotatable bonds', '', `${BO}rotatableBondsCount`],
  NumHBD: ['Number of hydrogen bond donors', '', `${BO}hBondDonors`],
  NumHBA: ['Number of hydrogen bond acceptors', '', `${BO}hBondacceptors`],
  NumHeavyAtoms: ['Number of heavy atoms', ''],
  NumAtoms: ['Number of atoms', '', `${BO}atomCount`],
  NumHeteroatoms: ['Number of heteroatoms', ''],
  NumAmideBonds: ['Number of amide bonds', ''],
  FractionCSP3: ['Fraction of sp3 carbons', ''],
  NumRings: ['Number of rings', ''],
  NumAromaticRings: ['Number of aromatic rings', ''],
  NumAliphaticRings: ['Number of aliphatic rings', ''],
  NumSaturatedRings: ['Number of saturated rings', ''],
  NumHeterocycles: ['Number of heterocycles', ''],
  NumAromaticHeterocycles: ['Number of aromatic heterocycles', ''],
  NumSaturatedHeterocycles: ['Number of saturated heterocycles', ''],
  NumAliphaticHeterocycles: ['Number of aliphatic heterocycles', ''],
  NumSpiroAtoms: ['Number of spiro atoms', ''],
  NumBridgeheadAtoms: ['Number of bridgehead atoms', ''],
  NumAtomStereoCenters: ['Number of atom stereo centres', ''],
  NumUnspecifiedAtomStereoCenters: ['Number of unspecified atom stereo centres', ''],
  labuteASA: ['Labute approximate surface area', 'Å²'],
  tpsa: ['Topological polar surface area', 'Å²', `${BO}tpsa`],
  CrippenClogP: ['Wildman–Crippen logP', 'log units'],
  CrippenMR: ['Wildman–Crippen molar refractivity', 'cm³/mol'],
  chi0v: ['Chi0v (valence connectivity index, order 0)', '', `${BO}chiPath`],
  chi1v: ['Chi1v (valence connectivity index, order 1)', '', `${BO}chiPath`],
  chi2v: ['Chi2v (valence connectivity index, order 2)', '', `${BO}chiPath`],
  chi3v: ['Chi3v (valence connectivity index, order 3)', '', `${BO}chiPath`],
  chi4v: ['Chi4v (valence connectivity index, order 4)', '', `${BO}chiPath`],
  chi0n: ['Chi0n (connectivity index, order 0)', '', `${BO}chiPath`],
  chi1n: ['Chi1n (connectivity index, order 1)', '', `${BO}chiPath`],
  chi2n: ['Chi2n (connectivity index, order 2)', '', `${BO}chiPath`],
  chi3n: ['Chi3n (connectivity index, order 3)', '', `${BO}chiPath`],
  chi4n: ['Chi4n (connectivity index, order 4)', '', `${BO}chiPath`],
  hallKierAlpha: ['Hall–Kier alpha', ''],
  kappa1: ['Kappa1 shape index', ''],
  kappa2: ['Kappa2 shape index', ''],
  kappa3: ['Kappa3 shape index', ''],
  Phi: ['Kier flexibility index Phi', ''],
};
export const RDKIT_DESCRIPTOR_NAMES = Object.keys(RDKIT);

const rdkitDescriptors: DescriptorSet = {
  id: 'rdkit-descriptors',
  title: 'RDKit molecular descriptors',
  description: `The ${RDKIT_DESCRIPTOR_NAMES.length} 2D descriptors of RDKit (get_descriptors): molecular weight, counts of atoms, bonds, rings and hydrogen bond donors/acceptors, TPSA, Labute ASA, Wildman–Crippen logP and MR, connectivity (chi) and kappa shape indices. Each descriptor is one numeric feature.`,
  types: ['DescriptorCalculation'],
  parameters: [
    {
      name: 'descriptors',
      description: `Comma-separated names of the descriptors to calculate (default all): ${RDKIT_DESCRIPTOR_NAMES.join(', ')}`,
      type: 'string',
      default: 'all',
    },
  ],
  columns(params) {
    const wanted = String(params.descriptors).trim();
    const names =
      wanted === 'all' || wanted === ''
        ? RDKIT_DESCRIPTOR_NAMES
        : wanted
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
    const unknown = names.filter((n) => !RDKIT[n]);
    if (unknown.length) throw new RangeError(`parameter descriptors: unknown descriptor ${unknown.join(', ')}; known: ${RDKIT_DESCRIPTOR_NAMES.join(', ')}`);
    return [...new Set(names)].map((n) => ({ key: n, title: n, description: RDKIT[n][0], units: RDKIT[n][1], sameAs: RDKIT[n][2] }));
  },
  call: (_params, columns) => ({ exportName: 'rdkitDescriptors', args: [columns.map((c) => c.key)] }),
};

const morganFingerprint: DescriptorSet = {
  id: 'morgan-fingerprint',
  title: 'Morgan (ECFP-like) circular fingerprint',
  description:
    'Hashed Morgan circular fingerprint of RDKit (radius 2 corresponds to ECFP4). One feature whose value lists the indices of the set bits, separated by spaces; learners expand it into one 0/1 column per bit.',
  types: ['DescriptorCalculation', 'Fingerprints'],
  parameters: [
    { name: 'radius', description: 'Radius of the atom environments (2 is ECFP4-like)', type: 'integer', default: 2, min: 1, max: 6 },
    { name: 'nBits', description: 'Length of the folded bit vector (for example 1024 or 2048)', type: 'integer', default: 2048, min: 64, max: 16384 },
    { name: 'useChirality', description: 'Include chirality in the atom invariants', type: 'boolean', default: false },
  ],
  columns(params) {
    const title = `Morgan fingerprint r${params.radius} ${params.nBits} bits${params.useChirality ? ' chiral' : ''}`;
    return [{ key: 'morgan', title, description: `Set bits of the Morgan fingerprint (radius ${params.radius}, ${params.nBits} bits)`, units: 'bits', bits: Number(params.nBits) }];
  },
  call: (params) => ({ exportName: 'morganFingerprints', args: [Number(params.radius), Number(params.nBits), Boolean(params.useChirality)] }),
};

const maccs: DescriptorSet = {
  id: 'maccs-keys',
  title: 'MACCS structural keys',
  description: 'The 166 MACCS structural keys as computed by RDKit (a 167-bit vector whose bit 0 is unused). One feature whose value lists the indices of the set keys.',
  types: ['DescriptorCalculation', 'Fingerprints'],
  parameters: [],
  columns: () => [{ key: 'maccs', title: 'MACCS keys', description: 'Set MACCS keys', units: 'bits', bits: 167 }],
  call: () => ({ exportName: 'maccsKeys', args: [] }),
};

export const DESCRIPTOR_SETS: DescriptorSet[] = [rdkitDescriptors, morganFingerprint, maccs];
