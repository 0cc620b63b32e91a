import type * as RDF from '@rdfjs/types';
import { df, ot, owl, rdf, dc, dcterms, literal } from '../rdf/namespaces.ts';
import { describeResource, many, optional, required } from '../rdf/resource-description.ts';

/** A dataset's metadata graph as a typed record (spec 2.4). */
export interface DatasetMeta extends DatasetMetadata {
  uri: string;
  /** The whole metadata graph, for the representations. */
  quads: RDF.Quad[];
  title?: string;
}

/** What a dataset's metadata graph is written from. */
export interface DatasetMetadata {
  /** Dublin Core and other annotations of the dataset (everything but its own bookkeeping). */
  annotations: Annotation[];
  /** Feature URIs in column order. */
  features: string[];
  warnings: string[];
  /** dcterms:created, kept when a dataset is rewritten. */
  created?: Date;
  /** dcterms:modified: when its rows were last written (now, unless given). */
  modified?: Date;
  /**
   * A selection (`ot:rowsOf`): a dataset whose rows are rows of another, by reference: each of
   * its entries is `owl:sameAs` that dataset's entry, whose values are its own. Gone when the
   * dataset is rewritten (its rows then hold their values).
   */
  rowsOf?: string;
  /**
   * With `rowsOf`: the numbers of that dataset's entries the selection holds, in its row order,
   * as runs (see rowRuns); its entries graph is then empty. Without it, a selection's entries
   * graph holds an entry `owl:sameAs` each (selections made before 2026-11-26).
   */
  selectedRows?: string;
}

export type Annotation = [RDF.NamedNode, RDF.Term];

/**
 * A dataset's metadata graph described once (spec 2.4): what the server writes itself. Its
 * annotations (Dublin Core and any other property, `dc:title` among them) are written as given.
 */
export const datasetDescription = describeResource([ot('Dataset')], {
  identifier: required('text', dc('identifier')),
  created: required('date', dcterms('created')),
  /** When its rows were last written (a metadata PUT keeps it). */
  modified: optional('date', dcterms('modified')),
  /** Read only: written as an annotation. */
  title: optional('text', dc('title')),
  /** The column nodes (`{uri}#column-{n}`: ot:feature, ot:index). */
  columns: many('iri', ot('hasColumn')),
  warnings: many('text', ot('warning')),
  /** The rows, in the entries graph (`{uri}/entries`). */
  entries: many('iri', ot('dataEntry')),
  rowsOf: optional('iri', ot('rowsOf')),
  selectedRows: optional('text', ot('selectedRows')),
});

/** The properties the server writes itself: never annotations (a PUT of RDF metadata cannot set them). */
export const OWN = new Set([rdf('type'), ...Object.entries(datasetDescription.fields).flatMap(([name, f]) => (name === 'title' ? [] : [f.path]))].map((t) => t.value));

/** The record of a dataset's metadata graph; undefined when the graph is not a dataset's. */
export function datasetMeta(quads: RDF.Quad[], uri: string): DatasetMeta | undefined {
  if (!datasetDescription.isOne(quads, uri)) return undefined;
  const { title, columns, warnings, created, modified, rowsOf, selectedRows } = datasetDescription.decode(quads, uri);
  // each column node's feature and index, and the annotations, in one pass (a dataset may have thousands of columns)
  const featureOf = new Map<string, string>();
  const indexOf = new Map<string, string>();
  const annotations: Annotation[] = [];
  const feature = ot('feature').value;
  const index = ot('index').value;
  for (const q of quads) {
    const p = q.predicate.value;
    if (p === feature && !featureOf.has(q.subject.value)) featureOf.set(q.subject.value, q.object.value);
    else if (p === index && !indexOf.has(q.subject.value)) indexOf.set(q.subject.value, q.object.value);
    if (q.subject.value === uri && !OWN.has(p)) annotations.push([q.predicate as RDF.NamedNode, q.object]);
  }
  const features = columns
    .map((c) => ({ feature: featureOf.get(c), index: Number(indexOf.get(c)) }))
    .filter((c): c is { feature: string; index: number } => !!c.feature)
    .sort((a, b) => a.index - b.index)
    .map((c) => c.feature);
  return {
    uri,
    quads,
    title,
    features,
    warnings: inRowOrder(warnings),
    annotations,
    created,
    modified,
    rowsOf,
    selectedRows,
  };
}

/** The metadata graph of a dataset: its annotations, one ot:hasColumn per feature, its warnings. */
export function metadataQuads(uri: string, info: DatasetMetadata): RDF.Quad[] {
  const d = df.namedNode(uri);
  const column = (i: number) => `${uri}#column-${i + 1}`;
  return [
    ...datasetDescription.encode({
      uri,
      identifier: uri,
      created: info.created ?? new Date(),
      modified: info.modified ?? new Date(),
      columns: info.features.map((_, i) => column(i)),
      warnings: keptWarnings(info.warnings),
      rowsOf: info.rowsOf,
      selectedRows: info.rowsOf ? info.selectedRows : undefined,
    }),
    // an annotation never says what only the server may (ot:rowsOf, ot:selectedRows: which rows a selection shows)
    ...info.annotations.filter(([p]) => !OWN.has(p.value)).map(([p, o]) => df.quad(d, p, o as RDF.Quad_Object)),
    ...info.features.flatMap((f, i) => [df.quad(df.namedNode(column(i)), ot('feature'), df.namedNode(f)), df.quad(df.namedNode(column(i)), ot('index'), literal(i + 1))]),
  ];
}

/** Warnings a dataset keeps: every page and request reads its metadata, so a file with a bad column in each of 10^5 rows must not make 10^5 of them. */
export const MAX_WARNINGS = 500;

/**
 * Warnings in the order of the rows they name (`row 79` before `row 100`; the store gives them
 * back in the order of their text): notes that name no row first, the count of those not kept last.
 */
export function inRowOrder(warnings: string[]): string[] {
  const key = (w: string) => (/ more warning\(s\) not kept$/.test(w) ? Number.POSITIVE_INFINITY : Number(/^\w+ (\d+)\b/.exec(w)?.[1] ?? 0));
  return warnings
    .map((w) => ({ w, k: key(w) }))
    .sort((a, b) => a.k - b.k || (a.w < b.w ? -1 : a.w > b.w ? 1 : 0))
    .map((x) => x.w);
}

/** The first MAX_WARNINGS warnings, then one that counts the rest (a count already there is counted on). */
export function keptWarnings(warnings: string[]): string[] {
  if (warnings.length <= MAX_WARNINGS) return warnings;
  const counted = /^(\d+) more warning\(s\) not kept$/;
  const more = warnings.slice(MAX_WARNINGS).reduce((n, w) => n + Number(counted.exec(w)?.[1] ?? 1), 0);
  return [...warnings.slice(0, MAX_WARNINGS), `${more} more warning(s) not kept`];
}

const pad = (n: number) => String(n).padStart(8, '0');

/** The IRI of a dataset's entry (row) number `index` (`{uri}#entry-00000012`). */
export const entryIri = (uri: string, index: number) => `${uri}#entry-${pad(index)}`;

/** One row of a selection's entries graph: its compound and the entry of another dataset whose values it has (4 quads, whatever the columns). */
export function selectionEntryQuads(uri: string, entriesGraph: string, index: number, compound: string, sameAs: string): RDF.Quad[] {
  const row = entryQuads(uri, entriesGraph, index, compound, []);
  const { subject, graph } = row[1];
  return [...row, df.quad(subject, owl('sameAs'), df.namedNode(sameAs), graph)];
}

/** The dataset an entry IRI belongs to (`{dataset}#entry-00000012`). */
export const datasetOfEntry = (entry: string) => entry.slice(0, entry.lastIndexOf('#entry-'));

/** The number of an entry IRI (`{dataset}#entry-00000012`: 12); NaN for another IRI. */
export const entryNumber = (entry: string) => {
  const at = entry.lastIndexOf('#entry-');
  return at < 0 ? Number.NaN : Number(entry.slice(at + 7));
};

/** Entry numbers as runs: `1-120 122 125-300` (a number may come again: a bootstrap sample). */
export function rowRuns(numbers: number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < numbers.length; ) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j] + 1) j++;
    runs.push(j > i ? `${numbers[i]}-${numbers[j]}` : String(numbers[i]));
    i = j + 1;
  }
  return runs.join(' ');
}

/** The most entries a selection's runs may stand for (a run written by hand through SPARQL is not trusted). */
const MAX_SELECTED = 10_000_000;

/** The runs of rowRuns text, [first, last] each; tokens that are not runs of positive integers, or beyond MAX_SELECTED entries in all, are skipped. */
function runsOf(text: string): [number, number][] {
  const runs: [number, number][] = [];
  let total = 0;
  for (const token of text.split(/\s+/)) {
    const m = /^(\d{1,12})(?:-(\d{1,12}))?$/.exec(token);
    if (!m) continue;
    const first = Number(m[1]);
    const last = m[2] === undefined ? first : Number(m[2]);
    if (first < 1 || last < first || total + (last - first + 1) > MAX_SELECTED) continue;
    total += last - first + 1;
    runs.push([first, last]);
  }
  return runs;
}

/** The entry numbers of runs (rowRuns). */
export function parseRowRuns(text: string): number[] {
  const numbers: number[] = [];
  for (const [first, last] of runsOf(text)) for (let n = first; n <= last; n++) numbers.push(n);
  return numbers;
}

/** How many entries runs stand for, without listing them. */
export function rowRunsLength(text: string): number {
  return runsOf(text).reduce((n, [first, last]) => n + last - first + 1, 0);
}

/** One row of the entries graph (`{uri}/entries`, see DatasetStore). */
export function entryQuads(uri: string, entriesGraph: string, index: number, compound: string, values: [string, RDF.Literal][]): RDF.Quad[] {
  const e = df.namedNode(entryIri(uri, index));
  const g = df.namedNode(entriesGraph);
  return [
    df.quad(df.namedNode(uri), ot('dataEntry'), e, g),
    df.quad(e, ot('compound'), df.namedNode(compound), g),
    df.quad(e, ot('index'), literal(index), g),
    ...values.map(([f, v]) => df.quad(e, df.namedNode(f), v, g)),
  ];
}

/** New annotations replace old ones with the same property. */
export function mergeAnnotations(old: Annotation[], fresh: Annotation[]): Annotation[] {
  const replaced = new Set(fresh.map(([p]) => p.value));
  return [...old.filter(([p]) => !replaced.has(p.value)), ...fresh];
}
