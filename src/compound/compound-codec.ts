import type * as RDF from '@rdfjs/types';
import { df, ot, rdf, rdfs, owl, literal } from '../rdf/namespaces.ts';
import type { Structure } from '../chemistry/chemistry.ts';

/** A compound or conformer as stored: the typed record of its graph (spec 2.2, 4.8). */
export interface StoredStructure {
  uri: string;
  smiles: string;
  inchi: string;
  inchiKey: string;
  /** As given (with coordinates); none for a structure given without (see Chemistry.molfileOf). */
  molfile?: string;
  names: string[];
  sameAs: string[];
  parent?: string;
}

/** The graph of a compound (or, with `parent`, of one of its conformers). */
export function compoundQuads(uri: string, s: Pick<Structure, 'smiles' | 'inchi' | 'inchiKey' | 'molfile'>, names: string[], sameAs: string[], parent?: string): RDF.Quad[] {
  const c = df.namedNode(uri);
  const quads = [
    df.quad(c, rdf('type'), parent ? ot('Conformer') : ot('Compound')),
    df.quad(c, ot('smiles'), literal(s.smiles)),
    df.quad(c, ot('inchi'), literal(s.inchi)),
    df.quad(c, ot('inchiKey'), literal(s.inchiKey)),
    ...(s.molfile ? [df.quad(c, ot('molfile'), literal(s.molfile))] : []),
    ...names.map((n) => df.quad(c, rdfs('label'), literal(n))),
    ...sameAs.map((iri) => df.quad(c, owl('sameAs'), df.namedNode(iri))),
  ];
  if (parent) quads.push(df.quad(c, ot('parentCompound'), df.namedNode(parent)));
  return quads;
}

const SMILES = ot('smiles');
const MOLFILE = ot('molfile');
const INCHI = ot('inchi');
const INCHI_KEY = ot('inchiKey');
const PARENT = ot('parentCompound');
const SAME_AS = owl('sameAs');
const LABEL = rdfs('label');

/** The record of a compound's or conformer's graph; undefined when it holds no structure. */
export function structureFrom(quads: RDF.Quad[], uri: string): StoredStructure | undefined {
  const own = quads.filter((q) => q.subject.value === uri);
  const value = (p: RDF.NamedNode) => own.find((q) => q.predicate.value === p.value)?.object.value;
  const smiles = value(SMILES);
  const molfile = value(MOLFILE);
  if (smiles === undefined) return undefined;
  return {
    uri,
    smiles,
    molfile,
    inchi: value(INCHI) ?? '',
    inchiKey: value(INCHI_KEY) ?? '',
    names: readNames(own),
    sameAs: own.filter((q) => q.predicate.value === SAME_AS.value).map((q) => q.object.value),
    parent: value(PARENT),
  };
}

export function readNames(quads: RDF.Quad[]): string[] {
  return quads.filter((q) => q.predicate.value === LABEL.value).map((q) => q.object.value);
}

/** What stays of a deleted compound in `{uri}/key`: its InChIKey, so the structure gets its URI back. */
export function keyQuads(uri: string, inchiKey: string): RDF.Quad[] {
  return [df.quad(df.namedNode(uri), ot('inchiKey'), literal(inchiKey))];
}
