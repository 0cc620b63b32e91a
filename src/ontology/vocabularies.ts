import type * as RDF from '@rdfjs/types';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Parser } from 'n3';
import { df, owl, rdf, rdfs } from '../rdf/namespaces.ts';
import type { TripleStore } from '../store/triple-store.ts';

/**
 * Load every Turtle file of `ontology/` into a graph named by the vocabulary's owl:Ontology
 * IRI. Replacing the graph makes the load idempotent: restarting never duplicates anything,
 * and an edited vocabulary file replaces its old version. Answers the graphs and the labels of
 * their terms (pages name properties by them).
 */
export async function loadVocabularies(store: TripleStore, directory: string): Promise<{ graphs: string[]; labels: Map<string, string> }> {
  const graphs: Record<string, RDF.Quad[]> = {};
  const labels = new Map<string, string>();
  for (const file of (await readdir(directory)).filter((f) => f.endsWith('.ttl')).sort()) {
    const quads = new Parser({ baseIRI: `file:///ontology/${file}`, factory: df as any }).parse(await readFile(join(directory, file), 'utf8')) as unknown as RDF.Quad[];
    const ontology = quads.find((q) => q.predicate.equals(rdf('type')) && q.object.equals(owl('Ontology')))?.subject;
    if (ontology?.termType !== 'NamedNode') throw new Error(`ontology/${file} declares no owl:Ontology IRI`);
    graphs[ontology.value] = quads;
    for (const q of quads) if (q.predicate.equals(rdfs('label')) && q.subject.termType === 'NamedNode' && !labels.has(q.subject.value)) labels.set(q.subject.value, q.object.value);
  }
  await store.replaceGraphs(graphs);
  return { graphs: Object.keys(graphs), labels };
}
