import type * as RDF from '@rdfjs/types';
import { stringify } from 'yaml';
import { TimeSlices } from '../core/time-slices.ts';
import { dc, dcterms, ot, rdf, xsd } from '../rdf/namespaces.ts';
import { isNumericDatatype } from './columns.ts';
import type { DatasetRow } from './dataset-store.ts';

/**
 * A dataset in YAML (`text/x-yaml`), in the layout of the OpenTox Ruby services (opentox-ruby
 * 2.x, whose dataset service kept each dataset as this file): the dump of an
 * `OpenTox::Dataset` object, which their clients read back with `YAML.load` (`load_yaml`).
 *
 *     --- !ruby/object:OpenTox::Dataset
 *     uri: {dataset URI}
 *     metadata: {predicate URI: value, or a list of values}
 *     features: {feature URI: {predicate URI: value, or a list}}
 *     compounds: [compound URI, ...]
 *     data_entries: {compound URI: {feature URI: [value, ...]}}
 *
 * Reading it back: yaml-table.ts.
 */

/** The tag of the document: the Ruby class its clients load it as (without it, `load_yaml` gets a Hash and fails). */
export const RUBY_DATASET_TAG = '!ruby/object:OpenTox::Dataset';
/** The tags an uploaded document may carry at its root: the dataset class and its subclass for predictions. */
export const RUBY_DATASET_TAGS = [RUBY_DATASET_TAG, '!ruby/object:OpenTox::LazarPrediction'];

/** Media types of YAML: the interface's (`text/x-yaml`), the Ruby services' (`application/x-yaml`), and the registered ones. */
export const YAML_TYPES = ['text/x-yaml', 'application/x-yaml', 'text/yaml', 'application/yaml'];

/** Where the Ruby objects keep a resource's own URI in its metadata. */
export const ANY_URI = xsd('anyURI').value;
export const TITLES = [dc('title').value, dcterms('title').value];
export const UNITS = ot('units').value;
/** Properties always written as lists, as the Ruby parsers read them (a resource has several types; a nominal feature several values). */
const LISTS = new Set([rdf('type').value, ot('acceptValue').value]);
/** What the metadata leaves out: the columns and rows (they are the features and data entries), and which rows a selection shows. */
const NOT_METADATA = new Set([ot('hasColumn').value, ot('dataEntry').value, ot('rowsOf').value, ot('selectedRows').value]);

/** Values written per piece (one stringify), with a pause between pieces. */
const VALUES_PER_PIECE = 500;

/** One resource's properties as the Ruby objects keep them: predicate URI to value, several values as a list. */
export function rubyMetadata(quads: RDF.Quad[], subject: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const q of quads) {
    const p = q.predicate.value;
    if (q.subject.value !== subject || NOT_METADATA.has(p)) continue;
    const was = out[p];
    if (was === undefined) out[p] = LISTS.has(p) ? [q.object.value] : q.object.value;
    else out[p] = [...(Array.isArray(was) ? was : [was]), q.object.value];
  }
  return out;
}

/** A value as the Ruby parsers made it: numbers as numbers, xsd:boolean as true or false, anything else as text. */
function rubyValue(v: RDF.Literal): string | number | boolean {
  if (isNumericDatatype(v.datatype.value)) {
    const n = Number(v.value);
    return Number.isFinite(n) ? n : v.value;
  }
  if (v.datatype.value === xsd('boolean').value) return v.value === 'true' || v.value === '1';
  return v.value;
}

const indent = (text: string, spaces: string) => text.replace(/^(?!$)/gm, spaces);

/** A key of a block mapping on a line of its own, its value below it: explicit (`? key`) when it cannot be a plain one-line key. */
function keyLine(key: string, spaces: string): string {
  const plain = stringify(key).replace(/\n$/, '');
  return plain.includes('\n') || plain.length > 1000 ? `${spaces}? ${JSON.stringify(key)}\n${spaces}:\n` : `${spaces}${plain}:\n`;
}

/**
 * The YAML of a dataset, a piece at a time: its rows are read twice (`rows`), once for the list
 * of compounds and once for the data entries, so that memory holds the compounds' URIs and
 * never the rows. A compound in several rows has its values of all of them under its one key
 * (lists, as the Ruby services kept replicates), written at its last row.
 */
export async function* datasetYaml(meta: { uri: string; quads: RDF.Quad[] }, features: { uri: string; quads: RDF.Quad[] }[], rows: () => AsyncIterable<DatasetRow>): AsyncGenerator<string> {
  const slices = new TimeSlices();
  yield `--- ${RUBY_DATASET_TAG}\n`;
  yield stringify({ uri: meta.uri, metadata: { [ANY_URI]: meta.uri, ...rubyMetadata(meta.quads, meta.uri) } });
  yield features.length ? 'features:\n' : 'features: {}\n';
  for (let i = 0; i < features.length; i += VALUES_PER_PIECE) {
    yield indent(stringify(Object.fromEntries(features.slice(i, i + VALUES_PER_PIECE).map((f) => [f.uri, rubyMetadata(f.quads, f.uri)]))), '  ');
    await slices.pause();
  }
  // how many rows each compound has, from the first reading
  const left = new Map<string, number>();
  let listed: string[] = [];
  const listPiece = () => {
    const text = `${left.size > listed.length ? '' : 'compounds:\n'}${indent(stringify(listed), '  ')}`;
    listed = [];
    return text;
  };
  for await (const r of rows()) {
    const n = left.get(r.compound);
    left.set(r.compound, (n ?? 0) + 1);
    if (n !== undefined) continue;
    listed.push(r.compound);
    if (listed.length < VALUES_PER_PIECE) continue;
    yield listPiece();
    await slices.pause();
  }
  if (listed.length) yield listPiece();
  else if (!left.size) yield 'compounds: []\n';
  yield left.size ? 'data_entries:\n' : 'data_entries: {}\n';
  // the values of compounds whose last row is still to come
  const pending = new Map<string, Map<string, (string | number | boolean)[]>>();
  let piece: [string, Record<string, (string | number | boolean)[]>][] = [];
  let pieceValues = 0;
  const flush = () => {
    const text = piece.length ? indent(stringify(Object.fromEntries(piece)), '  ') : '';
    piece = [];
    pieceValues = 0;
    return text;
  };
  for await (const r of rows()) {
    const rest = (left.get(r.compound) ?? 1) - 1;
    left.set(r.compound, rest);
    let values = pending.get(r.compound);
    if (!values) pending.set(r.compound, (values = new Map()));
    for (const f of features) {
      const v = r.values.get(f.uri);
      if (!v) continue;
      const list = values.get(f.uri);
      if (list) list.push(rubyValue(v));
      else values.set(f.uri, [rubyValue(v)]);
    }
    if (rest > 0) continue;
    pending.delete(r.compound);
    // a compound without values is in the list of compounds only (as the Ruby objects kept it)
    if (!values.size) continue;
    if (values.size <= VALUES_PER_PIECE) {
      piece.push([r.compound, Object.fromEntries(values)]);
      pieceValues += values.size;
      if (pieceValues >= VALUES_PER_PIECE) yield flush();
    } else {
      // a row of thousands of columns: its key, then its values a piece at a time
      yield `${flush()}${keyLine(r.compound, '  ')}`;
      const all = [...values];
      for (let i = 0; i < all.length; i += VALUES_PER_PIECE) {
        yield indent(stringify(Object.fromEntries(all.slice(i, i + VALUES_PER_PIECE))), '    ');
        await slices.pause();
      }
    }
    await slices.pause();
  }
  yield flush();
}
