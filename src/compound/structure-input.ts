import type { ShapeValidator } from '../shacl/shape-validator.ts';
import { propertyValue } from '../rdf/graph-values.ts';
import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { readText, requestMediaType } from '../http/body.ts';
import { badRequest, unsupportedType } from '../core/errors.ts';
import { isRdfMediaType, parseRdf } from '../rdf/parse.ts';
import { ot, rdf, rdfs, dc, owl } from '../rdf/namespaces.ts';
import type { Chemistry, StructureRecord } from '../chemistry/chemistry.ts';
import { parseWith, type StructureInput, type StructureReader } from '../chemistry/structure-reader.ts';
import { nameTextProblem } from '../chemistry/structure-limits.ts';

export const STRUCTURE_INPUT_TYPES = ['chemical/x-daylight-smiles', 'chemical/x-inchi', 'chemical/x-mdl-molfile', 'chemical/x-mdl-sdfile', 'chemical/x-cml'];

export interface PostedStructure {
  structure: StructureRecord['structure'];
  names: string[];
  sameAs: string[];
  /** SD fields of the record (used by dataset upload). */
  fields: Record<string, string>;
}

/**
 * Read the structures of a request body, in any type of spec 4.10 or RDF (`text/plain`: chemical
 * names, one a line, which `read` resolves; see compound-names.ts). Every record is parsed before
 * anything is stored; an error names the record (line or SDF record number).
 */
export async function readStructures(ctx: Context, chemistry: Chemistry, shapes: ShapeValidator, bodyLimit: number, baseIri: string, read?: StructureReader): Promise<PostedStructure[]> {
  const type = requestMediaType(ctx);
  const isChemical = STRUCTURE_INPUT_TYPES.includes(type) || type === 'chemical/x-mdl-molfile' || type === 'text/plain';
  if (!isChemical && !isRdfMediaType(type)) {
    throw unsupportedType(`Content-Type ${type || '(none)'} is not a structure type; send one of ${STRUCTURE_INPUT_TYPES.join(', ')}, text/plain (chemical names) or an RDF type`);
  }
  const text = await readText(ctx, bodyLimit);
  if (!text.trim()) throw badRequest('the request body is empty: no structure');
  // every structure is measured (structure-limits.ts) and read by the toolkit, fresh after a crash
  await chemistry.ready();
  const plain = (r: StructureRecord): PostedStructure => ({ structure: r.structure, names: r.name ? [r.name] : [], fields: r.fields, sameAs: [] });
  const readAll = (inputs: StructureInput[]) => (read ? read(inputs) : parseWith(chemistry, inputs));
  switch (type) {
    case 'chemical/x-daylight-smiles': {
      // many lines are parsed on the worker pool (`read`), a few here
      const named = lines(text).map(({ line, n }) => {
        const [smiles, ...name] = line.split(/\s+/);
        return { input: { kind: 'smiles' as const, text: smiles, what: `SMILES on line ${n}` }, name: name.join(' ') || undefined };
      });
      const parsed = await readAll(named.map((x) => x.input));
      return parsed.map((r, i) => {
        if ('error' in r) throw badRequest(r.error);
        return plain({ structure: r.structure, name: named[i].name, fields: {} });
      });
    }
    case 'text/plain': {
      // chemical names (spec 4.10), one a line: each refused at once when it is too long or not one line of text
      const names = lines(text).map(({ line, n }): StructureInput => ({ kind: 'name', text: line, what: `the name on line ${n}` }));
      for (const name of names) {
        const problem = nameTextProblem(name.text, name.what);
        if (problem) throw badRequest(problem);
      }
      return (await readAll(names)).map((r) => {
        if ('error' in r) throw badRequest(r.error);
        return plain(r);
      });
    }
    case 'chemical/x-inchi':
      return lines(text).map(({ line, n }) => plain({ structure: chemistry.fromInchi(line, `InChI on line ${n}`), fields: {} }));
    case 'chemical/x-mdl-molfile': {
      const name = text.split(/\r?\n/)[0].trim();
      return [plain({ structure: chemistry.fromMolfile(text), name: name || undefined, fields: {} })];
    }
    case 'chemical/x-mdl-sdfile':
      return chemistry.fromSdf(text).map(plain);
    case 'chemical/x-cml':
      return [plain({ structure: chemistry.fromCml(text), fields: {} })];
    default:
      return fromRdf(await shapes.checked(await parseRdf(text, type, baseIri)), chemistry);
  }
}

function lines(text: string): { line: string; n: number }[] {
  return text
    .split(/\r?\n/)
    .map((line, i) => ({ line: line.trim(), n: i + 1 }))
    .filter(({ line }) => line.length > 0 && !line.startsWith('#'));
}

/** RDF bodies: each ot:Compound with an ot:smiles, ot:inchi or ot:molfile; names and sameAs kept. */
function fromRdf(quads: RDF.Quad[], chemistry: Chemistry): PostedStructure[] {
  const compounds = quads.filter((q) => q.predicate.equals(rdf('type')) && q.object.equals(ot('Compound'))).map((q) => q.subject);
  if (!compounds.length) throw badRequest('the RDF body describes no ot:Compound');
  return compounds.map((c, i) => {
    const value = (p: RDF.NamedNode) => propertyValue(quads, c, p);
    const what = `compound ${i + 1} of the RDF body`;
    const molfile = value(ot('molfile'));
    const inchi = value(ot('inchi'));
    const smiles = value(ot('smiles'));
    const structure = molfile ? chemistry.fromMolfile(molfile, what) : inchi ? chemistry.fromInchi(inchi, what) : smiles ? chemistry.fromSmiles(smiles, what) : undefined;
    if (!structure) throw badRequest(`${what} has no ot:molfile, ot:inchi or ot:smiles`);
    const names = quads.filter((q) => q.subject.equals(c) && (q.predicate.equals(rdfs('label')) || q.predicate.equals(dc('title')))).map((q) => q.object.value);
    const sameAs = quads.filter((q) => q.subject.equals(c) && q.predicate.equals(owl('sameAs')) && q.object.termType === 'NamedNode').map((q) => q.object.value);
    return { structure, names, fields: {}, sameAs };
  });
}
