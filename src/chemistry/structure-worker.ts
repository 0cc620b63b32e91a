import { Chemistry, type Searchable, type Structure } from './chemistry.ts';

/**
 * Structure parsing as a pure function of text, for worker threads (each thread loads its own
 * RDKit and Indigo once): thousands of structures of an upload are parsed off the main thread,
 * in parallel, while the server keeps answering.
 */
export interface StructureInput {
  /** `name`: a chemical name, resolved to SMILES before parsing (readingNames in structure-reader.ts). */
  kind: 'smiles' | 'inchi' | 'sdf-record' | 'name';
  text: string;
  /** How an error names the input ("structure", "SDF record 3"). */
  what: string;
}

export type StructureResult = { structure: Structure; name?: string; fields: Record<string, string> } | { error: string };

export async function parseStructures(inputs: StructureInput[]): Promise<StructureResult[]> {
  // Indigo (about 200 MB per thread) only for InChI; SMILES and SD records need RDKit alone
  const chemistry = await Chemistry.load({ indigo: inputs.some((i) => i.kind === 'inchi') });
  const results: StructureResult[] = [];
  for (const input of inputs) {
    // a structure the toolkit crashed on fails its row; the rows after it are read by a fresh toolkit
    await chemistry.ready();
    results.push(...parseWith(chemistry, [input]));
  }
  return results;
}

export type SearchableResult = { searchable: Searchable } | { error: string };

/**
 * What the structure index keeps of stored structures, from their SMILES (`Chemistry.searchableFromSmiles`),
 * or why one could not be read: the index built over compounds stored before it.
 */
export async function searchableOfSmiles(inputs: StructureInput[]): Promise<SearchableResult[]> {
  const chemistry = await Chemistry.load({ indigo: false });
  const results: SearchableResult[] = [];
  for (const input of inputs) {
    // as parseStructures: a structure the toolkit crashed on fails alone
    await chemistry.ready();
    try {
      results.push({ searchable: chemistry.searchableFromSmiles(input.text, input.what) });
    } catch (e) {
      results.push({ error: (e as Error).message });
    }
  }
  return results;
}

/** The same with a toolkit already loaded (the main thread's, for a few structures). */
export function parseWith(chemistry: Chemistry, inputs: StructureInput[]): StructureResult[] {
  return inputs.map((input): StructureResult => {
    try {
      if (input.kind === 'name') return { error: `${input.what} ${JSON.stringify(input.text.slice(0, 200))} is read as a structure only by POST /compound and dataset uploads` };
      if (input.kind === 'smiles') return { structure: chemistry.fromSmiles(input.text, input.what), fields: {} };
      if (input.kind === 'inchi') return { structure: chemistry.fromInchi(input.text, input.what), fields: {} };
      const [record] = chemistry.fromSdf(`${input.text}\n$$$$\n`);
      return record;
    } catch (e) {
      return { error: (e as Error).message };
    }
  });
}

/** SVG pictures of structures given as SMILES (none for an empty or unreadable one), for pages that show structures that are not compounds here. */
export async function depictSmiles(smiles: string[], width: number, height: number): Promise<(string | undefined)[]> {
  const chemistry = await Chemistry.load({ indigo: false });
  const pictures: (string | undefined)[] = [];
  for (const s of smiles) {
    await chemistry.ready();
    try {
      pictures.push(s ? chemistry.svg(s, width, height) : undefined);
    } catch {
      pictures.push(undefined);
    }
  }
  return pictures;
}
