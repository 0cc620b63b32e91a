import type * as RDF from '@rdfjs/types';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Parser } from 'n3';
import { df, owl, rdf, rdfs } from '../rdf/namespaces.ts';
import type { TripleStore } from '../store/triple-store.ts';

/** The vocabularies of `ontology/` as parsed: their quads by owl:Ontology IRI, and the labels of their terms. */
export interface Vocabularies {
  quads: Record<string, RDF.Quad[]>;
  labels: Map<string, string>;
}

/**
 * Parse every Turtle file of `directory` (the store is not needed: a server parses them while its
 * store opens). Each file's graph is named by the vocabulary's owl:Ontology IRI. A server
 * restarted in the same process (the tests) is given the same parse.
 */
export function readVocabularies(directory: string): Promise<Vocabularies> {
  let reading = read.get(directory);
  if (!reading) {
    reading = parseVocabularies(directory);
    read.set(directory, reading);
    reading.catch(() => read.delete(directory));
  }
  return reading;
}

/** The vocabularies parsed, by directory: once per process (they change only with a new version, that is, a new process); nobody changes what is kept here. */
const read = new Map<string, Promise<Vocabularies>>();

async function parseVocabularies(directory: string): Promise<Vocabularies> {
  const files = (await readdir(directory)).filter((f) => f.endsWith('.ttl')).sort();
  const texts = await Promise.all(files.map((file) => readFile(join(directory, file), 'utf8')));
  const quads: Record<string, RDF.Quad[]> = {};
  const labels = new Map<string, string>();
  files.forEach((file, i) => {
    const parsed = new Parser({ baseIRI: `file:///ontology/${file}`, factory: df as any }).parse(texts[i]) as unknown as RDF.Quad[];
    const ontology = parsed.find((q) => q.predicate.equals(rdf('type')) && q.object.equals(owl('Ontology')))?.subject;
    if (ontology?.termType !== 'NamedNode') throw new Error(`ontology/${file} declares no owl:Ontology IRI`);
    quads[ontology.value] = parsed;
    for (const q of parsed) if (q.predicate.equals(rdfs('label')) && q.subject.termType === 'NamedNode' && !labels.has(q.subject.value)) labels.set(q.subject.value, q.object.value);
  });
  return { quads, labels };
}

/**
 * Write the vocabularies, each to its graph. Replacing the graph makes the load idempotent:
 * restarting never duplicates anything, and an edited vocabulary file replaces its old version.
 */
export async function writeVocabularies(store: TripleStore, vocabularies: Vocabularies): Promise<void> {
  await store.replaceGraphs(vocabularies.quads);
}

/**
 * Load every Turtle file of `ontology/` into a graph named by the vocabulary's owl:Ontology
 * IRI (readVocabularies, then writeVocabularies). Answers the graphs and the labels of their
 * terms (pages name properties by them).
 */
export async function loadVocabularies(store: TripleStore, directory: string): Promise<{ graphs: string[]; labels: Map<string, string> }> {
  const vocabularies = await readVocabularies(directory);
  await writeVocabularies(store, vocabularies);
  return { graphs: Object.keys(vocabularies.quads), labels: vocabularies.labels };
}
