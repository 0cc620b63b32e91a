import type * as RDF from '@rdfjs/types';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Parser } from 'n3';
import { df, owl, rdf } from '../rdf/namespaces.js';
import type { TripleStore } from '../store/triple-store.js';

/**
 * Load every Turtle file of `ontology/` into a graph named by the vocabulary's owl:Ontology
 * IRI. Replacing the graph makes the load idempotent: restarting never duplicates anything,
 * and an edited vocabulary file replaces its old version.
 */
export async function loadVocabularies(store: TripleStore, directory: string): Promise<string[]> {
  const graphs: Record<string, RDF.Quad[]> = {};
  for (const file of (await readdir(directory)).filter((f) => f.endsWith('.ttl')).sort()) {
    const quads = new Parser({ baseIRI: `file:///ontology/${file}`, factory: df as any }).parse(await readFile(join(directory, file), 'utf8')) as unknown as RDF.Quad[];
    const ontology = quads.find((q) => q.predicate.equals(rdf('type')) && q.object.equals(owl('Ontology')))?.subject;
    if (ontology?.termType !== 'NamedNode') throw new Error(`ontology/${file} declares no owl:Ontology IRI`);
    graphs[ontology.value] = quads;
  }
  await store.replaceGraphs(graphs);
  return Object.keys(graphs);
}
