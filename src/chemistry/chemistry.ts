import initRDKitModule from '@rdkit/rdkit';
import indigoModuleFn from 'indigo-ketcher';
import { Resvg } from '@resvg/resvg-js';
import { parse as parseSdf } from 'sdf-parser';
import { badRequest } from '../core/errors.ts';
import { standardise, type StandardisationOptions, type StandardisationResult } from './standardisation.ts';

/** What ToxGraph keeps of a parsed structure. */
export interface Structure {
  /** RDKit canonical SMILES. */
  smiles: string;
  /** Standard InChI and InChIKey: the identity of a compound. */
  inchi: string;
  inchiKey: string;
  /**
   * V2000 molfile with the coordinates given; none for input without coordinates (SMILES,
   * InChI), which is laid out in 2D when a molfile or a picture is asked for (`molfileOf`): the
   * layout is a third of a registration's chemistry, and most structures are never drawn.
   */
  molfile?: string;
  atoms: number;
  /** Does the molfile carry real 3D coordinates? */
  has3d: boolean;
  /** What the structure index keeps for searches (structure-index/). */
  searchable: Searchable;
}

/** A structure as substructure and similarity searches read it. */
export interface Searchable {
  /** Morgan fingerprint, radius 2, 2048 bits (similarity). */
  morgan: Uint8Array;
  /** RDKit's pattern fingerprint, 2048 bits: the screen before a substructure match. */
  pattern: Uint8Array;
  /** The molecule as RDKit pickles it: read back for a match in a fraction of a parse's time. */
  pickle: Uint8Array;
}

const MORGAN_OPTIONS = JSON.stringify({ radius: 2, nBits: 2048 });
const PATTERN_OPTIONS = JSON.stringify({ nBits: 2048 });

/** One record of a multi-record input, with its name and SD fields. */
export interface StructureRecord {
  structure: Structure;
  name?: string;
  fields: Record<string, string>;
}

export const MAX_ATOMS = 1000;
const MAX_INPUT_CHARS = 200_000;

/**
 * The chemistry toolkit, loaded once per process: RDKit.js (parsing, canonical SMILES,
 * InChI, molfiles, depiction, fingerprints) and Indigo (InChI and CML input, CML output),
 * PNG drawn from RDKit's SVG by resvg. Every RDKit molecule is freed after use.
 */
export class Chemistry {
  private readonly rdkit: any;
  private readonly indigo: any;
  private constructor(rdkit: any, indigo: any) {
    this.rdkit = rdkit;
    this.indigo = indigo;
  }

  private static loading?: Promise<Chemistry>;
  private static loadingRdkitOnly?: Promise<Chemistry>;

  /**
   * The toolkit, once per thread. Indigo (InChI and CML) takes about 200 MB of WebAssembly
   * memory; `{ indigo: false }` leaves it out where only SMILES and molfiles are read (the
   * structure-parsing workers), and its methods then refuse with an error.
   */
  static load(options: { indigo?: boolean } = {}): Promise<Chemistry> {
    const rdkit = async () => {
      const r = await (initRDKitModule as any)();
      r.disable_logging();
      return r;
    };
    if (options.indigo === false) {
      Chemistry.loadingRdkitOnly ??= (async () => new Chemistry(await rdkit(), undefined))();
      return Chemistry.loadingRdkitOnly;
    }
    Chemistry.loading ??= (async () => new Chemistry(await rdkit(), await (indigoModuleFn as any)()))();
    return Chemistry.loading;
  }

  get rdkitVersion(): string {
    return this.rdkit.version();
  }

  /** Run `work` on an RDKit molecule parsed from SMILES or a molfile, and free it. */
  withMol<T>(input: string, work: (mol: any) => T, what = 'structure'): T {
    if (input.length > MAX_INPUT_CHARS) throw badRequest(`the ${what} is too large (${input.length} characters; at most ${MAX_INPUT_CHARS})`);
    let mol: any = null;
    try {
      mol = this.rdkit.get_mol(input);
    } catch {
      mol = null;
    }
    if (!mol?.is_valid()) {
      mol?.delete();
      throw badRequest(`the ${what} cannot be parsed: ${JSON.stringify(input.length > 80 ? `${input.slice(0, 80)}…` : input)}`);
    }
    try {
      return work(mol);
    } finally {
      mol.delete();
    }
  }

  private describe(mol: any, what: string): Structure {
    const atoms = mol.get_num_atoms();
    if (atoms === 0) throw badRequest(`the ${what} is empty (no atoms)`);
    if (atoms > MAX_ATOMS) throw badRequest(`the ${what} has ${atoms} atoms; at most ${MAX_ATOMS} are accepted`);
    const inchi: string = mol.get_inchi();
    if (!inchi?.startsWith('InChI=')) throw badRequest(`no standard InChI can be computed for the ${what}`);
    // before any 2D layout below: the pickle then holds no coordinates
    const searchable = this.searchableOf(mol);
    // SMILES carry no coordinates, nor does a molfile with all atoms at the origin (InChI read by
    // Indigo): no molfile is kept then (a molfile written without coordinates would lay the
    // molecule out in 2D, see molfileOf)
    const given = mol.has_coords() ? (mol.get_molblock() as string) : undefined;
    const molfile = given !== undefined && molfileHasCoordinates(given) ? given : undefined;
    return {
      smiles: mol.get_smiles(),
      inchi,
      inchiKey: this.rdkit.get_inchikey_for_inchi(inchi),
      molfile,
      atoms,
      has3d: molfile !== undefined && molfileHas3d(molfile),
      searchable,
    };
  }

  private searchableOf(mol: any): Searchable {
    return {
      morgan: Uint8Array.from(mol.get_morgan_fp_as_uint8array(MORGAN_OPTIONS)),
      pattern: Uint8Array.from(mol.get_pattern_fp_as_uint8array(PATTERN_OPTIONS)),
      pickle: Uint8Array.from(mol.get_as_uint8array()),
    };
  }

  /** The QSAR-ready parent of a SMILES or molfile (standardisation.ts), on this toolkit's RDKit. */
  standardise(input: string, options: StandardisationOptions = {}): StandardisationResult {
    return standardise(this.rdkit, input, options);
  }

  fromSmiles(smiles: string, what = 'SMILES'): Structure {
    const s = smiles.trim();
    if (!s) throw badRequest(`the ${what} is empty`);
    if (/\s/.test(s)) throw badRequest(`the ${what} contains white space: ${JSON.stringify(s.slice(0, 80))}`);
    return this.withMol(s, (mol) => this.describe(mol, what), what);
  }

  fromMolfile(molfile: string, what = 'molfile'): Structure {
    if (!molfile.includes('M  END') && !molfile.includes('V3000')) throw badRequest(`the ${what} is not a molfile (no "M  END" line)`);
    return this.withMol(molfile, (mol) => this.describe(mol, what), what);
  }

  /**
   * The standard InChIKey of a SMILES or molfile, or of an InChI (computed from its text): what
   * an exact search looks up, without the rest of a structure's record.
   */
  inchiKeyOf(input: string, what = 'structure'): string {
    const s = input.includes('\n') ? input : input.trim();
    if (s.startsWith('InChI=')) {
      const key: string = this.rdkit.get_inchikey_for_inchi(s);
      if (!key) throw badRequest(`the ${what} is not a readable InChI`);
      return key;
    }
    if (/\s/.test(s) && !s.includes('\n')) throw badRequest(`the ${what} contains white space: ${JSON.stringify(s.slice(0, 80))}`);
    return this.withMol(
      s,
      (mol) => {
        const inchi: string = mol.get_inchi();
        if (!inchi?.startsWith('InChI=')) throw badRequest(`no standard InChI can be computed for the ${what}`);
        return this.rdkit.get_inchikey_for_inchi(inchi);
      },
      what,
    );
  }

  /** A structure's molfile: the one it was given with, or its SMILES laid out in 2D (the same layout every time). */
  molfileOf(s: { molfile?: string; smiles: string }): string {
    if (s.molfile) return s.molfile;
    return this.withMol(s.smiles, (mol) => {
      mol.set_new_coords();
      return mol.get_molblock() as string;
    });
  }

  /** RDKit.js cannot read InChI: Indigo turns it into a molfile first. */
  fromInchi(inchi: string, what = 'InChI'): Structure {
    const s = inchi.trim();
    if (!/^InChI=1S?\//.test(s)) throw badRequest(`the ${what} is not an InChI (it must start with "InChI=1S/"): ${JSON.stringify(s.slice(0, 80))}`);
    const molfile = this.indigoConvert(s, 'molfile', what);
    return this.fromMolfile(molfile, what);
  }

  fromCml(cml: string, what = 'CML document'): Structure {
    if (!/<(cml|molecule)\b/.test(cml)) throw badRequest(`the ${what} is not CML (no <cml> or <molecule> element)`);
    return this.fromMolfile(this.indigoConvert(cml, 'molfile', what), what);
  }

  private indigoConvert(input: string, format: string, what: string): string {
    if (!this.indigo) throw new Error('this toolkit was loaded without Indigo');
    if (input.length > MAX_INPUT_CHARS) throw badRequest(`the ${what} is too large`);
    const options = new this.indigo.MapStringString();
    try {
      const out = this.indigo.convert(input, format, options);
      if (typeof out !== 'string' || !out.trim()) throw new Error('no output');
      return out;
    } catch (e) {
      throw badRequest(`the ${what} cannot be read: ${indigoMessage(e)}`);
    } finally {
      options.delete?.();
    }
  }

  /** Records of an SD file; record numbers (1-based) name the broken record in errors. */
  fromSdf(sdf: string): StructureRecord[] {
    const records = splitSdf(sdf);
    if (records.length === 0) throw badRequest('the SD file holds no records');
    return records.map((text, i) => {
      const what = `SDF record ${i + 1}`;
      const molfile = `${text.split(/\r?\nM {2}END/)[0]}\nM  END\n`;
      const fields = sdfFields(text);
      const name = text.split(/\r?\n/)[0].trim();
      return { structure: this.fromMolfile(molfile, what), name: name || undefined, fields };
    });
  }

  cml(molfile: string): string {
    return this.indigoConvert(molfile, 'cml', 'structure');
  }

  v3000(molfile: string): string {
    return this.withMol(molfile, (mol) => mol.get_v3Kmolblock());
  }

  svg(molfile: string, width = 300, height = 240): string {
    return this.withMol(molfile, (mol) => mol.get_svg(width, height));
  }

  png(molfile: string, width = 300, height = 240): Buffer {
    const svg = this.svg(molfile, width, height);
    return Buffer.from(new Resvg(svg, { background: 'white', fitTo: { mode: 'width', value: width } }).render().asPng());
  }

  /** Is the SMARTS pattern one atom that any atom matches (`*`): every compound matches it. */
  matchesEveryAtom(smarts: string): boolean {
    const q = this.queryMol(smarts);
    try {
      return q.get_num_atoms() === 1 && /^\[?\*\]?$/.test(smarts.trim());
    } finally {
      q.delete();
    }
  }

  /** Morgan (ECFP-like) fingerprint as packed bits. */
  morgan(smilesOrMolfile: string, radius = 2, nBits = 2048): Uint8Array {
    return this.withMol(smilesOrMolfile, (mol) => mol.get_morgan_fp_as_uint8array(JSON.stringify({ radius, nBits })));
  }

  /**
   * A substructure query for index entries: its pattern fingerprint (an entry lacking one of its
   * bits cannot match) and a match against an entry's pickle. `close` frees it.
   */
  substructureMatcher(smarts: string): { screen: Uint8Array; matchesPickle(pickle: Uint8Array): boolean; close(): void } {
    const q = this.queryMol(smarts);
    return {
      screen: Uint8Array.from(q.get_pattern_fp_as_uint8array(PATTERN_OPTIONS)),
      matchesPickle: (pickle) => {
        let mol: any = null;
        try {
          mol = this.rdkit.get_mol_from_uint8array(pickle);
          return !!mol && mol.get_substruct_match(q) !== '{}';
        } catch {
          return false;
        } finally {
          mol?.delete();
        }
      },
      close: () => q.delete(),
    };
  }

  /** A SMARTS pattern parsed, or 400 naming it. */
  private queryMol(smarts: string): any {
    if (smarts.length > MAX_INPUT_CHARS) throw badRequest(`the SMARTS pattern is too large (${smarts.length} characters)`);
    let q: any = null;
    try {
      q = smarts.trim() ? this.rdkit.get_qmol(smarts.trim()) : null;
    } catch {
      q = null;
    }
    if (!q?.is_valid()) {
      q?.delete();
      throw badRequest(`not a valid SMARTS pattern: ${JSON.stringify(smarts.slice(0, 80))}`);
    }
    return q;
  }
}

function splitSdf(sdf: string): string[] {
  return [...sdfRecords(sdf)];
}

/**
 * The records of an SD file one by one, without splitting the whole file at once. The line
 * break before and after each $$$$ belongs to the delimiter; a record's first line (its name)
 * may be empty and must be kept; blank records are skipped.
 */
export function* sdfRecords(sdf: string): Generator<string> {
  const delimiter = /\r?\n\$\$\$\$[^\n]*(?=\r?\n|$)/g;
  const text = `\n${sdf}`;
  let start = 1;
  for (;;) {
    const m = delimiter.exec(text);
    const end = m ? m.index : text.length;
    const record = text.slice(start, end).replace(start === 1 ? /^/ : /^\r?\n/, '');
    if (record.trim().length > 0) yield record;
    if (!m) return;
    start = m.index + m[0].length;
  }
}

/** The SD fields (`> <NAME>` blocks) of one record, trimmed. */
export function sdfFields(record: string): Record<string, string> {
  if (!/^>\s*</m.test(record)) return {};
  const parsed = parseSdf(`${record}\n$$$$\n`, { dynamicTyping: false } as any).molecules[0] as Record<string, unknown> | undefined;
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(parsed ?? {})) if (k !== 'molfile' && v !== undefined) fields[k] = String(v).trim();
  return fields;
}

function atomCoordinates(molfile: string): number[][] {
  const out: number[][] = [];
  for (const line of molfile.split(/\r?\n/)) {
    const v2000 = /^\s*(-?\d+\.\d+)\s+(-?\d+\.\d+)\s+(-?\d+\.\d+)\s+[A-Z*][a-z]?\b/.exec(line);
    if (v2000) out.push([Number(v2000[1]), Number(v2000[2]), Number(v2000[3])]);
  }
  return out;
}

function molfileHasCoordinates(molfile: string): boolean {
  const coords = atomCoordinates(molfile);
  return coords.length <= 1 || coords.some((c) => c.some((v) => Math.abs(v) > 1e-4));
}

/** Any atom line with a non-zero z coordinate (V2000 or V3000)? */
export function molfileHas3d(molfile: string): boolean {
  for (const line of molfile.split(/\r?\n/)) {
    const v2000 = /^\s*-?\d+\.\d+\s+-?\d+\.\d+\s+(-?\d+\.\d+)\s+[A-Z*][a-z]?\b/.exec(line);
    if (v2000 && Math.abs(Number(v2000[1])) > 1e-4) return true;
    const v3000 = /^M {2}V30 \d+ \S+ -?\d+\.?\d* -?\d+\.?\d* (-?\d+\.?\d*)/.exec(line);
    if (v3000 && Math.abs(Number(v3000[1])) > 1e-4) return true;
  }
  return false;
}

function indigoMessage(e: unknown): string {
  const text = typeof e === 'string' ? e : ((e as Error)?.message ?? String(e));
  return text.replace(/\s+/g, ' ').slice(0, 200);
}
