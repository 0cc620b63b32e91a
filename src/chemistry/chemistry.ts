import initRDKitModule from '@rdkit/rdkit';
import { Resvg } from '@resvg/resvg-js';
import { parse as parseSdf } from 'sdf-parser';
import { badRequest, HttpError } from '../core/errors.ts';
import { CRASH_WORDS, isWasmCrash } from '../task/worker-pool.ts';
import { standardise, type StandardisationOptions, type StandardisationResult } from './standardisation.ts';
import { checkStructureText, STRUCTURE_MAX_ATOMS, structureTextKind, tooManyAtoms } from './structure-limits.ts';

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

/** Atoms of a structure as parsed, at most (structure-limits.ts: its text is measured before). */
export const MAX_ATOMS = STRUCTURE_MAX_ATOMS;

async function loadRdkit(): Promise<any> {
  const r = await (initRDKitModule as any)();
  r.disable_logging();
  return r;
}

/** Indigo's module (16 MB of JavaScript with its WebAssembly inside) is read when Indigo is first loaded, not with this file. */
const loadIndigo = async (): Promise<any> => ((await import('indigo-ketcher')).default as any)();

type Toolkit = 'RDKit' | 'Indigo';

/** What a call answers when the toolkit crashed on it: 400 when its input is to blame, 500 when it is not. */
type OnCrash = (toolkit: Toolkit, reason: string) => HttpError;

/** A crash on an input (a structure or a pattern someone gave): 400, and the toolkit is fresh for the next call. */
const inputCrashed =
  (what: string, verb = 'read'): OnCrash =>
  (toolkit, reason) =>
    badRequest(`the ${what} could not be ${verb}: ${toolkit} failed on it (${reason}); the toolkit has been restarted`);

/** A SMILES as a structure is read from it: trimmed; 400 when empty or with white space inside. */
function checkSmilesText(smiles: string, what: string): string {
  const s = smiles.trim();
  if (!s) throw badRequest(`the ${what} is empty`);
  if (/\s/.test(s)) throw badRequest(`the ${what} contains white space: ${JSON.stringify(s.slice(0, 80))}`);
  return s;
}

/** A crash on a structure stored here (a depiction, a conversion): 500. */
const toolkitCrashed =
  (what: string): OnCrash =>
  (toolkit, reason) =>
    new HttpError(500, 'InternalError', `${toolkit} failed on the ${what} (${reason}); the toolkit has been restarted`);

/**
 * The chemistry toolkit, loaded once per process: RDKit.js (parsing, canonical SMILES,
 * InChI, molfiles, depiction, fingerprints) and Indigo (InChI and CML input, CML output),
 * PNG drawn from RDKit's SVG by resvg. Every RDKit molecule is freed after use.
 *
 * Every text is measured against structure-limits.ts before a toolkit reads it. Should a toolkit
 * crash all the same (a WebAssembly trap or stack overflow: its memory may be corrupt), that
 * instance is thrown away at once and a fresh one loaded; the call answers an HttpError (400 when
 * its input is to blame), whose message keeps the crash's words (CRASH_WORDS) so that a worker
 * pool also retires the thread; calls made while the fresh one loads answer 503 (`ready()` waits
 * for it instead).
 */
export class Chemistry {
  private rdkitNow: any;
  private indigoNow: any;
  private readonly withIndigo: boolean;
  /** Fresh toolkits being loaded after a crash. */
  private restarting?: Promise<void>;
  /** Counts the RDKit instances thrown away: what was made on one (a matcher's query) is not used with the next. */
  private generation = 0;
  private constructor(rdkit: any, withIndigo: boolean) {
    this.rdkitNow = rdkit;
    this.withIndigo = withIndigo;
  }

  private static loading?: Promise<Chemistry>;
  private static loadingRdkitOnly?: Promise<Chemistry>;

  /**
   * The toolkit, once per thread. Indigo (InChI and CML) takes about 200 MB of WebAssembly
   * memory and 0.2–0.4 s to load: it is loaded by the first `ready()` (every request path that
   * reads or writes structures waits for it), not when the server starts. `{ indigo: false }`
   * leaves it out where only SMILES and molfiles are read (the structure-parsing workers), and
   * its methods then refuse with an error.
   */
  static load(options: { indigo?: boolean } = {}): Promise<Chemistry> {
    if (options.indigo === false) {
      Chemistry.loadingRdkitOnly ??= (async () => new Chemistry(await loadRdkit(), false))();
      return Chemistry.loadingRdkitOnly;
    }
    Chemistry.loading ??= (async () => new Chemistry(await loadRdkit(), true))();
    return Chemistry.loading;
  }

  /** RDKit; 503 while a fresh one loads after a crash. */
  private get rdkit(): any {
    if (this.rdkitNow === undefined) throw restartingError();
    return this.rdkitNow;
  }

  private get indigo(): any {
    if (this.withIndigo && this.indigoNow === undefined) throw restartingError();
    return this.indigoNow;
  }

  /** Resolves when the toolkit can be used: at once, or when Indigo is loaded for the first time, or when the fresh one is loaded after a crash. */
  async ready(): Promise<void> {
    if (this.rdkitNow === undefined || (this.withIndigo && this.indigoNow === undefined)) this.restarting ??= this.reload();
    await this.restarting;
  }

  /** Loads what was thrown away, until nothing is missing (one may crash while the other loads). */
  private async reload(): Promise<void> {
    try {
      for (;;) {
        if (this.rdkitNow === undefined) this.rdkitNow = await loadRdkit();
        else if (this.withIndigo && this.indigoNow === undefined) this.indigoNow = await loadIndigo();
        else return;
      }
    } finally {
      this.restarting = undefined;
    }
  }

  /**
   * `work` on the toolkit. A crash of its WebAssembly throws that toolkit instance away (nothing
   * runs on it again: a fresh one is loaded) and answers `onCrash`; any other error is `work`'s own.
   */
  private guarded<T>(work: () => T, onCrash: OnCrash, toolkit: Toolkit = 'RDKit'): T {
    try {
      return work();
    } catch (e) {
      if (!isWasmCrash(e)) throw e;
      if (toolkit === 'RDKit') {
        this.rdkitNow = undefined;
        this.generation++;
      } else this.indigoNow = undefined;
      this.restarting ??= this.reload();
      // a failed load is tried again by the next ready()
      this.restarting.catch(() => undefined);
      throw onCrash(toolkit, `${CRASH_WORDS}: ${(e as Error).message}`);
    }
  }

  get rdkitVersion(): string {
    return this.rdkit.version();
  }

  /**
   * Run `work` on an RDKit molecule parsed from SMILES or a molfile, and free it. The input is
   * measured first (structure-limits.ts: 400 naming `what` beyond a limit).
   */
  withMol<T>(input: string, work: (mol: any) => T, what = 'structure', onCrash: OnCrash = inputCrashed(what)): T {
    checkStructureText(structureTextKind(input), input, what);
    return this.guarded(() => {
      let mol: any = null;
      try {
        mol = this.rdkit.get_mol(input);
      } catch (e) {
        if (isWasmCrash(e) || e instanceof HttpError) throw e;
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
    }, onCrash);
  }

  /** The molecule's atoms; 400 for none, or for more heavy atoms than MAX_ATOMS. */
  private countAtoms(mol: any, what: string): number {
    const atoms = mol.get_num_atoms();
    if (atoms === 0) throw badRequest(`the ${what} is empty (no atoms)`);
    const heavy: number = mol.get_num_atoms(true);
    if (heavy > MAX_ATOMS) throw badRequest(tooManyAtoms(what, heavy));
    return atoms;
  }

  private describe(mol: any, what: string): Structure {
    const atoms = this.countAtoms(mol, what);
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
    return this.guarded(() => standardise(this.rdkit, input, options), inputCrashed('structure', 'standardised'));
  }

  fromSmiles(smiles: string, what = 'SMILES'): Structure {
    return this.withMol(checkSmilesText(smiles, what), (mol) => this.describe(mol, what), what);
  }

  /**
   * `fromSmiles(smiles).searchable` (the same molecule, checks and fingerprints), without the
   * InChI, InChIKey and canonical SMILES that a registration also computes (two fifths of its
   * time): for the structure index built over compounds stored before it (index-store.ts), whose
   * identity is stored already.
   */
  searchableFromSmiles(smiles: string, what = 'SMILES'): Searchable {
    return this.withMol(
      checkSmilesText(smiles, what),
      (mol) => {
        this.countAtoms(mol, what);
        return this.searchableOf(mol);
      },
      what,
    );
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
      checkStructureText('inchi', s, what);
      const key: string = this.guarded(() => this.rdkit.get_inchikey_for_inchi(s), inputCrashed(what));
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
    return this.withMol(
      s.smiles,
      (mol) => {
        mol.set_new_coords();
        return mol.get_molblock() as string;
      },
      'structure',
      toolkitCrashed('structure'),
    );
  }

  /** RDKit.js cannot read InChI: Indigo turns it into a molfile first. */
  fromInchi(inchi: string, what = 'InChI'): Structure {
    const s = inchi.trim();
    if (!/^InChI=1S?\//.test(s)) throw badRequest(`the ${what} is not an InChI (it must start with "InChI=1S/"): ${JSON.stringify(s.slice(0, 80))}`);
    checkStructureText('inchi', s, what);
    const molfile = this.indigoConvert(s, 'molfile', what);
    return this.fromMolfile(molfile, what);
  }

  fromCml(cml: string, what = 'CML document'): Structure {
    if (!/<(cml|molecule)\b/.test(cml)) throw badRequest(`the ${what} is not CML (no <cml> or <molecule> element)`);
    checkStructureText('cml', cml, what);
    return this.fromMolfile(this.indigoConvert(cml, 'molfile', what), what);
  }

  private indigoConvert(input: string, format: string, what: string, onCrash: OnCrash = inputCrashed(what)): string {
    if (!this.withIndigo) throw new Error('this toolkit was loaded without Indigo');
    return this.guarded(
      () => {
        const indigo = this.indigo;
        const options = new indigo.MapStringString();
        try {
          const out = indigo.convert(input, format, options);
          if (typeof out !== 'string' || !out.trim()) throw new Error('no output');
          return out;
        } catch (e) {
          if (isWasmCrash(e)) throw e;
          throw badRequest(`the ${what} cannot be read: ${indigoMessage(e)}`);
        } finally {
          options.delete?.();
        }
      },
      onCrash,
      'Indigo',
    );
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
    return this.indigoConvert(molfile, 'cml', 'structure', toolkitCrashed('structure'));
  }

  v3000(molfile: string): string {
    return this.withMol(molfile, (mol) => mol.get_v3Kmolblock(), 'structure', toolkitCrashed('structure'));
  }

  svg(molfile: string, width = 300, height = 240): string {
    return this.withMol(molfile, (mol) => mol.get_svg(width, height), 'structure', toolkitCrashed('structure'));
  }

  png(molfile: string, width = 300, height = 240): Buffer {
    const svg = this.svg(molfile, width, height);
    return Buffer.from(new Resvg(svg, { background: 'white', fitTo: { mode: 'width', value: width } }).render().asPng());
  }

  /** Is the SMARTS pattern one atom that any atom matches (`*`): every compound matches it. */
  matchesEveryAtom(smarts: string, what = 'SMARTS pattern'): boolean {
    return this.guarded(() => {
      const q = this.queryMol(smarts, what);
      try {
        return q.get_num_atoms() === 1 && /^\[?\*\]?$/.test(smarts.trim());
      } finally {
        q.delete();
      }
    }, inputCrashed(what));
  }

  /** Morgan (ECFP-like) fingerprint as packed bits. */
  morgan(smilesOrMolfile: string, radius = 2, nBits = 2048, what = 'structure'): Uint8Array {
    return this.withMol(smilesOrMolfile, (mol) => mol.get_morgan_fp_as_uint8array(JSON.stringify({ radius, nBits })), what);
  }

  /**
   * A substructure query for index entries: its pattern fingerprint (an entry lacking one of its
   * bits cannot match) and a match against an entry's pickle. `close` frees it. After a crash it
   * is not used again (its query belongs to the RDKit thrown away): its methods throw.
   */
  substructureMatcher(smarts: string): { screen: Uint8Array; matchesPickle(pickle: Uint8Array): boolean; close(): void } {
    const onCrash = inputCrashed('SMARTS pattern', 'matched');
    const { q, screen } = this.guarded(() => {
      const q = this.queryMol(smarts);
      try {
        return { q, screen: Uint8Array.from(q.get_pattern_fp_as_uint8array(PATTERN_OPTIONS)) };
      } catch (e) {
        q.delete();
        throw e;
      }
    }, onCrash);
    const made = this.generation;
    const live = () => {
      if (made !== this.generation) throw new Error('this substructure matcher belongs to an RDKit thrown away after a crash');
      return this.rdkit;
    };
    return {
      screen,
      matchesPickle: (pickle) =>
        this.guarded(() => {
          const rdkit = live();
          let mol: any = null;
          try {
            mol = rdkit.get_mol_from_uint8array(pickle);
            return !!mol && mol.get_substruct_match(q) !== '{}';
          } catch (e) {
            if (isWasmCrash(e)) throw e;
            return false;
          } finally {
            mol?.delete();
          }
        }, onCrash),
      close: () => {
        if (made === this.generation) q.delete();
      },
    };
  }

  /** A SMARTS pattern parsed, or 400 naming it (beyond structure-limits.ts, or not SMARTS). */
  private queryMol(smarts: string, what = 'SMARTS pattern'): any {
    const pattern = smarts.trim();
    checkStructureText('smarts', pattern, what);
    let q: any = null;
    try {
      q = pattern ? this.rdkit.get_qmol(pattern) : null;
    } catch (e) {
      if (isWasmCrash(e) || e instanceof HttpError) throw e;
      q = null;
    }
    if (!q?.is_valid()) {
      q?.delete();
      throw badRequest(`not a valid SMARTS pattern: ${JSON.stringify(smarts.slice(0, 80))}`);
    }
    return q;
  }
}

/** What a call is told while a fresh toolkit loads after a crash (a moment). */
function restartingError(): HttpError {
  return new HttpError(503, 'ServiceUnavailable', 'the chemistry toolkit is being restarted after a failure; try again in a moment', undefined, { 'Retry-After': '1' });
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
