import type { Context } from 'koa';
import type * as RDF from '@rdfjs/types';
import { readBody, requestMediaType } from '../http/body.ts';
import { Params } from '../http/params.ts';
import { df, ot, rdf } from '../rdf/namespaces.ts';
import { isRdfMediaType, parseRdf } from '../rdf/parse.ts';
import type { ShapeValidator } from '../shacl/shape-validator.ts';
import { type Annotation, OWN } from './dataset-codec.ts';
import { annotationsOf } from './dataset-input.ts';
import { checkCell } from './table-limits.ts';

/** The form parameters that take rows from another dataset (a subset), or store a previewed file: such a form is no empty dataset. */
const SOURCE_PARAMS = ['dataset_uri', 'pending', 'compound_uris', 'feature_uris', 'where_feature', 'where_value', 'page', 'pagesize'];

/**
 * A `POST /dataset` that carries no rows, as the OpenTox Ruby services took it: no body at all
 * (no Content-Type), a form of metadata only (Dublin Core parameters, no dataset_uri or selection),
 * or RDF of a dataset without entries (its statements about the ot:Dataset, checked against its
 * shape). Answers the new dataset's annotations, to be filled by PUT later; undefined when the
 * request carries rows (an upload, a subset, a previewed file), which are read as they always were.
 * A typed upload that is empty (`text/csv` without a line) stays a mistake (400).
 */
export async function emptyDatasetMetadata(ctx: Context, form: Params | undefined, shapes: ShapeValidator, bodyLimit: number, base: string): Promise<Annotation[] | undefined> {
  if (form) return SOURCE_PARAMS.some((name) => form.has(name)) ? undefined : annotationsOf(form);
  const type = requestMediaType(ctx);
  if (type === 'multipart/form-data') return undefined;
  const body = await readBody(ctx, bodyLimit);
  if (!type) return body.some((b) => b > 0x20) ? undefined : annotationsOf(Params.fromQuery(ctx));
  if (!isRdfMediaType(type)) return undefined;
  // a body that names no entry in any syntax (read once more only then; one with entries is an upload)
  const text = body.toString('utf8');
  if (/[dD]ataEntry/.test(text) || !text.trim()) return undefined;
  return rdfMetadata(await parseRdf(text, type, base), base, shapes);
}

/** The statements of RDF without entries about its dataset (the node typed ot:Dataset, or `<>`); undefined when it describes none. */
async function rdfMetadata(quads: RDF.Quad[], base: string, shapes: ShapeValidator): Promise<Annotation[] | undefined> {
  if (quads.some((q) => q.predicate.equals(ot('dataEntry')) || (q.predicate.equals(rdf('type')) && q.object.equals(ot('DataEntry'))))) return undefined;
  const dataset = quads.find((q) => q.predicate.equals(rdf('type')) && q.object.equals(ot('Dataset')))?.subject ?? quads.find((q) => q.subject.value === base)?.subject;
  if (!dataset) return undefined;
  // the body describes a dataset, whether or not it says so
  await shapes.check([...quads, df.quad(dataset, rdf('type'), ot('Dataset'))]);
  // what the server writes itself (columns, entries, which rows a selection shows) is not the body's to set
  const own = quads.filter((q) => q.subject.equals(dataset) && q.predicate.termType === 'NamedNode' && !OWN.has(q.predicate.value));
  for (const q of own) if (q.object.termType === 'Literal') checkCell(q.object.value, `the dataset's ${q.predicate.value}`);
  return own.map((q) => [q.predicate as RDF.NamedNode, q.object]);
}
